-- DDL on base tables and on a view's own objects.
CREATE TABLE emp (id int PRIMARY KEY, dept int, salary int, note text);
CREATE TABLE dept (id int PRIMARY KEY, name text);
INSERT INTO emp SELECT g, g % 3, 100 * g, 'n' || g FROM generate_series(1, 9) g;
INSERT INTO dept VALUES (0, 'zero'), (1, 'one'), (2, 'two');
SELECT ivm.create_view('staff', 'SELECT e.id, d.name, e.salary FROM emp e JOIN dept d ON e.dept = d.id');
SELECT ivm.create_view('payroll', 'SELECT name, sum(salary) AS total FROM staff GROUP BY name');

-- renaming tables and columns keeps the views working
ALTER TABLE emp RENAME COLUMN salary TO pay;
ALTER TABLE dept RENAME TO department;
ALTER TABLE department RENAME COLUMN name TO title;
INSERT INTO emp VALUES (10, 1, 1000, 'n10');
UPDATE department SET title = 'ONE' WHERE id = 1;
SELECT * FROM payroll ORDER BY name;
SELECT ivm_check('staff'), ivm_check('payroll');
SELECT base_relations FROM ivm.views WHERE name = 'staff'::regclass;

-- columns the view does not use may come and go; used ones may not
ALTER TABLE emp ADD COLUMN extra int DEFAULT 7;
ALTER TABLE emp DROP COLUMN note;
INSERT INTO emp VALUES (11, 2, 1100, 1);
DELETE FROM emp WHERE id = 3;
SELECT ivm_check('staff'), ivm_check('payroll');
ALTER TABLE emp DROP COLUMN pay;
ALTER TABLE emp ALTER COLUMN pay TYPE bigint;
SELECT ivm_check('staff');

-- DROP TABLE is refused while a view reads the table, as for any view
DROP TABLE department;
-- a maintenance trigger is not the user's to drop
SELECT tgname AS insert_trigger FROM pg_trigger WHERE tgrelid = 'emp'::regclass AND tgname LIKE 'ivm\_%\_insert' \gset
\set VERBOSITY terse
DROP TRIGGER :"insert_trigger" ON emp;
\set VERBOSITY default
SELECT regexp_replace(tgname, '[0-9]+', 'N') AS trigger FROM pg_trigger
 WHERE tgrelid = 'emp'::regclass AND NOT tgisinternal ORDER BY 1;

-- DROP TABLE ... CASCADE drops the views, their catalog entries and their
-- triggers on the other base tables
DROP TABLE department CASCADE;
SELECT count(*) AS views_left FROM ivm.views;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'emp'::regclass AND NOT tgisinternal;
SELECT relname FROM pg_class WHERE relname LIKE 'staff%' OR relname LIKE 'payroll%';
INSERT INTO emp VALUES (12, 0, 1200, 1);  -- no trigger of a dropped view fires

-- DROP VIEW of the view itself drops it whole, like ivm.drop_view
CREATE TABLE dept (id int PRIMARY KEY, name text);
INSERT INTO dept VALUES (0, 'zero'), (1, 'one');
SELECT ivm.create_view('staff', 'SELECT e.id, d.name FROM emp e JOIN dept d ON e.dept = d.id');
DROP VIEW staff;
SELECT count(*) AS views_left FROM ivm.views;
SELECT relname FROM pg_class WHERE relname LIKE 'staff%';
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgname LIKE 'ivm\_%' AND tgrelid IN ('emp'::regclass, 'dept'::regclass);

-- the storage goes only with the view
SELECT ivm.create_view('staff', 'SELECT e.id, d.name FROM emp e JOIN dept d ON e.dept = d.id');
DROP TABLE staff__ivm_data;
DROP TABLE staff__ivm_data CASCADE;
SELECT count(*) AS views_left FROM ivm.views;

-- DROP EXTENSION: refused while views exist; with CASCADE every view's
-- objects and triggers go
SELECT ivm.create_view('staff', 'SELECT e.id, d.name FROM emp e JOIN dept d ON e.dept = d.id');
SELECT ivm.create_view('reach', 'WITH RECURSIVE r(a, b) AS (SELECT id, dept FROM emp UNION SELECT r.a, e.dept FROM r JOIN emp e ON r.b = e.id) SELECT a, b FROM r');
SELECT ivm.create_view('reach_nl', 'WITH RECURSIVE r(a, b) AS (SELECT id, dept FROM emp UNION SELECT x.a, y.b FROM r x JOIN r y ON x.b = y.a) SELECT a, b FROM r');
\set VERBOSITY terse
DROP EXTENSION ivm;
\set VERBOSITY default
SET client_min_messages = warning;
DROP EXTENSION ivm CASCADE;
RESET client_min_messages;
SELECT relname FROM pg_class WHERE relname LIKE 'staff%' OR relname LIKE 'reach%';
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgname LIKE 'ivm\_%';
INSERT INTO emp VALUES (13, 1, 1300, 1);
CREATE EXTENSION ivm;
DROP TABLE emp, dept;
