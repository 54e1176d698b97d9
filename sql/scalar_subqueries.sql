-- Scalar subqueries, and IN/EXISTS subqueries that aggregate, become
-- subqueries in FROM and so parts of the view (from_subqueries.sql): an
-- uncorrelated aggregate is a one-row part, cross-joined; a correlated one
-- is grouped by the inner sides of its equalities and joined on them (a
-- LEFT JOIN where an outer row without inner rows must stay, its value over
-- no rows, such as count's 0, standing in).
CREATE TABLE emp (id int, dept int, pay int, boss int);
CREATE TABLE dept (id int, name text, budget bigint);
INSERT INTO emp VALUES (1, 10, 100, NULL), (2, 10, 80, 1), (3, 10, 120, 1), (4, 20, 90, NULL),
                       (5, 20, 60, 4), (6, 30, 50, NULL), (7, NULL, 70, 1), (8, 20, 90, 4);
INSERT INTO dept VALUES (10, 'core', 300), (20, 'web', 100), (30, 'ops', 40), (40, 'lab', 10);

-- uncorrelated: in WHERE, in the select list, inside an expression
SELECT ivm.create_view('above_average', 'SELECT id, pay FROM emp WHERE pay > (SELECT avg(pay) FROM emp)');
SELECT ivm.create_view('pay_share', 'SELECT id, pay, round(100.0 * pay / (SELECT sum(pay) FROM emp), 1) AS percent FROM emp');
-- in HAVING of a grouped query (TPC-H Q11's shape): the aggregation and
-- the subquery are parts of their own, and the view compares the one's
-- rows with the other's, so that a change of the subquery's value reads
-- the groups' kept sums, not their rows
SELECT ivm.create_view('big_depts', 'SELECT dept, sum(pay) AS total FROM emp GROUP BY dept HAVING sum(pay) > (SELECT sum(pay) * 0.3 FROM emp)');
SELECT definition FROM ivm.views WHERE name = 'big_depts'::regclass;
-- (not split where the query has a WITH query, which the aggregation's
-- part takes along: the subquery read it after the split, 42P01; random
-- views, seed 1812796004)
SELECT ivm.create_view('paid_over', 'WITH paid AS (SELECT dept, pay FROM emp WHERE pay > 0) SELECT dept, sum(pay) AS total FROM paid GROUP BY dept HAVING sum(pay) > (SELECT avg(pay) FROM paid)');
-- correlated by equality, compared in WHERE (TPC-H Q2, Q17)
SELECT ivm.create_view('top_paid', 'SELECT e.id, e.dept FROM emp e WHERE e.pay = (SELECT max(x.pay) FROM emp x WHERE x.dept = e.dept)');
SELECT ivm.create_view('under_half', 'SELECT e.id FROM emp e, dept d WHERE d.id = e.dept AND e.pay < (SELECT 0.5 * avg(x.pay) FROM emp x WHERE x.dept = d.id) + 30');
-- conditions of the outer WHERE on the correlated table alone restrict the
-- part to the keys of rows that meet them (an EXISTS over that table)
SELECT ivm.create_view('rich_top', 'SELECT d.name, e.id FROM dept d, emp e WHERE e.dept = d.id AND d.budget >= 100 AND e.pay = (SELECT max(x.pay) FROM emp x WHERE x.dept = d.id)');
SELECT ivm.create_view('rich_counts', 'SELECT d.id, (SELECT count(*) FROM emp x WHERE x.dept = d.id) AS n FROM dept d WHERE d.name <> ''ops'' AND d.budget > 20');
SELECT definition FROM ivm.views WHERE name = 'rich_top__ivm_part1'::regclass;
SELECT * FROM rich_top__ivm_part1 ORDER BY 1;
-- two correlations, one across types (bigint = int)
SELECT ivm.create_view('within_budget', 'SELECT d.id, d.name FROM dept d WHERE d.budget >= (SELECT sum(e.pay) FROM emp e WHERE d.id = e.dept AND e.id % 2 = d.id % 20 AND e.boss IS NOT NULL)');
SELECT ivm.create_view('budget_keys', 'SELECT d.id, d.name FROM dept d WHERE d.budget > (SELECT sum(e.pay) FROM emp e WHERE e.dept::bigint = d.budget / 10)');
-- correlated otherwise than by equalities, by conditions that are NULL when
-- the outer columns are (a rank, a running total): correlated by equality
-- over the domain of those columns, SELECT DISTINCT ... FROM the outer
-- table, a part of its own
SELECT ivm.create_view('pay_above', 'SELECT e.id, (SELECT count(*) FROM emp x WHERE x.pay > e.pay) AS above FROM emp e');
SELECT ivm.create_view('early_pay', 'SELECT d.id, (SELECT sum(x.pay) FROM emp x WHERE x.dept = d.id AND x.id * 100 <= d.budget) AS early FROM dept d');
SELECT ivm.create_view('over_budget', 'SELECT d.id FROM dept d WHERE d.budget > (SELECT max(pay) FROM emp e WHERE e.dept > d.id)');
SELECT name, definition FROM ivm.views WHERE part_of = 'pay_above'::regclass ORDER BY name::text;
SELECT * FROM pay_above ORDER BY 1;
SELECT ivm.create_view('staffed', 'SELECT id, name FROM dept WHERE id IN (SELECT e.dept FROM emp e WHERE e.pay > (SELECT min(x.pay) FROM emp x WHERE x.dept = e.dept))');
-- IN and NOT EXISTS over subqueries that aggregate or are set operations (TPC-H Q18)
SELECT ivm.create_view('crowded', 'SELECT id, name FROM dept WHERE id IN (SELECT dept FROM emp GROUP BY dept HAVING count(*) >= 3)');
SELECT ivm.create_view('not_crowded', 'SELECT id, name FROM dept WHERE id NOT IN (SELECT dept FROM emp WHERE dept IS NOT NULL GROUP BY dept HAVING count(*) >= 3)');
SELECT ivm.create_view('named', 'SELECT id FROM emp WHERE dept IN (SELECT id FROM dept WHERE budget > 50 UNION SELECT boss / 10 * 10 FROM emp)');
CREATE TABLE site (dept int, city text);
INSERT INTO site VALUES (10, 'oslo'), (20, 'rome'), (40, 'kyiv'), (50, 'lima');
-- the conditions restricting a part may be uncorrelated IN or NOT EXISTS
-- over tables (TPC-H Q20's forest parts); one that reads the outer row is
-- left out
SELECT ivm.create_view('sited_top', 'SELECT d.name, e.id FROM dept d, emp e WHERE e.dept = d.id AND d.id IN (SELECT s.dept FROM site s WHERE s.city <> ''lima'') AND NOT EXISTS (SELECT 1 FROM site s WHERE s.city = ''kyiv'' AND s.dept = 999) AND EXISTS (SELECT 1 FROM site s WHERE s.dept = d.id) AND e.pay = (SELECT max(x.pay) FROM emp x WHERE x.dept = d.id)');
SELECT definition FROM ivm.views WHERE name = 'sited_top__ivm_part1'::regclass;
SELECT * FROM sited_top__ivm_part1 ORDER BY 1;
-- LEFT JOINed: count, in the select list, under OR, in HAVING, in IS NULL
SELECT ivm.create_view('lean', 'SELECT id FROM dept d WHERE d.budget > (SELECT count(*) FROM emp e WHERE e.dept = d.id) * 20');
SELECT ivm.create_view('dept_stats', 'SELECT d.id, (SELECT max(pay) FROM emp e WHERE e.dept = d.id) AS top, (SELECT count(*) FROM emp e WHERE e.dept = d.id) AS n FROM dept d');
SELECT ivm.create_view('site_pay', 'SELECT d.id, s.city, (SELECT sum(pay) FROM emp e WHERE e.dept = s.dept) AS total FROM dept d, site s WHERE s.dept = d.id OR d.id = 40');
SELECT ivm.create_view('site_staff', 'SELECT d.name, count(*) AS sites, (SELECT count(*) FROM emp e WHERE e.dept = d.id) AS staff FROM dept d JOIN site s ON s.dept = d.id GROUP BY d.id, d.name HAVING count(*) < (SELECT count(*) + 1 FROM emp e WHERE e.dept = d.id)');
SELECT ivm.create_view('unpaid', 'SELECT d.id FROM dept d WHERE (SELECT max(pay) FROM emp e WHERE e.dept = d.id) IS NULL');
-- inside an aggregate's argument, without GROUP BY
SELECT ivm.create_view('weighted', 'SELECT sum(pay * (SELECT count(*) FROM site)) AS w FROM emp');
-- outside the aggregates of one without GROUP BY, in its select list and
-- HAVING: the aggregation (one row, over no rows too) becomes a part the
-- query reads the subqueries over
SELECT ivm.create_view('spread', 'SELECT sum(pay) - (SELECT min(pay) FROM emp) AS spread, count(*) AS n, (SELECT count(*) FROM site) AS sites FROM emp');
SELECT ivm.create_view('many_paid', 'SELECT count(*) AS n FROM emp WHERE pay > 50 HAVING count(*) > (SELECT count(*) FROM site)');
-- over a WITH query the subquery reads too (once 42P01, the aggregation's
-- references to it not raised; random views, seed 681080002)
SELECT ivm.create_view('paid_top', 'WITH paid AS (SELECT pay FROM emp WHERE pay > 0) SELECT max(p.pay) AS top, (SELECT count(*) FROM paid) AS n FROM paid p HAVING count(*) > (SELECT count(*) / 2 FROM paid)');
SELECT definition FROM ivm.views WHERE name = 'dept_stats'::regclass;
-- correlated IN/EXISTS subqueries that aggregate: grouped by their
-- correlated columns too, a part the subquery reads
SELECT ivm.create_view('two_by_boss', 'SELECT id FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.id GROUP BY e.boss HAVING count(*) >= 2)');
SELECT ivm.create_view('top_is_90', 'SELECT id FROM dept d WHERE 90 IN (SELECT max(pay) FROM emp e WHERE e.dept = d.id GROUP BY boss)');
SELECT ivm.create_view('spends', 'SELECT id FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.id HAVING sum(pay) > 150)');
SELECT ivm.create_view('not_two', 'SELECT id FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.id HAVING count(*) > 1)');
SELECT definition FROM ivm.views WHERE name = 'two_by_boss'::regclass;
-- a WITH query read in FROM and by a scalar subquery (TPC-H Q15)
SELECT ivm.create_view('richest', 'WITH totals AS (SELECT dept, sum(pay) AS total FROM emp GROUP BY dept) SELECT d.name, t.total FROM dept d, totals t WHERE t.dept = d.id AND t.total = (SELECT max(total) FROM totals)');
-- correlated, over a WITH query the outer query reads too: the WITH query
-- becomes a part, which the subquery reads (was refused: "correlated scalar
-- subqueries over WITH queries of the outer query")
SELECT ivm.create_view('top_of_dept', 'WITH pays AS (SELECT id, dept, pay FROM emp WHERE pay > 10) SELECT p.id, p.pay FROM pays p WHERE p.pay = (SELECT max(x.pay) FROM pays x WHERE x.dept = p.dept)');
-- in the ON of an inner join (moved into WHERE, where it means the same); EXISTS there too
SELECT ivm.create_view('paid_on', 'SELECT e.id, d.name FROM emp e JOIN dept d ON d.id = e.dept AND e.pay > (SELECT avg(pay) FROM emp)');
SELECT ivm.create_view('peers_on', 'SELECT e.id, d.name FROM emp e JOIN dept d ON d.id = e.dept AND EXISTS (SELECT 1 FROM emp x WHERE x.dept = d.id AND x.id <> e.id)');
-- a subquery in FROM with subqueries in its WHERE is a part (TPC-H Q22)
SELECT ivm.create_view('idle_rich', 'SELECT dept, count(*) AS n FROM (SELECT e.dept, e.pay FROM emp e WHERE e.pay > (SELECT avg(pay) FROM emp) AND NOT EXISTS (SELECT 1 FROM emp x WHERE x.boss = e.id)) rich GROUP BY dept');
SELECT name, part_of FROM ivm.views ORDER BY name::text;
SELECT definition FROM ivm.views WHERE name = 'top_paid'::regclass;
SELECT * FROM top_paid ORDER BY 1;
SELECT * FROM big_depts ORDER BY 1;
SELECT * FROM richest ORDER BY 1;

CREATE FUNCTION check_all() RETURNS SETOF text LANGUAGE sql AS $$
    SELECT name::text || ': ' || ivm_check(name) FROM ivm.views WHERE ivm_check(name) <> 'ok'
    UNION ALL SELECT 'checked ' || count(*) || ' views' FROM ivm.views
$$;
SELECT check_all();
-- a new top earner, a department's only rows go, a key turns NULL
INSERT INTO emp VALUES (9, 30, 200, 6), (10, 40, 5, NULL);
SELECT check_all();
DELETE FROM emp WHERE dept = 10 AND pay >= 100;
SELECT check_all();
UPDATE emp SET dept = NULL WHERE id = 5;
UPDATE dept SET budget = budget * 3 WHERE id IN (20, 30);
SELECT check_all();
-- a department gets a site and another loses its one: in and out of sited_top's part
INSERT INTO site VALUES (30, 'nuuk');
DELETE FROM site WHERE city = 'rome';
SELECT check_all();
SELECT * FROM sited_top__ivm_part1 ORDER BY 1;
UPDATE site SET city = 'lima' WHERE dept = 30;
SELECT check_all();
UPDATE emp SET pay = pay + 40 WHERE dept = 20;
DELETE FROM dept WHERE id = 10;
SELECT check_all();
SELECT * FROM top_paid ORDER BY 1;
SELECT * FROM big_depts ORDER BY 1;
SELECT * FROM richest ORDER BY 1;
SELECT * FROM dept_stats ORDER BY 1;
SELECT * FROM rich_top__ivm_part1 ORDER BY 1;  -- 30 came with its budget
-- every inner row gone: an uncorrelated aggregate is NULL, a correlated one finds no group
DELETE FROM emp;
SELECT check_all();
SELECT count(*) AS rows, count(pay) AS paid FROM pay_share;
SELECT * FROM spread;
SELECT count(*) AS many_paid FROM many_paid;
INSERT INTO emp VALUES (1, 10, 100, NULL), (2, 20, 80, 1);
INSERT INTO dept VALUES (10, 'core', 300);
SELECT check_all();
SELECT ivm.refresh_view('top_paid');
SELECT check_all();

-- alter_view to and from a scalar subquery: parts come and go
SELECT ivm.alter_view('above_average', 'SELECT id, pay FROM emp WHERE pay >= (SELECT max(pay) FROM emp)');
SELECT ivm_check('above_average');
SELECT ivm.alter_view('pay_share', 'SELECT id, pay FROM emp');
SELECT name FROM ivm.views WHERE name::text LIKE 'pay_share%' OR name::text LIKE 'above_average%' ORDER BY 1;
SELECT ivm.drop_view('richest');
SELECT count(*) FROM ivm.views WHERE name::text LIKE 'richest%';

-- a relation read by WHERE alone, one of its rows replaced by another (a
-- threshold moving): the rows that meet WHERE with the old row as with the
-- new derive nothing, and the change reads only those between the two;
-- a change of several rows, or of a relation the view shows, reads them all
CREATE TABLE band (lo int, hi int);
INSERT INTO band VALUES (60, 100);
INSERT INTO emp SELECT i, 10 + i % 3 * 10, 40 + i * 3, NULL FROM generate_series(3, 30) i;
SELECT ivm.create_view('in_band', 'SELECT e.id, e.pay FROM emp e, band b WHERE e.pay >= b.lo AND e.pay < b.hi');
SELECT ivm.create_view('band_shown', 'SELECT e.id, b.lo FROM emp e, band b WHERE e.pay >= b.lo');
SELECT ivm.create_view('band_count', 'SELECT count(*) AS n FROM emp e, band b WHERE e.pay < b.hi AND e.dept = 20');
SELECT ivm.create_view('band_above', 'SELECT e.id FROM emp e WHERE e.pay > (SELECT avg(pay) FROM emp) + 10');
UPDATE band SET lo = 85;
SELECT count(*) FROM in_band;
SELECT check_all();
UPDATE band SET hi = NULL;
SELECT count(*) FROM in_band;
SELECT check_all();
UPDATE band SET hi = 200, lo = 0;
INSERT INTO band VALUES (90, 95);
SELECT check_all();
UPDATE band SET lo = lo + 5;
DELETE FROM band WHERE lo = 95;
UPDATE emp SET pay = pay + 30 WHERE id = 4;
SELECT count(*) FROM in_band;
SELECT check_all();
BEGIN;
UPDATE band SET hi = 120;
SELECT check_all();
ROLLBACK;
SELECT ivm_check('in_band');

-- scalar subqueries that do not aggregate: at most one row per outer row,
-- kept as an aggregate, ivm.single_value, over the rows of each key (NULL
-- over none; a second row is an error, as the query's is)
SELECT ivm.single_value(x) AS one, (SELECT ivm.single_value(x) FROM (VALUES (1)) v(x) WHERE false) AS none
  FROM (VALUES ('a'::text)) v(x);
SELECT ivm.single_value(x) FROM (VALUES (1), (NULL)) v(x);
CREATE TABLE boss_of (dept int, boss text, since int);
INSERT INTO boss_of VALUES (10, 'ann', 2001), (20, 'bob', 2010), (30, NULL, 2020);
SELECT ivm.create_view('emp_boss', 'SELECT e.id, (SELECT b.boss FROM boss_of b WHERE b.dept = e.dept) AS boss FROM emp e');
SELECT ivm.create_view('senior_emp', 'SELECT e.id, e.pay FROM emp e WHERE e.pay - 50 > (SELECT b.since - 2000 FROM boss_of b WHERE b.dept = e.dept)');
SELECT ivm.create_view('ann_paid', 'SELECT id, pay FROM emp WHERE dept = (SELECT dept FROM boss_of WHERE boss = ''ann'')');
SELECT definition FROM ivm.views WHERE name = 'emp_boss__ivm_part1'::regclass;
-- (the part indexed on its group key, through which the view joins it)
SELECT indexdef FROM pg_indexes WHERE tablename = 'emp_boss__ivm_part1__ivm_data' ORDER BY 1;
SELECT * FROM emp_boss WHERE id <= 5 ORDER BY id;
SELECT check_all();
UPDATE boss_of SET boss = 'cy', since = 2025 WHERE dept = 20;
INSERT INTO boss_of VALUES (40, 'dan', 1990);
DELETE FROM boss_of WHERE dept = 10;
SELECT check_all();
UPDATE boss_of SET boss = 'ann' WHERE dept = 30;   -- ann_paid reads another department
UPDATE emp SET dept = 40 WHERE id % 4 = 0;
SELECT check_all();
-- a second row for a key fails the statement, as the query would, and
-- leaves every view as it was
\set VERBOSITY terse
INSERT INTO boss_of VALUES (20, 'eve', 2000);
INSERT INTO boss_of VALUES (50, 'ann', 2000);
\set VERBOSITY default
SELECT count(*) AS boss_rows FROM boss_of;
SELECT check_all();
SELECT ivm.drop_view('emp_boss'), ivm.drop_view('senior_emp'), ivm.drop_view('ann_paid');
-- so does a definition over such rows: nothing is created
INSERT INTO boss_of VALUES (60, 'fay', 2000), (60, 'gus', 2000);
\set VERBOSITY terse
SELECT ivm.create_view('emp_boss2', 'SELECT e.id, (SELECT b.boss FROM boss_of b WHERE b.dept = e.dept) AS boss FROM emp e');
\set VERBOSITY default
SELECT count(*) FROM pg_class WHERE relname LIKE 'emp_boss2%';
DROP TABLE boss_of;

-- ARRAY(subquery) whose ORDER BY ends with its value: kept as the scalar
-- subquery (SELECT COALESCE(array_agg(value ORDER BY ...), '{}') ...), the
-- same array whichever plan reads the rows, empty over none
CREATE TABLE skill (emp int, name text, years int);
INSERT INTO skill VALUES (1, 'sql', 3), (1, 'c', 9), (2, 'go', 1), (2, 'go', 2), (4, NULL, 1), (99, 'x', 1);
SELECT ivm.create_view('emp_skills', 'SELECT e.id, ARRAY(SELECT s.name FROM skill s WHERE s.emp = e.id ORDER BY s.name) AS skills FROM emp e WHERE e.id < 6');
SELECT ivm.create_view('emp_years', 'SELECT e.id, ARRAY(SELECT s.years FROM skill s WHERE s.emp = e.id ORDER BY s.name DESC NULLS LAST, s.years) AS years FROM emp e WHERE e.id < 6');
SELECT ivm.create_view('all_skills', 'SELECT ARRAY(SELECT name FROM skill WHERE years < 5 ORDER BY name) AS names');
SELECT definition FROM ivm.views WHERE name = 'emp_skills__ivm_part1'::regclass;
SELECT * FROM emp_skills ORDER BY id;
INSERT INTO skill VALUES (3, 'rust', 1), (1, 'c', 0);
DELETE FROM skill WHERE name = 'go' AND years = 2;
UPDATE skill SET name = 'ml' WHERE emp = 4;
UPDATE skill SET emp = 5 WHERE emp = 99;
SELECT * FROM emp_skills ORDER BY id;
SELECT * FROM all_skills;
SELECT check_all();
-- ORDER BY ..., x LIMIT 1 [OFFSET k] (the latest, the second): the k+1st
-- element of that ordered array, NULL past the rows
SELECT ivm.create_view('top_skill', 'SELECT e.id, (SELECT s.name FROM skill s WHERE s.emp = e.id ORDER BY s.years DESC, s.name LIMIT 1) AS top FROM emp e WHERE e.id < 6');
SELECT ivm.create_view('second_skill', 'SELECT e.id FROM emp e WHERE (SELECT s.years FROM skill s WHERE s.emp = e.id ORDER BY s.years LIMIT 1 OFFSET 1) >= 2');
SELECT definition FROM ivm.views WHERE name = 'top_skill__ivm_part1'::regclass;
SELECT * FROM top_skill ORDER BY id;
INSERT INTO skill VALUES (2, 'zig', 7), (5, 'ada', 2);
UPDATE skill SET years = 10 WHERE name = 'sql';
DELETE FROM skill WHERE emp = 3;
SELECT * FROM top_skill ORDER BY id;
SELECT * FROM second_skill ORDER BY id;
SELECT check_all();
SELECT refused($$SELECT e.id, (SELECT s.name FROM skill s WHERE s.emp = e.id ORDER BY s.years DESC LIMIT 1) AS top FROM emp e$$);
SELECT refused($$SELECT e.id, (SELECT s.name FROM skill s WHERE s.emp = e.id ORDER BY s.name LIMIT 2) AS top FROM emp e$$);
SELECT ivm.drop_view('top_skill'), ivm.drop_view('second_skill');
SELECT refused($$SELECT e.id, ARRAY(SELECT s.name FROM skill s WHERE s.emp = e.id) AS skills FROM emp e$$);
SELECT refused($$SELECT e.id, ARRAY(SELECT s.name FROM skill s WHERE s.emp = e.id ORDER BY s.years) AS skills FROM emp e$$);
SELECT ivm.drop_view('emp_skills'), ivm.drop_view('emp_years'), ivm.drop_view('all_skills');
DROP TABLE skill;

-- scalar subqueries that group, have HAVING, are DISTINCT or set
-- operations: the value of their one row (NULL without one, an error with
-- two, as the query's), ivm.single_value over them read as a subquery in
-- FROM (a part); a correlated one that groups or has HAVING grouped by its
-- correlations' inner sides too, joined on them
SELECT ivm.create_view('dept_total', 'SELECT d.id, (SELECT sum(e.pay) FROM emp e WHERE e.dept = d.id GROUP BY e.dept) AS total FROM dept d');
SELECT ivm.create_view('dept_busy', 'SELECT d.name, (SELECT count(*) FROM emp e WHERE e.dept = d.id HAVING count(*) > 2) AS n FROM dept d');
SELECT ivm.create_view('top_dept_staff', 'SELECT id FROM emp WHERE dept = (SELECT DISTINCT dept FROM emp WHERE pay >= 300)');
SELECT ivm.create_view('core_or_web', 'SELECT id, pay FROM emp WHERE pay > (SELECT budget FROM dept WHERE name = ''core'' UNION SELECT budget FROM dept WHERE name = ''nothing'') / 3');
SELECT ivm.create_view('one_group', 'SELECT e.id FROM emp e WHERE e.pay < (SELECT max(x.pay) FROM emp x WHERE x.dept = 10 GROUP BY x.dept)');
SELECT name, definition FROM ivm.views WHERE name::text LIKE 'dept\_busy%' ORDER BY name::text;
SELECT * FROM dept_busy ORDER BY 1;
CREATE FUNCTION differ_grouped() RETURNS TABLE (dept_total bigint, dept_busy bigint, top_dept_staff bigint, core_or_web bigint, one_group bigint) LANGUAGE sql AS $$
    SELECT differs('dept_total', 'SELECT d.id, (SELECT sum(e.pay) FROM emp e WHERE e.dept = d.id GROUP BY e.dept) AS total FROM dept d'),
           differs('dept_busy', 'SELECT d.name, (SELECT count(*) FROM emp e WHERE e.dept = d.id HAVING count(*) > 2) AS n FROM dept d'),
           differs('top_dept_staff', 'SELECT id FROM emp WHERE dept = (SELECT DISTINCT dept FROM emp WHERE pay >= 300)'),
           differs('core_or_web', 'SELECT id, pay FROM emp WHERE pay > (SELECT budget FROM dept WHERE name = ''core'' UNION SELECT budget FROM dept WHERE name = ''nothing'') / 3'),
           differs('one_group', 'SELECT e.id FROM emp e WHERE e.pay < (SELECT max(x.pay) FROM emp x WHERE x.dept = 10 GROUP BY x.dept)')
$$;
INSERT INTO emp VALUES (20, 30, 300, NULL), (21, 40, 10, NULL), (22, 40, 20, NULL);
UPDATE dept SET budget = 450 WHERE name = 'core';
DELETE FROM emp WHERE id = 3;
SELECT * FROM differ_grouped();
SELECT * FROM dept_busy ORDER BY 1;
-- two rows for the DISTINCT subquery: the statement fails, as the query would
\set VERBOSITY terse
INSERT INTO emp VALUES (23, 20, 300, NULL);
\set VERBOSITY default
UPDATE emp SET dept = 10 WHERE dept = 40;
DELETE FROM dept WHERE name = 'core';
SELECT * FROM differ_grouped();
SELECT ivm.drop_view('dept_total'), ivm.drop_view('dept_busy'), ivm.drop_view('top_dept_staff'),
       ivm.drop_view('core_or_web'), ivm.drop_view('one_group');
DROP FUNCTION differ_grouped();

-- what stays refused
-- (inside an IN subquery, a LEFT JOIN is not taken apart)
SELECT refused($$SELECT id FROM dept d WHERE id IN (SELECT e.dept FROM emp e WHERE e.pay > (SELECT count(*) FROM emp x WHERE x.boss = e.id))$$);
SELECT refused($$SELECT id FROM emp WHERE pay = (SELECT pay FROM emp WHERE id = 1 LIMIT 1)$$);
SELECT refused($$SELECT e.id, (SELECT rank() OVER (ORDER BY x.pay) FROM emp x WHERE x.id = e.boss) AS r FROM emp e$$);
-- (over parts that one statement changes one after the other, the one
-- over them could see two rows that its end does not have)
SELECT refused($$SELECT id FROM emp WHERE dept = (SELECT DISTINCT dept FROM emp WHERE pay = (SELECT max(pay) FROM emp))$$);
SELECT refused($$SELECT id FROM emp WHERE pay = (SELECT max(pay) FROM emp UNION SELECT max(budget) FROM dept)$$);
SELECT refused($$SELECT d.id FROM dept d WHERE d.budget > (SELECT max(pay) FROM emp e WHERE e.dept > d.id OR e.pay > 100)$$);
SELECT refused($$SELECT count(*) AS n, (SELECT count(*) FROM site s WHERE s.dept < max(e.dept)) AS c FROM emp e$$);
-- (EXISTS over no rows with a HAVING that holds there: true for an outer row with no inner rows)
SELECT refused($$SELECT id FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.id HAVING count(*) = 0)$$);
SELECT refused($$SELECT id FROM dept d WHERE id IN (SELECT dept FROM emp e WHERE e.boss > d.id GROUP BY dept)$$);
SELECT refused($$SELECT e.id, d.name FROM emp e LEFT JOIN dept d ON d.id = e.dept AND e.pay > (SELECT avg(pay) FROM emp)$$);
-- nothing of a refused definition stays
SELECT count(*) FROM pg_class WHERE relname LIKE 'x%';
DROP FUNCTION check_all();
