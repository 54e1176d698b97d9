# Shared by the shell test suites (sourced): psql, and the check that every
# populated view equals its query.  They run against the cluster in
# PGHOST/PGPORT.
bindir=/usr/lib/postgresql/15/bin
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1)

# check_views DB: every populated view equals its query (multisets);
# raises an error naming the first view that differs.
check_views() {
    "${psql[@]}" -d "$1" -At <<'SQL'
DO $$
DECLARE v record; extra bigint; missing bigint;
BEGIN
    FOR v IN SELECT name, query_view FROM ivm.views WHERE populated ORDER BY name::text LOOP
        EXECUTE format('SELECT (SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s) x),
                               (SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s) y)',
                       v.name, v.query_view, v.query_view, v.name) INTO extra, missing;
        IF extra <> 0 OR missing <> 0 THEN
            RAISE EXCEPTION 'view % differs from its query: % extra, % missing rows', v.name, extra, missing;
        END IF;
    END LOOP;
END $$;
SQL
}
