-- Redefinition: ivm.alter_view gives a view a new definition, keeping the
-- tuples both definitions derive, for counting and DRed views alike.
CREATE TABLE edge (src int, dst int);
CREATE TABLE person (id int, name text);
INSERT INTO edge VALUES (1, 2), (2, 3), (3, 4);
INSERT INTO person VALUES (1, 'ann'), (2, 'bob'), (3, 'cid');
SELECT ivm.create_view('v', 'SELECT src AS x, dst AS y FROM edge');
SELECT ctid AS kept_ctid FROM v__ivm_data WHERE x = 1 \gset

-- counting to DRed: (1,2), (2,3), (3,4) are derived by both and stay
SELECT ivm.alter_view('v', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc');
SELECT name, algorithm FROM ivm.views;
-- the new query view is described as the old one was
SELECT obj_description('v__ivm_query'::regclass, 'pg_class');
SELECT ctid = :'kept_ctid' AS tuple_kept FROM v__ivm_data WHERE x = 1 AND y = 2;
SELECT * FROM v ORDER BY 1, 2;
INSERT INTO edge VALUES (4, 5);
SELECT ivm_check('v');

-- DRed to DRed: another recursion
SELECT ivm.alter_view('v', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge WHERE src > 1 UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc');
DELETE FROM edge WHERE src = 3;
SELECT ivm_check('v');

-- DRed to counting, with a join
SELECT ivm.alter_view('v', 'SELECT e.src AS x, e.dst AS y FROM edge e JOIN person p ON p.id = e.src');
SELECT name, algorithm, base_relations FROM ivm.views;
SELECT relname FROM pg_class WHERE relname LIKE 'v\_\_%' ORDER BY 1;
UPDATE person SET id = 4 WHERE name = 'cid';
INSERT INTO edge VALUES (4, 6);
SELECT ivm_check('v');

-- new columns: the view is rebuilt
SELECT ivm.alter_view('v', 'SELECT p.name, e.dst FROM edge e JOIN person p ON p.id = e.src');
\d v
SELECT * FROM v ORDER BY 1, 2;
SELECT ivm_check('v');

-- a definition that cannot be maintained is refused; the old one stays
SELECT ivm.alter_view('v', 'SELECT name, random() FROM person');
SELECT ivm.alter_view('v', 'SELECT name FROM nowhere');
SELECT definition FROM ivm.views;
INSERT INTO person VALUES (2, 'bo');
SELECT ivm_check('v');
SELECT ivm.alter_view('person', 'SELECT 1');

SELECT ivm.drop_view('v');
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'ivm%';

-- A recursive view given a rule without R, and the rule taken away: R is
-- kept (its table is the same) and changed by DRed, in proportion to what
-- the rule derives, not recomputed
CREATE TABLE shortcut (src int, dst int);
INSERT INTO shortcut VALUES (1, 3), (5, 7);
DELETE FROM edge;
INSERT INTO edge VALUES (1, 2), (2, 3), (3, 4), (7, 8);
SELECT ivm.create_view('r', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc');
SELECT 'r__ivm_rec'::regclass::oid AS rec_oid \gset
-- (5,7) and (5,8) are new; (1,3) was derived already
SELECT ivm.alter_view('r', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT src, dst FROM shortcut UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc');
SELECT 'r__ivm_rec'::regclass::oid = :rec_oid AS relation_kept;
SELECT * FROM r ORDER BY 1, 2;
SELECT ivm_check('r');
INSERT INTO shortcut VALUES (8, 9);
DELETE FROM edge WHERE src = 1;
SELECT ivm_check('r');
-- taken away: (5,7), (5,8) and (8,9) go; (1,3), over-deleted with it,
-- is rederived through (1,2) and (2,3)
INSERT INTO edge VALUES (1, 2);
SELECT ivm.alter_view('r', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc');
SELECT 'r__ivm_rec'::regclass::oid = :rec_oid AS relation_kept;
SELECT * FROM r ORDER BY 1, 2;
SELECT ivm_check('r');
-- views that aggregate R, from partial state (count, max) and by
-- recomputing groups (string_agg): a rule added keeps R, and the groups
-- it changes follow
SELECT ivm.create_view('r_counts', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, count(*) AS n, max(y) AS m FROM tc GROUP BY x');
SELECT ivm.create_view('r_lists', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, string_agg(y::text, '','' ORDER BY y) AS ys FROM tc GROUP BY x');
SELECT 'r_counts__ivm_rec'::regclass::oid AS counts_rec_oid, 'r_lists__ivm_rec'::regclass::oid AS lists_rec_oid \gset
SELECT ivm.alter_view('r_counts', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT src, dst FROM shortcut UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, count(*) AS n, max(y) AS m FROM tc GROUP BY x');
SELECT ivm.alter_view('r_lists', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT src, dst FROM shortcut UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, string_agg(y::text, '','' ORDER BY y) AS ys FROM tc GROUP BY x');
SELECT 'r_counts__ivm_rec'::regclass::oid = :counts_rec_oid AS counts_relation_kept,
       'r_lists__ivm_rec'::regclass::oid = :lists_rec_oid AS lists_relation_kept;
SELECT c.x, c.n, c.m, l.ys FROM r_counts c JOIN r_lists l USING (x) ORDER BY x;
SELECT ivm_check('r_counts'), ivm_check('r_lists');
SELECT ivm.drop_view('r_counts'), ivm.drop_view('r_lists');
-- over edges whose columns are NOT NULL (R's too, so matched by plain
-- equality), a rule over a table that may hold NULLs: R still serves, kept
-- and changed by DRed; taken away again, R's columns are NOT NULL once more
-- and the NULLs it held would escape that equality, so R is made anew
CREATE TABLE edge_nn (src int NOT NULL, dst int NOT NULL);
INSERT INTO edge_nn SELECT src, dst FROM edge;
SELECT ivm.create_view('r_nn', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge_nn UNION SELECT tc.x, edge_nn.dst FROM tc JOIN edge_nn ON tc.y = edge_nn.src) SELECT x, y FROM tc');
SELECT 'r_nn__ivm_rec'::regclass::oid AS nn_rec_oid \gset
INSERT INTO shortcut VALUES (NULL, 2), (4, NULL);
SELECT ivm.alter_view('r_nn', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge_nn UNION SELECT src, dst FROM shortcut UNION SELECT tc.x, edge_nn.dst FROM tc JOIN edge_nn ON tc.y = edge_nn.src) SELECT x, y FROM tc');
SELECT 'r_nn__ivm_rec'::regclass::oid = :nn_rec_oid AS relation_kept;
SELECT * FROM r_nn WHERE x IS NULL OR y IS NULL ORDER BY 1, 2;
DELETE FROM edge_nn WHERE src = 2;
SELECT ivm_check('r_nn');
SELECT ivm.alter_view('r_nn', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM edge_nn UNION SELECT tc.x, edge_nn.dst FROM tc JOIN edge_nn ON tc.y = edge_nn.src) SELECT x, y FROM tc');
SELECT 'r_nn__ivm_rec'::regclass::oid = :nn_rec_oid AS relation_kept;
SELECT count(*) AS nulls FROM r_nn WHERE x IS NULL OR y IS NULL;
SELECT ivm_check('r_nn');
SELECT ivm.drop_view('r_nn');
DELETE FROM shortcut WHERE src IS NULL OR dst IS NULL;
DROP TABLE edge_nn;
-- rules replaced (one out, one in) and a query over R that changes: R is
-- kept and recomputed, the view merged
SELECT ivm.alter_view('r', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM shortcut UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src) SELECT x, y FROM tc WHERE x > 1');
SELECT 'r__ivm_rec'::regclass::oid = :rec_oid AS relation_kept;
SELECT * FROM r ORDER BY 1, 2;
SELECT ivm_check('r');
-- another recursive rule: R is made anew
SELECT ivm.alter_view('r', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM shortcut UNION SELECT tc.x, edge.dst FROM tc JOIN edge ON tc.y = edge.src WHERE edge.dst < 9) SELECT x, y FROM tc WHERE x > 1');
SELECT 'r__ivm_rec'::regclass::oid = :rec_oid AS relation_kept;
DELETE FROM shortcut WHERE src = 5;
SELECT ivm_check('r');
SELECT ivm.drop_view('r');

-- The same for a program of ivm's own fixpoint (a non-linear closure, a
-- stratum above it that negates): its items' table is kept (under the new
-- program's name), a stratum changed by DRed over the rules removed and
-- added, the stratum above by the rows the one below lost and gained (the
-- removed rule reads a table the new program does not)
CREATE TABLE blocked (n int);
INSERT INTO blocked VALUES (8);
DELETE FROM edge;
INSERT INTO edge VALUES (1, 2), (2, 3), (3, 4), (7, 8);
DELETE FROM shortcut;
INSERT INTO shortcut VALUES (1, 3), (5, 7);
SELECT ivm.create_view('p', 'WITH RECURSIVE ok(x, y) AS (SELECT x, y FROM tc WHERE NOT EXISTS (SELECT 1 FROM blocked WHERE n = tc.y)), tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT a.x, b.y FROM tc a JOIN tc b ON a.y = b.x) SELECT x, y FROM ok');
SELECT 'p__ivm_rec'::regclass::oid AS items_oid \gset
-- (5,7) comes; (5,8) is blocked; (1,3) was derived already
SELECT ivm.alter_view('p', 'WITH RECURSIVE ok(x, y) AS (SELECT x, y FROM tc WHERE NOT EXISTS (SELECT 1 FROM blocked WHERE n = tc.y)), tc(x, y) AS (SELECT src, dst FROM edge UNION SELECT src, dst FROM shortcut UNION SELECT a.x, b.y FROM tc a JOIN tc b ON a.y = b.x) SELECT x, y FROM ok');
SELECT relname, oid = :items_oid AS items_kept FROM pg_class WHERE relname LIKE 'p\_\_ivm\_rec%' AND relkind = 'r';
SELECT * FROM p ORDER BY 1, 2;
SELECT ivm_check('p');
INSERT INTO edge VALUES (4, 5);
DELETE FROM shortcut WHERE src = 1;
SELECT ivm_check('p');
-- the shortcut rule taken away, and the edge rule replaced by one over the
-- edges from 2 on
SELECT ivm.alter_view('p', 'WITH RECURSIVE ok(x, y) AS (SELECT x, y FROM tc WHERE NOT EXISTS (SELECT 1 FROM blocked WHERE n = tc.y)), tc(x, y) AS (SELECT src, dst FROM edge WHERE src > 1 UNION SELECT a.x, b.y FROM tc a JOIN tc b ON a.y = b.x) SELECT x, y FROM ok');
SELECT relname, oid = :items_oid AS items_kept FROM pg_class WHERE relname LIKE 'p\_\_ivm\_rec%' AND relkind = 'r';
SELECT * FROM p ORDER BY 1, 2;
SELECT ivm_check('p');
INSERT INTO blocked VALUES (4);
SELECT ivm_check('p');
SELECT ivm.drop_view('p');
DROP TABLE edge, person, shortcut, blocked;
