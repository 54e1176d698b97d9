#!/usr/bin/env bash
# Runs the regression and differential suites against an AddressSanitizer
# build of the extension (C++ heap errors, use after free, overflows), then
# reinstalls the normal build.  A developer's check, not part of run.sh test:
#   test/sanitize.sh            (as root, on a machine where ./run.sh test passed)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
bindir=/usr/lib/postgresql/15/bin
asan=$(gcc -print-file-name=libasan.so)

build=$(mktemp -d /tmp/ivm-asan-build.XXXXXX)
cluster=$(mktemp -d /tmp/ivm-asan.XXXXXX)
chown postgres: "$cluster"
cleanup() {
    su postgres -s /bin/sh -c "$bindir/pg_ctl -D '$cluster/data' -m immediate stop" >/dev/null 2>&1 || true
    make -C "$here" -s install >/dev/null   # back to the normal build
    rm -rf "$cluster" "$build"
}
trap cleanup EXIT

git -C "$here" archive HEAD | tar -x -C "$build"
make -C "$build" -s clean
make -C "$build" -s PG_CXXFLAGS="-std=c++17 -Isrc -fsanitize=address -fno-omit-frame-pointer -g" \
     SHLIB_LINK="-lstdc++ -fsanitize=address" >/dev/null
make -C "$build" -s install >/dev/null

su postgres -s /bin/sh -c "$bindir/initdb -D '$cluster/data' -U postgres -A trust --no-sync" >/dev/null
PGPORT=$((20000 + RANDOM % 30000))
su postgres -s /bin/sh -c "LD_PRELOAD='$asan' ASAN_OPTIONS='detect_leaks=0:abort_on_error=1:log_path=$cluster/asan' \
    $bindir/pg_ctl -D '$cluster/data' -l '$cluster/server.log' -w -o \"-k '$cluster' -p $PGPORT -c listen_addresses='' -c shared_preload_libraries=ivm -c jit=off\" start" >/dev/null
export PGHOST=$cluster PGPORT PGUSER=postgres PGDATABASE=postgres

status=0
make -C "$build" -s installcheck || status=1
"$build/test/differential/run.sh" 5 100 || status=1
if ls "$cluster"/asan* >/dev/null 2>&1; then
    cat "$cluster"/asan*
    status=1
fi
grep -q "terminated by signal" "$cluster/server.log" && { grep "terminated by signal" "$cluster/server.log"; status=1; }
[ $status -eq 0 ] && echo "sanitizer run: no errors"
exit $status
