#!/usr/bin/env bash
# Concurrent writers: pgbench clients run short transactions of random
# inserts, updates and deletes on the base tables of views of every main
# kind, at each isolation level, retrying serialization failures and
# deadlocks as an application would (--max-tries); afterwards every view
# must equal its query, and no client may have met a deadlock (40P01): the
# line reports what the retries were, among them the writers of a view that
# would wait for each other, which fail with 40001 at once ("writer
# cycles"; test/isolation/specs/parallel_writers.spec asserts them one by one).  Runs against the cluster in PGHOST/PGPORT, with or
# without ivm in shared_preload_libraries (run.sh runs it both ways).
#   test/concurrent/run.sh [clients] [seconds per level]
# IVM_CONCURRENT_OPTIONS: more server options for the clients (run.sh runs
# it twice more with ivm.rebuild_fraction = 0: every change rebuilds its
# views, once with ivm.swap_min_tuples = 0, by heap swap where it can, once
# in place, as these small views are by default).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
clients=${1:-4}
seconds=${2:-5}
db=ivm_concurrent
preload=$("${psql[@]}" -d postgres -At -c "SHOW shared_preload_libraries")

failed=0
for level in "read committed" "repeatable read" "serializable"; do
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    "${psql[@]}" -d $db -c "CREATE EXTENSION ivm" -f "$here/views.sql" >/dev/null
    out=$(PGOPTIONS="-c default_transaction_isolation=${level// /\\ } ${IVM_CONCURRENT_OPTIONS:-}" \
          "$bindir/pgbench" -n -c "$clients" -T "$seconds" --max-tries=50 --random-seed=7 --verbose-errors \
              -f "$here/writes.pgbench" "$db" 2>&1) || { tail -n 20 <<<"$out"; failed=1; continue; }
    # what the retries were: ivm's writers that would wait for each other
    # (40001 at once), other serialization failures, deadlocks
    errors=$(grep -c "got an error" <<<"$out" || true)
    cycles=$(grep -c "concurrent writers of view" <<<"$out" || true)
    serialization=$(grep -c "could not serialize" <<<"$out" || true)
    deadlocks=$(grep -c "deadlock detected" <<<"$out" || true)
    done_tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
    retried=$(sed -n 's/^number of transactions retried: \([0-9]*\).*/\1/p' <<<"$out")
    lost=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out")
    if check_views $db >/dev/null; then verdict="views equal their queries"
    else verdict="A VIEW DIFFERS"; failed=1; fi
    echo "concurrent: $level, $clients clients, ${seconds} s (preload '${preload}'${IVM_CONCURRENT_OPTIONS:+, $IVM_CONCURRENT_OPTIONS}): $done_tx transactions," \
         "${retried:-0} retried after $errors errors ($cycles writer cycles, $((serialization - cycles)) other 40001, $deadlocks 40P01)," \
         "${lost:-0} failed after retries; $verdict"
    [ "${done_tx:-0}" -gt 0 ] || { tail -n 20 <<<"$out"; failed=1; }
    # ivm's locks leave no deadlock to PostgreSQL's detector
    [ "$deadlocks" -eq 0 ] || { grep -m 5 "deadlock detected" <<<"$out"; failed=1; }
done
"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db"
[ "$failed" -eq 0 ]
