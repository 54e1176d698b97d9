#!/usr/bin/env bash
# Read replicas: a hot standby of the cluster in PGHOST/PGPORT (taken with
# pg_basebackup, streaming, on a private socket and a free port) serves
# every view.  pgbench writers change the views' base tables on the
# primary; once the standby has replayed their WAL, every view on the
# standby must equal its query there, and what would write (refresh_view)
# must fail as any write does on a standby (25006), leaving nothing behind.
# Run as root, as run.sh runs it (the standby runs as the postgres OS user).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
db=ivm_replica
views=$here/../concurrent/views.sql
writes=$here/../concurrent/writes.pgbench
primary_port=${PGPORT:-5432}
preload=$("${psql[@]}" -d postgres -At -c "SHOW shared_preload_libraries")

work=$(postgres_dir ivm-standby)
stop_standby() {
    as_postgres "$bindir/pg_ctl -D '$work/data' -m immediate stop" >/dev/null 2>&1 || true
    rm -rf "$work"
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
}
trap stop_standby EXIT
fail() { echo "read replica: $*"; [ -f "$work/standby.log" ] && tail -n 20 "$work/standby.log"; exit 1; }

"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
"${psql[@]}" -d $db -c "CREATE EXTENSION ivm" -f "$views" >/dev/null

as_postgres "$bindir/pg_basebackup -h '$PGHOST' -p $primary_port -U postgres -D '$work/data' -R -X stream --checkpoint=fast --no-sync" \
    || fail "pg_basebackup failed"
standby_port=$((primary_port + 1 + RANDOM % 1000))
as_postgres "$bindir/pg_ctl -D '$work/data' -l '$work/standby.log' -w -o \"-k '$work' -p $standby_port -c listen_addresses='' -c hot_standby=on -c shared_preload_libraries='$preload'\" start" \
    >/dev/null || fail "the standby did not start"
on_standby() { PGHOST=$work PGPORT=$standby_port "$@"; }

# Writes on the primary, then wait until the standby has replayed them.
"$bindir/pgbench" -n -c 2 -T 3 --max-tries=50 --random-seed=11 -f "$writes" $db >/dev/null 2>&1 \
    || fail "the writers failed"
# The deferred views applied on the primary: the standby replays that too.
"${psql[@]}" -d $db -At -c "SELECT ivm.refresh_view(name::text) FROM ivm.views WHERE deferred" >/dev/null \
    || fail "applying the deferred views failed"
lsn=$("${psql[@]}" -d $db -At -c "SELECT pg_current_wal_lsn()")
for _ in $(seq 300); do
    replayed=$(on_standby "${psql[@]}" -d $db -At -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn" 2>/dev/null || true)
    [ "$replayed" = t ] && break
    sleep 0.1
done
[ "$replayed" = t ] || fail "the standby did not replay $lsn in 30 s"

[ "$(on_standby "${psql[@]}" -d $db -At -c "SELECT pg_is_in_recovery()")" = t ] || fail "the standby is not in recovery"
count=$(on_standby "${psql[@]}" -d $db -At -c "SELECT count(*) FROM ivm.views WHERE populated")
[ "$count" -gt 0 ] || fail "no views on the standby"
on_standby check_views $db >/dev/null || fail "a view on the standby differs from its query"
on_standby "${psql[@]}" -d $db -At -c "SELECT count(*) FROM ivm.explain_view('c_join')" >/dev/null \
    || fail "explain_view failed on the standby"
# What writes fails as on any standby, and the view stays as it was.
before=$(on_standby "${psql[@]}" -d $db -At -c "SELECT count(*) FROM c_join")
on_standby "${psql[@]}" -d $db -At <<'SQL' || fail "refresh_view on the standby did not fail with 25006"
DO $$
BEGIN
    PERFORM ivm.refresh_view('c_join');
    RAISE EXCEPTION 'refresh_view ran on a standby';
EXCEPTION WHEN read_only_sql_transaction THEN NULL;
END $$;
SQL
[ "$(on_standby "${psql[@]}" -d $db -At -c "SELECT count(*) FROM c_join")" = "$before" ] \
    || fail "c_join changed on the standby"
echo "read replica: $count views on a streaming standby (preload '$preload') equal their queries after the primary's writes"
