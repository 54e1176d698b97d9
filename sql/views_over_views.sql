-- A view may read other incrementally maintained views: a change
-- propagates through the stack within the same statement.
CREATE TABLE emp (id int, dept int, salary int);
CREATE TABLE dept (id int, name text);
INSERT INTO emp VALUES (1, 10, 100), (2, 10, 200), (3, 20, 300), (4, 20, 300), (5, NULL, 50);
INSERT INTO dept VALUES (10, 'sales'), (20, 'dev');

SELECT ivm.create_view('staff', 'SELECT e.id, e.salary, d.name FROM emp e JOIN dept d ON d.id = e.dept');
SELECT ivm.create_view('payroll', 'SELECT name, sum(salary) AS total, count(*) AS n FROM staff GROUP BY name');
SELECT ivm.create_view('salaries', 'SELECT salary FROM staff');            -- duplicates kept
SELECT ivm.create_view('names', 'SELECT DISTINCT name FROM staff');
SELECT ivm.create_view('name_list', 'SELECT name FROM names UNION ALL SELECT name FROM dept');
-- over a view whose stored rows stand for several rows each (salary 300 twice)
SELECT ivm.create_view('salary_counts', 'SELECT salary, count(*) AS n FROM salaries GROUP BY salary');
SELECT ivm.create_view('salary_copies', 'SELECT salary FROM salaries UNION ALL SELECT salary FROM salaries WHERE salary > 100');
SELECT * FROM salary_counts ORDER BY salary;
SELECT * FROM payroll ORDER BY name;

UPDATE emp SET salary = salary + 1 WHERE dept = 20;
INSERT INTO dept VALUES (30, 'ops');
INSERT INTO emp VALUES (6, 30, 10);
DELETE FROM emp WHERE id = 1;
SELECT * FROM payroll ORDER BY name;
SELECT ivm_check('staff'), ivm_check('payroll'), ivm_check('salaries'), ivm_check('names'), ivm_check('name_list'), ivm_check('salary_counts'), ivm_check('salary_copies');
WITH gone AS (DELETE FROM dept WHERE id = 10 RETURNING *) INSERT INTO emp SELECT 7, 30, 5 FROM gone;
SELECT ivm_check('staff'), ivm_check('payroll'), ivm_check('salaries'), ivm_check('names'), ivm_check('name_list'), ivm_check('salary_counts'), ivm_check('salary_copies');
BEGIN;
TRUNCATE emp;
SELECT ivm_check('staff'), ivm_check('payroll'), ivm_check('salaries'), ivm_check('names'), ivm_check('name_list'), ivm_check('salary_counts'), ivm_check('salary_copies');
ROLLBACK;
SELECT ivm_check('staff'), ivm_check('payroll'), ivm_check('salaries'), ivm_check('names'), ivm_check('name_list'), ivm_check('salary_counts'), ivm_check('salary_copies');

-- a recursive view over an ivm view
CREATE TABLE link (a int, b int);
INSERT INTO link VALUES (1, 2), (2, 3), (3, 4);
SELECT ivm.create_view('hop', 'SELECT a, b FROM link WHERE a <> b');
SELECT ivm.create_view('reach', 'WITH RECURSIVE r(x, y) AS (SELECT a, b FROM hop UNION SELECT r.x, hop.b FROM r JOIN hop ON r.y = hop.a) SELECT x, y FROM r');
DELETE FROM link WHERE a = 2;
INSERT INTO link VALUES (4, 1), (2, 2);
SELECT ivm_check('hop'), ivm_check('reach');

-- a view that others read cannot be dropped alone; with cascade its readers go too
SELECT ivm.drop_view('staff');
SELECT ivm_error($$SELECT ivm.drop_view('staff')$$);
SELECT ivm.drop_view('payroll');
-- reads staff and salaries, which reads staff: dropped once
SELECT ivm.create_view('both_ways', 'SELECT s.salary FROM staff s JOIN salaries USING (salary)');
UPDATE emp SET salary = 300 WHERE id = 2;
SELECT ivm_check('both_ways'), ivm_check('salaries');
SELECT ivm.drop_view('staff', cascade => true);
SELECT name FROM ivm.views ORDER BY 1;
SELECT ivm.drop_view('reach');
SELECT ivm.drop_view('hop');
DROP TABLE emp, dept, link;
