-- Changes after the update (the database already took test/dump/changes.sql):
-- every view must follow them.
INSERT INTO emp VALUES (200, 0, 15, 'up'), (201, 2, 25, NULL);
UPDATE emp SET pay = pay - 2 WHERE id % 4 = 1;
DELETE FROM emp WHERE id BETWEEN 20 AND 23;
UPDATE dept SET name = 'TWO' WHERE id = 2;
DELETE FROM dept WHERE id = 9;
DELETE FROM edges WHERE src = 8;
INSERT INTO edges VALUES (7, 30), (41, 1);
