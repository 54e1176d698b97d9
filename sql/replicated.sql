-- Views on a logical replication subscriber.  Where the database has a
-- subscription, every view's base tables carry ivm's triggers enabled for
-- replicas only: an apply worker (as any session with
-- session_replication_role = replica, which this file uses in its place)
-- fires no statement trigger but TRUNCATE's; the row trigger logs each row
-- it writes, and when its transaction commits every view reading them
-- takes them in.  (The subscription here never connects: no publisher.)
CREATE TABLE rp_orders (id int PRIMARY KEY, region text NOT NULL, amount int NOT NULL);
CREATE TABLE rp_regions (region text PRIMARY KEY, manager text);
CREATE TABLE rp_links (src int NOT NULL, dst int NOT NULL);
INSERT INTO rp_regions VALUES ('east', 'ann'), ('west', 'bo'), ('north', NULL);
INSERT INTO rp_orders SELECT i, (ARRAY['east', 'west', 'south'])[1 + i % 3], i % 50 FROM generate_series(1, 60) i;
INSERT INTO rp_links SELECT i, i + 1 FROM generate_series(1, 8) i;
CREATE FUNCTION rp_log_rows(base regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN EXECUTE format('SELECT count(*) FROM ivm.changes_%s', base::oid) INTO n; RETURN n; END $$;
CREATE FUNCTION rp_check() RETURNS TABLE (view_name text, extra bigint, missing bigint) LANGUAGE plpgsql AS $$
DECLARE v record;
BEGIN
    FOR v IN SELECT name, query_view FROM ivm.views WHERE name::text LIKE 'rp\_%' ORDER BY name::text LOOP
        view_name := v.name::text;
        EXECUTE format('SELECT (SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s) x),
                               (SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s) y)',
                       v.name, v.query_view, v.query_view, v.name) INTO extra, missing;
        RETURN NEXT;
    END LOOP;
END $$;
SET client_min_messages = warning;
SELECT ivm.create_view('rp_managed', 'SELECT o.id, o.amount, r.manager FROM rp_orders o JOIN rp_regions r ON o.region = r.region');
SELECT ivm.create_view('rp_totals', 'SELECT r.region, count(o.id) AS n, sum(o.amount) AS total FROM rp_regions r LEFT JOIN rp_orders o ON o.region = r.region GROUP BY r.region');
RESET client_min_messages;
-- Without a subscription no table carries them: a primary's writers pay nothing.
SELECT count(*) AS replica_triggers FROM pg_trigger WHERE tgrelid::regclass::text LIKE 'rp\_%' AND tgname IN ('ivm_log_row', 'ivm_apply_replicated', 'ivm_log_truncate_replicated');
SELECT count(*) AS logs FROM pg_class WHERE relnamespace = 'ivm'::regnamespace AND relname IN (SELECT 'changes_' || oid FROM pg_class WHERE relname LIKE 'rp\_%');

CREATE SUBSCRIPTION rp_sub CONNECTION 'dbname=rp_nowhere' PUBLICATION rp_pub WITH (connect = false);
-- Now the views' base tables do, and each has a log.
SELECT tgrelid::regclass, tgname, tgenabled FROM pg_trigger WHERE tgrelid IN ('rp_orders'::regclass, 'rp_regions'::regclass) AND tgname IN ('ivm_log_row', 'ivm_apply_replicated', 'ivm_log_truncate_replicated') ORDER BY 1, 2;
SELECT count(*) AS logs FROM pg_class WHERE relnamespace = 'ivm'::regnamespace AND relname IN (SELECT 'changes_' || oid FROM pg_class WHERE relname LIKE 'rp\_%');
-- A view made now gets them too: a view over a view, a recursive view.
SET client_min_messages = warning;
SELECT ivm.create_view('rp_busy', 'SELECT region, n FROM rp_totals WHERE n > 10');
SELECT ivm.create_view('rp_reach', 'WITH RECURSIVE t(a, b) AS (SELECT src, dst FROM rp_links UNION SELECT t.a, l.dst FROM t JOIN rp_links l ON t.b = l.src) SELECT a, b FROM t');
RESET client_min_messages;
SELECT count(*) AS link_triggers FROM pg_trigger WHERE tgrelid = 'rp_links'::regclass AND tgname IN ('ivm_log_row', 'ivm_apply_replicated', 'ivm_log_truncate_replicated');

-- An ordinary writer maintains the views by their statement triggers and
-- logs nothing.
INSERT INTO rp_orders VALUES (100, 'east', 5);
SELECT rp_log_rows('rp_orders') AS logged;
SELECT * FROM rp_check();

-- A replicated transaction: nothing changes in the views until it commits.
SET session_replication_role = replica;
BEGIN;
INSERT INTO rp_orders SELECT i, 'north', i FROM generate_series(200, 240) i;
UPDATE rp_orders SET amount = amount + 1 WHERE id % 4 = 0;
UPDATE rp_orders SET amount = amount + 1 WHERE id % 8 = 0;  -- the same rows twice: netted
DELETE FROM rp_orders WHERE id % 9 = 0;
UPDATE rp_regions SET manager = 'cy' WHERE region = 'north';
INSERT INTO rp_links VALUES (2, 7), (9, 1);  -- a cycle
DELETE FROM rp_links WHERE src = 4;
SELECT (SELECT count(*) FROM rp_managed) AS managed_before_commit, rp_log_rows('rp_orders') > 0 AS logged;
COMMIT;
SELECT * FROM rp_check();
-- Taken in: nothing left in the logs, which no deferred view reads.
SELECT rp_log_rows('rp_orders') AS orders_log, rp_log_rows('rp_regions') AS regions_log, rp_log_rows('rp_links') AS links_log;

-- Rows rolled back with a savepoint are not taken in.
BEGIN;
INSERT INTO rp_orders VALUES (300, 'west', 1);
SAVEPOINT s;
INSERT INTO rp_orders VALUES (301, 'west', 1);
DELETE FROM rp_links;
ROLLBACK TO SAVEPOINT s;
INSERT INTO rp_orders VALUES (302, 'north', 2);
COMMIT;
SELECT * FROM rp_check();
SELECT count(*) FROM rp_managed WHERE id IN (300, 301, 302);

-- With ivm's constraint trigger set IMMEDIATE, each statement's firing
-- takes in what the statements before it logged (a row's firing comes
-- before its row is logged), the rest at the commit; a transaction whose
-- last rows no firing follows fails rather than leave them out.
BEGIN;
SET CONSTRAINTS ALL IMMEDIATE;
DELETE FROM rp_orders WHERE id = 300;
INSERT INTO rp_orders VALUES (303, 'east', 3);
SELECT count(*) FILTER (WHERE id = 300) AS deleted_row_left, count(*) FILTER (WHERE id = 303) AS inserted_row_there FROM rp_managed;
SET CONSTRAINTS ALL DEFERRED;
UPDATE rp_regions SET manager = 'dee' WHERE region = 'east';
COMMIT;
SELECT * FROM rp_check();
BEGIN;
SET CONSTRAINTS ALL IMMEDIATE;
INSERT INTO rp_orders VALUES (304, 'east', 4);
COMMIT;
SELECT count(*) FROM rp_orders WHERE id = 304;
SELECT * FROM rp_check();

-- A replicated TRUNCATE recomputes the views reading the table; the rows
-- written after it are taken in at the commit.
BEGIN;
UPDATE rp_orders SET amount = 0 WHERE id = 1;
TRUNCATE rp_regions;
INSERT INTO rp_regions VALUES ('east', 'eve'), ('south', 'sam');
COMMIT;
SELECT * FROM rp_check();
SELECT * FROM rp_totals ORDER BY region;

-- An error in a replicated transaction rolls the views back with it.
BEGIN;
INSERT INTO rp_orders VALUES (400, 'east', 4);
INSERT INTO rp_orders VALUES (400, 'east', 4);
ROLLBACK;
SELECT * FROM rp_check();
RESET session_replication_role;

-- Without a subscription, the triggers and the logs go again.
ALTER SUBSCRIPTION rp_sub SET (slot_name = NONE);
DROP SUBSCRIPTION rp_sub;
SELECT count(*) AS replica_triggers FROM pg_trigger WHERE tgrelid::regclass::text LIKE 'rp\_%' AND tgname IN ('ivm_log_row', 'ivm_apply_replicated', 'ivm_log_truncate_replicated');
SELECT count(*) AS logs FROM pg_class WHERE relnamespace = 'ivm'::regnamespace AND relname IN (SELECT 'changes_' || oid FROM pg_class WHERE relname LIKE 'rp\_%');

SELECT ivm.drop_view('rp_busy');
SELECT ivm.drop_view('rp_totals');
SELECT ivm.drop_view('rp_managed');
SELECT ivm.drop_view('rp_reach');
DROP TABLE rp_orders, rp_regions, rp_links;
DROP FUNCTION rp_check();
DROP FUNCTION rp_log_rows(regclass);
