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
# query afterwards.  Then a view with `IN` over an aggregating subquery:
# a change of the subquery's rows must reach the outer table by its key.
# And a view of few groups: a large change's groups hashed, not sorted.
# Runs against the cluster in PGHOST/PGPORT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
db=ivm_plans
fail() { echo "maintenance plans: $*"; exit 1; }
# plans_of SQL: what psql prints running SQL with auto_explain showing the
# plan of every statement, maintenance's nested ones too, as notices
plans_of() {
    "${psql[@]}" -d $db 2>&1 <<SQL
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_level = notice;
$1
SQL
}

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
plans=$(plans_of "UPDATE events SET n = n + 1 WHERE id % 50 = 0;")
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

# `id IN (SELECT order_id ... GROUP BY ... HAVING ...)`: the subquery is a
# part view of its own, whose columns are never NULL where the table's are
# (src/pg/views_not_null.hpp).  A new line that takes one order past the
# threshold changes the part by one row; the outer view then looks that
# order up by its key (the IN over the changed rows is a join the planner
# starts from them), never reading every order to test each against them.
"${psql[@]}" -d $db >/dev/null <<'SQL'
CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL);
INSERT INTO orders SELECT i, i % 1000 FROM generate_series(1, 20000) i;
CREATE TABLE lines (order_id int NOT NULL, qty int NOT NULL);
INSERT INTO lines SELECT i % 20000 + 1, 1 + i % 7 FROM generate_series(1, 60000) i;
CREATE INDEX ON lines (order_id);
ANALYZE orders;
ANALYZE lines;
SET client_min_messages = warning;
SELECT ivm.create_view('big_orders', 'SELECT o.id, o.customer FROM orders o
                                       WHERE o.id IN (SELECT order_id FROM lines GROUP BY order_id HAVING sum(qty) > 20)');
SQL
order=$("${psql[@]}" -d $db -At -c "SELECT order_id FROM lines GROUP BY order_id HAVING sum(qty) <= 20 ORDER BY order_id LIMIT 1")
plans=$(plans_of "INSERT INTO lines VALUES ($order, 50);")
# (here-strings, not pipes: under pipefail, grep -q leaving early breaks
# echo's pipe and fails the check it passed)
grep -q "Index Scan using orders_pkey" <<<"$plans" || fail "the order whose lines changed was not looked up by its key"$'\n'"$plans"
if grep -q "Seq Scan on orders" <<<"$plans"; then
    fail "the maintenance read every order for a change of one"$'\n'"$plans"
fi
[ "$("${psql[@]}" -d $db -At -c "SELECT count(*) FROM big_orders WHERE id = $order")" = 1 ] || fail "order $order is not in the view"
check_views $db
echo "maintenance plans: a change of a part view's row looked up in the outer view's table by its key"
# A view of a few groups under a change of a quarter of its table: the delta's
# groups are hashed, not sorted (the planner, which has no statistics for
# the changed rows, takes a tenth of them for groups; the storage, which
# fits in hash memory, says they are few).  With a small work_mem, so that
# sorting them would spill and the planner's guess would not fit.
"${psql[@]}" -d $db >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT ivm.create_view('by_n', 'SELECT n, count(*), sum(k) AS sk, avg(k) AS ak, max(day) AS last FROM events GROUP BY n');
SQL
plans=$(plans_of "SET work_mem = '64kB'; UPDATE events SET k = k + 1 WHERE id % 4 = 0;")
merge=$(awk '/Query Text: WITH __ivm_d/ { on = 1 } on { print } on && /CONTEXT/ { on = 0 }' <<<"$plans")
grep -q "HashAggregate" <<<"$merge" || fail "the delta's groups were not hashed"$'\n'"$plans"
if grep -q "Sort Key" <<<"$merge"; then
    fail "the delta's groups were sorted"$'\n'"$plans"
fi
check_views $db
grep -q "its groups hashed" <<<"$("${psql[@]}" -d $db -At -c "SELECT * FROM ivm.explain_view('by_n')")" ||
    fail "ivm.explain_view does not say that a large change's groups are hashed"
echo "maintenance plans: the groups of a change of 5,000 rows to a view of 7 hashed"
"${psql[@]}" -d postgres -c "DROP DATABASE $db"
