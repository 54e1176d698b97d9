-- A database with one view of each kind, for the dump and restore and the
-- upgrade tests (which create the extension first).
CREATE TABLE emp (id int PRIMARY KEY, dept int, pay int, note text);
CREATE TABLE dept (id int PRIMARY KEY, name text);
INSERT INTO emp SELECT g, g % 4, g * 10, CASE WHEN g % 5 = 0 THEN NULL ELSE 'n' || g END FROM generate_series(1, 40) g;
INSERT INTO dept VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, NULL);
CREATE TABLE edges (src int, dst int) PARTITION BY RANGE (src);
CREATE TABLE edges_low PARTITION OF edges FOR VALUES FROM (MINVALUE) TO (20);
CREATE TABLE edges_high PARTITION OF edges FOR VALUES FROM (20) TO (MAXVALUE);
INSERT INTO edges SELECT g, g + 1 + g % 3 FROM generate_series(1, 30) g;
CREATE SCHEMA "Reports";
SET client_min_messages = warning;
SELECT ivm.create_view('staff', 'SELECT e.id, d.name, e.pay FROM emp e JOIN dept d ON e.dept = d.id');
-- lookup bases (emp by its id, dept by e.dept): its storage key, catalogued, leaves the names out
SELECT ivm.create_view('staff_depts', 'SELECT e.id, e.dept, e.pay, d.name FROM emp e JOIN dept d ON d.id = e.dept');
SELECT ivm.create_view('"Reports"."Pay by dept"', 'SELECT name, count(*) AS n, sum(pay) AS total, avg(pay) AS mean FROM staff GROUP BY name');
SELECT ivm.create_view('top_pay', 'SELECT dept, max(pay) AS top FROM emp GROUP BY dept HAVING count(*) > 1');
SELECT ivm.create_view('unstaffed', 'SELECT id FROM dept EXCEPT SELECT dept FROM emp');
SELECT ivm.create_view('reach', 'WITH RECURSIVE r(a, b) AS (SELECT src, dst FROM edges UNION SELECT r.a, e.dst FROM r JOIN edges e ON r.b = e.src) SELECT a, b FROM r');
-- the same closure, non-linear: PostgreSQL cannot run it, ivm evaluates it
SELECT ivm.create_view('closure2', 'WITH RECURSIVE c(a, b) AS (SELECT src, dst FROM edges UNION SELECT x.a, y.b FROM c x JOIN c y ON x.b = y.a) SELECT a, b FROM c');
SELECT ivm.create_view('paused', 'SELECT DISTINCT note FROM emp');
SELECT ivm.create_view('idle_depts', 'SELECT d.id, d.name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.id AND e.pay > 300)');
SELECT ivm.create_view('dept_pay', 'SELECT d.name, t.total FROM dept d JOIN (SELECT dept, sum(pay) AS total FROM emp GROUP BY dept) t ON t.dept = d.id');
SELECT ivm.create_view('richest', 'WITH totals AS (SELECT dept, sum(pay) AS total FROM emp GROUP BY dept) SELECT d.name, t.total FROM dept d, totals t WHERE t.dept = d.id AND t.total = (SELECT max(total) FROM totals)');
SELECT ivm.create_view('top_paid', 'SELECT e.id, e.dept FROM emp e WHERE e.pay = (SELECT max(x.pay) FROM emp x WHERE x.dept = e.dept)');
SELECT ivm.create_view('constants', 'SELECT x, x * 2 AS y FROM generate_series(1, 3) x');
SELECT ivm.create_view('ranked', 'SELECT dept, pay, rank() OVER (PARTITION BY dept ORDER BY pay DESC) AS r FROM emp');
SELECT ivm.create_view('emp_depts', 'SELECT e.id, d.name FROM emp e FULL JOIN dept d ON e.dept = d.id');
SELECT ivm.create_view('has_high_peer', 'SELECT e.id, EXISTS (SELECT 1 FROM emp x WHERE x.dept = e.dept AND x.pay > 300) AS has_high FROM emp e');
SELECT ivm.create_view('note_words', 'SELECT e.id, w FROM emp e, regexp_split_to_table(e.note, '' '') w');
SELECT ivm.create_view('dept_of', 'SELECT e.id, x.name FROM emp e CROSS JOIN LATERAL (SELECT d.name FROM dept d WHERE d.id = e.dept) x');
SELECT ivm.create_view('dept_bands', 'SELECT d.name, b.high, b.n FROM dept d, LATERAL (SELECT e.pay > 200 AS high, count(*) AS n FROM emp e WHERE e.dept = d.id GROUP BY e.pay > 200) b');
-- a plain view that aggregates, read through a part whose query view reads it
CREATE VIEW dept_sizes AS SELECT dept, count(*) AS n, sum(pay) AS total FROM emp GROUP BY dept;
SELECT ivm.create_view('sized_depts', 'SELECT d.name, s.n FROM dept d JOIN dept_sizes s ON s.dept = d.id WHERE s.total > 100');
CREATE VIEW size_counts AS SELECT n, count(*) AS depts FROM dept_sizes GROUP BY n;  -- over it: a part of the part
SELECT ivm.create_view('counted_sizes', 'SELECT * FROM size_counts');
SELECT ivm.create_view('pay_rollup', 'SELECT dept, note, sum(pay) AS total, grouping(dept, note) AS level FROM emp GROUP BY ROLLUP (dept, note)');
SELECT ivm.create_view('noted_staff', 'SELECT d.id, e.id AS emp FROM dept d LEFT JOIN emp e ON e.dept = d.id AND e.pay > (SELECT avg(pay) FROM emp)');
SELECT ivm.refresh_view('paused', false);
