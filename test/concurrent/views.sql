-- Views of the main kinds over three small tables, for the concurrent writers test.
CREATE TABLE r (a int, b int);
CREATE TABLE s (c int, d int);
CREATE TABLE g (src int, dst int);
INSERT INTO r SELECT i % 11, i % 7 FROM generate_series(1, 60) i;
INSERT INTO s SELECT i % 7, i % 5 FROM generate_series(1, 30) i;
INSERT INTO g SELECT i % 9, (i * 5) % 9 FROM generate_series(1, 12) i;
SET client_min_messages = warning;
SELECT ivm.create_view('c_join', 'SELECT r.a, s.d FROM r JOIN s ON r.b = s.c');
SELECT ivm.create_view('c_self', 'SELECT x.a, y.b FROM r x JOIN r y ON x.b = y.a');
SELECT ivm.create_view('c_sums', 'SELECT s.d, count(*) AS n, sum(r.a) AS total FROM r JOIN s ON r.b = s.c GROUP BY s.d');
SELECT ivm.create_view('c_extremes', 'SELECT b, min(a) AS lo, max(a) AS hi FROM r GROUP BY b');
SELECT ivm.create_view('c_outer', 'SELECT s.c, r.a FROM s LEFT JOIN r ON r.b = s.c');
SELECT ivm.create_view('c_unmatched', 'SELECT c FROM s WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.b = s.c)');
SELECT ivm.create_view('c_distinct', 'SELECT DISTINCT b FROM r EXCEPT SELECT d FROM s');
-- views over views: a rebuild swaps the storage they read and tells them (announce_rewritten)
SELECT ivm.create_view('c_over_join', 'SELECT d, count(*) AS n FROM c_join GROUP BY d');
SELECT ivm.create_view('c_group_sizes', 'SELECT n, count(*) AS groups FROM (SELECT b, count(*) AS n FROM r GROUP BY b) x GROUP BY n');
SELECT ivm.create_view('c_closure', 'WITH RECURSIVE t(x, y) AS (SELECT src, dst FROM g UNION SELECT t.x, g.dst FROM t JOIN g ON t.y = g.src) SELECT x, y FROM t');
-- Deferred: the writers only log; an apply now and then races them (writes.pgbench).
SELECT ivm.create_view('c_join_later', 'SELECT r.a, s.d FROM r JOIN s ON r.b = s.c', deferred => true);
SELECT ivm.create_view('c_sums_later', 'SELECT s.d, count(*) AS n, sum(r.a) AS total FROM r JOIN s ON r.b = s.c GROUP BY s.d', deferred => true);
SELECT ivm.create_view('c_outer_later', 'SELECT s.c, r.a FROM s LEFT JOIN r ON r.b = s.c', deferred => true);
