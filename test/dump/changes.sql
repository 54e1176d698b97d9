-- Changes after a restore: every view must follow them.
INSERT INTO emp VALUES (100, 1, 5, 'new'), (101, 3, 7, NULL);
UPDATE emp SET pay = pay + 1 WHERE id % 3 = 0;
DELETE FROM emp WHERE id BETWEEN 10 AND 14;
UPDATE dept SET name = 'ONE' WHERE id = 1;
INSERT INTO dept VALUES (9, 'nine');
DELETE FROM edges WHERE src = 5;
INSERT INTO edges VALUES (25, 2), (40, 41);
SELECT ivm.refresh_view('paused');
INSERT INTO emp VALUES (102, 2, 1, 'late');
