-- Immutable functions and VALUES lists of constants in FROM: rows that no
-- change alters, kept in the view's query as they are.  They multiply a
-- base row's tuples, so such a view is neither keyed nor has lookup bases.
CREATE TABLE ct (id int PRIMARY KEY, a int, b int);
INSERT INTO ct SELECT i, i % 5, i % 3 FROM generate_series(1, 20) i;
SELECT ivm.create_view('ct_series', 'SELECT ct.id, g FROM ct, generate_series(1, 2) g');
SELECT ivm.create_view('ct_twice', 'SELECT ct.id FROM ct, generate_series(1, 2) g');
SELECT ivm.create_view('ct_values', 'SELECT ct.a, v.name FROM ct JOIN (VALUES (0, ''zero''), (1, ''one'')) v(k, name) ON ct.a = v.k');
SELECT ivm.create_view('ct_groups', 'SELECT g, count(*) AS n, sum(ct.a) AS total FROM ct, generate_series(1, 3) g WHERE ct.b < g GROUP BY g');
SELECT ivm.create_view('ct_exists', 'SELECT ct.id FROM ct WHERE EXISTS (SELECT 1 FROM generate_series(1, 2) g WHERE g = ct.b)');
SELECT name::text, bool_or(line ~ 'keyed by') AS keyed FROM ivm.views, ivm.explain_view(name::text) line
 WHERE name::text LIKE 'ct%' GROUP BY 1 ORDER BY 1;
INSERT INTO ct VALUES (100, 1, 1), (101, 0, 2);
UPDATE ct SET a = a + 1 WHERE id < 5;
DELETE FROM ct WHERE id BETWEEN 6 AND 9;
UPDATE ct SET id = id + 1000 WHERE id = 1;
SELECT name::text, ivm_check(name) FROM ivm.views WHERE name::text LIKE 'ct%' ORDER BY 1;
SELECT id, count(*) FROM ct_twice WHERE id IN (2, 100) GROUP BY id ORDER BY id;

-- A view reading no table: computed once, no triggers; constant arms of
-- set operations beside arms reading tables.
SELECT ivm.create_view('ct_none', 'SELECT 1 AS one, x FROM generate_series(1, 3) x');
SELECT ivm.create_view('ct_const_arm', 'SELECT a FROM ct UNION SELECT 3');
SELECT ivm.create_view('ct_minus_const', 'SELECT a FROM ct EXCEPT ALL SELECT 3 UNION ALL SELECT 4');
SELECT name::text, base_relations FROM ivm.views WHERE name::text LIKE 'ct\_%const%' OR name::text = 'ct_none' ORDER BY 1;
SELECT * FROM ct_none ORDER BY x;
INSERT INTO ct VALUES (501, 3, 3), (502, 3, 3), (503, 4, 4);
DELETE FROM ct WHERE id = 501;
SELECT ivm_check('ct_none'), ivm_check('ct_const_arm'), ivm_check('ct_minus_const');
SELECT ivm.refresh_view('ct_none');
SELECT ivm.alter_view('ct_none', 'SELECT 2 AS one, x FROM generate_series(1, 2) x');
SELECT * FROM ct_none ORDER BY x;

-- Still refused: a function that may return other rows another time, one
-- reading the row beside it.
CREATE FUNCTION ct_stable() RETURNS SETOF int LANGUAGE sql STABLE AS 'SELECT generate_series(1, 3)';
SELECT refused('SELECT ct.a, g FROM ct, ct_stable() g');
SELECT refused('SELECT ct.a, g FROM ct, generate_series(1, ct.a) g');
SELECT refused('SELECT ct.a, v FROM ct, (VALUES (random())) x(v)');

SELECT ivm.drop_view(name::text) FROM ivm.views WHERE name::text LIKE 'ct%';
DROP FUNCTION ct_stable();
DROP TABLE ct;
