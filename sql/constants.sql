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

-- Immutable functions of the columns beside them (FROM t, unnest(t.tags)):
-- each base row's rows computed from it, also read in the view's query as
-- they are, whatever rows of the base a change reads; neither keyed.
CREATE TABLE post (id int PRIMARY KEY, tags text[], doc jsonb, n int);
INSERT INTO post VALUES (1, '{a,b}', '[1, 2]', 2), (2, '{b}', '[]', 0), (3, NULL, '[3]', 1), (4, '{a,a,c}', '[4, 4]', 3);
SELECT ivm.create_view('ct_post_tags', 'SELECT p.id, t.tag FROM post p, unnest(p.tags) AS t(tag)');
SELECT ivm.create_view('ct_tag_counts', 'SELECT tag, count(*) AS n FROM post p CROSS JOIN LATERAL unnest(p.tags) tag GROUP BY tag');
SELECT ivm.create_view('ct_doc_items', 'SELECT p.id, e.value::int AS v, g FROM post p, jsonb_array_elements(p.doc) e, generate_series(1, p.n) g WHERE g <= 2');
SELECT ivm.create_view('ct_tag_order', 'SELECT p.id, x, o FROM post p, unnest(p.tags) WITH ORDINALITY AS u(x, o)');
SELECT ivm.create_view('ct_has_c', 'SELECT q.id FROM post q WHERE ''c'' IN (SELECT x FROM post r, unnest(r.tags) x WHERE r.id = q.id)');
SELECT name::text, bool_or(line ~ 'keyed by') AS keyed FROM ivm.views, ivm.explain_view(name::text) line
 WHERE name::text LIKE 'ct\_%' AND name::text NOT IN ('ct_none', 'ct_const_arm', 'ct_minus_const') GROUP BY 1 ORDER BY 1;
SELECT * FROM ct_tag_counts ORDER BY tag;
UPDATE post SET tags = tags || '{d}' WHERE id = 1;
INSERT INTO post VALUES (5, '{c,c}', '[5]', 4);
DELETE FROM post WHERE id = 2;
UPDATE post SET doc = '[7, 8, 9]', n = 1 WHERE id = 3;
UPDATE post SET id = 10 WHERE id = 4;
UPDATE post SET n = n + 1;
SELECT name::text, ivm_check(name) FROM ivm.views WHERE name::text LIKE 'ct%' ORDER BY 1;
SELECT * FROM ct_tag_counts ORDER BY tag;
SELECT * FROM ct_tag_order ORDER BY id, o;
-- over the columns of a subquery, a view or a WITH query: the arguments
-- read what the item computes, once it is expanded or a part
CREATE VIEW ct_post_sizes AS SELECT n, count(*)::int AS k FROM post GROUP BY n;
SELECT ivm.create_view('ct_sub_tags', 'SELECT s.id, x FROM (SELECT id, tags FROM post WHERE id > 1) s, unnest(s.tags) x');
SELECT ivm.create_view('ct_size_series', 'SELECT s.n, g FROM ct_post_sizes s, generate_series(1, s.k) g');
SELECT ivm.create_view('ct_with_series', 'WITH w AS (SELECT DISTINCT n FROM post) SELECT w.n, g FROM w, generate_series(0, w.n) g');
INSERT INTO post VALUES (6, '{e,f}', '[]', 1), (7, '{g}', '[]', 2);
UPDATE post SET tags = '{h}', n = 3 WHERE id = 5;
DELETE FROM post WHERE id = 6;
SELECT differs('ct_sub_tags', 'SELECT s.id, x FROM (SELECT id, tags FROM post WHERE id > 1) s, unnest(s.tags) x'),
       differs('ct_size_series', 'SELECT s.n, g FROM ct_post_sizes s, generate_series(1, s.k) g'),
       differs('ct_with_series', 'WITH w AS (SELECT DISTINCT n FROM post) SELECT w.n, g FROM w, generate_series(0, w.n) g');
SELECT * FROM ct_size_series ORDER BY 1, 2;

-- Still refused: a function that may return other rows another time, one
-- under an outer join or reading a query above.
CREATE FUNCTION ct_stable() RETURNS SETOF int LANGUAGE sql STABLE AS 'SELECT generate_series(1, 3)';
SELECT refused('SELECT ct.a, g FROM ct, ct_stable() g');
SELECT refused('SELECT ct.a, v FROM ct, (VALUES (random())) x(v)');
SELECT refused('SELECT ct.a, g FROM ct LEFT JOIN generate_series(1, ct.a) g ON true');
SELECT refused($$SELECT id FROM post p WHERE EXISTS (SELECT 1 FROM unnest(p.tags) x WHERE x = 'a')$$);

SELECT ivm.drop_view(name::text) FROM ivm.views WHERE name::text LIKE 'ct%';
DROP FUNCTION ct_stable();
DROP VIEW ct_post_sizes;
DROP TABLE ct, post;
