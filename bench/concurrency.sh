#!/usr/bin/env bash
# ivm concurrency benchmark: throughput of many writers.
#
# Usage: bench/concurrency.sh   (./run.sh bench-concurrency starts a cluster with fsync on)
#
# Runs against a RUNNING PostgreSQL 15 server with the ivm extension installed,
# reached through PGHOST, PGPORT, PGUSER.  Each configuration gets a database
# of its own (ivm_concurrency_<config>, dropped and recreated) holding
# accounts (100,000 rows, bid = 1 + aid % 100) and branches (100 rows); each
# transaction is a one-row UPDATE of a random account's abalance.
# Configurations: none (no view), join (ivm view of accounts JOIN branches,
# the benchmark's W1 query) and agg (ivm view of count(*), sum(abalance) by
# bid), the same two with ivm.parallel_writers = off (one writer at a time),
# agg_trigger (the aggregate kept in a plain table by a hand-written row
# trigger, PostgreSQL's own way: what one-row-per-group updates cost
# without ivm), join_deferred and agg_deferred (the two views deferred:
# the writers only log their rows, and one more session applies the view
# with ivm.refresh_view once a second during the run), and the same two as
# pg_ivm IMMVs where pg_ivm is installed (loaded per session through
# session_preload_libraries).  For clients 1, 2, 4, 8, 16:
# IVM_CONC_ROUNDS (default 5) rounds, each running every configuration in
# turn for IVM_CONC_SECONDS (default 4) seconds at READ COMMITTED, so that a
# machine whose speed drifts during the run slows all configurations alike;
# the median tps of each (IVM_CONC_CONFIGS and IVM_CONC_CLIENTS pick fewer).
# Then, at REPEATABLE READ with 8 clients and no
# retries, the fraction of transactions that failed with a serialization
# error.  Prints Markdown tables on stdout; the server's fsync setting is in
# the header.
set -euo pipefail
PGBIN=${IVM_BENCH_PGBIN:-/usr/lib/postgresql/15/bin}
SECONDS_PER_RUN=${IVM_CONC_SECONDS:-4}
ROUNDS=${IVM_CONC_ROUNDS:-5}
DB=ivm_concurrency
CLIENTS=${IVM_CONC_CLIENTS:-1 2 4 8 16}
psql=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make_database() {  # make_database DB: the tables, loaded and analyzed
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
    "${psql[@]}" -d "$1" <<'SQL'
CREATE EXTENSION ivm;
CREATE TABLE branches (bid int PRIMARY KEY, bbalance int NOT NULL DEFAULT 0);
CREATE TABLE accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL DEFAULT 0, filler char(84));
INSERT INTO branches SELECT g FROM generate_series(1, 100) g;
INSERT INTO accounts SELECT g, 1 + g % 100, 0, '' FROM generate_series(1, 100000) g;
VACUUM ANALYZE branches, accounts;
SQL
}
cat >"$tmp/update.sql" <<'EOF2'
\set aid random(1, 100000)
UPDATE accounts SET abalance = abalance + 1 WHERE aid = :aid;
EOF2
fsync=$("${psql[@]}" -d postgres -At -c "SHOW fsync")
preload=$("${psql[@]}" -d postgres -At -c "SHOW shared_preload_libraries")

declare -A query=(
    [join]="SELECT a.aid, a.bid, a.abalance, b.bbalance FROM accounts a JOIN branches b ON a.bid = b.bid"
    [agg]="SELECT bid, count(*) AS n, sum(abalance) AS total FROM accounts GROUP BY bid"
)
have_pg_ivm=$("${psql[@]}" -d postgres -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_ivm'")
# join_serial, agg_serial: the same views with ivm.parallel_writers = off,
# one writer at a time (each holds the storage EXCLUSIVE), as ivm was
# before writers ran together: the one-client cost of running together.
configs="none join agg join_serial agg_serial agg_trigger join_deferred agg_deferred"
[ "$have_pg_ivm" = 1 ] && configs="$configs pg_ivm_join pg_ivm_agg"
configs=${IVM_CONC_CONFIGS:-$configs}  # (a subset, e.g. "none join_deferred agg_deferred")
setup() {  # setup CONFIG: its database, with the view of that configuration
    local db=${DB}_$1
    make_database "$db"
    case $1 in
        none) ;;
        agg_trigger)
            "${psql[@]}" -d "$db" <<'SQL'
CREATE TABLE totals (bid int PRIMARY KEY, n bigint NOT NULL, total bigint NOT NULL);
INSERT INTO totals SELECT bid, count(*), sum(abalance) FROM accounts GROUP BY bid;
-- the benchmark only updates abalance
CREATE FUNCTION keep_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE totals SET total = total + NEW.abalance - OLD.abalance WHERE bid = NEW.bid;
    RETURN NULL;
END $$;
CREATE TRIGGER keep_totals AFTER UPDATE OF abalance ON accounts FOR EACH ROW EXECUTE FUNCTION keep_totals();
VACUUM ANALYZE totals;
SQL
            ;;
        pg_ivm_*)
            "${psql[@]}" -d "$db" -c "CREATE EXTENSION pg_ivm"
            PGOPTIONS="-c session_preload_libraries=pg_ivm" "${psql[@]}" -d "$db" -c "SET client_min_messages = warning" \
                -c "SELECT pgivm.create_immv('p_view', \$q\$${query[${1#pg_ivm_}]}\$q\$)" >/dev/null
            "${psql[@]}" -d "$db" -c "VACUUM ANALYZE p_view" ;;
        *_deferred)
            "${psql[@]}" -d "$db" -c "SET client_min_messages = warning" \
                -c "SELECT ivm.create_view('v_$1', \$q\$${query[${1%_deferred}]}\$q\$, deferred => true)" >/dev/null
            "${psql[@]}" -d "$db" -c "VACUUM ANALYZE v_$1__ivm_data" ;;
        *)
            "${psql[@]}" -d "$db" -c "SET client_min_messages = warning" -c "SELECT ivm.create_view('v_$1', \$q\$${query[${1%_serial}]}\$q\$)" >/dev/null
            "${psql[@]}" -d "$db" -c "VACUUM ANALYZE v_$1__ivm_data" ;;
    esac
}
run() {  # run CONFIG CLIENTS [pgbench options]: prints pgbench's output
    local cfg=$1 c=$2 options=""
    shift 2
    [ "${cfg#pg_ivm_}" != "$cfg" ] && options="-c session_preload_libraries=pg_ivm"
    [ "${cfg%_serial}" != "$cfg" ] && options="-c ivm.parallel_writers=off"
    local applier=""
    if [ "${cfg%_deferred}" != "$cfg" ]; then  # the deferred view applied once a second meanwhile
        (while :; do "${psql[@]}" -d "${DB}_$cfg" -c "SELECT ivm.refresh_view('v_$cfg')" >/dev/null 2>&1; sleep 1; done) &
        applier=$!
    fi
    PGOPTIONS="${PGOPTIONS:-} $options" "$PGBIN/pgbench" -n -c "$c" -j "$(( c < 2 ? 1 : 2 ))" -T "$SECONDS_PER_RUN" \
        -f "$tmp/update.sql" "$@" "${DB}_$cfg" 2>&1 || true
    if [ -n "$applier" ]; then kill "$applier" 2>/dev/null; wait "$applier" 2>/dev/null || true; fi
}
tps() { sed -n 's/^tps = \([0-9.]*\) .*/\1/p'; }

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A result serial samples
for cfg in $configs; do
    setup "$cfg"
done
for c in $CLIENTS; do
    for round in $(seq "$ROUNDS"); do
        for cfg in $configs; do
            t=$(run "$cfg" "$c" | tps)
            samples[$cfg,$c]="${samples[$cfg,$c]:-} $t"
            log "$cfg, $c clients, round $round: $t tps"
        done
    done
    for cfg in $configs; do result[$cfg,$c]=$(median <<<"${samples[$cfg,$c]}"); done
done
for cfg in $configs; do
    # (pgbench exits non-zero when a client meets an error other than a
    # serialization failure: that is reported, not fatal)
    out=$(PGOPTIONS="-c default_transaction_isolation=repeatable\\ read" run "$cfg" 8 --failures-detailed) || true
    done_tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
    failed=$(sed -n 's/^number of serialization failures: \([0-9]*\).*/\1/p' <<<"$out")
    serial[$cfg]=$(awk -v f="${failed:-0}" -v d="${done_tx:-0}" 'BEGIN { printf "%.1f%%", (f + d) ? 100 * f / (f + d) : 0 }')
    error=$(grep -m1 -o 'ERROR: .*' <<<"$out" || true)
    [ -n "$error" ] && serial[$cfg]="${serial[$cfg]} (clients stopped by $error)"
    log "$cfg, REPEATABLE READ, 8 clients: ${failed:-0} serialization failures, ${done_tx:-0} committed (${serial[$cfg]})"
done
for cfg in $configs; do
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS ${DB}_$cfg"
done

echo "ivm concurrency benchmark: one-row UPDATEs of random accounts (100,000 accounts, 100 branches)," \
     "median of $ROUNDS interleaved runs of ${SECONDS_PER_RUN} s, fsync=$fsync, shared_preload_libraries='$preload'; tps at READ COMMITTED."
echo
header="| clients | none tps | ivm join tps | ivm agg tps | join, one at a time | agg, one at a time | agg by a row trigger | join deferred | agg deferred |"
rule="|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
[ "$have_pg_ivm" = 1 ] && header="$header pg_ivm join tps | pg_ivm agg tps |" && rule="$rule---:|---:|"
echo "$header join/none | agg/none | join deferred/none | agg deferred/none |"
echo "$rule---:|---:|---:|---:|"
for c in $CLIENTS; do
    n=${result[none,$c]:-} j=${result[join,$c]:-} a=${result[agg,$c]:-} js=${result[join_serial,$c]:-} as=${result[agg_serial,$c]:-}
    at=${result[agg_trigger,$c]:-} jd=${result[join_deferred,$c]:-} ad=${result[agg_deferred,$c]:-}
    extra=""
    [ "$have_pg_ivm" = 1 ] && extra=$(printf ' %.0f | %.0f |' "${result[pg_ivm_join,$c]:-}" "${result[pg_ivm_agg,$c]:-}")
    awk -v c="$c" -v n="$n" -v j="$j" -v a="$a" -v js="$js" -v as="$as" -v at="$at" -v jd="$jd" -v ad="$ad" -v extra="$extra" \
        'BEGIN { printf "| %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |%s %.2f | %.2f | %.2f | %.2f |\n", c, n, j, a, js, as, at, jd, ad, extra, n ? j / n : 0, n ? a / n : 0, n ? jd / n : 0, n ? ad / n : 0 }'
done
echo
pg_ivm_serial=""
[ "$have_pg_ivm" = 1 ] && pg_ivm_serial=", pg_ivm join ${serial[pg_ivm_join]:-}, pg_ivm agg ${serial[pg_ivm_agg]:-}"
echo "REPEATABLE READ, 8 clients, no retries: transactions failed with 40001: none ${serial[none]:-}," \
     "ivm join ${serial[join]:-}, ivm agg ${serial[agg]:-}, one at a time: join ${serial[join_serial]:-}," \
     "agg ${serial[agg_serial]:-}, agg by a row trigger ${serial[agg_trigger]:-}, deferred: join ${serial[join_deferred]:-}," \
     "agg ${serial[agg_deferred]:-}${pg_ivm_serial}."
