#!/usr/bin/env bash
# Logical replication subscribers: two publishers (throwaway clusters with
# wal_level = logical, private sockets, free ports, stopped on exit) each
# own part of one table (fan-in), one of them also another table; the
# cluster in PGHOST/PGPORT subscribes to both and holds ivm views over the
# tables, deferred and immediate (joins, aggregates, a view over a view, a
# recursive view, one made before the subscriptions copied the tables).
# An apply worker fires only row triggers enabled for replicas: ivm's log
# each row, and a deferred constraint trigger has the views take them in
# when the worker commits.  After every round of transactions on the
# publishers (a TRUNCATE among them), once the subscriber has their rows,
# every view must equal its query as it stands, with nothing pending or
# left in a log, no ivm.refresh_view called.  Also reported: how long a 10,000-row transaction takes to reach
# the subscriber with and without the views.  Run as root, as run.sh runs
# it (the publishers run as the postgres OS user).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
db=ivm_subscriber
rounds=${IVM_SUB_ROUNDS:-6}
preload=$("${psql[@]}" -d postgres -At -c "SHOW shared_preload_libraries")

work=$(postgres_dir ivm-publishers)
ports=()
cleanup() {
    "${psql[@]}" -d $db -c "ALTER SUBSCRIPTION s1 DISABLE" -c "ALTER SUBSCRIPTION s1 SET (slot_name = NONE)" \
        -c "ALTER SUBSCRIPTION s2 DISABLE" -c "ALTER SUBSCRIPTION s2 SET (slot_name = NONE)" >/dev/null 2>&1 || true
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    for p in 1 2; do as_postgres "$bindir/pg_ctl -D '$work/p$p' -m immediate stop" >/dev/null 2>&1 || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "subscriber: $*"; for p in 1 2; do [ -f "$work/p$p.log" ] && tail -n 5 "$work/p$p.log"; done; exit 1; }

base_port=$((PGPORT + 1001 + RANDOM % 1000))
for p in 1 2; do
    port=$((base_port + p))
    ports+=("$port")
    as_postgres "$bindir/initdb -D '$work/p$p' -A trust -U postgres >/dev/null" || fail "initdb of publisher $p failed"
    as_postgres "$bindir/pg_ctl -D '$work/p$p' -l '$work/p$p.log' -w -o \"-k '$work' -p $port -c listen_addresses='' -c wal_level=logical -c fsync=off\" start" \
        >/dev/null || fail "publisher $p did not start"
done
on_pub() { local p=$1; shift; PGHOST=$work PGPORT=${ports[$((p - 1))]} "${psql[@]}" -d postgres "$@"; }

on_pub 1 <<'SQL'
CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount int NOT NULL);
CREATE TABLE regions (region text PRIMARY KEY, manager text);
INSERT INTO regions VALUES ('east', 'ann'), ('west', 'bo'), ('north', NULL);
CREATE TABLE links (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
INSERT INTO orders SELECT i, (ARRAY['east', 'west', 'south'])[1 + i % 3], i % 50 FROM generate_series(1, 300) i;
INSERT INTO links SELECT i, i + d FROM generate_series(1, 30) i, (VALUES (1), (3)) v(d);
CREATE PUBLICATION p FOR TABLE orders, regions, links;
SQL
on_pub 2 <<'SQL'
CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount int NOT NULL);
INSERT INTO orders SELECT i, (ARRAY['east', 'north'])[1 + i % 2], i % 70 FROM generate_series(100001, 100200) i;
CREATE PUBLICATION p FOR TABLE orders;
SQL

"${psql[@]}" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
"${psql[@]}" -d $db <<SQL >/dev/null
SET client_min_messages = warning;
CREATE EXTENSION ivm;
CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount int NOT NULL);
CREATE TABLE regions (region text PRIMARY KEY, manager text);
CREATE TABLE links (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
-- made before the subscriptions: it follows their first copy of the tables
SELECT ivm.create_view('out_degrees', 'SELECT src, count(*) AS n FROM links GROUP BY src');
CREATE SUBSCRIPTION s1 CONNECTION 'host=$work port=${ports[0]} dbname=postgres user=postgres' PUBLICATION p;
CREATE SUBSCRIPTION s2 CONNECTION 'host=$work port=${ports[1]} dbname=postgres user=postgres' PUBLICATION p;
SQL

# Waits until the subscriber's tables hold what the publishers' do.
digest_sql="SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM"
caught_up() {
    local want got
    want="$(on_pub 1 -At -c "$digest_sql orders t")|$(on_pub 2 -At -c "$digest_sql orders t")|$(on_pub 1 -At -c "$digest_sql regions t")|$(on_pub 1 -At -c "$digest_sql links t")"
    for _ in $(seq 600); do
        got="$("${psql[@]}" -d $db -At -c "$digest_sql orders t WHERE id <= 100000")|$("${psql[@]}" -d $db -At -c "$digest_sql orders t WHERE id > 100000")|$("${psql[@]}" -d $db -At -c "$digest_sql regions t")|$("${psql[@]}" -d $db -At -c "$digest_sql links t")"
        [ "$got" = "$want" ] && return 0
        sleep 0.05
    done
    return 1
}
caught_up || fail "the subscriber did not copy the publishers' tables in 30 s"
check_views $db as-is >/dev/null || fail "a view made before the subscriptions differs from its query after their copy"

# A 10,000-row transaction reaching the subscriber: ms until it is there.
lag() {
    local start end
    start=$(date +%s%N)
    on_pub 1 -c "INSERT INTO orders SELECT i, 'west', 1 FROM generate_series($1, $1 + 9999) i"
    caught_up || fail "the subscriber did not apply a 10,000-row transaction in 30 s"
    end=$(date +%s%N)
    on_pub 1 -c "DELETE FROM orders WHERE id BETWEEN $1 AND $1 + 9999"
    caught_up || fail "the subscriber did not apply a 10,000-row delete in 30 s"
    echo $(((end - start) / 1000000))
}
without_views=$(lag 50000)

"${psql[@]}" -d $db <<'SQL' >/dev/null
SET client_min_messages = warning;
SELECT ivm.create_view('region_totals', 'SELECT region, count(*) AS n, sum(amount) AS total FROM orders GROUP BY region', deferred => true);
SELECT ivm.create_view('managed', 'SELECT o.id, o.amount, r.manager FROM orders o JOIN regions r ON o.region = r.region', deferred => true);
SELECT ivm.create_view('region_orders', 'SELECT r.region, o.id FROM regions r LEFT JOIN orders o ON o.region = r.region AND o.amount > 20', deferred => true);
SQL
"${psql[@]}" -d $db <<'SQL' >/dev/null
SET client_min_messages = warning;
SELECT ivm.create_view('immediate_managed', 'SELECT o.id, o.amount, r.manager FROM orders o JOIN regions r ON o.region = r.region');
SELECT ivm.create_view('immediate_regions', 'SELECT r.region, r.manager, count(o.id) AS n FROM regions r LEFT JOIN orders o ON o.region = r.region GROUP BY r.region, r.manager');
SELECT ivm.create_view('busy_regions', 'SELECT region, n FROM immediate_regions WHERE n > 100');
SELECT ivm.create_view('reach', 'WITH RECURSIVE r(a, b) AS (SELECT src, dst FROM links UNION SELECT r.a, l.dst FROM r JOIN links l ON r.b = l.src) SELECT a, b FROM r');
SQL
with_views=$(lag 60000)
check_views $db as-is >/dev/null || fail "a view differs from its query after the 10,000-row transactions"

for round in $(seq "$rounds"); do
    on_pub 1 <<SQL
BEGIN;
INSERT INTO orders SELECT i, (ARRAY['east', 'west', 'north', 'south'])[1 + (i + $round) % 4], (i * $round) % 90
  FROM generate_series(1000 + 20 * $round, 1019 + 20 * $round) i;
UPDATE orders SET amount = amount + $round WHERE id % 7 = $round % 7;
DELETE FROM orders WHERE id % 11 = $round;
COMMIT;
UPDATE regions SET manager = 'm$round' WHERE region = (ARRAY['east', 'west', 'north'])[1 + $round % 3];
SQL
    on_pub 2 <<SQL
BEGIN;
UPDATE orders SET region = CASE region WHEN 'east' THEN 'west' ELSE 'east' END WHERE id % 5 = $round % 5;
INSERT INTO orders VALUES (200000 + $round, 'north', $round);
COMMIT;
DELETE FROM orders WHERE id % 13 = $round;
SQL
    on_pub 1 <<SQL
INSERT INTO links VALUES ($round, $round + 2), ($round + 5, $round + 30);
DELETE FROM links WHERE src = $round + 10 AND dst = $round + 11;
SQL
    [ "$round" = 3 ] && on_pub 1 -c "INSERT INTO regions VALUES ('south', 'sam')"
    # a replicated TRUNCATE recomputes the views reading the table; the rows
    # its transaction writes after it are taken in at its commit
    [ "$round" = 4 ] && on_pub 1 -c "BEGIN" -c "TRUNCATE regions" \
        -c "INSERT INTO regions VALUES ('east', 'eve'), ('west', 'will'), ('south', NULL)" -c "COMMIT"
    caught_up || fail "round $round: the subscriber did not catch up in 30 s"
    check_views $db as-is >/dev/null || fail "round $round: a view differs from its query (nothing applied by hand)"
    pending=$("${psql[@]}" -d $db -At -c "SELECT sum(pending_changes) FROM ivm.views WHERE deferred")
    [ "$pending" = 0 ] || fail "round $round: $pending change rows left pending after the apply workers' commits"
    left=$("${psql[@]}" -d $db -At -c "SELECT count(*) FROM ivm.changes_$("${psql[@]}" -d $db -At -c "SELECT 'links'::regclass::oid")")
    [ "$left" = 0 ] || fail "round $round: $left rows left in the log of a table only immediate views read"
done
views=$("${psql[@]}" -d $db -At -c "SELECT count(*) FILTER (WHERE deferred) || ' deferred and ' || count(*) FILTER (WHERE NOT deferred) FROM ivm.views")
echo "subscriber: $views immediate views over two publishers' tables (preload '$preload') equal their queries after" \
     "each of $rounds rounds, maintained at the apply workers' commits; a 10,000-row transaction reached the subscriber" \
     "in $without_views ms without views, $with_views ms with them"
