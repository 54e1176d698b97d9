# Shared by the shell test suites (sourced): psql, and the check that every
# populated view equals its query.  They run against the cluster in
# PGHOST/PGPORT.
bindir=/usr/lib/postgresql/15/bin
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1)

# Runs a shell command as the postgres OS user (the server refuses root).
as_postgres() { su postgres -s /bin/sh -c "$1"; }

# postgres_dir PREFIX: a new directory /tmp/PREFIX.XXXXXX of the postgres
# OS user's alone, for a throwaway cluster's data and socket; prints it.
postgres_dir() {
    local dir
    dir=$(mktemp -d "/tmp/$1.XXXXXX")
    chown postgres: "$dir"
    chmod 700 "$dir"
    echo "$dir"
}

# check_views DB [as-is]: every populated view equals its query
# (multisets), a deferred one once its logged changes are applied (on a
# primary, unless as-is; a standby shows what the primary applied); raises
# an error naming the first view that differs.
check_views() {
    "${psql[@]}" -d "$1" -At -c "SET ivm_test.as_is = '${2:-}'" -f - <<'SQL'
DO $$
DECLARE v record; extra bigint; missing bigint;
BEGIN
    -- (ivm.views has no column deferred before 0.4)
    FOR v IN SELECT name FROM ivm.views x WHERE populated AND (to_jsonb(x) ->> 'deferred')::boolean
                                            AND NOT pg_is_in_recovery()
                                            AND current_setting('ivm_test.as_is') = '' ORDER BY name::text LOOP
        PERFORM ivm.refresh_view(v.name::text);
    END LOOP;
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
