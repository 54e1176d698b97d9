-- A statement the planner expects to change more rows than every view over
-- its table would merge starts without its transition capture
-- (src/pg/large_statements.hpp): ivm's AFTER trigger finds no transition
-- table and the views are computed anew.  Which way a statement went shows
-- at the fault step of the uncaptured path (ivm.test_fail_at); the views
-- equal their queries either way, and a statement refused there leaves
-- everything as it was.
CREATE TABLE ls_a (aid int PRIMARY KEY, bid int NOT NULL, bal int NOT NULL, note text);
CREATE TABLE ls_b (bid int PRIMARY KEY, name text);
INSERT INTO ls_b SELECT g, 'b' || g FROM generate_series(1, 10) g;
INSERT INTO ls_a SELECT g, 1 + g % 10, g % 97, '' FROM generate_series(1, 2000) g;
ANALYZE ls_a, ls_b;
SET client_min_messages = warning;
SELECT ivm.create_view('ls_j', 'SELECT a.aid, a.bid, a.bal, b.name FROM ls_a a JOIN ls_b b USING (bid)');
RESET client_min_messages;
SET ivm.large_change_rows = 100;
CREATE FUNCTION ls_path(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('ivm.test_fail_at', 'maintain.uncaptured:error', false);
    RETURN CASE WHEN ivm_error(statement) LIKE '%ivm test fault at maintain.uncaptured%'
                THEN 'recomputed' ELSE 'merged' END;
END $$;
-- (inserts first: a rolled back statement leaves its pages, and the
-- tables' sizes are estimated from their pages)
SELECT s, ls_path(s) FROM (VALUES
    ('INSERT INTO ls_a SELECT g, 1 + g % 10, 0 FROM generate_series(2001, 6000) g'),
    ('INSERT INTO ls_a SELECT g, 1 + g % 10, 0 FROM generate_series(2001, 2050) g'),
    ('DELETE FROM ls_a WHERE aid <= 1500'),
    ('DELETE FROM ls_a WHERE aid <= 50'),
    ('UPDATE ls_a SET bal = bal + 1'),
    ('UPDATE ls_a SET bal = bal + 1 WHERE aid <= 20'),
    -- a column the view does not read: nothing to maintain
    ('UPDATE ls_a SET note = ''x''')) AS t(s);
RESET ivm.test_fail_at;
SELECT count(*), sum(bal) FROM ls_a;
SELECT ivm_check('ls_j');

-- Each for real, the view checked after each, in one transaction.
BEGIN;
DELETE FROM ls_a WHERE aid <= 1500;
SELECT count(*), ivm_check('ls_j') FROM ls_j;
UPDATE ls_a SET bal = bal + 1;
SELECT count(*), ivm_check('ls_j') FROM ls_j;
INSERT INTO ls_a SELECT g, 1 + g % 10, g % 5 FROM generate_series(2001, 6000) g;
SELECT count(*), ivm_check('ls_j') FROM ls_j;
DELETE FROM ls_a;
SELECT count(*), ivm_check('ls_j') FROM ls_j;
ROLLBACK;
SELECT count(*), ivm_check('ls_j') FROM ls_j;

-- Another trigger that reads the transition rows keeps them: merged, and
-- the trigger sees every row.
CREATE TABLE ls_seen (n bigint);
CREATE FUNCTION ls_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO ls_seen SELECT count(*) FROM gone; RETURN NULL; END $$;
CREATE TRIGGER ls_count AFTER DELETE ON ls_a REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION ls_count();
SELECT ls_path('DELETE FROM ls_a WHERE aid <= 1500');
RESET ivm.test_fail_at;
DELETE FROM ls_a WHERE aid <= 1500;
SELECT n, ivm_check('ls_j') FROM ls_seen;
DROP TRIGGER ls_count ON ls_a;

-- A view over the view: the large change of ls_j's storage leaves ls_n
-- exact whichever way each went.
SET client_min_messages = warning;
SELECT ivm.create_view('ls_n', 'SELECT bid, count(*) AS n FROM ls_j GROUP BY bid');
RESET client_min_messages;
UPDATE ls_a SET bal = bal + 1;
DELETE FROM ls_a WHERE aid > 1900;
SELECT ivm_check('ls_j'), ivm_check('ls_n');

-- Views of groups are computed anew too (the difference merged), the
-- partial state's and a string_agg's; a set operation is not, and keeps
-- the rows of every statement on its tables.  (Sizes are estimated from
-- pages: the dead rows of the statements above go first.)
VACUUM ANALYZE ls_a, ls_j__ivm_data;
SET client_min_messages = warning;
SELECT ivm.create_view('ls_g', 'SELECT bid, count(*) AS n, sum(bal) AS s, max(bal) AS top FROM ls_a GROUP BY bid');
SELECT ivm.create_view('ls_s', 'SELECT bid, string_agg(bal::text, '','' ORDER BY aid) AS bals FROM ls_a GROUP BY bid');
RESET client_min_messages;
SELECT ls_path('UPDATE ls_a SET bal = bal + 1');
RESET ivm.test_fail_at;
UPDATE ls_a SET bal = bal + 2 WHERE aid % 2 = 0;
-- (the partial state's storage filled anew in a new heap, as REFRESH does)
SELECT pg_relation_filenode('ls_g__ivm_data') AS ls_g_heap \gset
DELETE FROM ls_a WHERE aid > 1600;
SELECT pg_relation_filenode('ls_g__ivm_data') <> :ls_g_heap AS ls_g_swapped;
SELECT ivm_check('ls_j'), ivm_check('ls_n'), ivm_check('ls_g'), ivm_check('ls_s');
SET client_min_messages = warning;
SELECT ivm.create_view('ls_u', 'SELECT bid FROM ls_a EXCEPT ALL SELECT bid FROM ls_b');
RESET client_min_messages;
SELECT ls_path('UPDATE ls_a SET bid = 1 + bid % 10');
RESET ivm.test_fail_at;
UPDATE ls_a SET bid = 1 + bid % 10;
SELECT ivm_check('ls_j'), ivm_check('ls_n'), ivm_check('ls_g'), ivm_check('ls_s'), ivm_check('ls_u');
SELECT ivm.drop_view('ls_u');
SELECT ivm.drop_view('ls_s');
SELECT ivm.drop_view('ls_g');
SELECT ivm.drop_view('ls_n');
SELECT ivm.drop_view('ls_j');
DROP TABLE ls_a, ls_b, ls_seen;
DROP FUNCTION ls_path(text), ls_count();
RESET ivm.large_change_rows;
