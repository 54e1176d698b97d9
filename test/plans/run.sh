#!/usr/bin/env bash
# Maintenance plans: the rows of a change estimated with the statistics of
# their table (src/pg/change_estimates.hpp).  A view joins a year of a
# ten-year table to another; an UPDATE of one row in 50 changes 400, of
# which about a tenth fall in that year.  auto_explain shows the plans of
# the statements maintenance runs: every filtered scan of a transition
# table must be estimated within a factor of two of the rows that pass
# (with the planner's default selectivity it would be 0.005 of 400: 2), and
# the join of the changed rows (new and old, a UNION ALL) to the other
# table within a factor of two of twice that.  The view must equal its
# query afterwards.
# Runs against the cluster in PGHOST/PGPORT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
db=ivm_plans
fail() { echo "maintenance plans: $*"; exit 1; }

"${psql[@]}" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
"${psql[@]}" -d $db >/dev/null <<'SQL'
CREATE EXTENSION ivm;
CREATE TABLE events (id int PRIMARY KEY, k int NOT NULL, day date NOT NULL, n int NOT NULL);
INSERT INTO events SELECT i, i % 5000, date '2015-01-01' + i % 3650, i % 7 FROM generate_series(1, 20000) i;
CREATE TABLE kinds (k int PRIMARY KEY, label text NOT NULL);
INSERT INTO kinds SELECT i, 'kind ' || i FROM generate_series(0, 4999) i;
ANALYZE events;
ANALYZE kinds;
SET client_min_messages = warning;
SELECT ivm.create_view('year_2020', 'SELECT k.label, count(*), sum(e.n) FROM events e JOIN kinds k ON k.k = e.k
                                      WHERE e.day >= date ''2020-01-01'' AND e.day < date ''2021-01-01'' GROUP BY k.label');
SQL
passing=$("${psql[@]}" -d $db -At -c "SELECT count(*) FROM events WHERE id % 50 = 0 AND day >= date '2020-01-01' AND day < date '2021-01-01'")
plans=$("${psql[@]}" -d $db 2>&1 <<'SQL'
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_level = notice;
UPDATE events SET n = n + 1 WHERE id % 50 = 0;
SQL
)
# each filtered scan of a transition table: its estimated rows
estimates=$(echo "$plans" | awk '/Named Tuplestore Scan/ { match($0, /rows=[0-9]+/); rows = substr($0, RSTART + 5, RLENGTH - 5); next }
                                  rows != "" && /Filter: .*day/ { print rows } { rows = "" }')
[ -n "$estimates" ] || fail "no filtered scan of a transition table in the plans of the maintenance"$'\n'"$plans"
for e in $estimates; do
    if [ "$e" -lt $((passing / 2)) ] || [ "$e" -gt $((passing * 2)) ]; then
        fail "a transition table's filtered scan estimated at $e rows where $passing pass"
    fi
done
# each join whose input is an Append of transition table scans: its estimated rows
joins=$(echo "$plans" | awk '/Join|Nested Loop/ { match($0, /rows=[0-9]+/); join = substr($0, RSTART + 5, RLENGTH - 5) }
                             appended && /Named Tuplestore Scan/ { print join } { appended = /Append/ }')
[ -n "$joins" ] || fail "no join of the changed rows in the plans of the maintenance"$'\n'"$plans"
for j in $joins; do
    if [ "$j" -lt "$passing" ] || [ "$j" -gt $((passing * 4)) ]; then
        fail "the join of the changed rows estimated at $j rows where $((passing * 2)) come"
    fi
done
check_views $db
echo "maintenance plans: $(echo "$estimates" | wc -l) filtered scans of transition tables estimated at $(echo $estimates | tr ' ' '/') rows, $passing passing; their joins at $(echo $joins | tr ' ' '/')"
"${psql[@]}" -d postgres -c "DROP DATABASE $db"
