#!/usr/bin/env bash
# The background worker that applies deferred views (ivm.apply_interval,
# shared_preload_libraries = 'ivm'): with the interval set, a deferred
# view's logged changes are applied without anyone calling
# ivm.refresh_view, in two databases, by a worker pg_stat_activity shows;
# a database without ivm is passed over; an apply that fails is logged and
# the other views are still applied; with the interval off, changes stay
# pending.  Without the preload there is no worker: the changes stay
# pending whatever the interval (schedule ivm.refresh_view instead).
# Runs against the cluster in PGHOST/PGPORT; sets ivm.apply_interval with
# ALTER SYSTEM and resets it on exit.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

fail() { echo "apply worker: $*"; exit 1; }
set_interval() {
    "${psql[@]}" -d postgres -c "LOAD 'ivm'" -c "ALTER SYSTEM SET ivm.apply_interval = '$1'" -c "SELECT pg_reload_conf()" >/dev/null
}
cleanup() {
    set_interval 0 || true
    for db in ivm_apply_a ivm_apply_b ivm_apply_none; do
        "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
pending() {  # pending DB: the change rows its deferred views have yet to apply
    "${psql[@]}" -d "$1" -At -c "SELECT coalesce(sum(pending_changes), 0) FROM ivm.views WHERE deferred"
}

preloaded=$("${psql[@]}" -d postgres -At -c "SELECT current_setting('shared_preload_libraries') ~ '(^|[ ,])ivm($|[ ,])'")
for db in ivm_apply_a ivm_apply_b ivm_apply_none; do
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
done
for db in ivm_apply_a ivm_apply_b; do
    "${psql[@]}" -d "$db" >/dev/null <<'SQL'
CREATE EXTENSION ivm;
CREATE TABLE r (a int, b int);
CREATE TABLE s (c int PRIMARY KEY, d int);
INSERT INTO r SELECT g, g % 10 FROM generate_series(1, 100) g;
INSERT INTO s SELECT g, g * 10 FROM generate_series(0, 9) g;
SELECT ivm.create_view('j', 'SELECT r.a, s.d FROM r JOIN s ON r.b = s.c', deferred => true);
SELECT ivm.create_view('g', 'SELECT b, count(*) AS n, sum(a) AS total FROM r GROUP BY b', deferred => true);
SQL
done

write() {  # write DB: a change of every kind to the deferred views' tables
    "${psql[@]}" -d "$1" >/dev/null <<'SQL'
INSERT INTO r SELECT g, g % 10 FROM generate_series(101, 150) g;
UPDATE r SET a = a + 1000 WHERE b = 3;
DELETE FROM r WHERE a < 20;
UPDATE s SET d = d + 1 WHERE c IN (2, 5);
SQL
}

# The interval off: nothing applies the changes.
write ivm_apply_a
sleep 2
[ "$(pending ivm_apply_a)" -gt 0 ] || fail "changes were applied with ivm.apply_interval off"

set_interval 1
if [ "$preloaded" != t ]; then
    sleep 3
    [ "$(pending ivm_apply_a)" -gt 0 ] || fail "changes were applied without shared_preload_libraries"
    echo "apply worker: without shared_preload_libraries no worker runs; changes stay pending for ivm.refresh_view"
    exit 0
fi

write ivm_apply_b
wait_applied() {  # wait_applied DB VIEWS...: until those views have nothing pending (30 s at most)
    local db=$1; shift
    local list; list=$(printf "'%s'," "$@"); list=${list%,}
    for _ in $(seq 1 60); do
        [ "$("${psql[@]}" -d "$db" -At -c "SELECT coalesce(sum(pending_changes), 0) FROM ivm.views WHERE name::text IN ($list)")" = 0 ] \
            && return 0
        sleep 0.5
    done
    fail "$db: views $* still have pending changes after 30 s"
}
wait_applied ivm_apply_a j g
wait_applied ivm_apply_b j g
check_views ivm_apply_a as-is || fail "a view differs from its query after the worker's apply"
check_views ivm_apply_b as-is || fail "a view differs from its query after the worker's apply"

# Seen in pg_stat_activity while it runs (the launcher always).
"${psql[@]}" -d postgres -At -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'ivm apply launcher'" | grep -qx 1 \
    || fail "no 'ivm apply launcher' in pg_stat_activity"

# A failing apply is logged; the other views of its database still apply.
"${psql[@]}" -d ivm_apply_b >/dev/null <<'SQL'
CREATE FUNCTION boom(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN IF $1 = 424242 THEN RAISE EXCEPTION 'boom'; END IF; RETURN $1; END $$;
SELECT ivm.create_view('fails', 'SELECT boom(a) AS x FROM r', deferred => true);
INSERT INTO r VALUES (424242, 1), (500, 5);
SQL
wait_applied ivm_apply_b j g
[ "$("${psql[@]}" -d ivm_apply_b -At -c "SELECT pending_changes > 0 FROM ivm.views WHERE name = 'fails'::regclass")" = t ] \
    || fail "the failing view's changes did not stay pending"
"${psql[@]}" -d ivm_apply_b -c "DELETE FROM r WHERE a = 424242" >/dev/null
wait_applied ivm_apply_b fails j g
check_views ivm_apply_b as-is || fail "a view differs from its query once its apply could succeed"

# Off again: changes stay pending.
set_interval 0
sleep 2
write ivm_apply_a
sleep 3
[ "$(pending ivm_apply_a)" -gt 0 ] || fail "changes were applied after ivm.apply_interval was set off"
echo "apply worker: deferred views applied every ivm.apply_interval in two databases, a failing view logged and left pending, none applied when off"
