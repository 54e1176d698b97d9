-- A base keys a view when each of its rows makes at most one view tuple,
-- one that shows the row's unique key: a single block of inner joins, the
-- base read once, every other table joined on a unique key of its own
-- (to the base, or to a table so joined).  In a keyed view every tuple is
-- stored once with count 1; a statement that changes one table the view
-- reads once deletes the tuples its deleted rows took away, then inserts
-- those its inserted rows make without looking them up (none can be stored
-- by then) or summing them (no two are equal).  Anything else merges as
-- usual.
CREATE TABLE kf (id int PRIMARY KEY, k int NOT NULL, v int);
CREATE TABLE kd (k int PRIMARY KEY, name text);
CREATE TABLE kn (name text PRIMARY KEY, x int);
CREATE TABLE kdef (id int PRIMARY KEY DEFERRABLE, v int);
CREATE TABLE kbig (id bigint PRIMARY KEY, k bigint NOT NULL);
INSERT INTO kd SELECT g, 'd' || (g % 3) FROM generate_series(1, 5) g;
INSERT INTO kn VALUES ('d0', 0), ('d1', 1);
INSERT INTO kf SELECT g, 1 + g % 6, g % 4 FROM generate_series(1, 40) g;  -- k = 6 has no kd row
INSERT INTO kdef SELECT g, g FROM generate_series(1, 5) g;
INSERT INTO kbig SELECT g, g % 5 FROM generate_series(1, 10) g;
SET client_min_messages = warning;
SELECT ivm.create_view('k_join', 'SELECT f.id, f.v, d.name FROM kf f JOIN kd d ON f.k = d.k');
SELECT ivm.create_view('k_chain',
  'SELECT f.id, d.name, n.x FROM kf f, kd d, kn n WHERE d.k = f.k AND n.name = d.name AND f.v <> 2');
SELECT ivm.create_view('k_alone', 'SELECT id, v FROM kf WHERE v IS NOT NULL');
SELECT ivm.create_view('k_cross_type', 'SELECT b.id, d.name FROM kbig b JOIN kd d ON d.k = b.k');
SELECT ivm.create_view('k_twice',
  'SELECT f.id, a.name, b.name AS other FROM kf f JOIN kd a ON a.k = f.k JOIN kd b ON b.k = f.v');
SELECT ivm.create_view('k_hidden', 'SELECT f.v, d.name FROM kf f JOIN kd d ON f.k = d.k');
SELECT ivm.create_view('k_fanout', 'SELECT f.id, d.k FROM kf f JOIN kd d ON d.k > f.k');
SELECT ivm.create_view('k_self', 'SELECT f.id, g.v FROM kf f JOIN kf g ON g.id = f.k');
SELECT ivm.create_view('k_left', 'SELECT f.id, d.name FROM kf f LEFT JOIN kd d ON f.k = d.k');
SELECT ivm.create_view('k_deferrable', 'SELECT id, v FROM kdef');
SELECT ivm.create_view('k_over', 'SELECT name, count(*) AS n FROM k_join GROUP BY name');
RESET client_min_messages;

-- which bases key each view, as ivm.explain_view tells
CREATE FUNCTION keying(view text) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(max(substring(line FROM '^keyed by (.*): each row')), 'none')
      FROM ivm.explain_view(view) AS line
$$;
SELECT v AS view, keying(v) FROM unnest(ARRAY['k_join', 'k_chain', 'k_alone', 'k_cross_type', 'k_twice', 'k_hidden',
                                              'k_fanout', 'k_self', 'k_left', 'k_deferrable', 'k_over']) v;

-- Whether a statement looked tuples up in a view's storage: its scans of
-- the storage and its indexes, not yet reported, before and after
-- (scans_before()).
CREATE TABLE scans (view text PRIMARY KEY, n bigint);
CREATE FUNCTION storage_scans(view text) RETURNS bigint LANGUAGE sql AS $$
    SELECT pg_stat_get_xact_numscans(c.oid) + (SELECT coalesce(sum(pg_stat_get_xact_numscans(i.indexrelid)), 0)
                                                 FROM pg_index i WHERE i.indrelid = c.oid)
      FROM pg_class c WHERE c.oid = format('%s__ivm_data', view)::regclass
$$;
CREATE FUNCTION scans_before() RETURNS void LANGUAGE sql AS $$
    DELETE FROM scans;
    INSERT INTO scans SELECT v, storage_scans(v) FROM unnest(ARRAY['k_join', 'k_chain', 'k_alone', 'k_twice',
        'k_hidden', 'k_fanout', 'k_over']) v;
$$;
CREATE FUNCTION looked_up(view text) RETURNS bool LANGUAGE sql AS $$
    SELECT storage_scans(view) > n FROM scans WHERE scans.view = looked_up.view
$$;
CREATE FUNCTION all_checked() RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(v || ' ' || ivm_check(v::regclass), ', ' ORDER BY v) FROM unnest(ARRAY['k_join', 'k_chain',
        'k_alone', 'k_twice', 'k_hidden', 'k_fanout', 'k_self', 'k_left', 'k_over']) v
$$;

-- inserts only: written without a lookup, where the base keys the view
BEGIN;
SELECT scans_before();
INSERT INTO kf SELECT g, 1 + g % 6, g % 4 FROM generate_series(41, 60) g;
SELECT looked_up('k_join') AS k_join, looked_up('k_chain') AS k_chain, looked_up('k_alone') AS k_alone,
       looked_up('k_hidden') AS k_hidden, looked_up('k_over') AS k_over;
COMMIT;
SELECT all_checked();
INSERT INTO kf VALUES (61, 1, NULL);
SELECT all_checked();
-- deletes only: looked up and removed
BEGIN;
SELECT scans_before();
DELETE FROM kf WHERE id % 5 = 0;
SELECT looked_up('k_join') AS k_join, looked_up('k_alone') AS k_alone;
COMMIT;
SELECT all_checked();
DELETE FROM kf WHERE id = 61;
SELECT all_checked();
-- nothing at all
INSERT INTO kf SELECT 1000, 1, 1 WHERE false;
DELETE FROM kf WHERE id < 0;
SELECT all_checked();

-- an INSERT whose conflicts move rows to other keys: its UPDATE frees keys
-- it then inserts (inserted and deleted rows: the usual merge)
INSERT INTO kf VALUES (1, 2, 3), (2, 2, 3), (100, 2, 3) ON CONFLICT (id) DO UPDATE SET id = kf.id + 1000;
SELECT all_checked();
-- a key deleted and inserted again in one statement
WITH x AS (DELETE FROM kf WHERE id = 3 RETURNING *) INSERT INTO kf SELECT id, k + 1, v FROM x;
SELECT all_checked();
-- a row inserted into a joined table: fresh tuples too, where the view is
-- keyed and reads the table once
BEGIN;
SELECT scans_before();
INSERT INTO kd VALUES (6, 'd6');
SELECT looked_up('k_join') AS k_join, looked_up('k_twice') AS k_twice, looked_up('k_fanout') AS k_fanout;
COMMIT;
SELECT all_checked();
-- the storage key is led by the first integer column (id): new ids go to the
-- right end of its index; its low 24 bits are a hash of the columns that are
-- not the values of a lookup base's row (kf shows its key id, so v is its row's;
-- catalogued as made)
SELECT key_columns FROM ivm.view_catalog WHERE view_name = 'k_join'::regclass;
SELECT count(*) AS stored, count(*) FILTER (WHERE __ivm_key >> 24 = id) AS led_by_id,
       count(*) FILTER (WHERE __ivm_key & 16777215 = hash_record_extended(ROW(id, name), 0) & 16777215) AS hashed
  FROM k_join__ivm_data;
-- updates of either table: in place where kf's rows keep their ids and k
-- (lookup updates, lookups.sql), else deleted, then inserted
UPDATE kd SET name = 'e' || k WHERE k % 2 = 0;
SELECT all_checked();
UPDATE kf SET v = v + 1, k = 1 + (k + 1) % 6 WHERE id % 3 = 0;
SELECT all_checked();
UPDATE kn SET x = coalesce(x, 0) + 1;
SELECT all_checked();
UPDATE kf SET id = id + 500 WHERE id % 4 = 1;
SELECT all_checked();
-- the cross-type join
INSERT INTO kbig SELECT g, g % 7 FROM generate_series(11, 20) g;
DELETE FROM kbig WHERE id % 3 = 0;
SELECT ivm_check('k_cross_type') AS k_cross_type;

-- a row updated twice in one statement (a trigger updating the row its
-- statement updated): the two statements' rows are netted first, so the
-- middle version is neither deleted (keyed, it would be a tuple not stored:
-- "out of sync") nor taken for a row there before (k_left's nullable side)
CREATE FUNCTION kf_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF new.v < 100 THEN UPDATE kf SET v = new.v + 100 WHERE id = new.id; END IF;
    RETURN NULL;
END $$;
CREATE FUNCTION kd_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF new.name NOT LIKE '%!' THEN UPDATE kd SET name = new.name || '!' WHERE k = new.k; END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER again AFTER UPDATE ON kf FOR EACH ROW EXECUTE FUNCTION kf_again();
CREATE TRIGGER again AFTER UPDATE ON kd FOR EACH ROW EXECUTE FUNCTION kd_again();
UPDATE kf SET v = 7 WHERE id IN (5, 6);
SELECT all_checked();
UPDATE kd SET name = 'twice' WHERE k = 2;
SELECT all_checked();
SELECT id, v, name FROM k_join WHERE id IN (5, 6) OR name LIKE 'twice%' ORDER BY id;
DROP TRIGGER again ON kf;
DROP TRIGGER again ON kd;
DROP FUNCTION kf_again(), kd_again();

-- rolled back with the statement's transaction
BEGIN;
INSERT INTO kf SELECT g, 1 + g % 6, 1 FROM generate_series(200, 220) g;
DELETE FROM kf WHERE id BETWEEN 10 AND 30;
SELECT all_checked();
ROLLBACK;
SELECT all_checked();

-- a deferred key may be broken within the transaction: not a key
BEGIN;
SET CONSTRAINTS ALL DEFERRED;
INSERT INTO kdef VALUES (1, 10);
SELECT ivm_check('k_deferrable') AS k_deferrable, count(*) AS rows FROM k_deferrable;
DELETE FROM kdef WHERE v = 10;
COMMIT;
SELECT ivm_check('k_deferrable') AS k_deferrable;

-- without its key the table no longer keys the view: duplicates merge
ALTER TABLE kf DROP CONSTRAINT kf_pkey;
SELECT keying('k_join') AS k_join;
INSERT INTO kf SELECT id, k, v FROM kf WHERE id < 10;
SELECT all_checked();
DELETE FROM kf WHERE id < 5;
SELECT all_checked();
-- and with it again, it does
DELETE FROM kf a USING kf b WHERE a.id = b.id AND a.ctid > b.ctid;
ALTER TABLE kf ADD PRIMARY KEY (id);
SELECT keying('k_join') AS k_join;
INSERT INTO kf VALUES (4, 1, 1);
SELECT all_checked();

-- a deleted tuple not stored once with count 1 is a storage out of step
-- with its base tables (written here behind ivm's back): refused, and
-- the statement leaves everything as it was
INSERT INTO kf VALUES (301, 1, 1), (302, 1, 2), (303, 1, 3), (304, 1, 0);
SET session_replication_role = replica;  -- the storage's guard is a trigger
DELETE FROM k_alone__ivm_data WHERE id = 301;
UPDATE k_alone__ivm_data SET __ivm_count = 2 WHERE id = 302;
INSERT INTO k_alone__ivm_data SELECT * FROM k_alone__ivm_data WHERE id = 303;
RESET session_replication_role;
DELETE FROM kf WHERE id = 301;  -- not stored
DELETE FROM kf WHERE id = 302;  -- stored with count 2
DELETE FROM kf WHERE id = 303;  -- stored twice
UPDATE kf SET v = v + 1 WHERE id IN (302, 304);
SELECT count(*) AS kf_rows FROM kf WHERE id BETWEEN 301 AND 304;
DELETE FROM kf WHERE id = 304;  -- the others still merge
SET session_replication_role = replica;
DELETE FROM k_alone__ivm_data a USING k_alone__ivm_data b WHERE a.id = 303 AND b.id = 303 AND a.ctid > b.ctid;
RESET session_replication_role;
SELECT ivm.refresh_view('k_alone');
SELECT ivm_check('k_alone') AS k_alone;
DELETE FROM kf WHERE id BETWEEN 301 AND 303;
SELECT all_checked();

-- A view made over an empty table, then loaded: its storage has no
-- statistics yet, and a large delete still finds its tuples through the key
-- index, not by a pass over the storage per deleted tuple (the planner's
-- guess of how many stored tuples have count 1 once made it that: 43 s for
-- 10,000 rows of 40,000)
CREATE TABLE kload (id int PRIMARY KEY, v int NOT NULL);
SELECT ivm.create_view('k_loaded', 'SELECT id, v FROM kload');
INSERT INTO kload SELECT g, g % 7 FROM generate_series(1, 20000) g;
BEGIN;
SELECT pg_stat_get_xact_numscans('k_loaded__ivm_data'::regclass) AS before \gset
DELETE FROM kload WHERE id <= 5000;
SELECT pg_stat_get_xact_numscans('k_loaded__ivm_data'::regclass) - :before AS storage_passes;
COMMIT;
SELECT ivm_check('k_loaded') AS k_loaded;
SELECT ivm.drop_view('k_loaded');
DROP TABLE kload;

-- many fresh tuples of a keyed view (more than ivm.large_change_rows) are
-- written in batches, their key index entries with them (amcheck finds an
-- entry for every stored tuple); not where an INSERT would do more, as
-- k_join's storage, which carries k_over's triggers
CREATE EXTENSION IF NOT EXISTS amcheck;
SET ivm.large_change_rows = 10;
CREATE TABLE kbulk (id int PRIMARY KEY, k int NOT NULL, v int);
SET client_min_messages = warning;
SELECT ivm.create_view('k_bulk', 'SELECT b.id, b.v, d.name FROM kbulk b JOIN kd d ON b.k = d.k');
RESET client_min_messages;
INSERT INTO kbulk SELECT g, 1 + g % 6, g FROM generate_series(1, 300) g;
SELECT ivm_check('k_bulk') AS bulk, (SELECT count(*) FROM k_bulk) AS tuples;
BEGIN;
INSERT INTO kbulk SELECT g, 1 + g % 5, g FROM generate_series(301, 600) g;
SELECT ivm_check('k_bulk') AS in_transaction;
ROLLBACK;
DELETE FROM kbulk WHERE id % 2 = 0;
INSERT INTO kbulk SELECT g, 1 + g % 5, -g FROM generate_series(1000, 1400) g;
SELECT ivm_check('k_bulk') AS after_delete, (SELECT count(*) FROM k_bulk) AS tuples;
SELECT bt_index_check(i.indexrelid, true) FROM pg_index i WHERE i.indrelid = 'k_bulk__ivm_data'::regclass;
UPDATE kbulk SET v = v + 1 WHERE id > 1300;
DELETE FROM kbulk WHERE id > 1350;
SELECT ivm_check('k_bulk') AS found_by_key;
INSERT INTO kf SELECT g, 1 + g % 5, g % 4 FROM generate_series(100000, 100300) g;
SELECT ivm_check('k_join') AS k_join, ivm_check('k_over') AS k_over;
DELETE FROM kf WHERE id >= 100000;
RESET ivm.large_change_rows;
SELECT ivm.drop_view('k_bulk');
DROP TABLE kbulk;
DROP EXTENSION amcheck;

-- a stored tuple updated in place keeps its page: the storage leaves room
-- on each page (fillfactor 90), so the new version is a HOT update there
-- (with full pages it goes to the last page and into the key index); a
-- rebuild by heap swap keeps the setting
CREATE TABLE roomy (id int PRIMARY KEY, v int);
INSERT INTO roomy SELECT g, 0 FROM generate_series(1, 2000) g;
SELECT ivm.create_view('roomy_v', 'SELECT id, v FROM roomy');
UPDATE roomy SET v = 1 WHERE id = 5;
UPDATE roomy SET v = 2 WHERE id BETWEEN 6 AND 12;
SELECT id, (ctid::text::point)[0] AS page FROM roomy_v__ivm_data WHERE id BETWEEN 5 AND 12 ORDER BY id;
SELECT pg_relation_filenode('roomy_v__ivm_data') AS roomy_heap \gset
SET ivm.rebuild_fraction = 0;
UPDATE roomy SET v = v + 1;
RESET ivm.rebuild_fraction;
SELECT ivm_check('roomy_v'), pg_relation_filenode(oid) <> :roomy_heap AS swapped, reloptions
FROM pg_class WHERE oid = 'roomy_v__ivm_data'::regclass;
SELECT ivm.drop_view('roomy_v');
DROP TABLE roomy;

SET client_min_messages = warning;
SELECT ivm.drop_view(v) FROM unnest(ARRAY['k_over', 'k_join', 'k_chain', 'k_alone', 'k_cross_type', 'k_twice', 'k_hidden',
                                          'k_fanout', 'k_self', 'k_left', 'k_deferrable']) v;
RESET client_min_messages;
DROP TABLE kf, kd, kn, kdef, kbig, scans;
DROP FUNCTION keying(text), storage_scans(text), scans_before(), looked_up(text), all_checked();
