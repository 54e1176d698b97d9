# What the benchmark scripts share; sourced by each (PGBIN set first where
# bench_database is used).

# A progress line on stderr, with the time.
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# bench_database DB: created anew (dropped first if there), and dropped when
# the script exits.
bench_database() {
    "$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
    # shellcheck disable=SC2064  # (the name now, not at exit)
    trap "'$PGBIN/psql' -X -q -d postgres -c 'DROP DATABASE IF EXISTS $1' >/dev/null 2>&1 || true" EXIT
}
