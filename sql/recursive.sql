-- Recursive views, maintained by DRed (delete and rederive).
CREATE TABLE edge (src int, dst int);
INSERT INTO edge VALUES (1, 2), (2, 3), (3, 4), (1, 3);

-- transitive closure
SELECT ivm.create_view('closure',
  'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc');
SELECT name, algorithm, base_relations FROM ivm.views;
SELECT * FROM closure ORDER BY x, y;
-- the view's key is led by its first integer column; the recursive
-- relation's is the plain hash of its tuple
SELECT count(*) FILTER (WHERE __ivm_key >> 24 = x) = count(*) AS view_led_by_x FROM closure__ivm_data;
SELECT count(*) FILTER (WHERE __ivm_key = hash_record_extended(ROW(x, y), 0)) = count(*) AS relation_plain_hash
  FROM closure__ivm_rec;
-- a tuple with two derivations survives losing one of them
DELETE FROM edge WHERE src = 1 AND dst = 3;
SELECT * FROM closure ORDER BY x, y;
SELECT ivm_check('closure');
-- a cycle, then breaking it
INSERT INTO edge VALUES (4, 1);
SELECT count(*) AS pairs, count(*) FILTER (WHERE x = y) AS on_cycle FROM closure;
SELECT ivm_check('closure');
DELETE FROM edge WHERE src = 2;
SELECT * FROM closure ORDER BY x, y;
SELECT ivm_check('closure');
-- self-loops, duplicate edges, NULL endpoints
INSERT INTO edge VALUES (5, 5), (3, 4), (4, NULL), (NULL, 1);
SELECT * FROM closure ORDER BY x NULLS FIRST, y NULLS FIRST;
SELECT ivm_check('closure');
UPDATE edge SET dst = 2 WHERE dst IS NULL;
SELECT ivm_check('closure');
-- the recursive relation is a set, so a view showing all of its columns is
-- keyed by them: the tuples a change of it adds are written without a
-- lookup (also tuples with NULLs, which the set holds once)
SELECT line FROM ivm.explain_view('closure') AS line WHERE line LIKE 'keyed%';
-- when DRed gives up for a recompute, and how it rederives, for R's size now
-- (one policy for both recursion engines, src/core/recursion_policy.cpp)
SELECT line FROM ivm.explain_view('closure') AS line WHERE line LIKE 'when DRed gives up%';
INSERT INTO edge VALUES (NULL, NULL), (NULL, NULL), (6, NULL);
SELECT count(*) FILTER (WHERE x IS NULL AND y IS NULL) AS null_pairs FROM closure;
SELECT ivm_check('closure');
DELETE FROM edge WHERE dst IS NULL;
SELECT ivm_check('closure');
SELECT ivm.create_view('closure_sources',
  'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x FROM tc');
SELECT count(*) AS keyed FROM ivm.explain_view('closure_sources') AS line WHERE line LIKE 'keyed%';
SELECT ivm.drop_view('closure_sources');

-- reachability from a set of roots, and recursion over two base tables
CREATE TABLE root (n int);
CREATE TABLE link (a int, b int);
INSERT INTO root VALUES (1);
INSERT INTO link VALUES (4, 7), (7, 8);
SELECT ivm.create_view('reachable',
  'WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT edge.dst FROM r JOIN edge ON edge.src = r.n UNION SELECT link.b FROM r JOIN link ON link.a = r.n) SELECT n FROM r');
-- (two recursive terms: PostgreSQL does not evaluate it, ivm does; see general_recursion)
SELECT * FROM reachable ORDER BY n;
SELECT ivm.create_view('reachable_union',
  'WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT e.dst FROM r JOIN (SELECT src, dst FROM edge UNION ALL SELECT a, b FROM link) e ON e.src = r.n) SELECT n FROM r');
SELECT * FROM reachable_union ORDER BY n;
SELECT ivm.create_view('paths',
  'WITH RECURSIVE p(x, y) AS (SELECT src, dst FROM edge UNION SELECT a, b FROM link UNION SELECT p.x, link.b FROM p JOIN edge ON p.y = edge.src JOIN link ON edge.dst = link.a) SELECT x, y FROM p');
SELECT ivm.create_view('from_root',
  'WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT edge.dst FROM r JOIN edge ON edge.src = r.n) SELECT n FROM r');
SELECT * FROM from_root ORDER BY n;
INSERT INTO root VALUES (5);
DELETE FROM edge WHERE src = 3;
INSERT INTO link VALUES (3, 9);
SELECT * FROM from_root ORDER BY n;
SELECT ivm_check('closure'), ivm_check('from_root'), ivm_check('paths');
-- one statement changing two base tables of the recursion
WITH moved AS (DELETE FROM link RETURNING *) INSERT INTO edge SELECT a, b FROM moved;
SELECT ivm_check('closure'), ivm_check('from_root'), ivm_check('paths');
-- an edge its statement moves and a trigger moves again: the middle edge
-- (5, 50) was there neither before nor after, and (5, 7), which only it
-- would derive, goes
CREATE TABLE hop (src int, dst int);
INSERT INTO hop VALUES (5, 6), (6, 7), (50, 7);
SELECT ivm.create_view('hops',
  'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM hop UNION SELECT tc.x, hop.dst FROM tc JOIN hop ON tc.y = hop.src) SELECT x, y FROM tc');
SELECT ivm.create_view('hops_nonlinear',
  'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM hop UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x) SELECT x, y FROM tc');
CREATE FUNCTION hop_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF new.dst < 100 THEN UPDATE hop SET dst = new.dst + 100 WHERE src = new.src AND dst = new.dst; END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER again AFTER UPDATE ON hop FOR EACH ROW EXECUTE FUNCTION hop_again();
UPDATE hop SET dst = 50 WHERE src = 5;
SELECT * FROM hops ORDER BY 1, 2;
SELECT ivm_check('hops'), ivm_check('hops_nonlinear');
SELECT ivm.drop_view('hops'), ivm.drop_view('hops_nonlinear');
DROP TABLE hop;
DROP FUNCTION hop_again();

-- the final query: projections, filters, joins with base tables and with
-- the recursive relation itself, DISTINCT
CREATE TABLE city (id int, name text);
INSERT INTO city VALUES (1, 'oslo'), (3, 'rome'), (4, 'lima'), (9, 'kyiv');
SELECT ivm.create_view('routes',
  'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT a.name AS origin, b.name AS destination FROM tc JOIN city a ON a.id = tc.x JOIN city b ON b.id = tc.y WHERE tc.x <> tc.y');
SELECT ivm.create_view('hops2',
  'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT DISTINCT a.x, b.y FROM tc a JOIN tc b ON a.y = b.x');
SELECT * FROM routes ORDER BY 1, 2;
UPDATE city SET name = 'roma' WHERE id = 3;
INSERT INTO edge VALUES (9, 1);
SELECT * FROM routes ORDER BY 1, 2;
SELECT ivm_check('routes'), ivm_check('hops2');
BEGIN;
DELETE FROM edge WHERE dst = 1;
SELECT ivm_check('routes'), ivm_check('hops2'), ivm_check('closure');
ROLLBACK;
SELECT ivm_check('routes'), ivm_check('hops2'), ivm_check('closure');

-- a recursive term that reads no base table
SELECT ivm.create_view('counter', 'WITH RECURSIVE c(n) AS (SELECT src FROM edge UNION SELECT c.n + 1 FROM c WHERE c.n < 12) SELECT n FROM c');
DELETE FROM edge WHERE src = 9;
SELECT ivm_check('counter');
SELECT ivm.drop_view('counter');

-- TRUNCATE recomputes
TRUNCATE edge;
SELECT count(*) FROM closure;
SELECT ivm_check('closure'), ivm_check('routes'), ivm_check('paths'), ivm_check('from_root');
INSERT INTO edge SELECT g, g + 1 FROM generate_series(1, 30) g;
SELECT count(*) FROM closure;
DELETE FROM edge WHERE src = 15;
SELECT count(*) FROM closure;
SELECT ivm_check('closure'), ivm_check('routes'), ivm_check('hops2'), ivm_check('from_root');

-- an over-deletion of a large part of the relation recomputes it instead
TRUNCATE edge;
INSERT INTO edge SELECT g, g + 1 FROM generate_series(1, 80) g;
SELECT count(*) FROM closure;
DELETE FROM edge WHERE src = 40;
SELECT count(*) FROM closure;
SELECT ivm_check('closure'), ivm_check('routes'), ivm_check('hops2'), ivm_check('from_root');

-- refresh and the unpopulated state
SELECT ivm.refresh_view('closure');
SELECT ivm.refresh_view('closure', false);
INSERT INTO edge VALUES (15, 16);
SELECT ivm.refresh_view('closure');
SELECT ivm_check('closure');

-- refused
SELECT refused($$WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION ALL SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc$$);
SELECT ivm.create_view('x', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION ALL SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc');
SELECT refused($$WITH RECURSIVE tc(x, n) AS (SELECT src, 1 FROM edge UNION SELECT tc.x, count(*) FROM tc JOIN edge ON tc.x = edge.src GROUP BY tc.x) SELECT x FROM tc$$);
SELECT refused($$WITH RECURSIVE tc(x) AS (SELECT src FROM edge UNION SELECT edge.dst FROM tc JOIN edge ON tc.x = edge.src WHERE random() < 0.5) SELECT x FROM tc$$);
SELECT refused($$WITH a AS (SELECT src FROM edge LIMIT 2) SELECT src FROM a$$);

SELECT ivm.drop_view(name::text) FROM ivm.views ORDER BY name::text;
SELECT relname FROM pg_class WHERE relname LIKE '%ivm_%' AND relnamespace = 'public'::regnamespace;
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'ivm%';
DROP TABLE edge, root, link, city;

-- a deletion that over-deletes more than 500 tuples (but not enough to
-- recompute) rederives them set at a time
CREATE TABLE chain (src int, dst int);
INSERT INTO chain SELECT g, g + 1 FROM generate_series(1, 59) g;
INSERT INTO chain VALUES (29, 32), (10, 45);
SELECT ivm.create_view('chain_tc', 'WITH RECURSIVE tc(src, dst) AS (SELECT src, dst FROM chain UNION SELECT tc.src, c.dst FROM tc JOIN chain c ON tc.dst = c.src) SELECT src, dst FROM tc');
SELECT count(*) FROM chain_tc;
DELETE FROM chain WHERE src = 30 AND dst = 31;
SELECT count(*) FROM chain_tc;
SELECT ivm_check('chain_tc');
DELETE FROM chain WHERE src = 29 AND dst = 32;
SELECT count(*) FROM chain_tc;
SELECT ivm_check('chain_tc');
SELECT ivm.drop_view('chain_tc');
DROP TABLE chain;

-- Columns that every rule fills from NOT NULL columns (or from the same
-- column of the relation itself) are matched by plain equality, which the
-- planner pushes into indexes; a column any rule may leave NULL keeps the
-- NULL-safe form.
CREATE TABLE nn_edge (src int NOT NULL, dst int NOT NULL);
CREATE TABLE nn_label (node int NOT NULL, label text);
INSERT INTO nn_edge VALUES (1, 2), (2, 3), (3, 1), (3, 4);
INSERT INTO nn_label VALUES (1, 'a'), (2, NULL), (3, 'c');
SELECT ivm.create_view('nn_reach', 'WITH RECURSIVE r(src, dst, label) AS (SELECT e.src, e.dst, l.label FROM nn_edge e JOIN nn_label l ON l.node = e.src UNION SELECT r.src, e.dst, r.label FROM r JOIN nn_edge e ON r.dst = e.src) SELECT src, dst, label FROM r');
SELECT position('__ivm_p.src IS NULL' IN plan) = 0 AS src_plain, position('__ivm_p.dst IS NULL' IN plan) = 0 AS dst_plain,
       position('__ivm_p.label IS NULL' IN plan) > 0 AS label_null_safe
  FROM (SELECT string_agg(line, ' ') AS plan FROM ivm.explain_view('nn_reach') AS line) p;
DELETE FROM nn_edge WHERE src = 3 AND dst = 1;
SELECT ivm_check('nn_reach');
UPDATE nn_label SET label = NULL WHERE node = 3;
INSERT INTO nn_edge VALUES (4, 2), (2, 4);
SELECT ivm_check('nn_reach');
DELETE FROM nn_edge WHERE src = 2 AND dst = 3;
SELECT ivm_check('nn_reach');
SELECT * FROM nn_reach ORDER BY 1, 2, 3;
-- a base column that loses NOT NULL is matched NULL-safely from then on
ALTER TABLE nn_label ALTER COLUMN node DROP NOT NULL;
ALTER TABLE nn_edge ALTER COLUMN src DROP NOT NULL;
SELECT position('__ivm_p.src IS NULL' IN plan) > 0 AS src_null_safe
  FROM (SELECT string_agg(line, ' ') AS plan FROM ivm.explain_view('nn_reach') AS line) p;
INSERT INTO nn_edge VALUES (NULL, 2);
INSERT INTO nn_label VALUES (NULL, 'n');
SELECT ivm_check('nn_reach');
DELETE FROM nn_edge WHERE src IS NULL;
SELECT ivm_check('nn_reach');
SELECT ivm.drop_view('nn_reach');
DROP TABLE nn_edge, nn_label;

-- A change that over-deletes a few tuples looks the base rows its recursion
-- joins up through their index (PostgreSQL plans a recursive CTE's work
-- table at ten times its seeds, and would hash the whole table in each
-- step); without an index to look them up, the steps are planned as usual.
CREATE TABLE tree_edge (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
INSERT INTO tree_edge SELECT g / 2, g FROM generate_series(2, 4000) g;
CREATE INDEX ON tree_edge (dst);  -- rederivation looks an edge up by its end
ANALYZE tree_edge;
CREATE TABLE bare_edge AS SELECT * FROM tree_edge;
ANALYZE bare_edge;
SELECT ivm.create_view('tree_reach', 'WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM tree_edge UNION SELECT r.src, e.dst FROM r JOIN tree_edge e ON r.dst = e.src) SELECT src, dst FROM r');
SELECT ivm.create_view('bare_reach', 'WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM bare_edge UNION SELECT r.src, e.dst FROM r JOIN bare_edge e ON r.dst = e.src) SELECT src, dst FROM r');
-- what create_view filled has statistics at once: guessing instead, the
-- planner made the delete of 4,000 pairs below a nested loop over the storage
SELECT relname, reltuples > 0 AS analyzed FROM pg_class
 WHERE relname IN ('tree_reach__ivm_data', 'tree_reach__ivm_rec') ORDER BY 1;
SELECT ctid AS leaf FROM tree_edge WHERE src = 999 AND dst = 1999 \gset
BEGIN;
SELECT pg_stat_get_xact_numscans('tree_edge'::regclass) AS before \gset
DELETE FROM tree_edge WHERE ctid = :'leaf';   -- a TID scan
INSERT INTO tree_edge VALUES (999, 1999);
SELECT pg_stat_get_xact_numscans('tree_edge'::regclass) - :before AS seq_scans;
COMMIT;
SELECT ivm_check('tree_reach');
DELETE FROM tree_edge WHERE src = 1;           -- over-deletes past the lookups: planned as usual
SELECT ivm_check('tree_reach');
DELETE FROM bare_edge WHERE src = 999 AND dst = 1999;
INSERT INTO bare_edge VALUES (999, 1999);
DELETE FROM bare_edge WHERE src = 2 AND dst = 5;
SELECT ivm_check('bare_reach');
-- indexes created later are looked up from the next change on (the view's
-- maintenance is planned anew when its base tables change)
CREATE INDEX ON bare_edge (src, dst);
CREATE INDEX ON bare_edge (dst);
ANALYZE bare_edge;
BEGIN;
SELECT pg_stat_get_xact_numscans('bare_edge'::regclass) AS before \gset
DELETE FROM bare_edge WHERE src = 999 AND dst = 1999;
INSERT INTO bare_edge VALUES (999, 1999);
SELECT pg_stat_get_xact_numscans('bare_edge'::regclass) - :before AS seq_scans;
COMMIT;
SELECT ivm_check('bare_reach');
SELECT ivm.drop_view('tree_reach');
SELECT ivm.drop_view('bare_reach');
DROP TABLE tree_edge, bare_edge;

-- Many over-deleted tuples (past the kept plan's few, short of a tenth of
-- R) are rederived one by one, but the rule over base tables alone may be
-- evaluated once and hashed: what it rederives and what the recursive rule
-- rederives come back alike.
CREATE TABLE wide_edge (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
INSERT INTO wide_edge SELECT g / 2, g FROM generate_series(2, 4000) g;
INSERT INTO wide_edge SELECT 1, g FROM generate_series(8, 4000, 97) g;  -- other edges from 1
INSERT INTO wide_edge VALUES (3, 4);                                   -- another path to 4's subtree
CREATE INDEX ON wide_edge (dst);
ANALYZE wide_edge;
SELECT ivm.create_view('wide_reach', 'WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM wide_edge UNION SELECT r.src, e.dst FROM r JOIN wide_edge e ON r.dst = e.src) SELECT src, dst FROM r');
SELECT count(*) AS pairs, count(*) FILTER (WHERE src = 1) AS from_1 FROM wide_reach;
DELETE FROM wide_edge WHERE src = 1 AND dst = 2;   -- over-deletes 1 with all 2 reaches: 2,047 pairs
SELECT count(*) AS pairs, count(*) FILTER (WHERE src = 1) AS from_1 FROM wide_reach;
SELECT ivm_check('wide_reach');
INSERT INTO wide_edge VALUES (1, 2);
DELETE FROM wide_edge WHERE src = 1 AND dst = 3;   -- 1 with all 3 reaches, 4 included: 2,975
SELECT count(*) AS pairs, count(*) FILTER (WHERE src = 1) AS from_1 FROM wide_reach;
SELECT ivm_check('wide_reach');
SELECT ivm.drop_view('wide_reach');
DROP TABLE wide_edge;

-- A recursive relation emptied and analyzed so (as autovacuum would), then
-- loaded again in one statement: the apply step checks the 40,000 new pairs
-- against R in one pass (planned for an empty R, a nested loop read R again
-- for each pair while the statement filled it: 11 s)
CREATE TABLE re_edge (src int NOT NULL, dst int NOT NULL, PRIMARY KEY (src, dst));
CREATE INDEX ON re_edge (dst);
INSERT INTO re_edge SELECT g / 2, g FROM generate_series(2, 40) g;
SELECT ivm.create_view('re_reach', 'WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM re_edge UNION SELECT r.src, e.dst FROM r JOIN re_edge e ON r.dst = e.src) SELECT src, dst FROM r');
DELETE FROM re_edge;
ANALYZE re_reach__ivm_rec;
INSERT INTO re_edge SELECT g / 2, g FROM generate_series(2, 4000) g;
SELECT count(*) FROM re_reach;
SELECT ivm_check('re_reach');
SELECT ivm.drop_view('re_reach');
DROP TABLE re_edge;
