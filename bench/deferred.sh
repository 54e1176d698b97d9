#!/usr/bin/env bash
# ivm deferred-apply benchmark: what a deferred view's apply costs against
# recomputing it.
#
# Usage: bench/deferred.sh   (./run.sh bench-deferred)
#
# Runs against a RUNNING PostgreSQL 15 server with the ivm extension
# installed, reached through PGHOST, PGPORT, PGUSER (database
# ivm_bench_deferred, dropped and recreated, dropped at the end).  The
# benchmark's W1 (accounts: IVM_BENCH_ACCOUNTS rows, default 1,000,000,
# bid = 1 + (aid-1) % 100, JOIN branches: 100 rows) as a deferred ivm view
# and as a materialized view of the same query.  For each batch size in
# IVM_DEFERRED_BATCHES (default 10000 100000): that many one-row UPDATEs of
# random accounts (pgbench, one client), each logged; then, IVM_DEFERRED_ROUNDS
# times (default 3) alternating, the apply (ivm.refresh_view) and REFRESH
# MATERIALIZED VIEW, each in its own transaction (the apply rolled back and
# the changes made anew for the next round, so each round applies the same
# size); median ms.  The view is checked against its query after the last
# apply.  Also the writers' tps with the deferred view, with the view
# immediate and with none, alternating (IVM_DEFERRED_SECONDS each, default 5).
# Prints a Markdown table on stdout.
set -euo pipefail
PGBIN=${IVM_BENCH_PGBIN:-/usr/lib/postgresql/15/bin}
ACCOUNTS=${IVM_BENCH_ACCOUNTS:-1000000}
BATCHES=${IVM_DEFERRED_BATCHES:-10000 100000}
ROUNDS=${IVM_DEFERRED_ROUNDS:-3}
SECONDS_PER_RUN=${IVM_DEFERRED_SECONDS:-5}
DB=ivm_bench_deferred
psql=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB")
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ms of the statement between BEGIN and ROLLBACK: timed "SQL"
timed() { "${psql[@]}" -c '\timing on' -c "BEGIN" -c "$1" -c "ROLLBACK" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sed -n 2p; }

"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
log "loading $ACCOUNTS accounts"
"${psql[@]}" <<SQL >/dev/null
CREATE EXTENSION ivm;
CREATE TABLE branches (bid int PRIMARY KEY, bbalance int NOT NULL DEFAULT 0);
CREATE TABLE accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL DEFAULT 0, filler char(84));
INSERT INTO branches SELECT g FROM generate_series(1, 100) g;
INSERT INTO accounts SELECT g, 1 + (g - 1) % 100, 0, '' FROM generate_series(1, $ACCOUNTS) g;
CREATE TABLE plain_accounts (LIKE accounts INCLUDING ALL);  -- the same, read by no view
INSERT INTO plain_accounts SELECT * FROM accounts;
VACUUM ANALYZE branches, accounts, plain_accounts;
SET client_min_messages = warning;
SELECT ivm.create_view('w1', 'SELECT a.aid, a.bid, a.abalance, b.bbalance FROM accounts a JOIN branches b ON a.bid = b.bid', deferred => true);
CREATE MATERIALIZED VIEW w1_mv AS SELECT a.aid, a.bid, a.abalance, b.bbalance FROM accounts a JOIN branches b ON a.bid = b.bid;
VACUUM ANALYZE w1__ivm_data, w1_mv;
SQL
cat >"$tmp/update.sql" <<EOF2
\set aid random(1, $ACCOUNTS)
UPDATE accounts SET abalance = abalance + 1 WHERE aid = :aid;
EOF2
sed 's/UPDATE accounts/UPDATE plain_accounts/' "$tmp/update.sql" >"$tmp/plain.sql"
updates() { "$PGBIN/pgbench" -n -c 1 "$@" -f "$tmp/update.sql" "$DB" 2>&1; }

declare -A apply refresh
for n in $BATCHES; do
    for round in $(seq "$ROUNDS"); do
        updates -t "$n" --random-seed="$round" >/dev/null
        pending=$("${psql[@]}" -At -c "SELECT pending_changes FROM ivm.views WHERE name = 'w1'::regclass")
        a=$(timed "SELECT ivm.refresh_view('w1')")
        r=$(timed "REFRESH MATERIALIZED VIEW w1_mv")
        apply[$n]="${apply[$n]:-} $a" refresh[$n]="${refresh[$n]:-} $r"
        log "$n updates ($pending log rows), round $round: apply $a ms, REFRESH $r ms"
        "${psql[@]}" -c "SELECT ivm.refresh_view('w1')" -c "VACUUM ANALYZE accounts, w1__ivm_data" >/dev/null
    done
done
differ=$("${psql[@]}" -At -c "SELECT (SELECT count(*) FROM (SELECT * FROM w1 EXCEPT ALL SELECT * FROM w1__ivm_query) x) + (SELECT count(*) FROM (SELECT * FROM w1__ivm_query EXCEPT ALL SELECT * FROM w1) y)")

declare -A writers
for round in $(seq "$ROUNDS"); do
    for cfg in deferred immediate none; do
        script=$tmp/update.sql
        case $cfg in
            deferred) "${psql[@]}" -c "SELECT ivm.set_deferred('w1', true)" >/dev/null ;;
            immediate) "${psql[@]}" -c "SELECT ivm.set_deferred('w1', false)" >/dev/null ;;
            none) script=$tmp/plain.sql ;;
        esac
        t=$("$PGBIN/pgbench" -n -c 1 -T "$SECONDS_PER_RUN" -f "$script" "$DB" 2>&1 | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
        writers[$cfg]="${writers[$cfg]:-} $t"
        log "writers, $cfg, round $round: $t tps"
    done
done
"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE $DB"

echo "ivm deferred apply: W1's join view ($ACCOUNTS accounts), one-row UPDATEs of random accounts logged, then applied;" \
     "median of $ROUNDS rounds, each in its own transaction; after the last apply the view differs from its query by $differ rows."
echo
echo "| logged UPDATEs | apply ms | REFRESH ms | REFRESH/apply |"
echo "|---:|---:|---:|---:|"
for n in $BATCHES; do
    a=$(median <<<"${apply[$n]}") r=$(median <<<"${refresh[$n]}")
    awk -v n="$n" -v a="$a" -v r="$r" 'BEGIN { printf "| %d | %.0f | %.0f | %.1fx |\n", n, a, r, a ? r / a : 0 }'
done
echo
d=$(median <<<"${writers[deferred]}") i=$(median <<<"${writers[immediate]}") z=$(median <<<"${writers[none]}")
awk -v d="$d" -v i="$i" -v z="$z" 'BEGIN { printf "Writers, one client, one-row UPDATEs (median tps of %s-second runs): no view %.0f, deferred view %.0f (%.2fx), immediate view %.0f (%.2fx).\n", "'"$SECONDS_PER_RUN"'", z, d, z ? d / z : 0, i, z ? i / z : 0 }'
