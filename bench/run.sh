#!/usr/bin/env bash
# ivm benchmark: latency of base-table changes under three configurations.
#
# Usage:
#   bench/run.sh [--short] [--help]
#
# Runs against a RUNNING PostgreSQL 15 server with the ivm extension installed,
# reached through the usual libpq variables (PGHOST, PGPORT, PGUSER; the
# database ivm_bench is DROPPED and recreated, then dropped again at the end
# unless IVM_BENCH_KEEP=1).  Progress goes to stderr; stdout gets one Markdown
# table: for each workload and op the average latency per transaction in
#   none     the base tables alone, no view (the floor),
#   refresh  a CREATE MATERIALIZED VIEW, with REFRESH MATERIALIZED VIEW run in
#            the same transaction after the change,
#   ivm      a view made by ivm.create_view, maintained by its triggers,
# and the ratios ivm/none (the cost of maintenance) and refresh/ivm (how many
# times faster than refreshing ivm is; below 1 means slower).
#
# Workloads (sizes at scale 1; every size below is multiplied by the scale):
#   W1 join       accounts (1,000,000 rows, bid = 1 + (aid-1) % 100) JOIN
#                 branches (100 rows): one-row UPDATE of abalance (random aid);
#                 INSERT + DELETE of one new account in one transaction;
#                 UPDATE of one branch's bbalance (10,000 view rows change).
#   W2 aggregate  SELECT bid, count(*), sum, avg, max(abalance) ... GROUP BY bid
#                 on the same accounts: one-row UPDATE; UPDATE of a range of
#                 10,000 consecutive aids.
#   W3 recursion  transitive closure of a random DAG of 5,000 nodes (node n > 1
#                 has one parent below it, and a second one with probability
#                 1/2; setseed(0.42): 7,429 edges, 170,934 pairs at scale 1).
#                 edges(src, dst) has PRIMARY KEY (src, dst) and an index on
#                 dst; edge_list (id serial, src, dst) holds the original edges.
#                 Ops, each statement its own transaction: INSERT of a new edge
#                 (random src < random dst, not an edge already), then DELETE of
#                 it; DELETE of a random existing edge, then its re-INSERT.
#   W4 bulk       W1's view: INSERT of 100,000 new accounts in one statement,
#                 then DELETE of them (two transactions, reported apart).
#   S sizes       W1's view under one statement changing 1%, 10%, 50% and 100%
#                 of accounts (INSERT of new accounts, UPDATE of abalance,
#                 DELETE), each in a transaction rolled back after it (with the
#                 REFRESH for refresh), the median of 3, VACUUM between them;
#                 printed as its own table and chart (IVM_BENCH_SIZES_CHART).
# Every view's creation is timed too (ivm.create_view against CREATE
# MATERIALIZED VIEW of the same query; a table of its own).
# No index on accounts(bid): an ivm maintenance that must read a whole branch
# or group (W1 branch update, W2 with max) scans accounts.
#
# Each measurement is a pgbench run (-n -r -f script -t N --random-seed, one
# client, simple query mode) preceded by a one-transaction warm-up that also
# estimates N: N = IVM_BENCH_SECONDS / warm-up latency, clamped to
# [IVM_BENCH_MIN_TX, IVM_BENCH_MAX_TX].  A script with several transactions
# (W3, W4) is split into transactions (BEGIN ... COMMIT, or one statement) by
# pgbench's per-statement latencies.  Before each configuration the base tables
# are rewritten (VACUUM FULL ANALYZE: every configuration starts from the same
# compact tables), after creating a view its storage is VACUUM ANALYZEd; only one
# configuration is active at a time.  After the ivm runs of each workload the
# view is compared with its query (EXCEPT ALL both ways).
#
# Environment:
#   IVM_BENCH_SCALE=1        size multiplier (accounts rows, W3 nodes, range
#                            width, bulk size); e.g. 0.1
#   IVM_BENCH_SHORT=1        same as --short: scale 0.1, 1 s per measurement,
#                            2..10000 transactions; about a minute
#   IVM_BENCH_SECONDS=15     target duration of one measurement
#   IVM_BENCH_MIN_TX=5       fewest transactions (scripts) per measurement
#   IVM_BENCH_MAX_TX=20000   most transactions (scripts) per measurement
#   IVM_BENCH_TX=N           fixed -t N for none and ivm (no estimate)
#   IVM_BENCH_REFRESH_TX=N   fixed -t N for refresh
#   IVM_BENCH_WORKLOADS="W1 W2 W3 W4 S"   which workloads to run
#   IVM_BENCH_GROWTH=1       also: the ops whose change has a fixed size (W1
#                            1-row UPDATE and INSERT + DELETE, W2 1-row and
#                            range UPDATE, W4 bulk; none and ivm) at
#                            scale S and S/10, printed as a second table with
#                            the latency ratio (view 10x larger, same change)
#   IVM_BENCH_VERIFY=0       skip comparing each ivm view with its query
#   IVM_BENCH_SEED=42        pgbench --random-seed (same choices in every run)
#   IVM_BENCH_PGBENCH_OPTS   extra pgbench options, e.g. "-M prepared"
#   IVM_BENCH_PGBIN=/usr/lib/postgresql/15/bin   where psql and pgbench are
#   IVM_BENCH_KEEP=1         keep the ivm_bench database at the end
#   IVM_BENCH_CHART=docs/bench.png   where the chart of the main table goes
#                            (PNG, gnuplot: latency per op for none, refresh
#                            and ivm, log scale; with --short the default is
#                            bench/out/bench.png); empty: no chart
#   IVM_BENCH_SIZES_CHART=docs/bench-sizes.png   the chart of S: latency against
#                            change size (bench/out/ with --short); empty: none
#
# A full run at scale 1 takes about 10-15 minutes on a 2-core machine.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

short=${IVM_BENCH_SHORT:-0}
for arg in "$@"; do
    case $arg in
        --short) short=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "bench/run.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

if [[ $short == 1 ]]; then
    SCALE=${IVM_BENCH_SCALE:-0.1}
    TARGET_S=${IVM_BENCH_SECONDS:-1}
    MIN_TX=${IVM_BENCH_MIN_TX:-2}
    MAX_TX=${IVM_BENCH_MAX_TX:-10000}
else
    SCALE=${IVM_BENCH_SCALE:-1}
    TARGET_S=${IVM_BENCH_SECONDS:-15}
    MIN_TX=${IVM_BENCH_MIN_TX:-5}
    MAX_TX=${IVM_BENCH_MAX_TX:-20000}
fi
FIXED_TX=${IVM_BENCH_TX:-}
FIXED_REFRESH_TX=${IVM_BENCH_REFRESH_TX:-}
WORKLOADS=${IVM_BENCH_WORKLOADS:-W1 W2 W3 W4 S}
GROWTH=${IVM_BENCH_GROWTH:-0}
VERIFY=${IVM_BENCH_VERIFY:-1}
SEED=${IVM_BENCH_SEED:-42}
PGBENCH_OPTS=${IVM_BENCH_PGBENCH_OPTS:-}
PGBIN=${IVM_BENCH_PGBIN:-/usr/lib/postgresql/15/bin}
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [[ $short == 1 ]]; then CHART=${IVM_BENCH_CHART-$bench_dir/out/bench.png}
else CHART=${IVM_BENCH_CHART-$bench_dir/../docs/bench.png}; fi
if [[ $short == 1 ]]; then SIZES_CHART=${IVM_BENCH_SIZES_CHART-$bench_dir/out/bench-sizes.png}
else SIZES_CHART=${IVM_BENCH_SIZES_CHART-$bench_dir/../docs/bench-sizes.png}; fi
DB=ivm_bench

die() { printf 'bench/run.sh: %s\n' "$*" >&2; exit 1; }

is_number() { [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]]; }
is_count() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
{ is_number "$SCALE" && awk -v s="$SCALE" 'BEGIN { exit !(s > 0) }'; } || die "IVM_BENCH_SCALE must be a positive number, not '$SCALE'"
is_number "$TARGET_S" || die "IVM_BENCH_SECONDS must be a number, not '$TARGET_S'"
{ is_count "$MIN_TX" && is_count "$MAX_TX"; } || die "IVM_BENCH_MIN_TX and IVM_BENCH_MAX_TX must be positive integers"
[[ -z $FIXED_TX ]] || is_count "$FIXED_TX" || die "IVM_BENCH_TX must be a positive integer"
[[ -z $FIXED_REFRESH_TX ]] || is_count "$FIXED_REFRESH_TX" || die "IVM_BENCH_REFRESH_TX must be a positive integer"
[[ $SEED =~ ^[0-9]+$ ]] || die "IVM_BENCH_SEED must be a non-negative integer"
for w in $WORKLOADS; do
    case $w in W1|W2|W3|W4|S) ;; *) die "unknown workload '$w' in IVM_BENCH_WORKLOADS (W1 W2 W3 W4 S)" ;; esac
done

PSQL=$PGBIN/psql
PGBENCH=$PGBIN/pgbench
[[ -x $PSQL ]] || PSQL=$(command -v psql) || die "psql not found (set IVM_BENCH_PGBIN)"
[[ -x $PGBENCH ]] || PGBENCH=$(command -v pgbench) || die "pgbench not found (set IVM_BENCH_PGBIN)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivm-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results   # lines: key|config|ms   (ms is ERR on failure)
order=$tmp/order       # lines: key, in order of first measurement; key = workload|op
: >"$results"; : >"$order"
failures=0

# Sizes at a scale: accounts, W3 nodes, range width, bulk size.
scaled() { awk -v n="$1" -v s="$2" -v lo="$3" 'BEGIN { v = int(n * s + 0.5); if (v < lo) v = lo; print v }'; }
commas() { awk -v n="$1" 'BEGIN { s = sprintf("%d", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); print s }'; }
set_sizes() {  # set_sizes SCALE
    naccounts=$(scaled 1000000 "$1" 1000)
    nnodes=$(scaled 5000 "$1" 20)
    width=$(scaled 10000 "$1" 1)
    nbulk=$(scaled 100000 "$1" 1)
    nbranch_rows=$((naccounts / 100))
}

# psql on the benchmark database: no psqlrc, quiet, stop at the first error,
# NOTICEs (create_view says which algorithm it chose) suppressed.
q() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
qvalue() { q -At "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# ---------------------------------------------------------------- data

create_database() {
    local maint=${PGDATABASE:-postgres}
    [[ $maint != "$DB" ]] || maint=postgres
    log "connecting (PGHOST=${PGHOST:-default} PGPORT=${PGPORT:-default} PGUSER=${PGUSER:-default}), recreating database $DB"
    PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" \
        "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$maint" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" \
        || die "could not recreate database $DB through database '$maint' (set PGDATABASE to an existing database)"
    q -c "CREATE EXTENSION ivm" || die "CREATE EXTENSION ivm failed in $DB (is the extension installed, and do the installed library and SQL script match?)"
    log "server: $(qvalue -c "SELECT version()" | cut -d, -f1); ivm $(qvalue -c "SELECT extversion FROM pg_extension WHERE extname = 'ivm'")"
}

load_accounts() {  # load_accounts N
    local t0; t0=$(now)
    q -v n="$1" <<'SQL' || die "loading accounts failed"
DROP TABLE IF EXISTS accounts, branches;
CREATE TABLE branches (bid int PRIMARY KEY, bbalance int);
INSERT INTO branches SELECT g, 0 FROM generate_series(1, 100) g;
CREATE TABLE accounts (aid int NOT NULL, bid int NOT NULL, abalance int NOT NULL, filler char(84));
INSERT INTO accounts SELECT g, 1 + (g - 1) % 100, (g::bigint * 7919 % 10000)::int, '' FROM generate_series(1, :n) g;
ALTER TABLE accounts ADD PRIMARY KEY (aid);
VACUUM ANALYZE branches;
VACUUM ANALYZE accounts;
SQL
    log "loaded accounts ($(commas "$1") rows) and branches (100 rows) in $(since "$t0")"
}

load_edges() {  # load_edges NODES
    local t0; t0=$(now)
    q -v n="$1" -v random_dag="$bench_dir/random_dag.sql" <<'SQL' || die "loading edges failed"
DROP TABLE IF EXISTS edges, edge_list;
CREATE TABLE edges (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
CREATE INDEX edges_dst ON edges (dst);
-- A random DAG: node n > 1 gets one parent below it, and a second one with
-- probability 1/2.
\i :random_dag
INSERT INTO edges SELECT parent, child FROM pg_temp.random_dag(:n, 0.5) ON CONFLICT DO NOTHING;
CREATE TABLE edge_list (id serial PRIMARY KEY, src int NOT NULL, dst int NOT NULL, UNIQUE (src, dst));
INSERT INTO edge_list (src, dst) SELECT src, dst FROM edges ORDER BY src, dst;
VACUUM ANALYZE edges;
VACUUM ANALYZE edge_list;
SQL
    nedges=$(qvalue -c "SELECT count(*) FROM edge_list")
    log "loaded edges: $(commas "$1") nodes, $(commas "$nedges") edges in $(since "$t0")"
}

# ---------------------------------------------------------------- views

W1_QUERY='SELECT a.aid, a.bid, a.abalance, b.bbalance FROM accounts a JOIN branches b ON a.bid = b.bid'
W2_QUERY='SELECT bid, count(*), sum(abalance), avg(abalance), max(abalance) FROM accounts GROUP BY bid'
W3_QUERY='WITH RECURSIVE tc(src, dst) AS (SELECT src, dst FROM edges UNION SELECT tc.src, e.dst FROM tc JOIN edges e ON tc.dst = e.src) SELECT src, dst FROM tc'

drop_view() {  # drop_view NAME: whatever of the two kinds exists
    q -v v="$1" <<'SQL'
SELECT ivm.drop_view(view_name::text) FROM ivm.view_catalog WHERE view_name::text = :'v';
SELECT format('DROP MATERIALIZED VIEW IF EXISTS %I', :'v') \gexec
SQL
} >/dev/null

setup_config() {  # setup_config CONFIG VIEW QUERY TABLES...
    local cfg=$1 view=$2 query=$3 t0 rows algo t; shift 3
    drop_view "$view"
    # Rewritten compact, so that every configuration starts from the same
    # tables (the updates of the configurations before leave dead tuples and
    # full pages behind, which make the same UPDATE slower).
    for t in "$@"; do q -c "VACUUM FULL ANALYZE $t"; done
    t0=$(now)
    case $cfg in
        none) return 0 ;;
        refresh)
            q -v v="$view" -v query="$query" <<'SQL'
SELECT format('CREATE MATERIALIZED VIEW %I AS %s', :'v', :'query') \gexec
SQL
            record_created "$view" refresh "$t0"
            q -c "VACUUM ANALYZE $view"
            rows=$(qvalue -c "SELECT count(*) FROM $view")
            log "  created materialized view $view ($(commas "$rows") rows) in $(since "$t0")" ;;
        ivm)
            rows=$(qvalue -v v="$view" -v query="$query" <<'SQL'
SELECT ivm.create_view(:'v', :'query');
SQL
            ) || die "ivm.create_view('$view', ...) failed"
            record_created "$view" ivm "$t0"
            # Analyze the storage (and, for a recursive view, the recursive relation).
            q -v v="$view" <<'SQL'
SELECT format('VACUUM ANALYZE %s', r) FROM ivm.view_catalog c,
       LATERAL (VALUES (c.storage), (c.recursive_storage)) s(r)
 WHERE c.view_name::text = :'v' AND r IS NOT NULL \gexec
SQL
            algo=$(qvalue -v v="$view" <<<"SELECT algorithm FROM ivm.view_catalog WHERE view_name::text = :'v'")
            log "  created ivm view $view ($(commas "$rows") rows, $algo) in $(since "$t0")" ;;
    esac
}

# record_created VIEW CONFIG T0: how long creating the view took (the
# creating statement alone, a new psql's start-up included for both).
record_created() { record "create|$1" "$2" "$(awk -v a="$3" -v b="$(now)" 'BEGIN { printf "%.1f", (b - a) * 1000 }')"; }

verify_view() {  # verify_view VIEW QUERY: the ivm view equals its query
    [[ $VERIFY == 1 ]] || return 0
    local diff
    diff=$(qvalue -v v="$1" -v query="$2" <<'SQL'
SELECT format('SELECT count(*) FROM ((TABLE %1$I EXCEPT ALL (%2$s)) UNION ALL ((%2$s) EXCEPT ALL TABLE %1$I)) d', :'v', :'query') \gexec
SQL
    ) || diff=ERR
    if [[ $diff == 0 ]]; then
        log "  ivm view $1 equals its query"
    else
        log "  MISMATCH: ivm view $1 differs from its query ($diff rows of difference)"
        failures=$((failures + 1))
    fi
}

# ---------------------------------------------------------------- scripts

# The ops print a pgbench script for the configuration in $cfg, on the view
# $view.  tx STATEMENT...: one transaction; a single statement is sent alone
# (autocommit) unless the REFRESH must follow it inside the transaction.
tx() {
    if [[ $cfg == refresh || $# -gt 1 ]]; then
        echo 'BEGIN;'
        printf '%s\n' "$@"
        if [[ $cfg == refresh ]]; then echo "REFRESH MATERIALIZED VIEW $view;"; fi
        echo 'COMMIT;'
    else
        printf '%s\n' "$1"
    fi
}

op_update() {
    echo '\set aid random(1, :naccounts)'
    tx 'UPDATE accounts SET abalance = abalance + 1 WHERE aid = :aid;'
}
op_insdel() {
    echo '\set aid random(:naccounts + 1, 2 * :naccounts)'
    echo '\set bid random(1, 100)'
    tx "INSERT INTO accounts VALUES (:aid, :bid, 0, '');" 'DELETE FROM accounts WHERE aid = :aid;'
}
op_branch() {
    echo '\set bid random(1, 100)'
    tx 'UPDATE branches SET bbalance = bbalance + 1 WHERE bid = :bid;'
}
op_range() {
    echo '\set x random(1, :naccounts - :width + 1)'
    tx 'UPDATE accounts SET abalance = abalance + 1 WHERE aid BETWEEN :x AND :x + :width - 1;'
}
op_new_edge() {
    echo '\set s random(1, :nnodes - 1)'
    echo '\set d random(:s + 1, :nnodes)'
    # (src < dst keeps the graph acyclic; an edge already there is left alone)
    tx 'INSERT INTO edges SELECT :s, :d WHERE NOT EXISTS (SELECT FROM edges WHERE src = :s AND dst = :d);'
    tx 'DELETE FROM edges WHERE src = :s AND dst = :d AND NOT EXISTS (SELECT FROM edge_list WHERE src = :s AND dst = :d);'
}
op_old_edge() {
    echo '\set id random(1, :nedges)'
    tx 'DELETE FROM edges WHERE (src, dst) = (SELECT src, dst FROM edge_list WHERE id = :id);'
    tx 'INSERT INTO edges SELECT src, dst FROM edge_list WHERE id = :id;'
}
op_bulk() {
    tx "INSERT INTO accounts SELECT g, 1 + (g - 1) % 100, 0, '' FROM generate_series(:naccounts + 1, :naccounts + :nbulk) g;"
    tx 'DELETE FROM accounts WHERE aid > :naccounts;'
}

# ---------------------------------------------------------------- measuring

pgbench_run() {  # pgbench_run SCRIPT NTX: prints pgbench's output
    # shellcheck disable=SC2086
    "$PGBENCH" -n -r -f "$1" -t "$2" --random-seed="$SEED" $PGBENCH_OPTS \
        -D naccounts="$naccounts" -D width="$width" -D nbulk="$nbulk" \
        -D nnodes="${nnodes:-0}" -D nedges="${nedges:-1}" "$DB" 2>&1
}
script_latency() { awk '/^latency average = / { print $4; found = 1 } END { exit !found }'; }
# Per-transaction latencies from pgbench -r: the statements from BEGIN to
# COMMIT summed, a statement outside a block on its own; meta-commands skipped.
tx_latencies() {
    awk '/^statement latencies in milliseconds/ { on = 1; next }
         !on || NF < 3 { next }
         { lat = $1; cmd = $0; sub(/^ *[0-9.]+ +[0-9]+ +/, "", cmd) }
         cmd ~ /^\\/ { next }
         cmd ~ /^BEGIN/ { blk = 1; sum = lat; next }
         blk { sum += lat; if (cmd ~ /^(COMMIT|END)/) { printf "%.3f\n", sum; blk = 0 }; next }
         { printf "%.3f\n", lat }'
}

tx_count() {  # tx_count LATENCY_MS FRACTION MIN MAX: scripts that fill FRACTION of the target time
    awk -v l="$1" -v f="$2" -v s="$TARGET_S" -v lo="$3" -v hi="$4" \
        'BEGIN { n = (l > 0) ? int(f * s * 1000 / l + 0.999) : hi; if (n < lo) n = lo; if (n > hi) n = hi; print n }'
}

record() {  # record KEY CONFIG MS
    grep -qxF -- "$1" "$order" || printf '%s\n' "$1" >>"$order"
    printf '%s|%s|%s\n' "$1" "$2" "$3" >>"$results"
}

measure() {  # measure WORKLOAD CONFIG OPFUNC LABEL...: one pgbench measurement
    local wl=$1 m_cfg=$2 op=$3 script ntx out='' est='' lats=() i; shift 3
    local labels=("$@")
    script=$tmp/${wl}_${op}_${m_cfg}.sql
    cfg=$m_cfg $op >"$script"
    # Warm-up and estimate: one transaction (cold: new backend, plans not
    # kept yet); when that is short against the target, a second warm-up of
    # about a tenth of the target gives a warm estimate.
    if out=$(pgbench_run "$script" 1) && est=$(script_latency <<<"$out"); then
        ntx=$(tx_count "$est" 0.1 1 "$MAX_TX")
        if ((ntx > 1)) && out=$(pgbench_run "$script" "$ntx"); then est=$(script_latency <<<"$out") || est=; fi
    fi
    if [[ -n $est ]]; then
        if [[ $m_cfg == refresh && -n $FIXED_REFRESH_TX ]]; then ntx=$FIXED_REFRESH_TX
        elif [[ $m_cfg != refresh && -n $FIXED_TX ]]; then ntx=$FIXED_TX
        else ntx=$(tx_count "$est" 1 "$MIN_TX" "$MAX_TX")
        fi
        if out=$(pgbench_run "$script" "$ntx"); then
            if ((${#labels[@]} == 1)); then
                lats=("$(script_latency <<<"$out")")
            else
                mapfile -t lats < <(tx_latencies <<<"$out")
            fi
        fi
    fi
    if ((${#lats[@]} != ${#labels[@]})) || [[ -z ${lats[0]:-} ]]; then
        log "  FAILED: $wl ${labels[*]} ($m_cfg); pgbench said:"
        grep -v -e '^ *[0-9.]\+ \+[0-9]\+ ' -e '^pgbench: setting random seed' <<<"$out" | tail -n 15 | sed 's/^/      /' >&2 || true
        failures=$((failures + 1))
        for i in "${!labels[@]}"; do record "$wl|${labels[i]}" "$m_cfg" ERR; done
        return 0
    fi
    for i in "${!labels[@]}"; do record "$wl|${labels[i]}" "$m_cfg" "${lats[i]}"; done
    log "  $m_cfg: ${ntx} x $op: $(IFS=/; echo "${lats[*]}") ms"
}

# run_workload WORKLOAD VIEW QUERY "TABLES" CONFIGS OP... ; an OP is
# "opfunc|label|label..." (one label per transaction of the script).
run_workload() {
    local wl=$1 view=$2 query=$3 tables=$4 configs=$5 spec c t0 parts; shift 5
    t0=$(now)
    log "$wl: $query"
    for c in $configs; do
        # shellcheck disable=SC2086
        setup_config "$c" "$view" "$query" $tables
        for spec in "$@"; do
            IFS='|' read -r -a parts <<<"$spec"
            measure "$wl" "$c" "${parts[@]}"
        done
        if [[ $c == ivm ]]; then verify_view "$view" "$query"; fi
        drop_view "$view"
    done
    log "$wl done in $(since "$t0")"
}

# ---------------------------------------------------------------- change sizes

SIZE_FRACTIONS="0.01 0.1 0.5 1"
size_statement() {  # size_statement OP ROWS
    case $1 in
        insert) echo "INSERT INTO accounts SELECT g, 1 + (g - 1) % 100, 0, '' FROM generate_series($((naccounts + 1)), $((naccounts + $2))) g;" ;;
        update) echo "UPDATE accounts SET abalance = abalance + 1 WHERE aid <= $2;" ;;
        delete) echo "DELETE FROM accounts WHERE aid <= $2;" ;;
    esac
}
median3() { sort -g | sed -n 2p; }

# run_sizes: workload S.  One transaction per measurement, rolled back, and
# VACUUM (untimed) before the next, so that each starts from the same tables.
run_sizes() {
    local view=s_join c f op rows script out lat rep vals t0
    t0=$(now)
    log "S: $W1_QUERY, changes of $SIZE_FRACTIONS of accounts"
    for c in none refresh ivm; do
        setup_config "$c" "$view" "$W1_QUERY" accounts branches
        for f in $SIZE_FRACTIONS; do
            rows=$(scaled "$naccounts" "$f" 1)
            for op in insert update delete; do
                script=$tmp/sizes_${c}_${op}_$f.sql
                { echo 'BEGIN;'; size_statement "$op" "$rows"
                  if [[ $c == refresh ]]; then echo "REFRESH MATERIALIZED VIEW $view;"; fi
                  echo 'ROLLBACK;'; } >"$script"
                vals=()
                for rep in 1 2 3; do
                    if out=$(pgbench_run "$script" 1) && lat=$(script_latency <<<"$out"); then vals+=("$lat"); else
                        log "  FAILED: S $op $f ($c); pgbench said:"; tail -n 5 <<<"$out" | sed 's/^/      /' >&2
                        failures=$((failures + 1)); vals=(); break
                    fi
                    q -c "VACUUM"
                done
                if ((${#vals[@]} == 3)); then lat=$(printf '%s\n' "${vals[@]}" | median3); else lat=ERR; fi
                record "sizes $op|$f" "$c" "$lat"
                log "  $c: $op $(commas "$rows") accounts: $lat ms (median of ${vals[*]:-none})"
            done
        done
        if [[ $c == ivm ]]; then verify_view "$view" "$W1_QUERY"; fi
        drop_view "$view"
    done
    log "S done in $(since "$t0")"
}

# ---------------------------------------------------------------- report

fmt_table() {  # fmt_table: the main Markdown table from $order and $results
    awk -F'|' '
        function ms(v) { if (v == "" ) return "-"; if (v == "ERR") return "ERR"
                         return v < 1 ? sprintf("%.3f", v) : v < 100 ? sprintf("%.2f", v) : sprintf("%.1f", v) }
        function ratio(a, b) { if (a == "" || b == "" || a == "ERR" || b == "ERR" || b <= 0) return "-"
                               r = a / b; return (r < 10 ? sprintf("%.2f", r) : r < 100 ? sprintf("%.1f", r) : sprintf("%.0f", r)) "x" }
        FILENAME == ARGV[1] { keys[++n] = $0; next }
        { v[$1 "|" $2, $3] = $4 }
        END {
            print "| workload | op | none ms | refresh ms | ivm ms | ivm/none | refresh/ivm |"
            print "|---|---|---:|---:|---:|---:|---:|"
            for (i = 1; i <= n; i++) {
                k = keys[i]; split(k, p, "|")
                none = v[k, "none"]; ref = v[k, "refresh"]; iv = v[k, "ivm"]
                printf "| %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], ms(none), ms(ref), ms(iv), ratio(iv, none), ratio(ref, iv)
            }
        }' "$order" "$results"
}

fmt_created() {  # the creation table: ivm.create_view against CREATE MATERIALIZED VIEW
    awk -F'|' '
        $1 == "create" { if (!($2 in seen)) { seen[$2] = 1; views[++n] = $2 }; v[$2, $3] = $4 }
        END {
            print "| view | CREATE MATERIALIZED VIEW ms | ivm.create_view ms | ivm/CMV |"
            print "|---|---:|---:|---:|"
            for (i = 1; i <= n; i++) {
                w = views[i]; r = v[w, "refresh"]; c = v[w, "ivm"]
                if (r == "" || c == "") continue
                printf "| %s | %.0f | %.0f | %.2fx |\n", w, r, c, c / r
            }
        }' "$results"
}

fmt_sizes() {  # the change-size table: each op and size, ivm against the statement + REFRESH
    awk -F'|' -v n="$naccounts" '
        function ms(v) { return (v == "" || v == "ERR") ? "-" : sprintf("%.0f", v) }
        function ratio(a, b) { return (a == "" || b == "" || a == "ERR" || b == "ERR" || b <= 0) ? "-" : sprintf("%.2fx", a / b) }
        $1 ~ /^sizes / { split($1, p, " "); k = p[2] "|" $2; if (!(k in seen)) { seen[k] = 1; keys[++m] = k }; v[k, $3] = $4 }
        END {
            print "| change | rows | none ms | statement + REFRESH ms | ivm ms | ivm/none | ivm/(statement + REFRESH) |"
            print "|---|---:|---:|---:|---:|---:|---:|"
            for (i = 1; i <= m; i++) {
                k = keys[i]; split(k, p, "|")
                rows = int(n * p[2] + 0.5); s = sprintf("%d", rows)
                while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
                printf "| %s %g%% | %s | %s | %s | %s | %s | %s |\n", p[1], p[2] * 100, s,
                    ms(v[k, "none"]), ms(v[k, "refresh"]), ms(v[k, "ivm"]), ratio(v[k, "ivm"], v[k, "none"]), ratio(v[k, "ivm"], v[k, "refresh"])
            }
        }' "$results"
}

# chart_sizes PNG TITLE: latency against change size, one panel per op,
# a line each for none, refresh and ivm, both axes on log scales.
chart_sizes() {
    local png=$1 title=$2 op plots=''
    for op in insert update delete; do
        awk -F'|' -v op="sizes $op" '$1 == op { v[$2, $3] = $4; if (!($2 in seen)) { seen[$2] = 1; f[++n] = $2 } }
            function val(x) { return (x == "" || x == "ERR") ? "?" : x }
            END { for (i = 1; i <= n; i++) printf "%g\t%s\t%s\t%s\n", f[i] * 100, val(v[f[i], "none"]), val(v[f[i], "refresh"]), val(v[f[i], "ivm"]) }' \
            "$results" >"$tmp/sizes_$op.dat"
    done
    mkdir -p "$(dirname "$png")"
    gnuplot <<GNUPLOT
set terminal pngcairo size 1280,480 noenhanced font ",11"
set output '$png'
set datafile missing '?'
set datafile separator "\t"
set logscale xy
set format y '%g'
set xtics ("1%%" 1, "10%%" 10, "50%%" 50, "100%%" 100)
set grid
set key top left
set multiplot layout 1,3 title "$title"
do for [op in "insert update delete"] {
    set title op
    set xlabel 'rows changed (share of accounts)'
    set ylabel 'ms (log scale)'
    plot '$tmp/sizes_'.op.'.dat' using 1:2 with linespoints title 'no view' linecolor rgb '#9e9e9e' lw 2, \
         '' using 1:3 with linespoints title 'statement + REFRESH' linecolor rgb '#d95f02' lw 2, \
         '' using 1:4 with linespoints title 'ivm' linecolor rgb '#1b9e77' lw 2
}
unset multiplot
GNUPLOT
}

fmt_growth() {  # the growth table: workload "G1 ..." keys, measured at two sizes
    awk -F'|' -v small="$1" -v big="$2" '
        function ms(v) { if (v == "" ) return "-"; if (v == "ERR") return "ERR"
                         return v < 1 ? sprintf("%.3f", v) : v < 100 ? sprintf("%.2f", v) : sprintf("%.1f", v) }
        function ratio(a, b) { if (a == "" || b == "" || a == "ERR" || b == "ERR" || b <= 0) return "-"
                               return sprintf("%.2fx", a / b) }
        $1 ~ /^growth / { split($1, p, " "); sz = p[2]; op = $2
                          if (!(op in seen)) { seen[op] = 1; ops[++n] = op }
                          v[op, sz, $3] = $4 }
        END {
            printf "| op | none ms (%s) | none ms (%s) | ivm ms (%s) | ivm ms (%s) | none growth | ivm growth |\n", small, big, small, big
            print "|---|---:|---:|---:|---:|---:|---:|"
            for (i = 1; i <= n; i++) {
                o = ops[i]
                printf "| %s | %s | %s | %s | %s | %s | %s |\n", o,
                    ms(v[o, "small", "none"]), ms(v[o, "big", "none"]), ms(v[o, "small", "ivm"]), ms(v[o, "big", "ivm"]),
                    ratio(v[o, "big", "none"], v[o, "small", "none"]), ratio(v[o, "big", "ivm"], v[o, "small", "ivm"])
            }
        }' "$results"
}

# chart PNG TITLE: the main table as a bar chart, one group of bars per op
# (none, refresh, ivm), latency on a log scale; a failed measurement is a
# missing bar.
chart() {
    local png=$1 title=$2 data=$tmp/chart.dat
    awk -F'|' '
        function val(x) { return (x == "" || x == "ERR") ? "?" : x }
        FILENAME == ARGV[1] { keys[++n] = $0; next }
        { v[$1 "|" $2, $3] = $4 }
        END {
            for (i = 1; i <= n; i++) {
                k = keys[i]; split(k, p, "|")
                printf "\"%s %s\"\t%s\t%s\t%s\n", p[1], p[2], val(v[k, "none"]), val(v[k, "refresh"]), val(v[k, "ivm"])
            }
        }' "$order" "$results" >"$data"
    mkdir -p "$(dirname "$png")"
    gnuplot <<GNUPLOT
set terminal pngcairo size 1280,720 noenhanced font ",11"
set output '$png'
set title '$title'
set datafile missing '?'
set datafile separator "\t"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set logscale y
set format y '%g'
set ylabel 'latency per transaction, ms (log scale)'
set xtics rotate by 25 right
set bmargin 9
set lmargin 14
set grid ytics
set key outside top center horizontal
plot '$data' using 2:xtic(1) title 'no view' linecolor rgb '#9e9e9e', \
     '' using 3 title 'REFRESH MATERIALIZED VIEW' linecolor rgb '#d95f02', \
     '' using 4 title 'ivm' linecolor rgb '#1b9e77'
GNUPLOT
}

# ---------------------------------------------------------------- main

started=$(now)
set_sizes "$SCALE"
log "ivm benchmark: scale $SCALE (accounts $(commas "$naccounts"), W3 nodes $(commas "$nnodes")), ~${TARGET_S} s per measurement, ${MIN_TX}..${MAX_TX} transactions, workloads: $WORKLOADS$([[ $GROWTH == 1 ]] && echo ', growth')"
create_database

has() { [[ " $WORKLOADS " == *" $1 "* ]]; }
ALL="none refresh ivm"
if has W1 || has W2 || has W4 || has S || [[ $GROWTH == 1 ]]; then load_accounts "$naccounts"; fi
if has W1; then
    run_workload W1 w1_join "$W1_QUERY" "accounts branches" "$ALL" \
        "op_update|1-row UPDATE accounts" \
        "op_insdel|INSERT + DELETE 1 account (1 tx)" \
        "op_branch|UPDATE 1 branch ($(commas "$nbranch_rows") view rows)"
fi
if has W2; then
    run_workload W2 w2_agg "$W2_QUERY" "accounts" "$ALL" \
        "op_update|1-row UPDATE accounts" \
        "op_range|UPDATE $(commas "$width") accounts (range)"
fi
if has W3; then
    load_edges "$nnodes"
    run_workload W3 w3_closure "$W3_QUERY" "edges" "$ALL" \
        "op_new_edge|INSERT new edge|DELETE that edge" \
        "op_old_edge|DELETE existing edge|re-INSERT that edge"
fi
if has W4; then
    run_workload W4 w4_join "$W1_QUERY" "accounts branches" "$ALL" \
        "op_bulk|INSERT $(commas "$nbulk") accounts|DELETE them"
fi
if has S; then
    run_sizes
fi
if [[ $GROWTH == 1 ]]; then
    small_scale=$(awk -v s="$SCALE" 'BEGIN { print s / 10 }')
    big_n=$naccounts
    fixed_width=$width fixed_nbulk=$nbulk  # the changes keep their size
    for sz in big small; do
        if [[ $sz == small ]]; then
            set_sizes "$small_scale"
            width=$fixed_width nbulk=$fixed_nbulk
            load_accounts "$naccounts"
        fi
        log "growth: accounts $(commas "$naccounts")"
        run_workload "growth $sz" g_w1 "$W1_QUERY" "accounts branches" "none ivm" \
            "op_update|W1 1-row UPDATE accounts" "op_insdel|W1 INSERT + DELETE 1 account (1 tx)"
        run_workload "growth $sz" g_w2 "$W2_QUERY" "accounts" "none ivm" \
            "op_update|W2 1-row UPDATE accounts" "op_range|W2 UPDATE $(commas "$width") accounts (range)"
        run_workload "growth $sz" g_w4 "$W1_QUERY" "accounts branches" "none ivm" \
            "op_bulk|W4 INSERT $(commas "$nbulk") accounts|W4 DELETE them"
    done
    small_n=$naccounts
    set_sizes "$SCALE"
fi

if [[ ${IVM_BENCH_KEEP:-0} != 1 ]]; then
    "$PSQL" -X -q -d "$([[ ${PGDATABASE:-postgres} != "$DB" ]] && echo "${PGDATABASE:-postgres}" || echo postgres)" \
        -c "DROP DATABASE IF EXISTS $DB" || log "could not drop database $DB"
fi
log "finished in $(since "$started")"

# The report.
if [[ -n $FIXED_TX || -n $FIXED_REFRESH_TX ]]; then
    how="-t ${FIXED_TX:-auto} for none and ivm, -t ${FIXED_REFRESH_TX:-auto} for refresh"
else
    how="~${TARGET_S} s per measurement"
fi
sizes=()
if has W1 || has W2 || has W4; then sizes+=("accounts $(commas "$naccounts") rows"); fi
if has W3; then sizes+=("W3 DAG $(commas "$nnodes") nodes / $(commas "$nedges") edges"); fi
sizes_txt=
for x in "${sizes[@]}"; do sizes_txt+="${sizes_txt:+, }$x"; done
echo "ivm benchmark, scale $SCALE${sizes_txt:+: $sizes_txt};" \
     "average latency per transaction (pgbench, 1 client, $how); refresh/ivm > 1 means ivm is faster."
echo
grep -v -e '^growth ' -e '^create|' -e '^sizes ' "$order" >"$tmp/order.main" || true
mv "$tmp/order.main" "$order"
fmt_table
if [[ -n $CHART && -s $order ]]; then
    if ! command -v gnuplot >/dev/null; then
        log "no chart: gnuplot is not installed (Debian package gnuplot-nox)"
    elif chart "$CHART" "ivm benchmark, scale $SCALE: latency per transaction (1 client)"; then
        log "chart: $CHART"
    else
        log "the chart could not be drawn"; failures=$((failures + 1))
    fi
fi
echo
echo "Creating each view: ivm.create_view against CREATE MATERIALIZED VIEW of the same query (ms, the statement alone)."
echo
fmt_created
if has S; then
    echo
    echo "Change sizes (S): one statement changing a share of accounts under W1's view, rolled back; median of 3 (ms)."
    echo
    fmt_sizes
    if [[ -n $SIZES_CHART ]] && command -v gnuplot >/dev/null; then
        if chart_sizes "$SIZES_CHART" "ivm benchmark, scale $SCALE: latency against change size, W1's view"; then log "chart: $SIZES_CHART"
        else log "the change-size chart could not be drawn"; failures=$((failures + 1)); fi
    fi
fi
if [[ $GROWTH == 1 ]]; then
    echo
    echo "Growth: the same change with the view 10x larger (accounts $(commas "$small_n") -> $(commas "$big_n") rows)."
    echo
    fmt_growth "$(commas "$small_n")" "$(commas "$big_n")"
fi
if ((failures > 0)); then
    echo
    echo "$failures measurement(s) or check(s) failed; see the messages above (stderr)."
    exit 1
fi
