#!/usr/bin/env bash
# ivm TPC-H benchmark: what keeping each of the 22 TPC-H queries current costs
# under a stream of changes, ivm against REFRESH MATERIALIZED VIEW.
#
# Usage:
#   bench/tpch.sh [--short] [SCALE]
#   bench/tpch.sh --report DIR    the tables again from a run's IVM_TPCH_RAW=DIR
#   bench/tpch.sh --help
#
# Reuses the test suite test/tpch/: schema.sql, generate.sql (tpch_generate),
# queries/qNN.sql and statements.sql (29 units separated by blank lines: the
# refresh functions RF1/RF2 and updates of every table; each unit is one
# transaction).  Runs against a RUNNING PostgreSQL 15 server with the ivm
# extension installed, reached through PGHOST, PGPORT, PGUSER; the databases
# ivm_tpch_tpl (the generated data, a template) and ivm_tpch_run (a copy per
# measurement) are DROPPED and recreated, and dropped at the end unless
# IVM_TPCH_KEEP=1 (which keeps the template).  Progress goes to stderr; stdout
# gets Markdown tables.
#
# For each query q and each configuration: a fresh copy of the data (CREATE
# DATABASE ... TEMPLATE ... STRATEGY FILE_COPY; autovacuum off on the base
# tables, which are frozen and analyzed), the configuration set up, the base
# tables and their indexes read into shared buffers (pg_prewarm where
# available), a CHECKPOINT, then the 29 units applied by one psql session in
# the order of statements.sql, each as BEGIN; <unit>; COMMIT, timed
# client-side (psql \timing, the statements from BEGIN to COMMIT summed):
#   none     no view (the floor);
#   ivm      ivm.create_view(q) only (its storage, and its parts', VACUUM
#            ANALYZEd after creation, as after a load);
#   refresh  CREATE MATERIALIZED VIEW q, and REFRESH MATERIALIZED VIEW q in
#            the unit's transaction, before its COMMIT, after each unit that
#            writes a table q reads (IVM_TPCH_REFRESH=all: after every unit);
#   pg_ivm   (IVM_TPCH_PGIVM=1) pgivm.create_immv(q), pg_ivm loaded through
#            session_preload_libraries; a query it refuses is reported so.
# A unit's cost in a configuration is its time there minus its time in none,
# each the median (IVM_TPCH_STAT=min: the minimum) over the rounds; a query's
# maintenance cost is the sum over
# the units that write a table it reads (the other units cost neither ivm
# nor, by default, REFRESH anything; with IVM_TPCH_REFRESH=all every unit
# counts).  The configurations of a query run one after the other, their
# order rotated from round to round.  After each run the contents of the ivm
# (and pg_ivm) view are compared with the refreshed materialized view's (a
# digest, numbers rounded to 6 decimals); a difference fails the run.
#
# Tables (stdout):
#   per query: view rows; units counted; create_view and CREATE MATERIALIZED
#     VIEW times; the none time of the counted units; the maintenance costs
#     of ivm and refresh; refresh cost / ivm cost (how many times cheaper ivm
#     keeps the view current), over all counted units and over the small ones
#     (those changing at most 10 rows or 1% of the rows of the tables they
#     write); the unit on which ivm spent most; ivm.stats' total_time_ms
#     (needs shared_preload_libraries = ivm; of a view with parts, the
#     largest of the view's and its parts': a part's maintenance includes,
#     nested, the view's over it, and the sum would count that twice) and
#     the REFRESH statements' own time, and their ratio: measured apart from
#     the units' statements they do not carry the noise of the differences,
#     but ivm.stats leaves out the triggers' and transition tables' overhead
#     and, with parts, may miss some (so that ratio leans towards ivm); then
#     the median ratios, the worst query, the queries short of the targets
#     (5x for every query, 20x for the median);
#   per unit: rows changed, and the costs summed over the queries;
#   per unit, the IVM_TPCH_WORST worst queries' ivm and refresh costs.
# A cost is the difference of two client-side times of the same statements,
# measured seconds apart on a machine that may be doing other work: where
# maintenance is cheap next to the statements themselves (Q6, Q19: tens of
# ms against 2 s of lineitem updates) it is within the noise, may come out
# <= 0 ("cost <= 0": left out of the median) or far off; REFRESH/ivm.stats is
# then the steadier guide.  A ratio is only meaningful from one run (ratios
# of the same run, side by side), not as absolute times across runs.
#
# A statement (CREATE MATERIALIZED VIEW, create_view, any statement of a
# unit, REFRESH included) slower than IVM_TPCH_CAP seconds is cancelled
# (statement_timeout) and that configuration of that query is not run again:
# a cancelled CREATE MATERIALIZED VIEW makes the refresh cost a lower bound
# (units counted x the cap); a cancelled unit stops the run there, the cost
# of the units up to it (that one at the cap) a lower bound.  Ratios from a
# lower bound are marked > or <.  At this generator's skew Q17's correlated
# subquery makes PostgreSQL's plan quadratic (part 1 has 5% of the
# lineitems): its REFRESH takes ~2 s at scale 0.01, ~40 s at 0.05, ~3 min at
# 0.1.
#
# statements.sql was written for the test scale 0.001: its keys are partly
# fixed (parts 1-9, suppliers 2, 4, 5, customers up to 20) and partly a
# fraction of the rows (every 10th, 25th, 97th order, all lines of a quarter,
# ...), so at larger scales half of the units change thousands to tens of
# thousands of rows (up to 10% of lineitem; one updates a third of it and
# rolls that back to a savepoint): bulk changes, not the few-row changes of
# OLTP.  Every unit still changes rows at every scale.
#
# Options and environment:
#   SCALE                    tpch_generate's scale (default 0.05: 300,000
#                            lineitems, 75,000 orders, 89 MB; there Q17's
#                            REFRESH takes ~40 s, Q18's and Q9's ~0.5 s,
#                            most others 0.1-0.3 s; 0.1 doubles those and
#                            the run time)
#   --short                  (or IVM_TPCH_SHORT=1) scale 0.01, 1 round, cap
#                            1 s: a smoke test of 1.5-3 minutes, whose
#                            ratios are mostly noise
#   IVM_TPCH_ROUNDS=3        rounds (every configuration of every query once
#                            per round)
#   IVM_TPCH_STAT=median     per unit over the rounds; "min": the minimum
#                            (interference only ever adds time)
#   IVM_TPCH_QUERIES="q01 q17"   which queries (default all 22)
#   IVM_TPCH_CAP=20          seconds, see above
#   IVM_TPCH_REFRESH=touched REFRESH after the units writing a table the query
#                            reads; "all": after every unit
#   IVM_TPCH_PGIVM=0         1: also pg_ivm, if installed
#   IVM_TPCH_VERIFY=1        0: do not compare the views' contents
#   IVM_TPCH_WORST=3         how many of the worst queries get the last table
#   IVM_TPCH_KEEP=1          keep the template database ivm_tpch_tpl
#   IVM_TPCH_RAW=DIR         leave the raw timings there (times: round query
#                            config unit ms refresh_ms rows ok|capped; setups)
#   IVM_BENCH_PGBIN=/usr/lib/postgresql/15/bin   where psql is
#
# The default run (scale 0.05, 3 rounds) takes about 15 minutes on a 2-core
# machine with fsync off (17 with IVM_TPCH_PGIVM=1); the server's fsync, jit
# and shared_buffers settings are printed with the table.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

short=${IVM_TPCH_SHORT:-0}
scale=
report_dir=
while (($# > 0)); do
    case $1 in
        --short) short=1 ;;
        --report) [[ $# -ge 2 ]] || { echo "bench/tpch.sh: --report needs a directory" >&2; exit 2; }; report_dir=$2; shift ;;
        --report=*) report_dir=${1#--report=} ;;
        -h|--help) usage; exit 0 ;;
        [0-9]*|.[0-9]*) scale=$1 ;;
        *) echo "bench/tpch.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done
if [[ $short == 1 ]]; then
    SCALE=${scale:-0.01}
    ROUNDS=${IVM_TPCH_ROUNDS:-1}
    CAP=${IVM_TPCH_CAP:-1}
else
    SCALE=${scale:-0.05}
    ROUNDS=${IVM_TPCH_ROUNDS:-3}
    CAP=${IVM_TPCH_CAP:-20}
fi
REFRESH_MODE=${IVM_TPCH_REFRESH:-touched}
PGIVM=${IVM_TPCH_PGIVM:-0}
VERIFY=${IVM_TPCH_VERIFY:-1}
STAT=${IVM_TPCH_STAT:-median}
WORST=${IVM_TPCH_WORST:-3}
PGBIN=${IVM_BENCH_PGBIN:-/usr/lib/postgresql/15/bin}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tpch=$here/../test/tpch
TPL=ivm_tpch_tpl
DB=ivm_tpch_run

die() { printf 'bench/tpch.sh: %s\n' "$*" >&2; exit 1; }
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

{ [[ $SCALE =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$SCALE" 'BEGIN { exit !(s > 0) }'; } || die "the scale must be a positive number, not '$SCALE'"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "IVM_TPCH_ROUNDS must be a positive integer"
{ [[ $CAP =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$CAP" 'BEGIN { exit !(s > 0) }'; } || die "IVM_TPCH_CAP must be a positive number of seconds"
[[ $WORST =~ ^[0-9]+$ ]] || die "IVM_TPCH_WORST must be a non-negative integer"
case $REFRESH_MODE in touched|all) ;; *) die "IVM_TPCH_REFRESH must be 'touched' or 'all'" ;; esac
case $STAT in median|min) ;; *) die "IVM_TPCH_STAT must be 'median' or 'min'" ;; esac
[[ -f $tpch/statements.sql && -f $tpch/generate.sql ]] || die "test/tpch/ not found next to bench/"
if [[ -n ${IVM_TPCH_QUERIES:-} ]]; then
    QUERIES=$IVM_TPCH_QUERIES
else
    QUERIES=$(for f in "$tpch"/queries/q[0-9][0-9].sql; do basename "$f" .sql; done | tr '\n' ' ')
fi
for q in $QUERIES; do [[ -f $tpch/queries/$q.sql ]] || die "no query $tpch/queries/$q.sql"; done
nq=$(wc -w <<<"$QUERIES")
cap_ms=$(awk -v c="$CAP" 'BEGIN { printf "%.0f", c * 1000 }')

PSQL=$PGBIN/psql
[[ -x $PSQL ]] || PSQL=$(command -v psql) || die "psql not found (set IVM_BENCH_PGBIN)"
MAINT=${PGDATABASE:-postgres}
[[ $MAINT != "$TPL" && $MAINT != "$DB" ]] || MAINT=postgres
# psql: no psqlrc, quiet, stop at the first error, NOTICEs suppressed; the
# pg_ivm configuration's sessions load pg_ivm ($extra_opts)
psql_() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning ${extra_opts:-}" "$PSQL" -X -q -v ON_ERROR_STOP=1 "$@"; }
qv() { psql_ -At "$@"; }

# report DIR: the tables, from DIR's files: header (two lines, @STAT@ for the
# statistic), meta (PGIVM, cap_ms), queries (query, units counted, their
# numbers), labels (unit, label, tables written), tables (table, rows),
# setups and times (the files below).
report() {
    local PGIVM cap_ms
    [[ -f $1/times && -f $1/meta ]] || die "no benchmark results in '$1'"
    PGIVM=$(sed -n 's/^PGIVM=//p' "$1/meta"); cap_ms=$(sed -n 's/^cap_ms=//p' "$1/meta")
    sed "s/@STAT@/$([[ $STAT == min ]] && echo 'minimum' || echo 'median')/" "$1/header"
    echo
    awk -v worst="$WORST" -v pgivm="$PGIVM" -v cap="$cap_ms" -v stat="$STAT" '
    function median(key,    n, i, j, a, t) {   # median (or minimum) of vals[key, 1..cnt[key]]
        n = cnt[key]; if (n == 0) return ""
        for (i = 1; i <= n; i++) a[i] = vals[key, i]
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        if (stat == "min") return a[1]
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function ms(v) { if (v == "") return "-"; return (v < 10 && v > -10) ? sprintf("%.2f", v) : (v < 1000 && v > -1000) ? sprintf("%.1f", v) : sprintf("%.0f", v) }
    function num(r) { return r < 10 ? sprintf("%.2f", r) : r < 100 ? sprintf("%.1f", r) : sprintf("%.0f", r) }
    # ratio A/B with A, B possibly lower bounds (la, lb)
    function rat(a, b, la, lb) {
        if (a == "" || b == "") return "-"
        if (la && lb) return "?"
        if (b <= 0) return la ? "-" : "cost <= 0"
        if (a <= 0) return lb ? "-" : "refresh <= 0"
        return (la ? ">" : lb ? "<" : "") num(a / b) "x"
    }
    function sortq(arr, n, val,    i, j, t) { for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && val[arr[j]] > val[t]; j--) arr[j + 1] = arr[j]; arr[j + 1] = t } }
    FILENAME ~ /queries$/ { qs[++nq] = $1; nun[$1] = $2; for (i = 3; i <= NF; i++) counted[$1, $i] = 1; next }
    FILENAME ~ /tables$/ { trows[$1] = $2; next }
    FILENAME ~ /labels$/ { split($0, p, "\t"); label[p[1]] = p[2]; nunits = p[1]
                           nw = split(p[3], w, " "); tsize[p[1]] = 0; for (i = 1; i <= nw; i++) tsize[p[1]] += trows[w[i]]; next }
    FILENAME ~ /setups$/ {
        key = $2 SUBSEP $3
        if ($4 == "ok" || $4 == "stopped") {
            if ($5 != "-") vals["create", key, ++cnt["create", key]] = $5
            if ($6 != "-") rows[$2] = $6
            if ($7 != "-") vals["stats", key, ++cnt["stats", key]] = $7 }
        else status[key] = $4
        if ($4 == "capped") { created_capped[key] = 1; vals["create", key, ++cnt["create", key]] = $5 }
        if ($4 == "stopped") stopped[key] = 1
        if ($4 == "mismatch") mism[key] = 1
        next }
    { k = $2 SUBSEP $3 SUBSEP $4; vals["t", k, ++cnt["t", k]] = $5; if ($3 == "none") chg[$4] = $7   # times
      if ($3 == "refresh" && $8 == "ok") vals["r", k, ++cnt["r", k]] = $6 }
    END {
        for (u = 1; u <= nunits; u++) small[u] = (u in chg) && (chg[u] <= 10 || chg[u] <= 0.01 * tsize[u])
        nc = split("ivm refresh pg_ivm", cf, " ")
        for (i = 1; i <= nq; i++) {
            q = qs[i]
            tn = 0; rst = 0
            for (c = 1; c <= nc; c++) { C = cf[c]; cost[q, C] = 0; scost[q, C] = 0; have[q, C] = 0; low[q, C] = (q SUBSEP C) in stopped; nsm[q] = 0 }
            wu = ""; wc = -1e18
            for (u = 1; u <= nunits; u++) {
                if (!((q, u) in counted)) continue
                if (small[u]) nsm[q]++
                mn = median("t" SUBSEP q SUBSEP "none" SUBSEP u); if (mn == "") continue
                tn += mn
                mr = median("r" SUBSEP q SUBSEP "refresh" SUBSEP u); if (mr != "") rst += mr
                for (c = 1; c <= nc; c++) {
                    C = cf[c]; m = median("t" SUBSEP q SUBSEP C SUBSEP u); if (m == "") continue
                    have[q, C] = 1; d[q, C, u] = m - mn; cost[q, C] += m - mn; if (small[u]) scost[q, C] += m - mn
                    if (C == "ivm" && m - mn > wc) { wc = m - mn; wu = u }
                }
            }
            for (c = 1; c <= nc; c++) {
                C = cf[c]
                if ((q SUBSEP C) in created_capped) { have[q, C] = 1; low[q, C] = 1; cost[q, C] = nun[q] * cap; scost[q, C] = nsm[q] * cap }
                if (!have[q, C]) { cost[q, C] = ""; scost[q, C] = "" }
            }
            ci = cost[q, "ivm"]; cr = cost[q, "refresh"]; li = low[q, "ivm"]; lr = low[q, "refresh"]
            if (!have[q, "refresh"] || lr) rst = ""
            ist = median("stats" SUBSEP q SUBSEP "ivm")
            line = sprintf("| %s | %s | %d | %s | %s%s | %s | %s%s | %s%s | %s | %s | %s | %s | %s | %s |", q, (q in rows) ? rows[q] : "-", nun[q],
                   ms(median("create" SUBSEP q SUBSEP "ivm")), ((q SUBSEP "refresh") in created_capped) ? ">" : "", ms(median("create" SUBSEP q SUBSEP "refresh")),
                   ms(tn), li ? ">" : "", ms(ci), lr ? ">" : "", ms(cr), rat(cr, ci, lr, li),
                   nsm[q] ? rat(scost[q, "refresh"], scost[q, "ivm"], lr, li) : "-",
                   (wu == "") ? "-" : sprintf("%d (%s)", wu, ms(wc)), ms(ist), ms(rst), (ist != "" && rst != "") ? rat(rst, ist, 0, 0) : "-")
            if (ci != "" && cr != "" && ci > 0 && cr > 0 && !(lr && li)) { rv[q] = cr / ci; bound[q] = lr ? ">" : li ? "<" : ""; okq[++n_ok] = q }
            if (nsm[q] && scost[q, "ivm"] != "" && scost[q, "refresh"] != "" && scost[q, "ivm"] > 0 && scost[q, "refresh"] > 0 && !(lr && li)) { srv[q] = scost[q, "refresh"] / scost[q, "ivm"]; sokq[++ns_ok] = q }
            if (pgivm) {
                st = status[q SUBSEP "pg_ivm"]; cp = cost[q, "pg_ivm"]; lp = low[q, "pg_ivm"]
                if (st == "refused" || st == "failed") line = line sprintf(" %s | - | - |", st)
                else line = line sprintf(" %s | %s%s | %s |", ms(median("create" SUBSEP q SUBSEP "pg_ivm")), lp ? ">" : "", ms(cp), rat(cr, cp, lr, lp))
            }
            if ((q SUBSEP "ivm") in mism || (q SUBSEP "pg_ivm") in mism) line = line " MISMATCH"
            lines[i] = line
        }
        hdr = "| query | view rows | units | create_view ms | CREATE MATVIEW ms | none ms | ivm cost ms | refresh cost ms | refresh/ivm | small units | ivm costliest unit (ms) | ivm.stats ms | REFRESH ms | REFRESH/ivm.stats |"
        rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"
        if (pgivm) { hdr = hdr " create_immv ms | pg_ivm cost ms | refresh/pg_ivm |"; rule = rule "---:|---:|---:|" }
        print hdr; print rule
        for (i = 1; i <= nq; i++) print lines[i]
        print ""
        if (n_ok > 0) {
            for (i = 1; i <= n_ok; i++) s[i] = okq[i]
            sortq(s, n_ok, rv)
            med = (n_ok % 2) ? rv[s[(n_ok + 1) / 2]] : (rv[s[n_ok / 2]] + rv[s[n_ok / 2 + 1]]) / 2
            below = ""; nb = 0
            for (i = 1; i <= n_ok; i++) if (rv[s[i]] < 5 && bound[s[i]] != ">") { below = below " " s[i] " (" bound[s[i]] num(rv[s[i]]) "x)"; nb++ }
            printf "Median refresh/ivm over %d queries: %s (target 20x: %s). Worst: %s, %s%sx. Target 5x for every query: %s.\n",
                   n_ok, num(med) "x", (med >= 20 ? "met" : "NOT met"), s[1], bound[s[1]], num(rv[s[1]]),
                   (nb ? "NOT met, " nb " below:" below : "met")
            if (ns_ok > 0) {
                for (i = 1; i <= ns_ok; i++) ss[i] = sokq[i]
                sortq(ss, ns_ok, srv)
                smed = (ns_ok % 2) ? srv[ss[(ns_ok + 1) / 2]] : (srv[ss[ns_ok / 2]] + srv[ss[ns_ok / 2 + 1]]) / 2
                nb = 0; for (i = 1; i <= ns_ok; i++) if (srv[ss[i]] < 5) nb++
                printf "Over the small units only: median %sx over %d queries, worst %s %sx, %d below 5x.\n", num(smed), ns_ok, ss[1], num(srv[ss[1]]), nb
            }
        }
        # per unit, over the queries where ivm and refresh both measured it
        print ""
        print "| unit | rows changed | small | queries | none ms (median) | ivm cost ms (sum) | refresh cost ms (sum) | refresh/ivm |"
        print "|---|---:|:---:|---:|---:|---:|---:|---:|"
        for (u = 1; u <= nunits; u++) {
            nqu = 0; si = 0; sr = 0; delete nv
            for (i = 1; i <= nq; i++) {
                q = qs[i]
                if (((q, "ivm", u) in d) && ((q, "refresh", u) in d)) { nqu++; si += d[q, "ivm", u]; sr += d[q, "refresh", u]; nv[nqu] = median("t" SUBSEP q SUBSEP "none" SUBSEP u) }
            }
            for (a = 2; a <= nqu; a++) { t = nv[a]; for (b = a - 1; b >= 1 && nv[b] > t; b--) nv[b + 1] = nv[b]; nv[b + 1] = t }
            mnv = nqu ? ((nqu % 2) ? nv[(nqu + 1) / 2] : (nv[nqu / 2] + nv[nqu / 2 + 1]) / 2) : ""
            printf "| %d %s | %s | %s | %d | %s | %s | %s | %s |\n", u, substr(label[u], 1, 60), (u in chg) ? chg[u] : "-", small[u] ? "yes" : "",
                   nqu, ms(mnv), nqu ? ms(si) : "-", nqu ? ms(sr) : "-", nqu ? rat(sr, si, 0, 0) : "-"
        }
        # the worst queries (ivm and refresh both measured every counted unit), per unit
        m = 0
        for (i = 1; i <= n_ok; i++) if (!low[s[i], "ivm"] && !low[s[i], "refresh"]) w[++m] = s[i]
        if (worst > m) worst = m
        if (worst > 0) {
            print ""
            printf "Per unit, the %d worst queries measured in full: ivm cost / refresh cost, ms (-: the unit writes no table the query reads).\n\n", worst
            h = "| unit |"; rl = "|---|"
            for (k = 1; k <= worst; k++) { h = h " " w[k] " |"; rl = rl "---:|" }
            print h; print rl
            for (u = 1; u <= nunits; u++) {
                l = sprintf("| %d %s |", u, substr(label[u], 1, 60))
                for (k = 1; k <= worst; k++) l = l (((w[k], "ivm", u) in d) ? sprintf(" %s / %s |", ms(d[w[k], "ivm", u]), ((w[k], "refresh", u) in d) ? ms(d[w[k], "refresh", u]) : "-") : " - |")
                print l
            }
        }
    }' "$1/queries" "$1/tables" "$1/labels" "$1/setups" "$1/times"
}

if [[ -n $report_dir ]]; then report "$report_dir"; exit 0; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivm-tpch.XXXXXX")
cleanup() {
    if [[ -n ${IVM_TPCH_RAW:-} ]]; then
        if mkdir -p "$IVM_TPCH_RAW"; then cp "$tmp"/{times,setups,queries,labels,tables,header,meta} "$IVM_TPCH_RAW"/ 2>/dev/null || true; fi
    fi
    rm -rf "$tmp"
    psql_ -d "$MAINT" -c "DROP DATABASE IF EXISTS $DB" 2>/dev/null || true
    [[ ${IVM_TPCH_KEEP:-0} == 1 ]] || psql_ -d "$MAINT" -c "DROP DATABASE IF EXISTS $TPL" 2>/dev/null || true
}
trap cleanup EXIT
times=$tmp/times     # round q cfg unit total_ms refresh_ms rows_changed ok|capped
setups=$tmp/setups   # round q cfg status create_ms rows stats_ms digest
: >"$times"; : >"$setups"
failures=0

# ---------------------------------------------------------------- the units

# The units of statements.sql as test/tpch/run.sh splits them: blank-line
# separated, a unit of comment lines only (the header) skipped.  unit_sql[i]
# is the unit without its comment lines, unit_label[i] its first comment,
# unit_writes[i] the tables it writes (INSERT INTO, UPDATE, DELETE FROM).
unit_sql=() unit_label=() unit_writes=()
add_unit() {
    local body label
    body=$(grep -v '^[[:space:]]*--' <<<"$1" || true)
    grep -q '[^[:space:]]' <<<"$body" || return 0
    label=$(grep -m1 '^[[:space:]]*--' <<<"$1" | sed 's/^[[:space:]]*--[[:space:]]*//' || true)
    unit_sql+=("$body")
    unit_label+=("$label")
    unit_writes+=("$(grep -oiE '(insert[[:space:]]+into|update|delete[[:space:]]+from)[[:space:]]+[a-z_]+' <<<"$body" \
                     | awk '{ print tolower($NF) }' | sort -u | tr '\n' ' ')")
}
unit=
while IFS= read -r line || [[ -n $line ]]; do
    if [[ -z ${line//[[:space:]]/} ]]; then
        [[ -z $unit ]] || add_unit "$unit"
        unit=
    else
        unit+="$line"$'\n'
    fi
done <"$tpch/statements.sql"
[[ -z $unit ]] || add_unit "$unit"
nunits=${#unit_sql[@]}
((nunits > 0)) || die "no units in $tpch/statements.sql"

query_of() { grep -v '^[[:space:]]*--' "$tpch/queries/$1.sql" | sed '$ s/;[[:space:]]*$//'; }

# ---------------------------------------------------------------- data

started=$(now)
log "ivm TPC-H benchmark: scale $SCALE, $ROUNDS round(s), $nq queries, $nunits units, REFRESH after" \
    "$([[ $REFRESH_MODE == all ]] && echo 'every unit' || echo 'the units touching the view'), statements capped at ${CAP} s"
log "connecting (PGHOST=${PGHOST:-default} PGPORT=${PGPORT:-default} PGUSER=${PGUSER:-default}), recreating $TPL"
psql_ -d "$MAINT" -c "DROP DATABASE IF EXISTS $DB" -c "DROP DATABASE IF EXISTS $TPL" -c "CREATE DATABASE $TPL" \
    || die "could not recreate database $TPL through database '$MAINT' (set PGDATABASE to an existing database)"
psql_ -d $TPL -c "CREATE EXTENSION ivm" >/dev/null \
    || die "CREATE EXTENSION ivm failed (is the extension installed, and do the installed library and SQL script match?)"
server=$(qv -d $TPL -c "SELECT split_part(version(), ' on ', 1) || '; fsync=' || current_setting('fsync')
    || ', jit=' || current_setting('jit') || ', shared_buffers=' || current_setting('shared_buffers')
    || ', shared_preload_libraries=''' || current_setting('shared_preload_libraries') || ''''")
ivm_version=$(qv -d $TPL -c "SELECT extversion FROM pg_extension WHERE extname = 'ivm'")
log "server: $server; ivm $ivm_version"
prewarm=$(qv -d $TPL -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_prewarm'")
if [[ $prewarm == 1 ]]; then psql_ -d $TPL -c "CREATE EXTENSION pg_prewarm"; else log "no pg_prewarm: the big tables are read with count(*) instead"; fi
pgivm_version=
if [[ $PGIVM == 1 ]]; then
    pgivm_version=$(qv -d $TPL -c "SELECT default_version FROM pg_available_extensions WHERE name = 'pg_ivm'")
    if [[ -n $pgivm_version ]]; then log "pg_ivm $pgivm_version is installed: a fourth configuration"
    else log "pg_ivm is not installed: no pg_ivm configuration"; PGIVM=0; fi
fi
t0=$(now)
psql_ -d $TPL -f "$tpch/schema.sql" -f "$tpch/generate.sql" -c "CALL tpch_generate($SCALE)" >/dev/null || die "tpch_generate($SCALE) failed"
# No autovacuum on the base tables: it would start in some runs and not in others.
psql_ -d $TPL <<'SQL' >/dev/null
SELECT format('ALTER TABLE %I SET (autovacuum_enabled = off)', relname) FROM pg_class
 WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' \gexec
VACUUM (FREEZE, ANALYZE);
SQL
qv -d $TPL -F ' ' -c "SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE schemaname = 'public'" >"$tmp/tables"
sizes=$(qv -d $TPL -c "SELECT string_agg(relname || ' ' || to_char(n_live_tup, 'FM999,999,999'), ', ' ORDER BY n_live_tup DESC)
    FROM pg_stat_user_tables WHERE relname IN ('lineitem', 'orders', 'partsupp', 'part', 'customer')")
dbsize=$(qv -d $TPL -c "SELECT pg_size_pretty(pg_database_size(current_database()))")
log "generated scale $SCALE ($sizes; $dbsize) in $(since "$t0")"

# the tables each query reads (a temporary view's dependencies), and the units counted for it
declare -A qtables qunits qnunits
for q in $QUERIES; do
    qtables[$q]=$(qv -d $TPL -v query="$(query_of "$q")" <<'SQL'
CREATE TEMP VIEW bench_q AS :query;
SELECT string_agg(DISTINCT d.refobjid::regclass::text, ' ')
  FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
 WHERE r.ev_class = 'bench_q'::regclass AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> 'bench_q'::regclass;
SQL
    ) || die "$q is not a valid query"
    qunits[$q]=
    n=0
    for ((i = 0; i < nunits; i++)); do
        touched=0
        for t in ${unit_writes[i]}; do [[ " ${qtables[$q]} " == *" $t "* ]] && touched=1; done
        if [[ $REFRESH_MODE == all || $touched == 1 ]]; then qunits[$q]+="$((i + 1)) "; n=$((n + 1)); fi
    done
    qnunits[$q]=$n
done

# ---------------------------------------------------------------- one run

# script CFG Q: the units as one psql script; "@@u N" before unit N, "@@r"
# before its REFRESH, "@@c" before its COMMIT (the parser sums the \timing
# lines between the marks, and the command tags' row counts).
script() {
    local cfg=$1 q=$2 i
    printf '\\set QUIET on\nSET client_min_messages = warning;\nSET statement_timeout = %s;\n\\timing on\n\\set QUIET off\n' "$cap_ms"
    for ((i = 0; i < nunits; i++)); do
        printf '\\echo @@u %d\nBEGIN;\n%s\n' $((i + 1)) "${unit_sql[i]}"
        if [[ $cfg == refresh && " ${qunits[$q]} " == *" $((i + 1)) "* ]]; then
            printf '\\echo @@r\nREFRESH MATERIALIZED VIEW %s;\n' "$q"
        fi
        printf '\\echo @@c\nCOMMIT;\n'
    done
    printf '%s\n' '\echo @@end'
}

# digest of a view's rows: numbers rounded, rows as text, sorted
digest() {
    qv -d $DB -v v="$1" <<'SQL'
SELECT format('SELECT md5(coalesce(string_agg(r, E''\n'' ORDER BY r), '''')) FROM (SELECT ROW(%s)::text AS r FROM %I) s',
              string_agg(CASE WHEN atttypid IN ('numeric'::regtype, 'float4'::regtype, 'float8'::regtype)
                              THEN format('round(%I::numeric, 6)', attname) ELSE quote_ident(attname) END, ', ' ORDER BY attnum),
              :'v')
  FROM pg_attribute WHERE attrelid = :'v'::regclass AND attnum > 0 AND NOT attisdropped AND attname NOT LIKE '\_\_ivm%'
\gexec
SQL
}

declare -A skip   # q,cfg -> why that configuration is not run any more
run_one() {  # run_one ROUND Q CFG
    local r=$1 q=$2 cfg=$3 query out create_ms=- rows=- stats=- dg=- t0 err status=ok make extra_opts=
    query=$(query_of "$q")
    t0=$(now)
    psql_ -d "$MAINT" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB TEMPLATE $TPL STRATEGY FILE_COPY" \
        || die "could not copy $TPL"
    [[ $cfg != pg_ivm ]] || extra_opts="-c session_preload_libraries=pg_ivm"
    # set-up, timed
    if [[ $cfg != none ]]; then
        [[ $cfg != pg_ivm ]] || psql_ -d $DB -c "CREATE EXTENSION pg_ivm"
        case $cfg in
            ivm) make="SELECT ivm.create_view(:'q', :'query');" ;;
            pg_ivm) make="SELECT pgivm.create_immv(:'q', :'query');" ;;
            refresh) make="SELECT format('CREATE MATERIALIZED VIEW %I AS %s', :'q', :'query') \\gexec" ;;
        esac
        if ! out=$(qv -d $DB -v q="$q" -v query="$query" 2>"$tmp/err" <<SQL
SET statement_timeout = $cap_ms;
\\timing on
$make
SQL
        ); then
            err=$(grep -m1 ERROR "$tmp/err" || head -1 "$tmp/err")
            if [[ $err == *"statement timeout"* ]]; then
                skip[$q,$cfg]=capped
                log "  r$r $q $cfg: creating the view took over ${CAP} s (cancelled): $cfg not run, its cost a lower bound"
                printf '%s %s %s capped %s - - -\n' "$r" "$q" "$cfg" "$cap_ms" >>"$setups"
            elif [[ $cfg == pg_ivm ]]; then
                skip[$q,$cfg]=refused
                log "  r$r $q pg_ivm refuses it: ${err#*ERROR:  }"
                printf '%s %s %s refused - - - -\n' "$r" "$q" "$cfg" >>"$setups"
            else
                log "  r$r $q $cfg: set-up FAILED: $(cat "$tmp/err")"
                skip[$q,$cfg]=failed; failures=$((failures + 1))
                printf '%s %s %s failed - - - -\n' "$r" "$q" "$cfg" >>"$setups"
            fi
            return 0
        fi
        # the view's statement is the longest timed one (\gexec times its query too)
        create_ms=$(awk '/^Time: / && $2 + 0 > t + 0 { t = $2 } END { print t }' <<<"$out")
        case $cfg in
            ivm)
                rows=$(grep -m1 -E '^[0-9]+$' <<<"$out" || echo -)
                psql_ -d $DB -v q="$q" <<'SQL' >/dev/null
SELECT format('VACUUM ANALYZE %s', storage) FROM ivm.views WHERE name::text = :'q' OR part_of::text = :'q' \gexec
SELECT ivm.reset_stats() WHERE EXISTS (SELECT FROM pg_proc WHERE proname = 'reset_stats' AND pronamespace = 'ivm'::regnamespace);
SQL
                ;;
            pg_ivm) rows=$(grep -m1 -E '^[0-9]+$' <<<"$out" || echo -); psql_ -d $DB -c "VACUUM ANALYZE $q" ;;
            refresh) psql_ -d $DB -c "VACUUM ANALYZE $q"; rows=$(qv -d $DB -c "SELECT count(*) FROM $q") ;;
        esac
    fi
    # the same start for every configuration: base tables in shared buffers, no dirty buffers
    if [[ $prewarm == 1 ]]; then
        psql_ -d $DB <<'SQL' >/dev/null
SELECT sum(pg_prewarm(c.oid)) FROM pg_class c
 WHERE c.oid IN (SELECT t.oid FROM pg_class t WHERE t.relnamespace = 'public'::regnamespace AND t.relname IN
                   ('region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'))
    OR c.oid IN (SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
                  WHERE t.relnamespace = 'public'::regnamespace AND t.relname IN
                   ('region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'));
SQL
    else
        psql_ -d $DB -c "SELECT (SELECT count(*) FROM lineitem) + (SELECT count(*) FROM orders) + (SELECT count(*) FROM partsupp)" >/dev/null
    fi
    psql_ -d $DB -c CHECKPOINT 2>/dev/null || true
    # the units (not quiet: the command tags give the rows changed)
    script "$cfg" "$q" >"$tmp/script.sql"
    out=$(PGOPTIONS="${PGOPTIONS:-} $extra_opts" "$PSQL" -X -v ON_ERROR_STOP=1 -d $DB -f "$tmp/script.sql" 2>"$tmp/err") || true
    if ! grep -q '^@@end' <<<"$out"; then
        if grep -q 'statement timeout' "$tmp/err"; then
            status=stopped; skip[$q,$cfg]=stopped
            log "  r$r $q $cfg: a statement of unit $(grep '^@@u ' <<<"$out" | tail -1 | cut -d' ' -f2) took over ${CAP} s" \
                "(cancelled): the run stops there, $cfg not run again, its cost a lower bound"
        else
            log "  r$r $q $cfg: the units FAILED: $(tail -5 "$tmp/err")"
            skip[$q,$cfg]=failed; failures=$((failures + 1))
            printf '%s %s %s failed - - - -\n' "$r" "$q" "$cfg" >>"$setups"
            return 0
        fi
    fi
    awk -v r="$r" -v q="$q" -v c="$cfg" -v cap="$cap_ms" '
        /^@@u / { u = $2; tot[u] = 0; ref[u] = 0; rows[u] = 0; inref = 0; order[++n] = u; next }
        /^@@r/ { inref = 1; next }
        /^@@c/ { inref = 0; next }
        /^@@end/ { done = 1; next }
        /^Time: / { tot[u] += $2; if (inref) ref[u] += $2; next }
        /^(INSERT 0|UPDATE|DELETE) [0-9]+$/ { rows[u] += $NF }
        END { for (i = 1; i <= n; i++) {
                  u = order[i]; flag = "ok"
                  if (i == n && !done) { tot[u] = cap; flag = "capped" }
                  printf "%s %s %s %s %.3f %.3f %d %s\n", r, q, c, u, tot[u], ref[u], rows[u], flag } }' <<<"$out" >>"$times"
    local total
    total=$(awk -v r="$r" -v q="$q" -v c="$cfg" '$1 == r && $2 == q && $3 == c { s += $5 } END { printf "%.0f", s }' "$times")
    # after the units: ivm's own maintenance time (the largest of the view's
    # and its parts': a part's maintenance includes, nested, the view's over
    # it), the contents' digest
    if [[ $cfg == ivm ]]; then
        stats=$(qv -d $DB -v q="$q" 2>/dev/null <<'SQL' || true
SELECT round(max(total_time_ms)::numeric, 1) FROM ivm.stats
 WHERE name::text IN (SELECT name::text FROM ivm.views WHERE name::text = :'q' OR part_of::text = :'q')
SQL
        )
        [[ -n $stats && $status == ok ]] || stats=-
    fi
    if [[ $cfg != none && $VERIFY == 1 && $status == ok ]]; then dg=$(digest "$q") || dg=ERR; fi
    printf '%s %s %s %s %s %s %s %s\n' "$r" "$q" "$cfg" "$status" "$create_ms" "$rows" "$stats" "$dg" >>"$setups"
    log "  r$r $q $cfg: $([[ $create_ms != - ]] && echo "created in $create_ms ms ($rows rows), ")units $total ms$([[ $status == ok ]] || echo " (stopped)") ($(since "$t0") in all)"
}

# ---------------------------------------------------------------- main

CONFIGS="none ivm refresh"
[[ $PGIVM != 1 ]] || CONFIGS+=" pg_ivm"
read -r -a cfgs <<<"$CONFIGS"
for ((r = 1; r <= ROUNDS; r++)); do
    log "round $r of $ROUNDS"
    for q in $QUERIES; do
        log " $q (reads ${qtables[$q]}; ${qnunits[$q]} of $nunits units counted)"
        k=${#cfgs[@]}
        for ((j = 0; j < k; j++)); do
            cfg=${cfgs[(j + r - 1) % k]}
            [[ -n ${skip[$q,$cfg]:-} ]] || run_one "$r" "$q" "$cfg"
        done
        if [[ $VERIFY == 1 ]]; then
            ref=$(awk -v r="$r" -v q="$q" '$1 == r && $2 == q && $3 == "refresh" && $4 == "ok" { print $8 }' "$setups")
            for cfg in ivm pg_ivm; do
                d=$(awk -v r="$r" -v q="$q" -v c="$cfg" '$1 == r && $2 == q && $3 == c && $4 == "ok" { print $8 }' "$setups")
                if [[ -n $d && -n $ref && $d != "$ref" ]]; then
                    log "  MISMATCH: after the units, $cfg's $q differs from the refreshed materialized view"
                    printf '%s %s %s mismatch - - - -\n' "$r" "$q" "$cfg" >>"$setups"
                    failures=$((failures + 1))
                fi
            done
        fi
    done
done
psql_ -d "$MAINT" -c "DROP DATABASE IF EXISTS $DB"
elapsed=$(since "$started")
log "finished in $elapsed"

# ---------------------------------------------------------------- report

for q in $QUERIES; do printf '%s %s %s\n' "$q" "${qnunits[$q]}" "${qunits[$q]}"; done >"$tmp/queries"
for ((i = 0; i < nunits; i++)); do printf '%d\t%s\t%s\n' $((i + 1)) "${unit_label[i]}" "${unit_writes[i]}"; done >"$tmp/labels"
{
    echo "ivm TPC-H benchmark, scale $SCALE ($sizes; $dbsize); $server; ivm $ivm_version${pgivm_version:+, pg_ivm $pgivm_version}; $elapsed."
    echo "The $nunits units of test/tpch/statements.sql, each its own transaction; $ROUNDS round(s), @STAT@ per unit;" \
         "REFRESH after $([[ $REFRESH_MODE == all ]] && echo 'every unit' || echo 'each unit writing a table the query reads')." \
         "cost = time with the view - time without (ms, summed over the counted units); refresh/ivm > 1: ivm is cheaper;" \
         "small units: changing at most 10 rows or 1% of the rows of the tables they write; > and <: from a lower bound (a statement over ${CAP} s cancelled)."
} >"$tmp/header"
printf 'PGIVM=%s\ncap_ms=%s\n' "$PGIVM" "$cap_ms" >"$tmp/meta"
report "$tmp"

if ((failures > 0)); then
    echo
    echo "$failures set-up(s), run(s) or check(s) failed; see the messages above (stderr)."
    exit 1
fi
