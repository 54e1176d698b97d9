#!/usr/bin/env bash
# Extension upgrades: for every upgrade script ivm--A--B.sql, a database
# made at version A (views of every kind, from test/dump/views.sql) is
# updated with ALTER EXTENSION ivm UPDATE to the default version; its views
# must still equal their queries, be maintained on the next changes, and
# the extension's objects must equal those of a fresh CREATE EXTENSION.
# The database has a logical replication subscription (never connected):
# the update gives its views' base tables the triggers that log what an
# apply worker writes.
# Runs against the cluster in PGHOST/PGPORT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

fail() { echo "upgrade: $*"; exit 1; }
recreate() { "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"; }

current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$root/ivm.control")
recreate ivm_upgrade_fresh
"${psql[@]}" -d ivm_upgrade_fresh -c "CREATE EXTENSION ivm"
"${psql[@]}" -d ivm_upgrade_fresh -At -f "$here/schema.sql" >"$work/fresh.txt"

tested=0
for script in "$root"/ivm--*--*.sql; do
    from=$(basename "$script" .sql | sed 's/^ivm--\(.*\)--.*$/\1/')
    db=ivm_upgrade_from_${from//./_}
    recreate "$db"
    "${psql[@]}" -d "$db" -c "CREATE EXTENSION ivm VERSION '$from'" -f "$root/test/dump/views.sql" >/dev/null
    "${psql[@]}" -d "$db" -f "$root/test/dump/changes.sql" >/dev/null
    check_views "$db" || fail "from $from: a view differs from its query before the update"
    "${psql[@]}" -d "$db" -c "SET client_min_messages = error" -c "CREATE SUBSCRIPTION ivm_upgrade_sub CONNECTION 'dbname=ivm_nowhere' PUBLICATION p WITH (connect = false)"
    "${psql[@]}" -d "$db" -c "ALTER EXTENSION ivm UPDATE"
    logging=$("${psql[@]}" -d "$db" -At -c "SELECT count(*) FROM pg_trigger WHERE tgname = 'ivm_log_row'")
    [ "$logging" -gt 0 ] || fail "from $from: after the update no base table logs what a subscription's apply worker writes"
    version=$("${psql[@]}" -d "$db" -At -c "SELECT extversion FROM pg_extension WHERE extname = 'ivm'")
    [ "$version" = "$current" ] || fail "from $from: ALTER EXTENSION ivm UPDATE reached $version, not $current"
    # (less the change logs the subscription's triggers write, which a fresh
    # database without views has not)
    "${psql[@]}" -d "$db" -At -f "$here/schema.sql" | grep -v '^table ivm\.changes_[0-9]* ' >"$work/upgraded.txt"
    diff -u "$work/fresh.txt" "$work/upgraded.txt" \
        || fail "from $from: the updated extension's objects differ from a fresh install's (lines above)"
    check_views "$db" || fail "from $from: a view differs from its query after the update"
    "${psql[@]}" -d "$db" -f "$here/changes.sql" >/dev/null
    check_views "$db" || fail "from $from: a view was not maintained after the update"
    "${psql[@]}" -d "$db" -c "ALTER SUBSCRIPTION ivm_upgrade_sub DISABLE" -c "ALTER SUBSCRIPTION ivm_upgrade_sub SET (slot_name = NONE)" \
        -c "DROP SUBSCRIPTION ivm_upgrade_sub"
    "${psql[@]}" -d postgres -c "DROP DATABASE $db"
    tested=$((tested + 1))
done
"${psql[@]}" -d postgres -c "DROP DATABASE ivm_upgrade_fresh"
[ "$tested" -gt 0 ] || fail "no upgrade script ivm--A--B.sql found"
echo "upgrade: $tested previous version(s) updated to $current, the same objects as a fresh install, views maintained"
