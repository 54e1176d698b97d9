-- The view follows inside the transaction that changes its tables, and
-- rollbacks of transactions and subtransactions undo the view with them.
CREATE TABLE acct (id int, owner text, balance int);
CREATE TABLE person (name text, city text);
INSERT INTO acct VALUES (1, 'ann', 100), (2, 'bob', 50), (3, 'ann', 10);
INSERT INTO person VALUES ('ann', 'oslo'), ('bob', 'rome');
SELECT ivm.create_view('rich', 'SELECT a.id, p.city FROM acct a JOIN person p ON a.owner = p.name WHERE a.balance >= 50');

BEGIN;
INSERT INTO acct VALUES (4, 'bob', 500);
SELECT * FROM rich ORDER BY id;          -- seen inside the transaction
UPDATE person SET city = 'bern' WHERE name = 'bob';
SELECT * FROM rich ORDER BY id;
ROLLBACK;
SELECT * FROM rich ORDER BY id;          -- back as it was
SELECT ivm_check('rich');

BEGIN;
UPDATE acct SET balance = 60 WHERE id = 3;
SAVEPOINT s1;
DELETE FROM person WHERE name = 'ann';
SELECT * FROM rich ORDER BY id;
ROLLBACK TO SAVEPOINT s1;
SELECT * FROM rich ORDER BY id;
SAVEPOINT s2;
INSERT INTO person VALUES ('ann', 'lima');
RELEASE SAVEPOINT s2;
COMMIT;
SELECT * FROM rich ORDER BY id, city;
SELECT ivm_check('rich');

-- a change rolled back by a PL/pgSQL EXCEPTION block
DO $$
BEGIN
    INSERT INTO acct VALUES (5, 'bob', 70);
    BEGIN
        INSERT INTO acct VALUES (6, 'ann', 80);
        UPDATE person SET city = 'nice';
        RAISE EXCEPTION 'undo the inner block';
    EXCEPTION WHEN raise_exception THEN
        NULL;
    END;
    INSERT INTO person VALUES ('bob', 'pisa');
END $$;
SELECT * FROM rich ORDER BY id, city;
SELECT ivm_check('rich');

-- an error inside a statement that changes two tables leaves no trace
CREATE FUNCTION fail_on_big() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.balance > 1000 THEN RAISE EXCEPTION 'too big'; END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER fail_on_big AFTER INSERT ON acct FOR EACH ROW EXECUTE FUNCTION fail_on_big();
WITH p AS (DELETE FROM person WHERE name = 'bob' RETURNING *)
INSERT INTO acct SELECT 7, name, 5000 FROM p;
SELECT * FROM rich ORDER BY id, city;
SELECT ivm_check('rich');
-- ... also when caught in a subtransaction, and later statements still work
DO $$
BEGIN
    BEGIN
        WITH p AS (DELETE FROM person WHERE name = 'bob' RETURNING *)
        INSERT INTO acct SELECT 7, name, 5000 FROM p;
    EXCEPTION WHEN raise_exception THEN
        NULL;
    END;
    INSERT INTO acct VALUES (8, 'ann', 90);
END $$;
SELECT ivm_check('rich');

-- several views on the same base table, in one transaction
SELECT ivm.create_view('by_owner', 'SELECT owner FROM acct');
SELECT ivm.create_view('poor', 'SELECT id FROM acct WHERE balance < 50');
BEGIN;
UPDATE acct SET balance = balance - 45;
SELECT ivm_check('rich'), ivm_check('by_owner'), ivm_check('poor');
DELETE FROM acct WHERE id = 1;
SELECT ivm_check('rich'), ivm_check('by_owner'), ivm_check('poor');
COMMIT;
SELECT ivm_check('rich'), ivm_check('by_owner'), ivm_check('poor');

-- A statement that fires several triggers of one view (a CTE that deletes
-- and inserts) has the rows of all but the last copied; a copy larger than
-- work_mem spills to a temporary file, which maintenance closes when it is
-- done (left to the commit, PostgreSQL warns of a leaked temporary file).
-- DRed's recomputing of R writes R so, too.
CREATE TABLE spill (id int PRIMARY KEY, grp int);
INSERT INTO spill SELECT g, g % 7 FROM generate_series(1, 5000) g;
SELECT ivm.create_view('spill_grp', 'SELECT grp, id FROM spill');
CREATE TABLE spill_edge (src int, dst int);
INSERT INTO spill_edge SELECT g, g + 1 FROM generate_series(1, 120) g;
SELECT ivm.create_view('spill_reach', 'WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM spill_edge UNION SELECT r.src, e.dst FROM r JOIN spill_edge e ON r.dst = e.src) SELECT src, dst FROM r');
SET work_mem = '64kB';
BEGIN;
WITH gone AS (DELETE FROM spill WHERE id <= 4000 RETURNING *)
INSERT INTO spill SELECT id + 10000, grp FROM gone;
DELETE FROM spill_edge WHERE src = 60;  -- over-deletes half of R: R is recomputed
COMMIT;
RESET work_mem;
SELECT ivm_check('spill_grp'), ivm_check('spill_reach');

-- In a read-only transaction (and on a standby, test/replica) what writes
-- refuses as PostgreSQL's own commands do, 25006, and leaves all as it was.
SET default_transaction_read_only = on;
SELECT ivm.create_view('ro_grp', 'SELECT grp, id FROM spill');
SELECT ivm.refresh_view('spill_grp');
SELECT ivm.alter_view('spill_grp', 'SELECT grp FROM spill');
SELECT ivm.drop_view('spill_grp');
RESET default_transaction_read_only;
SELECT count(*) FROM ivm.views WHERE name::text IN ('ro_grp', 'spill_grp');

SELECT ivm.drop_view(name::text) FROM ivm.views ORDER BY name::text;
DROP TABLE acct, person, spill, spill_edge;
DROP FUNCTION fail_on_big();
