#!/usr/bin/env bash
# Dump and restore: a database with views of every kind is dumped with
# pg_dump (custom and plain format) and restored into fresh databases with
# pg_restore and psql; the restored views must have the same contents, be
# listed in ivm.views, and be maintained on the next changes.
# Runs against the cluster in PGHOST/PGPORT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

# Every view's rows, sorted, and the catalog as users see it.
contents() {
    "${psql[@]}" -d "$1" -At <<'SQL'
SELECT name, algorithm, populated, base_relations, deferred FROM ivm.views ORDER BY name::text;
DO $$
DECLARE v record; rows text;
BEGIN
    FOR v IN SELECT name FROM ivm.views WHERE populated ORDER BY name::text LOOP
        EXECUTE format('SELECT string_agg(t::text, '';'' ORDER BY t::text) FROM %s t', v.name) INTO rows;
        RAISE WARNING '% = %', v.name, rows;
    END LOOP;
END $$;
SQL
}

fail() { echo "dump and restore: $*"; exit 1; }

for db in ivm_dump_source ivm_dump_custom ivm_dump_plain; do
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
done
"${psql[@]}" -d ivm_dump_source -c "CREATE EXTENSION ivm" -f "$here/views.sql" -f "$here/deferred.sql" >/dev/null
"$bindir/pg_dump" -d ivm_dump_source -Fc -f "$work/source.dump"
"$bindir/pg_dump" -d ivm_dump_source -f "$work/source.sql"
"$bindir/pg_restore" --exit-on-error -d ivm_dump_custom "$work/source.dump"
"${psql[@]}" -d ivm_dump_plain -f "$work/source.sql" >/dev/null

contents ivm_dump_source >"$work/source.txt" 2>&1
for db in ivm_dump_custom ivm_dump_plain; do
    contents $db >"$work/$db.txt" 2>&1
    diff -u "$work/source.txt" "$work/$db.txt" || fail "$db: views differ from the dumped database's"
    check_views $db || fail "$db: a restored view differs from its query"
    "${psql[@]}" -d $db -f "$here/changes.sql" >/dev/null
    check_views $db || fail "$db: a view was not maintained after the restore"
    # (a recursive query ivm evaluates itself: its query view only reads its items)
    differ=$("${psql[@]}" -d $db -At -c "SELECT count(*) FROM ((SELECT * FROM reach EXCEPT SELECT * FROM closure2) UNION ALL (SELECT * FROM closure2 EXCEPT SELECT * FROM reach)) d")
    [ "$differ" = 0 ] || fail "$db: the non-linear closure differs from the linear one by $differ rows"
    # the dependency records are back: DROP TABLE ... CASCADE takes the views
    "${psql[@]}" -d $db -c "DROP TABLE dept CASCADE"
    left=$("${psql[@]}" -d $db -At -c "SELECT count(*) FROM pg_class WHERE relname IN ('staff__ivm_data', 'unstaffed__ivm_data', 'Pay by dept__ivm_data')")
    [ "$left" = 0 ] || fail "$db: DROP TABLE dept CASCADE left $left storage tables"
done
views=$(grep -c '|' "$work/source.txt")
for db in ivm_dump_source ivm_dump_custom ivm_dump_plain; do
    "${psql[@]}" -d postgres -c "DROP DATABASE $db"
done
echo "dump and restore: $views views restored with pg_restore and with psql, equal and maintained"
