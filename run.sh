#!/usr/bin/env bash
# ivm's commands, for a fresh Debian bookworm machine, run as root:
#   ./run.sh demo        install what is missing, build, install, start a
#                        throwaway cluster and show a view following changes
#   ./run.sh test        the same set-up, then every test suite (the quick
#                        differential run); non-zero on failure
#   ./run.sh test-long   the same with the long differential run
#   ./run.sh bench       the same set-up, then the benchmark (bench/run.sh;
#                        arguments after "bench" go to it)
#   ./run.sh bench-concurrency   the concurrency benchmark (bench/concurrency.sh),
#                        on a cluster with fsync on
#   ./run.sh bench-deferred      deferred views: apply against REFRESH
#                        (bench/deferred.sh)
#   ./run.sh bench-recursion     single-edge deletes under a recursive view,
#                        one by one (bench/recursive_deletes.sh)
#   ./run.sh bench-datalog       a points-to analysis and same generation:
#                        creation and one-fact changes against recomputing
#                        (bench/datalog.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bindir=/usr/lib/postgresql/15/bin
export PG_CONFIG=$bindir/pg_config

log() { printf '\n== %s\n' "$*" >&2; }

# Each dependency is named by the file that is used, and the Debian package
# that ships it.  Missing files' packages are installed in one apt-get call;
# a file still missing afterwards stops the command with one line naming it.
required=()
require() {  # require FILE PACKAGE
    required+=("$1" "$2")
}

require_build() {
    require "$PG_CONFIG" postgresql-client-15
    require /usr/include/postgresql/15/server/postgres.h postgresql-server-dev-15
    require /usr/bin/make make
    require /usr/bin/g++ g++
}

require_cluster() {
    require "$bindir/initdb" postgresql-15
    require "$bindir/pg_ctl" postgresql-15
    require "$bindir/psql" postgresql-client-15
}

require_tests() {
    require /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress postgresql-client-15
    require /usr/lib/postgresql/15/lib/pgxs/src/test/isolation/pg_isolation_regress postgresql-client-15
    require "$bindir/pg_dump" postgresql-client-15
    require "$bindir/pg_restore" postgresql-client-15
    require "$bindir/pgbench" postgresql-15
    require "$bindir/pg_basebackup" postgresql-client-15
    require /usr/lib/postgresql/15/lib/auto_explain.so postgresql-15
    require /usr/include/gtest/gtest.h libgtest-dev
    require /usr/lib/x86_64-linux-gnu/libgtest.a libgtest-dev
    require /usr/lib/x86_64-linux-gnu/libgtest_main.a libgtest-dev
}

require_bench() {
    require "$bindir/pgbench" postgresql-15
    require /usr/bin/gnuplot gnuplot-nox
}

install_dependencies() {
    local missing=() i
    for ((i = 0; i < ${#required[@]}; i += 2)); do
        [ -e "${required[i]}" ] || missing+=("${required[i + 1]}")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    # one name per package, in a stable order
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    log "installing ${missing[*]} (apt-get)"
    local apt_log
    apt_log=$(mktemp)
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
              apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$apt_log" 2>&1; then
        cat "$apt_log" >&2
    fi
    rm -f "$apt_log"
    for ((i = 0; i < ${#required[@]}; i += 2)); do
        if [ ! -e "${required[i]}" ]; then
            echo "run.sh: missing ${required[i]} (Debian package ${required[i + 1]}), and it could not be installed" >&2
            exit 1
        fi
    done
}

build_and_install() {
    log "building and installing the extension"
    make -C "$here" -s -j"$(nproc)" >/dev/null
    make -C "$here" -s install >/dev/null
}

# A throwaway cluster owned by the postgres OS user (the server refuses to
# run as root), in a fresh directory that user can read, stopped on exit.
# start_cluster [PRELOAD [FSYNC]]: shared_preload_libraries (default ivm
# with pg_stat_statements tracking nested statements, as production servers
# often run: its hook reads every statement ivm analyzes), fsync (default off).
start_cluster() {
    local preload=${1-ivm,pg_stat_statements} fsync=${2-off}
    local track=""
    case $preload in *pg_stat_statements*) track="-c pg_stat_statements.track=all" ;; esac
    cluster=$(mktemp -d /tmp/ivm-cluster.XXXXXX)
    chown postgres: "$cluster"
    chmod 700 "$cluster"
    trap stop_cluster EXIT
    su postgres -s /bin/sh -c "$bindir/initdb -D '$cluster/data' -U postgres -A trust --no-sync" >"$cluster/initdb.log" 2>&1 \
        || { cat "$cluster/initdb.log"; exit 1; }
    PGPORT=$((20000 + RANDOM % 30000))  # unix socket only, in a private directory
    su postgres -s /bin/sh -c "$bindir/pg_ctl -D '$cluster/data' -l '$cluster/server.log' -w -o \"-k '$cluster' -p $PGPORT -c listen_addresses='' -c fsync=$fsync -c shared_preload_libraries='$preload' $track -c jit=off\" start" >/dev/null \
        || { cat "$cluster/server.log"; exit 1; }
    export PGHOST=$cluster PGPORT PGUSER=postgres PGDATABASE=postgres
}

stop_cluster() {
    [ -n "${cluster:-}" ] || return 0
    su postgres -s /bin/sh -c "$bindir/pg_ctl -D '$cluster/data' -m immediate stop" >/dev/null 2>&1 || true
    rm -rf "$cluster"
    cluster=
}

run_demo() {
    log "demo"
    "$bindir/psql" -X -v ON_ERROR_STOP=1 -q -f "$here/demo.sql"
}

# The quick run (the default) takes every suite and every view kind; the
# long one only runs the differential tester on more seeds.
run_tests() {
    local passed=0 failed=0 started=$SECONDS
    suite() {  # suite NAME COMMAND...: runs one suite, counts and times it
        local t0=$SECONDS
        log "$1"
        shift
        if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
        echo "($((SECONDS - t0)) s)"
    }
    suite "unit tests (src/core)" make -C "$here/test/unit" -s -j"$(nproc)" run
    # pg_regress writes its results into the source tree; it runs as root
    # and connects to the cluster as the postgres role.
    suite "regression and isolation tests (pg_regress, pg_isolation_regress)" regression_tests
    suite "dump and restore (pg_dump, pg_restore, psql)" "$here/test/dump/run.sh"
    suite "extension upgrade (ALTER EXTENSION ivm UPDATE)" "$here/test/upgrade/run.sh"
    # (125 statements a seed: the test command's 15 minutes)
    suite "differential tests" env IVM_DT_STEPS="${IVM_DT_STEPS:-125}" "$here/test/differential/run.sh"
    suite "TPC-H queries as views under the refresh functions and updates" "$here/test/tpch/run.sh"
    suite "maintenance plans: changes estimated with their tables' statistics" "$here/test/plans/run.sh"
    suite "concurrent writers (pgbench)" "$here/test/concurrent/run.sh"
    suite "concurrent writers, every change rebuilding (by heap swap)" \
        env IVM_CONCURRENT_OPTIONS="-c ivm.rebuild_fraction=0 -c ivm.swap_min_tuples=0" "$here/test/concurrent/run.sh"
    suite "concurrent writers, every change rebuilding (small storage: in place)" \
        env IVM_CONCURRENT_OPTIONS="-c ivm.rebuild_fraction=0" "$here/test/concurrent/run.sh"
    suite "read replica (a streaming standby, pg_basebackup)" "$here/test/replica/run.sh"
    suite "logical replication subscriber (two publishers, immediate and deferred views)" "$here/test/replica/subscriber.sh"
    suite "background worker applying deferred views (ivm.apply_interval)" "$here/test/apply_worker/run.sh"
    # Correctness must not rest on the preload: every suite again on a
    # cluster started without it (the differential tester on fewer seeds).
    stop_cluster
    start_cluster ""
    suite "regression tests without shared_preload_libraries (those not reading ivm.stats)" \
        regression_tests ISOLATION= REGRESS="$(make -s -C "$here" regress-without-preload)"
    suite "isolation tests without shared_preload_libraries" isolation_tests
    suite "dump and restore without shared_preload_libraries" "$here/test/dump/run.sh"
    suite "extension upgrade without shared_preload_libraries" "$here/test/upgrade/run.sh"
    suite "differential tests without shared_preload_libraries" "$here/test/differential/run.sh" 2 100
    suite "TPC-H queries as views without shared_preload_libraries" "$here/test/tpch/run.sh"
    suite "maintenance plans without shared_preload_libraries" "$here/test/plans/run.sh"
    suite "concurrent writers without shared_preload_libraries" "$here/test/concurrent/run.sh"
    suite "concurrent writers, every change rebuilding, without shared_preload_libraries" \
        env IVM_CONCURRENT_OPTIONS="-c ivm.rebuild_fraction=0 -c ivm.swap_min_tuples=0" "$here/test/concurrent/run.sh"
    suite "concurrent writers, every change rebuilding in place, without shared_preload_libraries" \
        env IVM_CONCURRENT_OPTIONS="-c ivm.rebuild_fraction=0" "$here/test/concurrent/run.sh"
    suite "read replica without shared_preload_libraries" "$here/test/replica/run.sh"
    suite "logical replication subscriber without shared_preload_libraries" "$here/test/replica/subscriber.sh"
    suite "no background worker without shared_preload_libraries" "$here/test/apply_worker/run.sh"
    echo
    echo "test suites: $passed passed, $failed failed ($((SECONDS - started)) s)"
    [ "$failed" -eq 0 ]
}

# pg_regress suites, then the isolation specs (pg_isolation_regress);
# make's arguments (REGRESS= runs only the specs).
regression_tests() {
    make -C "$here" -s installcheck "$@" && return 0
    for diffs in "$here/regression.diffs" "$here/output_iso/regression.diffs"; do
        [ -f "$diffs" ] && cat "$diffs"
    done
    return 1
}

isolation_tests() { regression_tests REGRESS=; }

command=${1:-}
case "$command" in
    demo) require_build; require_cluster ;;
    test | test-long) require_build; require_cluster; require_tests ;;
    bench | bench-concurrency | bench-deferred | bench-recursion | bench-datalog) require_build; require_cluster; require_bench ;;
    *) echo "usage: $0 demo|test|test-long|bench [bench options]|bench-concurrency|bench-deferred|bench-recursion|bench-datalog" >&2; exit 2 ;;
esac
install_dependencies
build_and_install
if [ "$command" = bench-concurrency ]; then start_cluster ivm on; else start_cluster; fi
case "$command" in
    demo) run_demo ;;
    test) run_tests ;;
    test-long) export IVM_DT_SEEDS=${IVM_DT_SEEDS:-25} IVM_DT_RANDOM_FRESH=1; run_tests ;;
    bench) shift; IVM_BENCH_PGBIN=$bindir "$here/bench/run.sh" "$@" ;;
    bench-concurrency) IVM_BENCH_PGBIN=$bindir "$here/bench/concurrency.sh" ;;
    bench-deferred) IVM_BENCH_PGBIN=$bindir "$here/bench/deferred.sh" ;;
    bench-recursion) IVM_BENCH_PGBIN=$bindir "$here/bench/recursive_deletes.sh" ;;
    bench-datalog) IVM_BENCH_PGBIN=$bindir "$here/bench/datalog.sh" ;;
esac
