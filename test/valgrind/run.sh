#!/usr/bin/env bash
# The regression suite against a server running under valgrind's memcheck
# (Debian's valgrind and PostgreSQL build: malloc-level checks, which cover
# ivm's C++ objects; palloc'd memory is not instrumented).  Reports every
# error whose stack passes through ivm's code (its frames, or ivm.so) and
# fails if there is one.
# Slow (about 20x): not part of ./run.sh test; run as root:
#   test/valgrind/run.sh [pg_regress test names]   (default: the whole suite)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bindir=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)"; exit 1; }
work=$(mktemp -d /tmp/ivm-valgrind.XXXXXX)
chown postgres: "$work"
chmod 700 "$work"
port=$((20000 + RANDOM % 30000))
stop() {
    su postgres -s /bin/sh -c "$bindir/pg_ctl -D '$work/data' -m fast stop" >/dev/null 2>&1 || true
    [ -n "${keep:-}" ] || rm -rf "$work"
}
trap stop EXIT
su postgres -s /bin/sh -c "$bindir/initdb -D '$work/data' -U postgres -A trust --no-sync" >/dev/null
# The postmaster and every backend it forks run under memcheck.
su postgres -s /bin/sh -c "valgrind --quiet --trace-children=yes --error-limit=no --num-callers=30 \
    --log-file='$work/vg.%p.log' $bindir/postgres -D '$work/data' -k '$work' -p $port \
    -c listen_addresses='' -c fsync=off -c shared_preload_libraries=ivm -c jit=off \
    -c max_parallel_workers_per_gather=0 >'$work/server.log' 2>&1 &"
for _ in $(seq 1 120); do
    "$bindir/pg_isready" -q -h "$work" -p $port && break
    sleep 1
done
export PGHOST=$work PGPORT=$port PGUSER=postgres
tests=${*:-$(make -s -C "$root" print-regress)}
status=0
make -C "$root" -s installcheck REGRESS="$tests" ISOLATION= || status=$?
su postgres -s /bin/sh -c "$bindir/pg_ctl -D '$work/data' -m fast stop" >/dev/null 2>&1 || true
# An error report is a block of lines "==pid== ..." ending with a blank one;
# it is ivm's when its first frame is ivm's code, and reached from ivm when
# a frame further down is (PostgreSQL code that ivm called).
ivm_frame='(ivm\.so|ivm::|ivm_[a-z_]+ \(|\((analyze|boundary|catalog|counting_maintenance|dred_maintenance|execution|fixpoint_maintenance|runtime|trigger|view_locks|views)\.cpp:)'
classify() {  # classify first|deeper
    awk -v which="$1" -v frame="$ivm_frame" '
        /^==[0-9]+== [A-Z]/ { block = ""; first = "" }
        /^==[0-9]+==    at / { first = $0 }
        /^==[0-9]+==/ { block = block $0 "\n" }
        /^==[0-9]+== $/ {
            if (block ~ /(Invalid|uninitialised|Mismatched|overlap)/) {
                if (which == "first" && first ~ frame) print block
                if (which == "deeper" && first !~ frame && block ~ frame) print block
            }
            block = ""
        }' "$work"/vg.*.log
}
mine=$(classify first)
reached=$(classify deeper | grep -c '^==[0-9]*== [A-Z]' || true)
if [ -n "$mine" ]; then
    echo "$mine"
    echo "valgrind: errors in ivm's code (logs kept in $work)"
    keep=1
    exit 1
fi
echo "valgrind: the regression tests ($(wc -w <<<"$tests") files, pg_regress status $status) under memcheck:" \
     "no invalid read or write, uninitialised use or mismatched free in ivm's code;" \
     "$reached report(s) in PostgreSQL code that ivm called (logs: keep=1 $0)"
[ "$status" -eq 0 ]
