-- Recursive queries PostgreSQL's own WITH RECURSIVE does not evaluate
-- (non-linear and mutual recursion, several items, negation and
-- aggregation over lower strata): ivm evaluates them itself, semi-naively,
-- and maintains them with DRed per stratum.  Each view is compared with an
-- equivalent query PostgreSQL can run.
CREATE FUNCTION same_as(view regclass, query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    extra bigint;
    missing bigint;
BEGIN
    EXECUTE format('SELECT (SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL (%s)) x),
                           (SELECT count(*) FROM ((%s) EXCEPT ALL SELECT * FROM %s) y)',
                   view, query, query, view) INTO extra, missing;
    RETURN CASE WHEN extra = 0 AND missing = 0 THEN 'ok' ELSE format('MISMATCH: %s extra, %s missing', extra, missing) END;
END $$;
CREATE TABLE e (src int, dst int);
INSERT INTO e VALUES (1, 2), (2, 3), (3, 4), (4, 5), (5, 3);
-- PostgreSQL refuses the non-linear transitive closure
WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM e UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x) SELECT x, y FROM tc;
CREATE VIEW linear_tc AS WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM e UNION SELECT tc.x, e.dst FROM tc JOIN e ON tc.y = e.src) SELECT x, y FROM tc;

-- non-linear transitive closure
SELECT ivm.create_view('tc', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM e UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x) SELECT x, y FROM tc');
SELECT * FROM tc ORDER BY x, y;
SELECT name, algorithm, base_relations FROM ivm.views;
SELECT line FROM ivm.explain_view('tc') line
 WHERE line LIKE 'algorithm%' OR line LIKE 'stratum%' OR line LIKE 'items%' OR line LIKE 'when DRed gives up%';
INSERT INTO e VALUES (6, 1);
SELECT same_as('tc', 'SELECT * FROM linear_tc');
DELETE FROM e WHERE (src, dst) = (2, 3);    -- breaks the chain; the cycle 3-4-5 stays
SELECT * FROM tc ORDER BY x, y;
SELECT same_as('tc', 'SELECT * FROM linear_tc');
UPDATE e SET dst = 3 WHERE (src, dst) = (1, 2);  -- rederived through another path
SELECT same_as('tc', 'SELECT * FROM linear_tc');
INSERT INTO e VALUES (2, 3), (2, 3), (NULL, 1), (1, NULL);  -- duplicates and NULLs
SELECT same_as('tc', 'SELECT * FROM linear_tc');
DELETE FROM e WHERE src IS NULL OR dst IS NULL;
SELECT same_as('tc', 'SELECT * FROM linear_tc');
BEGIN;
DELETE FROM e;
SELECT count(*) FROM tc;
ROLLBACK;
SELECT same_as('tc', 'SELECT * FROM linear_tc');
TRUNCATE e;
SELECT count(*) FROM tc;
INSERT INTO e VALUES (1, 2), (2, 3), (3, 4), (4, 5), (5, 3), (6, 1);

-- mutual recursion: paths of odd and even length
SELECT ivm.create_view('even_paths', $$
  WITH RECURSIVE odd(x, y) AS (SELECT src, dst FROM e UNION SELECT ev.x, e.dst FROM even ev JOIN e ON ev.y = e.src),
                 even(x, y) AS (SELECT o.x, e.dst FROM odd o JOIN e ON o.y = e.src)
  SELECT x, y FROM even$$);
CREATE VIEW parity AS WITH RECURSIVE p(x, y, odd) AS (SELECT src, dst, true FROM e UNION SELECT p.x, e.dst, NOT p.odd FROM p JOIN e ON p.y = e.src) SELECT x, y, odd FROM p;
SELECT * FROM even_paths ORDER BY x, y;
SELECT same_as('even_paths', 'SELECT x, y FROM parity WHERE NOT odd');
DELETE FROM e WHERE src = 5;
SELECT same_as('even_paths', 'SELECT x, y FROM parity WHERE NOT odd');
INSERT INTO e VALUES (5, 6), (4, 1);
SELECT same_as('even_paths', 'SELECT x, y FROM parity WHERE NOT odd');
-- a final query reading both items, as a set operation; negation between them in an item
SELECT ivm.create_view('parities', $$
  WITH RECURSIVE odd(x, y) AS (SELECT src, dst FROM e UNION SELECT ev.x, e.dst FROM even ev JOIN e ON ev.y = e.src),
                 even(x, y) AS (SELECT o.x, e.dst FROM odd o JOIN e ON o.y = e.src),
                 odd_only(x, y) AS (SELECT x, y FROM odd o WHERE NOT EXISTS (SELECT 1 FROM even v WHERE (v.x, v.y) = (o.x, o.y)))
  SELECT x, y, 'odd' AS parity FROM odd UNION ALL SELECT x, y, 'even' FROM even UNION ALL SELECT x, y, 'odd only' FROM odd_only$$);
CREATE VIEW parities_check AS SELECT x, y, CASE WHEN odd THEN 'odd' ELSE 'even' END AS parity FROM parity
  UNION ALL (SELECT x, y, 'odd only' FROM parity WHERE odd EXCEPT SELECT x, y, 'odd only' FROM parity WHERE NOT odd);
SELECT parity, count(*) FROM parities GROUP BY parity ORDER BY parity;
SELECT same_as('parities', 'SELECT * FROM parities_check');
DELETE FROM e WHERE (src, dst) = (4, 1);
SELECT same_as('parities', 'SELECT * FROM parities_check');

-- same generation, and reachability with two recursive terms
CREATE TABLE parent (c text, p text);
INSERT INTO parent VALUES ('b', 'a'), ('c', 'a'), ('d', 'b'), ('e', 'c'), ('f', 'd'), ('g', 'e');
SELECT ivm.create_view('same_gen', $$
  WITH RECURSIVE sg(x, y) AS (SELECT a.c, b.c FROM parent a JOIN parent b ON a.p = b.p
                              UNION SELECT a.c, b.c FROM sg JOIN parent a ON a.p = sg.x JOIN parent b ON b.p = sg.y
                              UNION SELECT s1.x, s2.y FROM sg s1 JOIN sg s2 ON s1.y = s2.x)
  SELECT x, y FROM sg WHERE x < y$$);
SELECT * FROM same_gen ORDER BY x, y;
INSERT INTO parent VALUES ('h', 'f'), ('i', 'g');
DELETE FROM parent WHERE c = 'e';
SELECT * FROM same_gen ORDER BY x, y;
CREATE TABLE root (n int);
CREATE TABLE link (a int, b int);
INSERT INTO root VALUES (1);
INSERT INTO link VALUES (4, 7), (7, 8);
SELECT ivm.create_view('reach', $$
  WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT e.dst FROM r JOIN e ON e.src = r.n
                          UNION SELECT link.b FROM r JOIN link ON link.a = r.n)
  SELECT n FROM r$$);
CREATE VIEW reach_check AS WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT g.b FROM r JOIN (SELECT src, dst FROM e UNION ALL SELECT a, b FROM link) g(a, b) ON g.a = r.n) SELECT n FROM r;
SELECT * FROM reach ORDER BY n;
DELETE FROM e WHERE src = 3;
INSERT INTO link VALUES (3, 9);
SELECT same_as('reach', 'SELECT * FROM reach_check');

-- stratified negation: a base table under NOT EXISTS in the recursion, and
-- an item of a lower stratum under NOT EXISTS and under an aggregate
CREATE TABLE blocked (n int);
INSERT INTO blocked VALUES (3);
SELECT ivm.create_view('open_reach', $$
  WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT e.dst FROM r JOIN e ON e.src = r.n
                          WHERE NOT EXISTS (SELECT 1 FROM blocked b WHERE b.n = e.dst))
  SELECT n FROM r$$);
SELECT * FROM open_reach ORDER BY n;
DELETE FROM blocked;
INSERT INTO blocked VALUES (2);
SELECT * FROM open_reach ORDER BY n;
SELECT ivm.create_view('counted', $$
  WITH RECURSIVE w(a) AS (SELECT n FROM root UNION SELECT w.a + 1 FROM w WHERE w.a < 9 AND w.a IN (SELECT src FROM e))
  SELECT a FROM w$$);
SELECT same_as('counted', $$WITH RECURSIVE w(a) AS (SELECT n FROM root UNION SELECT w.a + 1 FROM w WHERE w.a < 9 AND w.a IN (SELECT src FROM e)) SELECT a FROM w$$);
INSERT INTO e VALUES (3, 1);
SELECT same_as('counted', $$WITH RECURSIVE w(a) AS (SELECT n FROM root UNION SELECT w.a + 1 FROM w WHERE w.a < 9 AND w.a IN (SELECT src FROM e)) SELECT a FROM w$$);
SELECT * FROM counted ORDER BY a;
SELECT ivm.create_view('unreached', $$
  WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT e.dst FROM r JOIN e ON e.src = r.n),
                 node(n) AS (SELECT src FROM e UNION SELECT dst FROM e),
                 lost(n) AS (SELECT n FROM node WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.n = node.n)),
                 size(reached) AS (SELECT count(*) FROM r)
  SELECT lost.n, size.reached FROM lost, size$$);
CREATE VIEW unreached_check AS WITH RECURSIVE r(n) AS (SELECT n FROM root UNION SELECT e.dst FROM r JOIN e ON e.src = r.n)
  SELECT n.n, (SELECT count(*) FROM r) AS reached FROM (SELECT src AS n FROM e UNION SELECT dst FROM e) n WHERE n.n NOT IN (SELECT n FROM r);
SELECT * FROM unreached ORDER BY n;
INSERT INTO e VALUES (20, 21), (2, 3);
SELECT * FROM unreached ORDER BY n;
INSERT INTO e VALUES (1, 20);
SELECT * FROM unreached ORDER BY n;
SELECT same_as('unreached', 'SELECT * FROM unreached_check');
UPDATE root SET n = 20;
SELECT same_as('unreached', 'SELECT * FROM unreached_check');

-- refused: not stratifiable, UNION ALL, mismatched terms, and what no
-- term can type
SELECT refused($$WITH RECURSIVE win(x) AS (SELECT src FROM e UNION SELECT e.src FROM e WHERE NOT EXISTS (SELECT 1 FROM win w WHERE w.x = e.dst)) SELECT x FROM win$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e UNION SELECT x FROM b), b(x) AS (SELECT count(*)::int FROM a) SELECT x FROM a$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e UNION SELECT x FROM b), b(x) AS (SELECT x FROM a EXCEPT SELECT dst FROM e) SELECT x FROM a$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e UNION ALL SELECT x FROM b), b(x) AS (SELECT x FROM a) SELECT x FROM a$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e UNION SELECT x::bigint FROM b), b(x) AS (SELECT x FROM a) SELECT x FROM a$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT x FROM b), b(x) AS (SELECT x FROM a) SELECT x FROM a$$);
SELECT refused($$WITH RECURSIVE a(x, y) AS (SELECT src FROM e), b(x) AS (SELECT x FROM a) SELECT x FROM a$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e), b(x) AS (SELECT x FROM a) SELECT x FROM a WHERE x NOT IN (SELECT x FROM b)$$);
SELECT refused($$WITH RECURSIVE __ivm_a(x) AS (SELECT src FROM e), b(x) AS (SELECT x FROM __ivm_a) SELECT x FROM b$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e), b(x) AS (SELECT x FROM a WHERE random() > 0.5) SELECT x FROM b$$);
CREATE MATERIALIZED VIEW e_copy AS SELECT * FROM e;
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e_copy), b(x) AS (SELECT x FROM a) SELECT x FROM b$$);
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e), b(x) AS (SELECT x FROM a WHERE x IN (SELECT x FROM linear_tc)) SELECT x FROM b$$);
DROP MATERIALIZED VIEW e_copy;
SELECT refused($$WITH RECURSIVE a(x) AS (SELECT src FROM e), b(x) AS (SELECT x FROM a) SELECT missing FROM b$$);

-- refresh, alter (program to program, to PostgreSQL's own recursion), drop
SELECT ivm.refresh_view('tc');
SELECT same_as('tc', 'SELECT * FROM linear_tc');
SELECT ivm.alter_view('even_paths', $$
  WITH RECURSIVE odd(x, y) AS (SELECT src, dst FROM e UNION SELECT ev.x, e.dst FROM even ev JOIN e ON ev.y = e.src),
                 even(x, y) AS (SELECT o.x, e.dst FROM odd o JOIN e ON o.y = e.src)
  SELECT x, y FROM odd$$);
SELECT same_as('even_paths', 'SELECT x, y FROM parity WHERE odd');
DELETE FROM e WHERE src = 1;
SELECT same_as('even_paths', 'SELECT x, y FROM parity WHERE odd');
SELECT ivm.alter_view('even_paths', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM e UNION SELECT tc.x, e.dst FROM tc JOIN e ON tc.y = e.src) SELECT x, y FROM tc');
SELECT name, algorithm FROM ivm.views WHERE name = 'even_paths'::regclass;
SELECT same_as('even_paths', 'SELECT * FROM linear_tc');
INSERT INTO e VALUES (1, 2);
SELECT ivm.alter_view('even_paths', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM e UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x) SELECT x, y FROM tc');
SELECT same_as('even_paths', 'SELECT * FROM linear_tc');
SELECT count(*) FROM pg_class WHERE relname LIKE 'even_paths%';
-- Andersen's points-to analysis, two of its rules reading pts twice:
-- p = &x (addr), a = p (copy), d = *r (load), *s = a (store)
CREATE TABLE addr (dst text, src text);
CREATE TABLE copy (dst text, src text);
CREATE TABLE load (dst text, src text);
CREATE TABLE store (dst text, src text);
INSERT INTO addr VALUES ('p', 'x'), ('q', 'y'), ('r', 'p'), ('s', 'q');
INSERT INTO copy VALUES ('a', 'p'), ('b', 'a'), ('a', 'q'), ('c', 'b');
INSERT INTO load VALUES ('d', 'r');   -- d points to what p points to
INSERT INTO store VALUES ('s', 'a');  -- q points to what a points to: a and q feed each other
-- the rules evaluated naively, to a fixpoint
CREATE FUNCTION points_to_naive() RETURNS TABLE (p text, a text) LANGUAGE plpgsql AS $$
DECLARE added bigint;
BEGIN
  CREATE TEMP TABLE naive_pts AS SELECT DISTINCT dst AS p, src AS a FROM addr;
  LOOP
    INSERT INTO naive_pts
    SELECT * FROM (SELECT c.dst, x.a FROM copy c JOIN naive_pts x ON x.p = c.src
                   UNION SELECT l.dst, t.a FROM load l JOIN naive_pts s ON s.p = l.src JOIN naive_pts t ON t.p = s.a
                   UNION SELECT s.a, t.a FROM store st JOIN naive_pts s ON s.p = st.dst JOIN naive_pts t ON t.p = st.src
                   EXCEPT SELECT * FROM naive_pts) n;
    GET DIAGNOSTICS added = ROW_COUNT;
    EXIT WHEN added = 0;
  END LOOP;
  RETURN QUERY SELECT * FROM naive_pts;
  DROP TABLE naive_pts;
END $$;
SELECT ivm.create_view('pts', $$WITH RECURSIVE pts(p, a) AS (
    SELECT dst, src FROM addr
    UNION SELECT c.dst, pts.a FROM copy c JOIN pts ON pts.p = c.src
    UNION SELECT l.dst, t.a FROM load l JOIN pts s ON s.p = l.src JOIN pts t ON t.p = s.a
    UNION SELECT s.a, t.a FROM store st JOIN pts s ON s.p = st.dst JOIN pts t ON t.p = st.src)
  SELECT p, a FROM pts$$);
SELECT p, string_agg(a, ', ' ORDER BY a) AS points_to FROM pts GROUP BY p ORDER BY p;
-- x reaches a, q, b and c only through a = p; a and q still derive each
-- other (a cycle), which must not keep x
DELETE FROM copy WHERE (dst, src) = ('a', 'p');
SELECT p, string_agg(a, ', ' ORDER BY a) AS points_to FROM pts GROUP BY p ORDER BY p;
SELECT same_as('pts', 'SELECT * FROM points_to_naive()');
-- a second way in: q = &y deleted while a = q's cycle keeps nothing else
INSERT INTO copy VALUES ('d', 'c'), ('a', 'p');
DELETE FROM addr WHERE (dst, src) = ('q', 'y');
SELECT same_as('pts', 'SELECT * FROM points_to_naive()');
UPDATE store SET dst = 'r';           -- *r = a: now p points to what a points to
SELECT same_as('pts', 'SELECT * FROM points_to_naive()');
DELETE FROM load;
INSERT INTO addr VALUES ('q', 'y'), ('q', 'y');
SELECT same_as('pts', 'SELECT * FROM points_to_naive()');
SELECT p, string_agg(a, ', ' ORDER BY a) AS points_to FROM pts GROUP BY p ORDER BY p;
DROP TABLE addr, copy, load, store CASCADE;
-- DROP TABLE ... CASCADE takes a program's views with all their objects
DROP TABLE parent CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'same_gen%';
SELECT ivm.drop_view(name::text) FROM ivm.views ORDER BY name::text;
SELECT relname FROM pg_class WHERE relname LIKE '%ivm_%' AND relnamespace = 'public'::regnamespace;
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'ivm%';
DROP TABLE e, root, link, blocked CASCADE;
