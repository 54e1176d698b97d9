#!/usr/bin/env bash
# ivm's two commands, for a fresh Debian bookworm machine, run as root:
#   ./run.sh demo   install what is missing, build, install, start a throwaway
#                   cluster and show a view following changes to its tables
#   ./run.sh test   the same set-up, then every test suite; non-zero on failure
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
bindir=/usr/lib/postgresql/15/bin

log() { printf '\n== %s\n' "$*"; }

install_dependencies() {
    local missing=()
    [ -x "$PG_CONFIG" ] && [ -f "$($PG_CONFIG --pgxs 2>/dev/null)" ] || missing+=(postgresql-server-dev-15)
    command -v make >/dev/null || missing+=(make)
    command -v g++ >/dev/null || missing+=(g++)
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

build_and_install() {
    log "building and installing the extension"
    make -C "$here" -s -j2 >/dev/null
    make -C "$here" -s install >/dev/null
}

# A throwaway cluster owned by the postgres OS user (the server refuses to
# run as root), in a fresh directory that user can read, stopped on exit.
start_cluster() {
    cluster=$(mktemp -d /tmp/ivm-cluster.XXXXXX)
    chown postgres: "$cluster"
    chmod 700 "$cluster"
    trap stop_cluster EXIT
    su postgres -s /bin/sh -c "$bindir/initdb -D '$cluster/data' -U postgres -A trust --no-sync" >"$cluster/initdb.log" 2>&1 \
        || { cat "$cluster/initdb.log"; exit 1; }
    PGPORT=$((20000 + RANDOM % 30000))  # unix socket only, in a private directory
    su postgres -s /bin/sh -c "$bindir/pg_ctl -D '$cluster/data' -l '$cluster/server.log' -w -o \"-k '$cluster' -p $PGPORT -c listen_addresses='' -c fsync=off -c shared_preload_libraries=ivm -c jit=off\" start" >/dev/null \
        || { cat "$cluster/server.log"; exit 1; }
    export PGHOST=$cluster PGPORT PGUSER=postgres PGDATABASE=postgres
}

stop_cluster() {
    [ -n "${cluster:-}" ] || return 0
    su postgres -s /bin/sh -c "$bindir/pg_ctl -D '$cluster/data' -m immediate stop" >/dev/null 2>&1 || true
    rm -rf "$cluster"
}

run_demo() {
    log "demo"
    "$bindir/psql" -X -v ON_ERROR_STOP=1 -q -f "$here/demo.sql"
}

run_tests() {
    local passed=0 failed=0
    suite() {  # suite NAME COMMAND...: runs one suite and counts it
        log "$1"
        shift
        if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    }
    suite "unit tests (src/core)" make -C "$here/test/unit" -s run
    # pg_regress writes its results into the source tree; it runs as root
    # and connects to the cluster as the postgres role.
    suite "regression and isolation tests (pg_regress, pg_isolation_regress)" regression_tests
    suite "dump and restore (pg_dump, pg_restore, psql)" "$here/test/dump/run.sh"
    suite "differential tests" "$here/test/differential/run.sh"
    echo
    echo "test suites: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# pg_regress suites, then the isolation specs (pg_isolation_regress).
regression_tests() {
    make -C "$here" -s installcheck && return 0
    for diffs in "$here/regression.diffs" "$here/output_iso/regression.diffs"; do
        [ -f "$diffs" ] && cat "$diffs"
    done
    return 1
}

case "${1:-}" in
    demo) install_dependencies; build_and_install; start_cluster; run_demo ;;
    test) install_dependencies; build_and_install; start_cluster; run_tests ;;
    *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac
