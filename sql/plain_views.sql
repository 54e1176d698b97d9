-- Plain PostgreSQL views, subqueries in FROM and WITH queries in a view's
-- query are expanded into it, as the rewriter and the planner would:
-- maintenance works on their base tables.
CREATE TABLE emp (id int, dept int, pay int);
CREATE TABLE dept (id int, name text);
INSERT INTO emp SELECT g, g % 3, g * 10 FROM generate_series(1, 12) g;
INSERT INTO dept VALUES (0, 'zero'), (1, 'one'), (2, 'two');
CREATE VIEW paid AS SELECT e.id, e.dept, e.pay * 2 AS double_pay FROM emp e WHERE e.pay > 20;
CREATE VIEW staff AS SELECT p.id, d.name, p.double_pay FROM paid p JOIN dept d ON p.dept = d.id;  -- a view over a view
CREATE VIEW same_id AS SELECT id, name FROM emp JOIN dept USING (id);
SELECT ivm.create_view('pay_by_name', 'SELECT name, count(*) AS n, sum(double_pay) AS total, max(id) AS last FROM staff GROUP BY name');
SELECT ivm.create_view('same_names', 'SELECT s.id, s.name, d.name AS other FROM same_id s, dept d WHERE d.id = (s.id + 1) % 3');
SELECT ivm.create_view('mixed', 'SELECT id FROM paid UNION ALL SELECT id FROM same_id');
-- the views' base tables are the tables under the plain views
SELECT name, base_relations FROM ivm.views ORDER BY name::text;
INSERT INTO dept VALUES (3, 'three'), (4, 'four');
UPDATE emp SET pay = pay + 15 WHERE id % 2 = 0;
UPDATE emp SET dept = 3 WHERE id = 9;
DELETE FROM emp WHERE id = 4;
DELETE FROM dept WHERE id = 1;
SELECT * FROM pay_by_name ORDER BY name;
SELECT ivm_check('pay_by_name'), ivm_check('same_names'), ivm_check('mixed');
-- a plain view they read cannot be dropped; a new definition is followed
DROP VIEW paid;
CREATE OR REPLACE VIEW paid AS SELECT e.id, e.dept, e.pay * 3 AS double_pay FROM emp e WHERE e.pay > 50;
SELECT * FROM pay_by_name ORDER BY name;
INSERT INTO emp VALUES (20, 0, 500);
SELECT ivm_check('pay_by_name'), ivm_check('same_names'), ivm_check('mixed');
-- a redefinition to one that cannot be expanded is refused
CREATE OR REPLACE VIEW paid AS SELECT DISTINCT e.id, e.dept, e.pay AS double_pay FROM emp e;
SELECT pg_get_viewdef('paid');
-- subqueries in FROM and WITH queries that are select-project-join are
-- expanded the same way
SELECT ivm.create_view('sub', 'SELECT s.id, s.name FROM (SELECT e.id, d.name FROM emp e JOIN dept d ON e.dept = d.id WHERE e.pay > 100) s WHERE s.id < 15');
SELECT ivm.create_view('cte', 'WITH rich AS (SELECT id, dept FROM emp WHERE pay > 200), named AS (SELECT r.id, d.name FROM rich r, dept d WHERE r.dept = d.id) SELECT name, count(*) AS n FROM named GROUP BY name');
UPDATE emp SET pay = pay * 2 WHERE id % 3 = 0;
INSERT INTO emp VALUES (13, 2, 900), (14, 0, 150);
DELETE FROM dept WHERE id = 2;
SELECT * FROM cte ORDER BY name;
SELECT ivm_check('sub'), ivm_check('cte');
-- so are LATERAL subqueries, their references to the items before them
-- becoming join conditions (comma, CROSS JOIN and JOIN ... ON)
SELECT ivm.create_view('lat', 'SELECT e.id, s.name, s.paid FROM emp e, LATERAL (SELECT d.name, e.pay * 2 AS paid FROM dept d WHERE d.id = e.dept) s');
SELECT ivm.create_view('lat_peers', 'SELECT e.id, p.id AS peer FROM emp e CROSS JOIN LATERAL (SELECT f.id FROM emp f WHERE f.dept = e.dept AND f.pay > e.pay) p');
SELECT ivm.create_view('lat_on', 'SELECT d.name, x.id FROM dept d JOIN LATERAL (SELECT e.id, e.pay FROM emp e WHERE e.dept = d.id) x ON x.pay > 100');
SELECT count(*) AS lat_rows FROM lat;
UPDATE emp SET pay = pay + 50 WHERE id % 2 = 0;
INSERT INTO dept VALUES (2, 'two again');
INSERT INTO emp VALUES (15, 2, 120), (16, 1, 80);
DELETE FROM emp WHERE id = 13;
SELECT ivm_check('lat'), ivm_check('lat_peers'), ivm_check('lat_on');
SELECT * FROM lat_peers ORDER BY 1, 2;
-- One that aggregates without GROUP BY has one row for each row before
-- it, as a scalar subquery (scalar_subqueries.sql) with several values:
-- joined the same way, one part grouped by its correlations, LEFT JOINed,
-- the values over no rows (count's 0) standing in where none match.
SELECT ivm.create_view('lat_agg', 'SELECT e.id, s.n, s.top FROM emp e, LATERAL (SELECT count(*) AS n, max(f.pay) AS top FROM emp f WHERE f.dept = e.dept) s WHERE s.n < 5');
SELECT ivm.create_view('lat_agg_on', 'SELECT d.name, s.total FROM dept d JOIN LATERAL (SELECT sum(e.pay) AS total FROM emp e WHERE e.dept = d.id) s ON s.total IS NOT NULL');
SELECT ivm.create_view('lat_agg_none', 'SELECT d.name, s.n, s.total, a.staff FROM dept d, LATERAL (SELECT count(*) AS n, sum(e.pay) AS total FROM emp e WHERE e.dept = d.id) s, LATERAL (SELECT count(*) AS staff FROM emp) a');
SELECT name, part_of FROM ivm.views WHERE name::text LIKE 'lat\_agg%' ORDER BY name::text;
SELECT * FROM lat_agg_none ORDER BY 1, 2;
INSERT INTO emp VALUES (17, 5, 10), (18, 1, 999), (19, 4, 40);
UPDATE emp SET dept = 5 WHERE id = 16;
DELETE FROM dept WHERE id = 1;
DELETE FROM emp WHERE dept = 3;
SELECT ivm_check('lat_agg'), ivm_check('lat_agg_on'), ivm_check('lat_agg_none');
SELECT * FROM lat_agg_on ORDER BY 1, 2;
SELECT * FROM lat_agg_none ORDER BY 1, 2;
-- One with GROUP BY has a row for each group of the rows it reads for a
-- row before it, none where none match: grouped by the inner sides of its
-- correlations too and joined on them, it is an aggregating subquery in
-- FROM (a part).
SELECT ivm.create_view('lat_group', 'SELECT e.id, s.pay, s.n FROM emp e, LATERAL (SELECT f.pay, count(*) AS n FROM emp f WHERE f.dept = e.dept AND f.pay > 15 GROUP BY f.pay) s');
SELECT ivm.create_view('lat_group_having', 'SELECT d.name, s.total FROM dept d JOIN LATERAL (SELECT sum(e.pay) AS total FROM emp e WHERE d.id = e.dept GROUP BY e.pay > 50 HAVING count(*) > 1) s ON true');
SELECT name, part_of FROM ivm.views WHERE name::text LIKE 'lat\_group%' ORDER BY name::text;
SELECT * FROM lat_group_having ORDER BY 1, 2;
INSERT INTO emp VALUES (20, 2, 50), (21, 2, 50), (22, 0, 70);
UPDATE emp SET pay = 50 WHERE id = 8;
DELETE FROM emp WHERE id = 9;
INSERT INTO dept VALUES (5, 'five');
SELECT ivm_check('lat_group'), ivm_check('lat_group_having');
SELECT * FROM lat_group_having ORDER BY 1, 2;
-- One that keeps its first rows by ORDER BY and LIMIT (and OFFSET),
-- correlated by equalities of its WHERE: its rows numbered in each
-- correlation's partition by row_number() (a window part, kept by the
-- partitions a change touches), the rows in range joined on the
-- correlations ("the latest order of each customer"). Also on the right of
-- a LEFT JOIN, where a select-project-join one is joined the same way; an
-- aggregate without GROUP BY there yields a row for every row, so ON true
-- it is an inner join.
CREATE TABLE shop (id int, region text);
CREATE TABLE sale (id int, shop int, amount int);
INSERT INTO shop VALUES (1, 'north'), (2, 'north'), (3, 'south'), (4, NULL);
INSERT INTO sale SELECT g, g % 4, g * 7 % 50 FROM generate_series(1, 30) g;
SELECT ivm.create_view('lat_top', 'SELECT h.id, s.id AS sale, s.amount FROM shop h, LATERAL (SELECT x.id, x.amount FROM sale x WHERE x.shop = h.id ORDER BY x.amount DESC, x.id LIMIT 2) s');
SELECT ivm.create_view('lat_top_left', 'SELECT h.id, s.id AS sale FROM shop h LEFT JOIN LATERAL (SELECT x.id FROM sale x WHERE h.id = x.shop AND x.amount > 10 ORDER BY x.amount, x.id LIMIT 1 OFFSET 1) s ON true');
SELECT ivm.create_view('lat_left', 'SELECT x.id, s.region FROM sale x LEFT JOIN LATERAL (SELECT h.region FROM shop h WHERE h.id = x.shop) s ON true');
SELECT ivm.create_view('lat_left_on', 'SELECT h.id, s.amount FROM shop h LEFT JOIN LATERAL (SELECT x.amount FROM sale x WHERE x.shop = h.id) s ON s.amount > 40');
SELECT ivm.create_view('lat_agg_left', 'SELECT h.id, s.n, s.top FROM shop h LEFT JOIN LATERAL (SELECT count(*) AS n, max(x.amount) AS top FROM sale x WHERE x.shop = h.id) s ON true');
-- (and beside an outer join: one of these, one that aggregates, one that
-- groups, each joined as it is under inner joins alone)
SELECT ivm.create_view('lat_beside', 'SELECT h.id, s.amount FROM shop h FULL JOIN sale y ON y.id = h.id, LATERAL (SELECT x.amount FROM sale x WHERE x.shop = h.id AND x.amount > 40) s');
SELECT ivm.create_view('lat_agg_beside', 'SELECT h.id, y.amount, s.n FROM shop h LEFT JOIN sale y ON y.id = h.id, LATERAL (SELECT count(*) AS n FROM sale x WHERE x.shop = y.shop) s');
SELECT ivm.create_view('lat_group_beside', 'SELECT h.id, y.id AS sale, s.big, s.n FROM shop h LEFT JOIN sale y ON y.id = h.id JOIN LATERAL (SELECT x.amount > 20 AS big, count(*) AS n FROM sale x WHERE x.shop = h.id GROUP BY 1) s ON true');
-- (a LEFT JOIN LATERAL reading an item before its join: the items before
-- it join its left side first)
SELECT ivm.create_view('lat_left_earlier', 'SELECT h.id, y.id AS sale, s.amount FROM shop h, sale y LEFT JOIN LATERAL (SELECT x.amount FROM sale x WHERE x.shop = h.id AND x.id = y.id + 4 ORDER BY 1 LIMIT 1) s ON true WHERE y.id < 12');
-- (correlated otherwise than by equality, over the domain of the outer
-- columns as a scalar subquery is)
SELECT ivm.create_view('lat_theta_top', 'SELECT h.id, s.amount FROM shop h, LATERAL (SELECT x.amount FROM sale x WHERE x.shop >= h.id ORDER BY x.amount DESC LIMIT 1) s');
SELECT ivm.create_view('lat_theta_agg', 'SELECT h.id, s.n FROM shop h LEFT JOIN LATERAL (SELECT count(*) AS n FROM sale x WHERE x.amount < h.id * 10) s ON true');
-- (over a WITH query that becomes a part, read by the numbered rows one
-- level further down: was 42P01, random views, seed 1518838005)
SELECT ivm.create_view('lat_top_with', 'WITH totals AS (SELECT shop, sum(amount) AS total FROM sale GROUP BY shop) SELECT h.id, t.total, l.total AS best FROM shop h JOIN totals t ON t.shop = h.id, LATERAL (SELECT b.total FROM totals b ORDER BY 1 DESC LIMIT 1) l');
-- (reading nothing of the items before it, LATERAL is not needed: read as
-- any subquery in FROM, in a UNION's arm too, where LATERAL was refused)
SELECT ivm.create_view('lat_plain', 'SELECT h.id FROM shop h UNION ALL SELECT y.id FROM sale y LEFT JOIN LATERAL (SELECT f.v FROM shop x, generate_series(0, least(x.id, 2)) f(v)) s ON true WHERE s.v > 1');
SELECT definition FROM ivm.views WHERE name = 'lat_top'::regclass;
SELECT definition FROM ivm.views WHERE part_of = 'lat_top'::regclass;
SELECT * FROM lat_top ORDER BY 1, 3 DESC;
INSERT INTO sale VALUES (31, 1, 99), (32, 1, 99), (33, 3, 5);
UPDATE sale SET amount = 0 WHERE id = 31;
DELETE FROM sale WHERE id IN (2, 6);
UPDATE sale SET shop = 4 WHERE id = 3;
INSERT INTO shop VALUES (5, 'east');
INSERT INTO sale VALUES (34, 5, 12), (35, 5, 13), (36, NULL, 80);
DELETE FROM shop WHERE id = 2;
SELECT ivm_check('lat_top'), ivm_check('lat_top_left'), ivm_check('lat_left'), ivm_check('lat_left_on'), ivm_check('lat_agg_left'),
       ivm_check('lat_beside'), ivm_check('lat_agg_beside'), ivm_check('lat_group_beside'), ivm_check('lat_top_with'),
       ivm_check('lat_theta_top'), ivm_check('lat_theta_agg'), ivm_check('lat_left_earlier'),
       ivm_check('lat_plain');
SELECT id, count(*) FROM lat_plain GROUP BY id ORDER BY 1 LIMIT 4;
SELECT * FROM lat_agg_beside ORDER BY 1;
SELECT * FROM lat_top ORDER BY 1, 3 DESC;
SELECT * FROM lat_top_left ORDER BY 1;
SELECT * FROM lat_agg_left ORDER BY 1;
SELECT ivm.drop_view(v) FROM unnest(ARRAY['lat_top', 'lat_top_left', 'lat_left', 'lat_left_on', 'lat_agg_left', 'lat_beside',
                                          'lat_agg_beside', 'lat_group_beside', 'lat_top_with',
                                          'lat_theta_top', 'lat_theta_agg', 'lat_left_earlier', 'lat_plain']) v;
-- refused: FETCH FIRST WITH TIES, LIMIT without ORDER BY, a correlation
-- that is not NULL with the outer column
SELECT refused($$SELECT h.id, s.id AS sale FROM shop h, LATERAL (SELECT x.id FROM sale x WHERE x.shop = h.id ORDER BY x.amount FETCH FIRST 1 ROWS WITH TIES) s$$);
SELECT refused($$SELECT h.id, s.id AS sale FROM shop h, LATERAL (SELECT x.id FROM sale x WHERE x.shop = h.id LIMIT 1) s$$);
SELECT refused($$SELECT h.id, s.id AS sale FROM shop h, LATERAL (SELECT x.id FROM sale x WHERE x.amount > h.id OR x.id = 1 ORDER BY x.amount LIMIT 1) s$$);
DROP TABLE shop, sale;
-- refused: one reading the items before it outside its WHERE's
-- equalities, or under an outer join
SELECT refused($$SELECT e.dept, s.n FROM emp e, LATERAL (SELECT count(*) AS n, e.pay AS p FROM emp f WHERE f.dept = e.dept GROUP BY f.pay) s$$);
SELECT refused($$SELECT e.dept, s.n FROM emp e, LATERAL (SELECT count(*) AS n FROM emp f WHERE f.pay > e.pay OR f.id = 1 GROUP BY f.dept) s$$);
-- (one correlated otherwise than by equality with the outer column alone
-- is correlated over its domain)
SELECT ivm.create_view('lat_group_theta', 'SELECT e.dept, s.n FROM emp e, LATERAL (SELECT count(*) AS n FROM emp f WHERE f.pay > e.pay GROUP BY f.dept) s');
BEGIN;
UPDATE emp SET pay = pay + 45 WHERE id % 4 = 1;
DELETE FROM emp WHERE id % 5 = 2;
SELECT ivm_check('lat_group_theta');
ROLLBACK;
SELECT ivm.drop_view('lat_group_theta');
-- (and a function or LATERAL subquery over one's columns: found by the
-- random generator, XX000 invalid attnum, once functions over subqueries'
-- columns were let through)
SELECT refused($$SELECT l.n, g FROM dept d, LATERAL (SELECT count(*)::int AS n FROM emp e WHERE e.dept = d.id) l, generate_series(0, l.n) g$$);
-- one over the columns of a subquery, a view or a WITH query reads what
-- the item computes, once it is expanded (its references expanded with it)
-- or a part (whose columns keep their numbers)
SELECT ivm.create_view('lat_sub', 'SELECT x.id, s.name FROM (SELECT id, dept FROM emp WHERE pay > 10) x, LATERAL (SELECT d.name FROM dept d WHERE d.id = x.dept) s');
SELECT ivm.create_view('lat_view', 'SELECT x.id, s.n FROM staff x, LATERAL (SELECT count(*) AS n FROM dept d WHERE d.name = x.name) s');
SELECT ivm.create_view('lat_grouped', 'SELECT x.dept, s.name FROM (SELECT dept, count(*) AS n FROM emp GROUP BY dept) x, LATERAL (SELECT d.name FROM dept d WHERE d.id = x.dept) s');
INSERT INTO emp VALUES (23, 5, 400), (24, 0, 8);
UPDATE dept SET name = 'five again' WHERE id = 5;
DELETE FROM emp WHERE id = 22;
SELECT differs('lat_sub', 'SELECT x.id, s.name FROM (SELECT id, dept FROM emp WHERE pay > 10) x, LATERAL (SELECT d.name FROM dept d WHERE d.id = x.dept) s'),
       differs('lat_view', 'SELECT x.id, s.n FROM staff x, LATERAL (SELECT count(*) AS n FROM dept d WHERE d.name = x.name) s'),
       differs('lat_grouped', 'SELECT x.dept, s.name FROM (SELECT dept, count(*) AS n FROM emp GROUP BY dept) x, LATERAL (SELECT d.name FROM dept d WHERE d.id = x.dept) s');
SELECT refused($$WITH d AS (SELECT dept FROM emp ORDER BY pay LIMIT 3) SELECT * FROM d$$);
-- One that cannot be expanded (it aggregates, is DISTINCT or a set
-- operation, has an outer join) is read through a part of its own, whose
-- definition shows it (SELECT * FROM it) and is analyzed as its query; a
-- view that only shows it is that part itself.
CREATE VIEW per_dept AS SELECT dept, count(*) AS n, sum(pay) AS total FROM emp GROUP BY dept;
CREATE VIEW depts AS SELECT dept AS id FROM emp UNION SELECT id FROM dept;
CREATE VIEW with_boss AS SELECT e.id, b.id AS boss FROM emp e LEFT JOIN emp b ON b.id = e.dept + 10;
SELECT ivm.create_view('dept_pay', 'SELECT * FROM per_dept');
SELECT ivm.create_view('named_pay', 'SELECT d.name, p.total FROM dept d JOIN per_dept p ON p.dept = d.id WHERE p.n > 1');
SELECT ivm.create_view('bossed', 'SELECT x.id, count(w.boss) AS n FROM depts x LEFT JOIN with_boss w ON w.id % 4 = x.id GROUP BY x.id');
-- (and so is one among outer joins: a select-project-join one is expanded
-- only among inner joins)
SELECT ivm.create_view('all_paid', 'SELECT d.name, p.id FROM dept d LEFT JOIN paid p ON p.dept = d.id');
SELECT name, definition, part_of FROM ivm.views WHERE name::text ~ '^(dept_pay|named_pay|bossed|all_paid)' ORDER BY name::text;
INSERT INTO emp VALUES (30, 1, 70), (31, 6, 20), (32, 11, 5);
UPDATE emp SET pay = pay + 1 WHERE id % 3 = 1;
DELETE FROM emp WHERE id IN (2, 5);
INSERT INTO dept VALUES (6, 'six');
-- compared with their definitions as written
SELECT differs('dept_pay', 'SELECT * FROM per_dept'),
       differs('named_pay', 'SELECT d.name, p.total FROM dept d JOIN per_dept p ON p.dept = d.id WHERE p.n > 1'),
       differs('bossed', 'SELECT x.id, count(w.boss) AS n FROM depts x LEFT JOIN with_boss w ON w.id % 4 = x.id GROUP BY x.id'),
       differs('all_paid', 'SELECT d.name, p.id FROM dept d LEFT JOIN paid p ON p.dept = d.id');
SELECT * FROM named_pay ORDER BY name;
-- it cannot be dropped from under them; a redefinition is followed where
-- the parts keep their storage's shape (a condition, a column added), and
-- refused where not (other aggregates)
DROP VIEW per_dept;
CREATE OR REPLACE VIEW per_dept AS SELECT dept, count(*) AS n, sum(pay) AS total FROM emp WHERE pay > 40 GROUP BY dept;
SELECT * FROM named_pay ORDER BY name;
CREATE OR REPLACE VIEW per_dept AS SELECT dept, count(*) AS n, sum(pay) AS total, max(pay) AS top FROM emp WHERE pay > 40 GROUP BY dept;
UPDATE emp SET pay = pay + 100 WHERE id % 2 = 0;
SELECT differs('dept_pay', 'SELECT dept, n, total FROM per_dept'),
       differs('named_pay', 'SELECT d.name, p.total FROM dept d JOIN per_dept p ON p.dept = d.id WHERE p.n > 1');
CREATE OR REPLACE VIEW per_dept AS SELECT dept, count(*) AS n, max(pay)::bigint AS total, max(pay) AS top FROM emp GROUP BY dept;
SELECT pg_get_viewdef('per_dept');
CREATE OR REPLACE VIEW depts AS SELECT dept AS id FROM emp WHERE pay > 100 UNION SELECT id FROM dept;
DELETE FROM dept WHERE id = 6;
SELECT differs('bossed', 'SELECT x.id, count(w.boss) AS n FROM depts x LEFT JOIN with_boss w ON w.id % 4 = x.id GROUP BY x.id');
-- A view whose query reads such views (at any depth) gets a part for each
-- (the view's query reads its parts in their place); HAVING stays in them.
CREATE VIEW busy AS SELECT dept, count(*) AS staff FROM emp GROUP BY dept HAVING count(*) > 1;
CREATE VIEW busy_sizes AS SELECT b.staff, count(*) AS depts, sum(p.total) AS total FROM busy b JOIN per_dept p ON p.dept = b.dept GROUP BY b.staff;
SELECT ivm.create_view('sized', 'SELECT staff, total FROM busy_sizes WHERE depts > 0');
SELECT ivm.create_view('busy_sizes_too', 'SELECT * FROM busy_sizes');
SELECT name, definition, part_of FROM ivm.views WHERE name::text ~ '^(sized|busy_sizes_too)' ORDER BY name::text;
INSERT INTO emp VALUES (40, 7, 10), (41, 7, 20), (42, 8, 5);
UPDATE emp SET dept = 7 WHERE id = 30;
DELETE FROM emp WHERE id = 41;
SELECT differs('sized', 'SELECT staff, total FROM busy_sizes WHERE depts > 0'),
       differs('busy_sizes_too', 'SELECT * FROM busy_sizes');
-- the inner view redefined: its parts follow, and the views over them
CREATE OR REPLACE VIEW busy AS SELECT dept, count(*) AS staff FROM emp WHERE pay > 10 GROUP BY dept HAVING count(*) > 1;
UPDATE emp SET pay = pay - 100 WHERE id % 3 = 0;
SELECT differs('sized', 'SELECT staff, total FROM busy_sizes WHERE depts > 0'),
       differs('busy_sizes_too', 'SELECT * FROM busy_sizes');
SELECT * FROM busy_sizes_too ORDER BY staff;
-- so does a select-project-join view over one (it is read through a part
-- too, the view under it through that part's part)
CREATE VIEW very_busy AS SELECT dept, staff FROM busy WHERE staff > 2;
SELECT ivm.create_view('very_busy_names', 'SELECT d.name, v.staff FROM very_busy v JOIN dept d ON d.id = v.dept');
-- (and one that only shows it)
CREATE VIEW busy_again AS SELECT * FROM busy;
SELECT ivm.create_view('busy_again_names', 'SELECT d.name, b.staff FROM busy_again b JOIN dept d ON d.id = b.dept');
INSERT INTO emp VALUES (50, 7, 70), (51, 7, 80), (52, 3, 90);
DELETE FROM emp WHERE id = 40;
SELECT differs('very_busy_names', 'SELECT d.name, v.staff FROM very_busy v JOIN dept d ON d.id = v.dept'),
       differs('busy_again_names', 'SELECT d.name, b.staff FROM busy_again b JOIN dept d ON d.id = b.dept');
SELECT ivm.drop_view('sized'), ivm.drop_view('busy_sizes_too'), ivm.drop_view('very_busy_names'), ivm.drop_view('busy_again_names');
DROP VIEW very_busy, busy_again, busy_sizes, busy;
SELECT ivm.drop_view(name::text) FROM ivm.views WHERE part_of IS NULL ORDER BY name::text;
DROP VIEW per_dept, depts, with_boss, same_id, staff, paid;
DROP TABLE emp, dept;
