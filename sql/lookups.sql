-- Lookup bases: a table joined on a unique key of its own whose columns the
-- view shows, as themselves or as the columns they equal in the join.  The
-- stored tuples a row of it derives are those that show its key, so an
-- UPDATE of that table alone that keeps each row's key and every column the
-- view reads otherwise moves them to the new values in place, found by
-- their key (a table whose rows tell the whole key: the keying table), in the
-- key index's range for the key (the one column showing it leads the storage
-- key), or through an index of the storage on the columns showing it, which
-- the user makes.  Anything else merges as usual.
CREATE TABLE lf (id int PRIMARY KEY, d int NOT NULL, v int, note text);
CREATE TABLE ld (k int PRIMARY KEY, name text, score numeric, active bool);
CREATE TABLE ld2 (code text PRIMARY KEY, label text);
CREATE TABLE lc (a int, b int, x text, PRIMARY KEY (a, b));
INSERT INTO ld SELECT g, 'd' || g, g * 1.5, g % 2 = 0 FROM generate_series(1, 6) g;
INSERT INTO ld2 VALUES ('p', 'pe'), ('q', 'qu'), ('r', NULL);
INSERT INTO lc SELECT a, b, a || '/' || b FROM generate_series(1, 6) a, generate_series(0, 2) b;
INSERT INTO lf SELECT g, 1 + g % 6, g % 3, (ARRAY['p', 'q', 'r', NULL])[1 + g % 4] FROM generate_series(1, 60) g;
SET client_min_messages = warning;
SELECT ivm.create_view('l_star', 'SELECT f.id, f.d, f.v, d.name, d.score FROM lf f JOIN ld d ON d.k = f.d');
SELECT ivm.create_view('l_guarded', 'SELECT f.id, f.d, d.name FROM lf f JOIN ld d ON d.k = f.d WHERE d.active');
SELECT ivm.create_view('l_expr', 'SELECT f.d, upper(d.name) AS uname, d.score FROM lf f JOIN ld d ON d.k = f.d');
SELECT ivm.create_view('l_distinct', 'SELECT DISTINCT d.k, d.name FROM lf f JOIN ld d ON d.k = f.d');
SELECT ivm.create_view('l_composite', 'SELECT f.id, c.a, c.b, c.x FROM lf f JOIN lc c ON c.a = f.d AND c.b = f.v');
SELECT ivm.create_view('l_text', 'SELECT f.id, f.note, l.label FROM lf f JOIN ld2 l ON l.code = f.note');
SELECT ivm.create_view('l_over', 'SELECT name, count(*) AS n, sum(score) AS total FROM l_star GROUP BY name');
RESET client_min_messages;

-- how each finds the tuples of a lookup base's row, as ivm.explain_view says
CREATE FUNCTION lookups(view text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT substring(line FROM '^  a lookup table: its key is shown \(([^)]*)\)') || ': ' ||
           CASE WHEN line ~ 'found by their key,' THEN 'by key' WHEN line ~ 'key index range' THEN 'by key range'
                ELSE 'by an index of the storage, if any' END
      FROM ivm.explain_view(view) AS line WHERE line ~ '^  a lookup table'
$$;
SELECT v AS view, lookups(v) FROM unnest(ARRAY['l_star', 'l_guarded', 'l_expr', 'l_distinct', 'l_composite',
                                                'l_text', 'l_over']) v;
-- what the storage keys hash, the column leading the key first: a lookup
-- base's shown values are left out (their key is hashed), so moving them
-- moves no key
SELECT view_name, key_columns FROM ivm.view_catalog ORDER BY view_id;

-- What a statement did to each storage: 'updated' when it only updated
-- stored rows (a lookup update moving tuples in place, or a merge changing
-- only counts), 'merged' when it inserted or deleted some, '-' when it left
-- the storage alone.  A keyed view's merge never updates.
CREATE TABLE writes (view text PRIMARY KEY, upd bigint, ins bigint, del bigint);
CREATE FUNCTION storage_of(view text) RETURNS regclass LANGUAGE sql AS $$
    SELECT format('%s__ivm_data', view)::regclass
$$;
CREATE FUNCTION writes_before() RETURNS void LANGUAGE sql AS $$
    DELETE FROM writes;
    INSERT INTO writes SELECT v, pg_stat_get_xact_tuples_updated(storage_of(v)), pg_stat_get_xact_tuples_inserted(storage_of(v)),
                              pg_stat_get_xact_tuples_deleted(storage_of(v))
      FROM unnest(ARRAY['l_star', 'l_guarded', 'l_expr', 'l_distinct', 'l_composite', 'l_text', 'l_over']) v;
$$;
CREATE FUNCTION written() RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(view || ' ' || CASE WHEN i + d > 0 THEN 'merged' WHEN u > 0 THEN 'updated' ELSE '-' END, ', ' ORDER BY view)
      FROM (SELECT view, pg_stat_get_xact_tuples_updated(storage_of(view)) - upd AS u,
                   pg_stat_get_xact_tuples_inserted(storage_of(view)) - ins AS i,
                   pg_stat_get_xact_tuples_deleted(storage_of(view)) - del AS d FROM writes) w
$$;
-- written_by(statements): runs them in one transaction, says what they wrote
CREATE FUNCTION written_by(VARIADIC statements text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    statement text;
BEGIN
    PERFORM writes_before();
    FOREACH statement IN ARRAY statements LOOP
        EXECUTE statement;
    END LOOP;
    RETURN written();
END $$;
CREATE FUNCTION all_checked() RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(v || ' ' || ivm_check(v::regclass), ', ' ORDER BY v)
      FROM unnest(ARRAY['l_star', 'l_guarded', 'l_expr', 'l_distinct', 'l_composite', 'l_text', 'l_over']) v
$$;
SELECT all_checked();

-- a dimension's shown columns: moved in place where its key is shown; l_expr
-- reads name in an expression (guarded), so a new name merges there
SELECT written_by($$UPDATE ld SET name = 'x' || k, score = score * 2 WHERE k <= 2$$);
SELECT all_checked();
-- only the score: in place in l_expr too
SELECT written_by($$UPDATE ld SET score = score + 1$$);
SELECT all_checked();
-- a column l_guarded reads in WHERE: merged there; views not reading it
-- have nothing to move
SELECT written_by($$UPDATE ld SET active = NOT active WHERE k = 3$$);
SELECT all_checked();
-- a new key: no pairs, merged
SELECT written_by($$UPDATE ld SET k = k + 100 WHERE k = 4$$);
UPDATE ld SET k = k - 100 WHERE k = 104;
SELECT all_checked();
-- the facts' own shown columns, by their key (id); a changed join column
-- (guarded) merges
SELECT written_by($$UPDATE lf SET v = v + 1 WHERE id % 2 = 0$$);
SELECT all_checked();
SELECT written_by($$UPDATE lf SET d = 1 WHERE id = 5$$);
SELECT all_checked();
-- keys shown by columns no index leads (a composite key, a text key): merged,
-- until the storage has an index on them
SELECT written_by($$UPDATE lc SET x = x || '!' WHERE a = 2$$, $$UPDATE ld2 SET label = upper(label) WHERE code = 'p'$$);
SELECT all_checked();
CREATE INDEX ON l_composite__ivm_data (a, b);
CREATE INDEX ON l_text__ivm_data (note);
SELECT v AS view, lookups(v) FROM unnest(ARRAY['l_composite', 'l_text']) v;
SELECT written_by($$UPDATE lc SET x = x || '?' WHERE a = 2$$, $$UPDATE ld2 SET label = lower(label) WHERE code = 'p'$$);
SELECT all_checked();

-- a value equal to the old one but written otherwise moves too: the view
-- shows what its query does
UPDATE ld SET score = 4.50 WHERE k = 3;
SELECT (SELECT string_agg(DISTINCT score::text, ',') FROM l_star WHERE d = 3) AS shown,
       (SELECT score::text FROM ld WHERE k = 3) AS stored;
-- a trigger that updates the row again: the statements' rows are netted,
-- then moved
CREATE FUNCTION ld_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF new.name NOT LIKE '%!' THEN UPDATE ld SET name = new.name || '!' WHERE k = new.k; END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER again AFTER UPDATE ON ld FOR EACH ROW EXECUTE FUNCTION ld_again();
SELECT written_by($$UPDATE ld SET name = 'twice' WHERE k = 5$$);
DROP TRIGGER again ON ld;
DROP FUNCTION ld_again();
SELECT DISTINCT name FROM l_star WHERE d = 5;
SELECT all_checked();
-- rolled back with the transaction; a row no fact reads moves nothing
BEGIN;
UPDATE ld SET name = 'gone' WHERE k = 6;
SELECT count(*) AS gone FROM l_star WHERE name = 'gone';
ROLLBACK;
SELECT count(*) AS gone FROM l_star WHERE name = 'gone';
INSERT INTO ld VALUES (7, 'unread', 1, true);
SELECT written_by($$UPDATE ld SET name = 'still unread' WHERE k = 7$$);
SELECT all_checked();

-- without its key the dimension is no lookup base: updates merge, and the
-- storage key keeps what it was made with
ALTER TABLE ld DROP CONSTRAINT ld_pkey;
SELECT lookups('l_star');
SELECT written_by($$UPDATE ld SET name = name || '-' WHERE k = 1$$);
SELECT all_checked();
ALTER TABLE ld ADD PRIMARY KEY (k);
SELECT lookups('l_star');
UPDATE ld SET name = rtrim(name, '-') WHERE k = 1;
SELECT all_checked();

-- a new definition with another storage key gets a new storage
SELECT ivm.alter_view('l_guarded', 'SELECT f.id, f.d, f.v FROM lf f WHERE f.v > 0') > 0 AS changed;
SELECT key_columns FROM ivm.view_catalog WHERE view_name = 'l_guarded'::regclass;
UPDATE lf SET v = v + 1 WHERE id < 10;
SELECT ivm_check('l_guarded');

SET client_min_messages = warning;
SELECT ivm.drop_view(v) FROM unnest(ARRAY['l_over', 'l_star', 'l_guarded', 'l_expr', 'l_distinct', 'l_composite',
                                          'l_text']) v;
RESET client_min_messages;
DROP TABLE lf, ld, ld2, lc, writes;
DROP FUNCTION lookups(text), storage_of(text), writes_before(), written(), written_by(text[]), all_checked();
