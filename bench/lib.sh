# What the benchmark scripts share; sourced by each (PGBIN set first where
# bench_database is used).

# This directory: the scripts' SQL files are beside them.
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# A progress line on stderr, with the time.
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# bench_database DB: created anew (dropped first if there), and dropped when
# the script exits; psql (an array) then runs psql on it.
bench_database() {
    psql=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$1")
    "$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
    # shellcheck disable=SC2064  # (the name now, not at exit)
    trap "'$PGBIN/psql' -X -q -d postgres -c 'DROP DATABASE IF EXISTS $1' >/dev/null 2>&1 || true" EXIT
}
