#!/usr/bin/env bash
# ivm Datalog benchmark: recursive views beyond transitive closure, their
# creation and single-fact changes against recomputing them.
#
# Usage: bench/datalog.sh   (./run.sh bench-datalog)
#
# Runs against a RUNNING PostgreSQL 15 server with the ivm extension
# installed, reached through PGHOST, PGPORT, PGUSER (database
# ivm_bench_datalog, dropped and recreated, dropped at the end).  Workloads:
#   points_to  Andersen's points-to analysis, four rules, two of them reading
#              the relation twice (non-linear: ivm's own fixpoint engine), over
#              a synthetic program of IVM_DATALOG_VARS variables (default
#              10,000; bench/points_to.sql)
#   same_gen   same generation (sg(x, y): x and y have parents of the same
#              generation, a linear rule reading the edges twice: PostgreSQL's
#              WITH RECURSIVE and DRed) over a random DAG of
#              IVM_DATALOG_SG_NODES nodes (default 500, edges (child, parent),
#              as bench/recursive_deletes.sh's sg)
# For each: ivm.create_view, then ivm.refresh_view (the recompute) three
# times, median; then IVM_DATALOG_SAMPLE (default 40) existing facts of each
# base relation deleted and as many new facts inserted, one at a time, each
# in a subtransaction rolled back, with the view and without it.  Prints
# Markdown tables: per relation and operation the average, median, 95th
# percentile and slowest change (ms) with the view, the statement alone, and
# (statement + recompute) / ivm; and creation against the recompute.
# Then redefinition: W3's closure (bench/run.sh's DAG, IVM_DATALOG_W3_NODES,
# default 5,000) and points-to, each given one more rule by ivm.alter_view
# and the rule taken away again, against ivm.create_view of the definition
# with the rule.
set -euo pipefail
PGBIN=${IVM_BENCH_PGBIN:-/usr/lib/postgresql/15/bin}
VARS=${IVM_DATALOG_VARS:-10000}
SG_NODES=${IVM_DATALOG_SG_NODES:-500}
W3_NODES=${IVM_DATALOG_W3_NODES:-5000}
SAMPLE=${IVM_DATALOG_SAMPLE:-40}
DB=ivm_bench_datalog
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
POINTS_TO='WITH RECURSIVE pts(p, a) AS (
    SELECT dst, src FROM addr
    UNION SELECT c.dst, pts.a FROM copy c JOIN pts ON pts.p = c.src
    UNION SELECT l.dst, t.a FROM load l JOIN pts s ON s.p = l.src JOIN pts t ON t.p = s.a
    UNION SELECT s.a, t.a FROM store st JOIN pts s ON s.p = st.dst JOIN pts t ON t.p = st.src)
  SELECT p, a FROM pts'
SAME_GEN='WITH RECURSIVE sg(x, y) AS (SELECT a.src, b.src FROM edges a JOIN edges b ON a.dst = b.dst UNION SELECT u.src, d.src FROM sg JOIN edges u ON u.dst = sg.x JOIN edges d ON d.dst = sg.y) SELECT x, y FROM sg'

bench_database "$DB"
"${psql[@]}" <<'SQL'
CREATE EXTENSION ivm;
CREATE TABLE timing (workload text, rel text, op text, cfg text, ms float8);
CREATE TABLE created (workload text, facts bigint, tuples bigint, create_ms float8, recompute_ms float8);
-- The facts changed one at a time: rel's (c1, c2) = (x, y), deleted or inserted.
CREATE TABLE sample (rel text, c1 text, c2 text, op text, x int, y int);
-- Times ivm.create_view('v', query), then ivm.refresh_view three times.
CREATE FUNCTION create_and_recompute(workload text, query text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; create_ms float8; runs float8[] := '{}'; facts bigint := 0; n bigint; r text;
BEGIN
  t0 := clock_timestamp();
  PERFORM ivm.create_view('v', query);
  create_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
  FOR i IN 1 .. 3 LOOP
    t0 := clock_timestamp();
    PERFORM ivm.refresh_view('v');
    runs := runs || extract(epoch FROM clock_timestamp() - t0) * 1000;
  END LOOP;
  FOR r IN SELECT DISTINCT rel FROM sample LOOP
    EXECUTE format('SELECT count(*) FROM %I', r) INTO n;
    facts := facts + n;
  END LOOP;
  INSERT INTO created SELECT workload, facts, (SELECT count(*) FROM v),
         create_ms, (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY m) FROM unnest(runs) m);
END $$;
-- Makes each sampled change in a subtransaction rolled back; keeps the times.
CREATE FUNCTION measure(workload text, cfg text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE s record; t0 timestamptz; ms float8;
BEGIN
  FOR s IN SELECT * FROM sample LOOP
    BEGIN
      t0 := clock_timestamp();
      IF s.op = 'delete' THEN
        EXECUTE format('DELETE FROM %I WHERE %I = $1 AND %I = $2', s.rel, s.c1, s.c2) USING s.x, s.y;
      ELSE
        EXECUTE format('INSERT INTO %I (%I, %I) VALUES ($1, $2)', s.rel, s.c1, s.c2) USING s.x, s.y;
      END IF;
      ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
      RAISE EXCEPTION USING ERRCODE = 'P0001';
    EXCEPTION WHEN raise_exception THEN NULL;
    END;
    INSERT INTO timing VALUES (workload, s.rel, s.op, cfg, ms);
  END LOOP;
END $$;
SQL

for workload in points_to same_gen; do
    log "$workload: loading"
    if [ $workload = points_to ]; then
        query=$POINTS_TO
        "${psql[@]}" -v vars="$VARS" -v sample="$SAMPLE" -v generator="$bench_dir/points_to.sql" <<'SQL'
DROP TABLE IF EXISTS edges, addr, copy, load, store;
TRUNCATE sample;
\i :generator
ANALYZE addr, copy, load, store;
-- existing facts in a fixed order; new ones drawn as the generator draws them
INSERT INTO sample
SELECT rel, 'dst', 'src', 'delete', dst, src FROM (
    SELECT rel, dst, src, row_number() OVER (PARTITION BY rel ORDER BY hashint4(dst * 7919 + src), dst, src) AS n FROM (
        SELECT 'addr' AS rel, dst, src FROM addr UNION ALL SELECT 'copy', dst, src FROM copy
        UNION ALL SELECT 'load', dst, src FROM load UNION ALL SELECT 'store', dst, src FROM store) f) g
WHERE n <= :sample;
SELECT setseed(0.61) \gset
INSERT INTO sample
SELECT rel, 'dst', 'src', 'insert', v, pg_temp.statement_var(v, :vars)
FROM (SELECT rel, floor(random() * :vars)::int AS v FROM unnest(ARRAY['addr', 'copy', 'load', 'store']) rel, generate_series(1, :sample)) d;
SQL
    else
        query=$SAME_GEN
        "${psql[@]}" -v nodes="$SG_NODES" -v sample="$SAMPLE" -v random_dag="$bench_dir/random_dag.sql" <<'SQL'
DROP TABLE IF EXISTS edges, addr, copy, load, store;
TRUNCATE sample;
CREATE TABLE edges (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
CREATE INDEX edges_dst ON edges (dst);
\i :random_dag
-- (child, parent)
INSERT INTO edges SELECT child, parent FROM pg_temp.random_dag(:nodes, 0.3) ON CONFLICT DO NOTHING;
ANALYZE edges;
INSERT INTO sample
SELECT 'edges', 'src', 'dst', 'delete', src, dst FROM edges ORDER BY hashint4(src * 7919 + dst), src, dst LIMIT :sample;
SELECT setseed(0.61) \gset
INSERT INTO sample
SELECT 'edges', 'src', 'dst', 'insert', child, 1 + floor(random() * (child - 1))::int
FROM (SELECT 2 + floor(random() * (:nodes - 1))::int AS child FROM generate_series(1, :sample)) c;
SQL
    fi
    "${psql[@]}" -c "CHECKPOINT" -c "SET client_min_messages = warning" \
        -c "SELECT create_and_recompute('$workload', \$q\$$query\$q\$)" >/dev/null
    log "$workload: $("${psql[@]}" -At -c "SELECT tuples || ' tuples from ' || facts || ' facts' FROM created WHERE workload = '$workload'"); changes with the view"
    "${psql[@]}" -c "SELECT measure('$workload', 'ivm')" >/dev/null
    log "$workload: changes without it"
    "${psql[@]}" -c "SELECT ivm.drop_view('v')" -c "SELECT measure('$workload', 'none')" >/dev/null
done

# Redefinition: one rule more (a base table of shortcuts, 50 of them), and
# back, against creating the view with it.
W3='WITH RECURSIVE tc(src, dst) AS (SELECT src, dst FROM edges UNION SELECT tc.src, e.dst FROM tc JOIN edges e ON tc.dst = e.src) SELECT src, dst FROM tc'
W3_MORE='WITH RECURSIVE tc(src, dst) AS (SELECT src, dst FROM edges UNION SELECT src, dst FROM shortcuts UNION SELECT tc.src, e.dst FROM tc JOIN edges e ON tc.dst = e.src) SELECT src, dst FROM tc'
POINTS_TO_MORE=${POINTS_TO/UNION SELECT c.dst, pts.a FROM copy c/UNION SELECT dst, src FROM shortcuts UNION SELECT c.dst, pts.a FROM copy c}
log "redefinition: loading"
"${psql[@]}" -v nodes="$W3_NODES" -v vars="$VARS" -v random_dag="$bench_dir/random_dag.sql" -v generator="$bench_dir/points_to.sql" <<'SQL'
DROP TABLE IF EXISTS edges, addr, copy, load, store;
CREATE TABLE redefined (workload text, op text, ms float8, tuples bigint);
CREATE TABLE edges (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
CREATE INDEX ON edges (dst);
\i :random_dag
INSERT INTO edges SELECT parent, child FROM pg_temp.random_dag(:nodes, 0.5) ON CONFLICT DO NOTHING;
\i :generator
-- (src < dst: W3's closure stays acyclic)
CREATE TABLE shortcuts AS SELECT s, s + 1 + floor(random() * 100)::int AS d FROM (SELECT floor(random() * (:nodes - 101))::int + 1 AS s FROM generate_series(1, 50)) x;
ALTER TABLE shortcuts RENAME s TO src;
ALTER TABLE shortcuts RENAME d TO dst;
ANALYZE;
CREATE FUNCTION timed(workload text, op text, statement text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); ms float8;
BEGIN
  EXECUTE statement;
  ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
  INSERT INTO redefined VALUES (workload, op, ms, (SELECT count(*) FROM v));
END $$;
SQL
for workload in w3 points_to; do
    if [ $workload = w3 ]; then base=$W3 more=$W3_MORE; else base=$POINTS_TO more=$POINTS_TO_MORE; fi
    log "redefinition: $workload"
    "${psql[@]}" -c "SET client_min_messages = warning" \
        -c "SELECT ivm.create_view('v', \$q\$$base\$q\$)" -c "CHECKPOINT" \
        -c "SELECT timed('$workload', 'alter_view: a rule added', \$s\$SELECT ivm.alter_view('v', \$q\$$more\$q\$)\$s\$)" \
        -c "SELECT timed('$workload', 'alter_view: the rule taken away', \$s\$SELECT ivm.alter_view('v', \$q\$$base\$q\$)\$s\$)" \
        -c "SELECT ivm.drop_view('v')" -c "CHECKPOINT" \
        -c "SELECT timed('$workload', 'create_view with the rule', \$s\$SELECT ivm.create_view('v', \$q\$$more\$q\$)\$s\$)" \
        -c "SELECT ivm.drop_view('v')" >/dev/null
done

echo "| workload | change | ivm average ms | median | 95% | slowest | statement alone | (statement + recompute) / ivm |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
"${psql[@]}" -At -F ' | ' <<'SQL' | sed 's/^/| /; s/$/ |/'
WITH s AS (
    SELECT workload, rel, op, avg(ms) FILTER (WHERE cfg = 'ivm') AS avg,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE cfg = 'ivm') AS median,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) FILTER (WHERE cfg = 'ivm') AS p95,
           max(ms) FILTER (WHERE cfg = 'ivm') AS slowest, avg(ms) FILTER (WHERE cfg = 'none') AS alone
    FROM timing GROUP BY workload, rel, op)
SELECT s.workload, s.op || ' ' || s.rel, round(s.avg::numeric, 2), round(s.median::numeric, 2),
       round(s.p95::numeric, 2), round(s.slowest::numeric, 1), round(s.alone::numeric, 3),
       round(((s.alone + c.recompute_ms) / s.avg)::numeric, 1) || 'x'
FROM s JOIN created c USING (workload)
ORDER BY array_position(ARRAY['points_to', 'same_gen'], s.workload), s.op, s.rel;
SQL

echo
echo "| workload | base facts | view tuples | ivm.create_view ms | recompute (ivm.refresh_view) ms | create/recompute |"
echo "|---|---:|---:|---:|---:|---:|"
"${psql[@]}" -At -F ' | ' -c "SELECT workload, facts, tuples, round(create_ms::numeric), round(recompute_ms::numeric), round((create_ms / recompute_ms)::numeric, 2) || 'x' FROM created ORDER BY array_position(ARRAY['points_to', 'same_gen'], workload)" \
    | sed 's/^/| /; s/$/ |/'

echo
echo "| view | redefinition | ms | view tuples after |"
echo "|---|---|---:|---:|"
"${psql[@]}" -At -F ' | ' -c "SELECT workload, op, round(ms::numeric), tuples FROM redefined ORDER BY workload DESC, op" \
    | sed 's/^/| /; s/$/ |/'
