-- Faults injected inside ivm's guard (ivm.test_fail_at, src/pg/faults.hpp):
-- a PostgreSQL error, a C++ exception and a failed allocation at each step
-- of create, maintenance (counting and DRed), alter and refresh.  Each
-- fails its statement with its own error, the backend lives on, nothing
-- the statement did stays, and the views still equal their queries.
CREATE TABLE fr (a int, b int);
CREATE TABLE fs (c int, d int);
CREATE TABLE fe (src int, dst int);
INSERT INTO fr SELECT i % 7, i % 5 FROM generate_series(1, 30) i;
INSERT INTO fs SELECT i % 5, i FROM generate_series(1, 10) i;
INSERT INTO fe VALUES (1, 2), (2, 3), (3, 4), (1, 3);
SELECT ivm.create_view('fj', 'SELECT fr.a, fs.d FROM fr JOIN fs ON fr.b = fs.c');
SELECT ivm.create_view('fsum', 'SELECT b, count(*) AS n, max(a) AS top FROM fr GROUP BY b');
SELECT ivm.create_view('fc', 'WITH RECURSIVE t(x, y) AS (SELECT src, dst FROM fe UNION SELECT t.x, fe.dst FROM t JOIN fe ON t.y = fe.src) SELECT x, y FROM t');
CREATE FUNCTION all_ok() RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(name::text || ' ' || ivm_check(name), ', ' ORDER BY name::text) FROM ivm.views
$$;
CREATE FUNCTION state() RETURNS text LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM fr) || ' fr, ' || (SELECT count(*) FROM fe) || ' fe, ' ||
           (SELECT count(*) FROM pg_class WHERE relname LIKE 'fnew%') || ' fnew relations, fj: ' ||
           (SELECT definition FROM ivm.views WHERE name = 'fj'::regclass)
$$;
SELECT state();

-- Every step and every kind of fault, each statement in a subtransaction.
CREATE TABLE fault_runs (step text, how text, statement text, error text);
DO $$
DECLARE
    step record;
    how text;
BEGIN
    FOR step IN SELECT * FROM (VALUES
        ('create.made', 'SELECT ivm.create_view(''fnew'', ''SELECT a FROM fr'')'),
        ('create.filled', 'SELECT ivm.create_view(''fnew'', ''SELECT a FROM fr'')'),
        ('maintain.locked', 'INSERT INTO fr VALUES (1, 1), (2, 2)'),
        ('maintain.merged', 'UPDATE fr SET a = a + 1 WHERE b = 3'),
        ('dred.deleted', 'DELETE FROM fe WHERE src = 2'),
        ('alter.replaced', 'SELECT ivm.alter_view(''fj'', ''SELECT fr.a, fs.d FROM fr JOIN fs ON fr.b = fs.c WHERE fr.a > 2'')'),
        ('refresh.done', 'SELECT ivm.refresh_view(''fsum'')')) AS s(name, statement)
    LOOP
        FOREACH how IN ARRAY ARRAY['error', 'throw', 'alloc'] LOOP
            PERFORM set_config('ivm.test_fail_at', step.name || ':' || how, false);
            INSERT INTO fault_runs VALUES (step.name, how, step.statement, ivm_error(step.statement));
            PERFORM set_config('ivm.test_fail_at', '', false);
        END LOOP;
    END LOOP;
END $$;
SELECT step, how, error FROM fault_runs ORDER BY step, how;
SELECT state();
SELECT all_ok();

-- The same statements, unfaulted, still work afterwards.
SELECT error FROM fault_runs r WHERE how = 'error' AND ivm_error(r.statement) <> 'no error';

-- A fault at the top level, and one in a subtransaction the transaction
-- then goes on from.
SET ivm.test_fail_at = 'maintain.merged:throw';
INSERT INTO fr VALUES (9, 9);
RESET ivm.test_fail_at;
SELECT 'alive' AS backend, state(), all_ok();
BEGIN;
INSERT INTO fr VALUES (8, 1);
SAVEPOINT before_fault;
SET LOCAL ivm.test_fail_at = 'dred.deleted:alloc';
DELETE FROM fe WHERE src = 1;
ROLLBACK TO SAVEPOINT before_fault;
SET LOCAL ivm.test_fail_at = '';
DELETE FROM fe WHERE src = 3;
COMMIT;
SELECT state(), all_ok();

-- Superusers only.
CREATE ROLE regress_faults;
SET ROLE regress_faults;
SET ivm.test_fail_at = 'create.made:error';
RESET ROLE;
DROP ROLE regress_faults;

SELECT ivm.drop_view('fc');
SELECT ivm.drop_view('fsum');
SELECT ivm.drop_view('fj');
DROP TABLE fr, fs, fe, fault_runs;
DROP FUNCTION all_ok(), state();
