#!/usr/bin/env bash
# ivm recursive-deletion benchmark: single-edge deletes under recursive
# views (transitive closure, same generation), one by one, on three graphs.
#
# Usage: bench/recursive_deletes.sh   (./run.sh bench-recursion)
#
# Runs against a RUNNING PostgreSQL 15 server with the ivm extension
# installed, reached through PGHOST, PGPORT, PGUSER (database
# ivm_bench_recursion, dropped and recreated, dropped at the end).  Graphs:
#   dag   the benchmark's W3 DAG (IVM_RECURSION_NODES nodes, default 5,000:
#         node n > 1 gets one random parent below it and a second with
#         probability 1/2, setseed(0.42)); few alternative paths
#   grid  an IVM_RECURSION_SIDE x IVM_RECURSION_SIDE grid (default 30),
#         edges right and down: many alternative paths, where DRed
#         over-deletes most
#   sg    same generation (sg(x, y): x and y have parents of the same
#         generation) over a random DAG of IVM_RECURSION_SG_NODES nodes
#         (default 500: node n > 1 gets a random parent below it, and a
#         second with probability 0.3), edges (child, parent): a linear rule
#         reading the edges twice
# For each graph, the view's creation is timed against CREATE MATERIALIZED
# VIEW, then a fixed sample of edges (IVM_RECURSION_SAMPLE, default 200 for
# the DAG, half that for the grid, a fifth for sg) is deleted one at a time, each in a
# subtransaction rolled back, under: no view (none), a materialized view
# refreshed in the same subtransaction (refresh), the ivm view with DRed
# alone (ivm.backward_forward = off) and with its default (auto), which
# take turns on each edge (one first on one edge, the other on the next).
# Prints a Markdown table of average, median, 95th percentile and slowest
# delete (ms), and refresh/ivm of the averages.
set -euo pipefail
PGBIN=${IVM_BENCH_PGBIN:-/usr/lib/postgresql/15/bin}
NODES=${IVM_RECURSION_NODES:-5000}
SG_NODES=${IVM_RECURSION_SG_NODES:-500}
SIDE=${IVM_RECURSION_SIDE:-30}
SAMPLE=${IVM_RECURSION_SAMPLE:-200}
DB=ivm_bench_recursion
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
W3='WITH RECURSIVE tc(src, dst) AS (SELECT src, dst FROM edges UNION SELECT tc.src, e.dst FROM tc JOIN edges e ON tc.dst = e.src) SELECT src, dst FROM tc'
SG='WITH RECURSIVE sg(x, y) AS (SELECT a.src, b.src FROM edges a JOIN edges b ON a.dst = b.dst UNION SELECT u.src, d.src FROM sg JOIN edges u ON u.dst = sg.x JOIN edges d ON d.dst = sg.y) SELECT x, y FROM sg'

bench_database "$DB"
"${psql[@]}" <<'SQL'
CREATE EXTENSION ivm;
CREATE TABLE timing (graph text, cfg text, src int, dst int, ms float8);
CREATE TABLE created (graph text, cmv_ms float8, ivm_ms float8);
-- Times CREATE MATERIALIZED VIEW mv and ivm.create_view('tc') of the query.
CREATE FUNCTION create_both(graph text, query text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; cmv float8;
BEGIN
  t0 := clock_timestamp();
  EXECUTE 'CREATE MATERIALIZED VIEW mv AS ' || query;
  cmv := extract(epoch FROM clock_timestamp() - t0) * 1000;
  t0 := clock_timestamp();
  PERFORM ivm.create_view('tc', query);
  INSERT INTO created VALUES (graph, cmv, extract(epoch FROM clock_timestamp() - t0) * 1000);
END $$;
-- Deletes each sampled edge in a subtransaction rolled back, under each
-- configuration in `cfgs` in turn; keeps the times.
CREATE FUNCTION measure(graph text, cfgs text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record; cfg text; t0 timestamptz; ms float8[] := '{}'; names text[] := '{}'; srcs int[] := '{}'; dsts int[] := '{}';
        turn text[]; k int := 0;
BEGIN
  FOR r IN SELECT * FROM sample LOOP
    -- every other edge in the reverse order: the second to delete an edge
    -- finds its pages cached
    k := k + 1;
    turn := CASE WHEN k % 2 = 0 THEN cfgs ELSE ARRAY(SELECT cfgs[i] FROM generate_series(array_length(cfgs, 1), 1, -1) i) END;
    FOREACH cfg IN ARRAY turn LOOP
      IF cfg IN ('dred', 'auto') THEN
        PERFORM set_config('ivm.backward_forward', CASE cfg WHEN 'dred' THEN 'off' ELSE 'auto' END, true);
      END IF;
      BEGIN
        t0 := clock_timestamp();
        DELETE FROM edges WHERE src = r.src AND dst = r.dst;
        IF cfg = 'refresh' THEN REFRESH MATERIALIZED VIEW mv; END IF;
        ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
        names := names || cfg; srcs := srcs || r.src; dsts := dsts || r.dst;
        RAISE EXCEPTION USING ERRCODE = 'P0001';
      EXCEPTION WHEN raise_exception THEN NULL;
      END;
    END LOOP;
  END LOOP;
  INSERT INTO timing SELECT graph, c, s, d, m FROM unnest(names, srcs, dsts, ms) AS u(c, s, d, m);
END $$;
SQL

for graph in dag grid sg; do
    sample=$SAMPLE query=$W3
    if [ $graph = grid ]; then sample=$((SAMPLE / 2)); fi
    if [ $graph = sg ]; then sample=$((SAMPLE / 5)) query=$SG; fi
    log "$graph: loading"
    nodes=$NODES
    if [ $graph = sg ]; then nodes=$SG_NODES; fi
    "${psql[@]}" -v graph=$graph -v nodes="$nodes" -v side="$SIDE" -v sample="$sample" \
        -v random_dag="$bench_dir/random_dag.sql" <<'SQL'
DROP TABLE IF EXISTS edges, sample;
CREATE TABLE edges (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
CREATE INDEX edges_dst ON edges (dst);
\i :random_dag
-- dag: (parent, child), W3's; sg: (child, parent); grid: right and down
INSERT INTO edges SELECT parent, child FROM pg_temp.random_dag(:nodes, 0.5) WHERE :'graph' = 'dag' ON CONFLICT DO NOTHING;
INSERT INTO edges SELECT child, parent FROM pg_temp.random_dag(:nodes, 0.3) WHERE :'graph' = 'sg' ON CONFLICT DO NOTHING;
INSERT INTO edges SELECT i * 1000 + j, (i + 1) * 1000 + j FROM generate_series(1, :side - 1) i, generate_series(1, :side) j
 WHERE :'graph' = 'grid';
INSERT INTO edges SELECT i * 1000 + j, i * 1000 + j + 1 FROM generate_series(1, :side) i, generate_series(1, :side - 1) j
 WHERE :'graph' = 'grid';
VACUUM ANALYZE edges;
CREATE TABLE sample AS SELECT src, dst FROM edges ORDER BY hashint4(src * 7919 + dst), src, dst LIMIT :sample;
SQL
    "${psql[@]}" -c "CHECKPOINT" -c "SET client_min_messages = warning" -c "SELECT create_both('$graph', \$q\$$query\$q\$)" >/dev/null
    "${psql[@]}" -c "VACUUM ANALYZE tc__ivm_rec" -c "VACUUM ANALYZE tc__ivm_data"
    pairs=$("${psql[@]}" -At -c "SELECT count(*) FROM tc")
    edges=$("${psql[@]}" -At -c "SELECT count(*) FROM edges")
    log "$graph: $edges edges, closure $pairs pairs; ivm (DRed alone, and auto)"
    "${psql[@]}" -c "SELECT measure('$graph', ARRAY['dred', 'auto'])" >/dev/null
    log "$graph: refresh"
    "${psql[@]}" -c "SELECT ivm.drop_view('tc')" -c "SELECT measure('$graph', ARRAY['none', 'refresh'])" >/dev/null
    "${psql[@]}" -c "DROP MATERIALIZED VIEW mv"
    echo "$graph: $edges edges, closure $pairs pairs, $sample edges deleted one at a time" >&2
done

echo "| graph | config | average ms | median | 95% | slowest | refresh/config |"
echo "|---|---|---:|---:|---:|---:|---:|"
"${psql[@]}" -At -F ' | ' <<'SQL' | sed 's/^/| /; s/$/ |/'
WITH s AS (
    SELECT graph, cfg, avg(ms) AS avg, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) AS p95, max(ms) AS slowest
    FROM timing GROUP BY graph, cfg)
SELECT s.graph, CASE s.cfg WHEN 'dred' THEN 'ivm, DRed alone' WHEN 'auto' THEN 'ivm' ELSE s.cfg END,
       round(s.avg::numeric, 2), round(s.median::numeric, 2), round(s.p95::numeric, 2), round(s.slowest::numeric, 1),
       CASE WHEN s.cfg = 'none' THEN '' ELSE round((r.avg / s.avg)::numeric, 1) || 'x' END
FROM s JOIN s r ON r.graph = s.graph AND r.cfg = 'refresh'
ORDER BY array_position(ARRAY['dag', 'grid', 'sg'], s.graph), array_position(ARRAY['none', 'refresh', 'dred', 'auto'], s.cfg);
SQL

echo
echo "| graph | CREATE MATERIALIZED VIEW ms | ivm.create_view ms | ivm/CMV |"
echo "|---|---:|---:|---:|"
"${psql[@]}" -At -F ' | ' -c "SELECT graph, round(cmv_ms::numeric), round(ivm_ms::numeric), round((ivm_ms / cmv_ms)::numeric, 2) || 'x' FROM created ORDER BY array_position(ARRAY['dag', 'grid', 'sg'], graph)" \
    | sed 's/^/| /; s/$/ |/'
