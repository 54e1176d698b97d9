#!/usr/bin/env bash
# ivm recursive-deletion benchmark: single-edge deletes under a transitive
# closure view, one by one, on two graphs.
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
# For each graph, a fixed sample of edges (IVM_RECURSION_SAMPLE, default 200
# for the DAG, half that for the grid) is deleted one at a time, each in a
# subtransaction rolled back, under: no view (none), a materialized view
# refreshed in the same subtransaction (refresh), the ivm view with DRed
# alone (ivm.backward_forward = off) and with its default (auto), which
# take turns on each edge (one first on one edge, the other on the next).
# Prints a Markdown table of average, median, 95th percentile and slowest
# delete (ms), and refresh/ivm of the averages.
set -euo pipefail
PGBIN=${IVM_BENCH_PGBIN:-/usr/lib/postgresql/15/bin}
NODES=${IVM_RECURSION_NODES:-5000}
SIDE=${IVM_RECURSION_SIDE:-30}
SAMPLE=${IVM_RECURSION_SAMPLE:-200}
DB=ivm_bench_recursion
psql=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB")
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
W3='WITH RECURSIVE tc(src, dst) AS (SELECT src, dst FROM edges UNION SELECT tc.src, e.dst FROM tc JOIN edges e ON tc.dst = e.src) SELECT src, dst FROM tc'

"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap '"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true' EXIT
"${psql[@]}" <<'SQL'
CREATE EXTENSION ivm;
CREATE TABLE timing (graph text, cfg text, src int, dst int, ms float8);
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

for graph in dag grid; do
    sample=$SAMPLE
    if [ $graph = grid ]; then sample=$((SAMPLE / 2)); fi
    log "$graph: loading"
    "${psql[@]}" -v graph=$graph -v nodes="$NODES" -v side="$SIDE" -v sample="$sample" <<'SQL'
DROP TABLE IF EXISTS edges, sample;
CREATE TABLE edges (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
CREATE INDEX edges_dst ON edges (dst);
SELECT set_config('bench.graph', :'graph', false), set_config('bench.nodes', :'nodes', false),
       set_config('bench.side', :'side', false) \g /dev/null
DO $$
DECLARE
    nodes int := current_setting('bench.nodes')::int;
    side int := current_setting('bench.side')::int;
    n int;
BEGIN
    IF current_setting('bench.graph') = 'grid' THEN
        INSERT INTO edges SELECT i * 1000 + j, (i + 1) * 1000 + j FROM generate_series(1, side - 1) i, generate_series(1, side) j;
        INSERT INTO edges SELECT i * 1000 + j, i * 1000 + j + 1 FROM generate_series(1, side) i, generate_series(1, side - 1) j;
        RETURN;
    END IF;
    PERFORM setseed(0.42);
    FOR n IN 2 .. nodes LOOP
        INSERT INTO edges VALUES (1 + floor(random() * (n - 1))::int, n);
        IF random() < 0.5 THEN
            INSERT INTO edges VALUES (1 + floor(random() * (n - 1))::int, n) ON CONFLICT DO NOTHING;
        END IF;
    END LOOP;
END $$;
VACUUM ANALYZE edges;
CREATE TABLE sample AS SELECT src, dst FROM edges ORDER BY hashint4(src * 7919 + dst), src, dst LIMIT :sample;
SQL
    "${psql[@]}" -c "SET client_min_messages = warning" -c "SELECT ivm.create_view('tc', \$q\$$W3\$q\$)" >/dev/null
    "${psql[@]}" -c "VACUUM ANALYZE tc__ivm_rec" -c "VACUUM ANALYZE tc__ivm_data" -c "CREATE MATERIALIZED VIEW mv AS $W3"
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
ORDER BY s.graph, array_position(ARRAY['none', 'refresh', 'dred', 'auto'], s.cfg);
SQL
