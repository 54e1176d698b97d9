-- A view and its storage are written by maintenance only.
CREATE TABLE src (a int, b int);
INSERT INTO src VALUES (1, 1), (2, 2);
SELECT ivm.create_view('bag', 'SELECT a FROM src');
SELECT ivm.create_view('set', 'SELECT DISTINCT b FROM src');
\set VERBOSITY default
INSERT INTO bag VALUES (3);
UPDATE bag SET a = 0;
DELETE FROM bag;
DELETE FROM bag WHERE false;   -- even a statement that matches nothing
INSERT INTO set VALUES (3);
TRUNCATE bag;
INSERT INTO bag__ivm_data (a, __ivm_count) VALUES (9, 1);
UPDATE bag__ivm_data SET __ivm_count = 5;
DELETE FROM set__ivm_data;
TRUNCATE set__ivm_data;
-- nothing changed
SELECT * FROM bag ORDER BY a;
SELECT * FROM set ORDER BY b;
SELECT ivm_check('bag'), ivm_check('set');
SELECT ivm.drop_view('bag');
SELECT ivm.drop_view('set');
DROP TABLE src;
