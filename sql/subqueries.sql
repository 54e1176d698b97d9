-- Semi-joins and anti-joins: EXISTS, NOT EXISTS, IN, NOT IN (with its NULL
-- semantics) and op ANY/ALL in WHERE, correlated, nested and mixed.  A
-- change inside a subquery is the difference of the view's rows over the
-- outer rows it can concern, now and before the statement.
CREATE TABLE items (id int, kind int, tag text);
CREATE TABLE kinds (id int, active bool);
CREATE TABLE tags (tag text, kind int);
INSERT INTO items VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'a'), (4, NULL, 'c'), (5, 3, NULL), (5, 3, NULL);
INSERT INTO kinds VALUES (1, true), (2, false), (2, true);
INSERT INTO tags VALUES ('a', 1), ('b', NULL);

SELECT ivm.create_view('known', 'SELECT id, tag FROM items i WHERE EXISTS (SELECT 1 FROM kinds k WHERE k.id = i.kind AND k.active)');
SELECT ivm.create_view('unknown', 'SELECT id, tag FROM items i WHERE NOT EXISTS (SELECT 1 FROM kinds k WHERE k.id = i.kind)');
SELECT ivm.create_view('tagged', 'SELECT id FROM items WHERE tag IN (SELECT tag FROM tags)');
SELECT ivm.create_view('untagged', 'SELECT id, kind FROM items WHERE kind NOT IN (SELECT kind FROM tags)');
SELECT ivm.create_view('kinds_without_items', 'SELECT k.id FROM kinds k WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.kind = k.id AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.tag = i.tag))');
SELECT ivm.create_view('top_items', 'SELECT id FROM items i WHERE i.id >= ALL (SELECT j.id FROM items j WHERE j.kind = i.kind) OR i.tag = ANY (SELECT tag FROM tags WHERE kind > 1)');
SELECT ivm.create_view('known_per_kind', 'SELECT kind, count(*) AS n FROM items i WHERE EXISTS (SELECT 1 FROM kinds k WHERE k.id = i.kind) GROUP BY kind');
-- uncorrelated, reading no column of its table
SELECT ivm.create_view('while_tagged', 'SELECT id FROM items WHERE EXISTS (SELECT FROM tags)');
-- explain_view says how a table read inside a subquery is maintained
SELECT line FROM ivm.explain_view('unknown') AS line WHERE line LIKE 'on %' OR line LIKE '  read %';
SELECT * FROM known ORDER BY 1;
SELECT * FROM unknown ORDER BY 1;
SELECT * FROM tagged ORDER BY 1;
-- NOT IN over a set holding a NULL is never true
SELECT * FROM untagged ORDER BY 1;
SELECT * FROM kinds_without_items ORDER BY 1;
SELECT * FROM top_items ORDER BY 1;

-- the NULL leaves the NOT IN set: rows come
DELETE FROM tags WHERE kind IS NULL;
SELECT * FROM untagged ORDER BY 1;
-- one of two matches goes: nothing moves; the last goes: rows move
DELETE FROM kinds WHERE id = 2 AND active;
SELECT * FROM known ORDER BY 1;
DELETE FROM kinds WHERE id = 2;
SELECT * FROM known ORDER BY 1;
SELECT * FROM unknown ORDER BY 1;
-- a match comes
INSERT INTO kinds VALUES (3, true), (NULL, true);
SELECT * FROM known ORDER BY 1;
SELECT * FROM unknown ORDER BY 1;
SELECT * FROM known_per_kind ORDER BY 1;
-- the doubly nested anti-join follows changes at each level
INSERT INTO tags VALUES ('c', 3), (NULL, 2);
UPDATE items SET tag = 'z' WHERE id = 1;
SELECT * FROM kinds_without_items ORDER BY 1;
SELECT * FROM untagged ORDER BY 1;
SELECT * FROM top_items ORDER BY 1;
SELECT ivm_check('known'), ivm_check('unknown'), ivm_check('tagged'), ivm_check('untagged'),
       ivm_check('kinds_without_items'), ivm_check('top_items'), ivm_check('known_per_kind');

-- the outer and the inner relation in one statement, a self-reference
WITH k AS (INSERT INTO kinds VALUES (4, false) RETURNING id) INSERT INTO items SELECT 6, id, 'a' FROM k;
UPDATE items SET id = id + 10 WHERE kind = 3;
DELETE FROM tags;
SELECT ivm_check('known'), ivm_check('unknown'), ivm_check('tagged'), ivm_check('untagged'),
       ivm_check('kinds_without_items'), ivm_check('top_items'), ivm_check('known_per_kind');
SELECT * FROM untagged ORDER BY 1;
SELECT count(*) FROM while_tagged;
INSERT INTO tags VALUES ('a', 1), ('a', 1);
DELETE FROM tags WHERE ctid = (SELECT min(ctid) FROM tags);
SELECT count(*) FROM while_tagged;
SELECT ivm_check('while_tagged');

-- A WITH query read by a subquery (in WHERE, or a subquery in FROM that
-- aggregates) becomes a part, as one read by a set operation's arms does
-- (they were refused: "WITH", "subqueries in FROM")
CREATE TABLE wr (a int, b int);
CREATE TABLE ws (b int, d int);
INSERT INTO wr SELECT g % 5, g % 3 FROM generate_series(1, 20) g;
INSERT INTO ws SELECT g % 4, g FROM generate_series(1, 12) g;
SET client_min_messages = warning;
SELECT ivm.create_view('with_in', 'WITH w1 AS (SELECT a, b FROM wr WHERE a > 0) SELECT d FROM ws WHERE d IN (SELECT a FROM w1)');
SELECT ivm.create_view('with_in_grouped', 'WITH w1 AS (SELECT a, b FROM wr) SELECT d FROM ws WHERE d IN (SELECT sum(a) FROM w1 GROUP BY b)');
SELECT ivm.create_view('with_from_grouped', 'WITH w1 AS (SELECT a, b FROM wr) SELECT ws.d, q.s FROM ws, (SELECT b, sum(a) AS s FROM w1 GROUP BY b) q WHERE q.b = ws.b');
SELECT ivm.create_view('with_both', 'WITH w1 AS (SELECT a, b FROM wr) SELECT w1.a, ws.d FROM w1 JOIN ws ON ws.b = w1.b WHERE NOT EXISTS (SELECT 1 FROM w1 x WHERE x.a = ws.d)');
-- one that needs a part read only by another WITH query (which was then
-- refused as a base relation)
SELECT ivm.create_view('with_chain', 'WITH w1 AS (SELECT b, count(*) AS n FROM wr GROUP BY b), w2 AS (SELECT x.b, x.n, y.n AS m FROM w1 x LEFT JOIN w1 y ON y.b = x.b + 1) SELECT w2.b, w2.m, ws.d FROM w2 JOIN ws ON ws.b = w2.b');
-- a subquery in FROM that needs a part inside one that is expanded (it
-- was refused as a base relation)
SELECT ivm.create_view('nested_from', 'SELECT x1.b, x1.n, x1.d FROM (SELECT x2.b, x2.n, ws.d FROM (SELECT b, count(*) AS n FROM wr GROUP BY b) x2, ws WHERE ws.b = x2.b) x1 WHERE x1.d > 2');
RESET client_min_messages;
SELECT name, part_of IS NOT NULL AS is_part FROM ivm.views WHERE name::text LIKE 'with\_%' ORDER BY 1;
INSERT INTO wr VALUES (7, 1), (8, 2), (3, 0);
DELETE FROM wr WHERE a = 1;
UPDATE ws SET d = d + 1 WHERE b = 2;
INSERT INTO ws VALUES (0, 13), (1, 40);
SELECT ivm_check('with_in') AS with_in, ivm_check('with_in_grouped') AS with_in_grouped,
       ivm_check('with_from_grouped') AS with_from_grouped, ivm_check('with_both') AS with_both,
       ivm_check('with_chain') AS with_chain, ivm_check('nested_from') AS nested_from;
SELECT ivm.drop_view('with_in'), ivm.drop_view('with_in_grouped'), ivm.drop_view('with_from_grouped'), ivm.drop_view('with_both'),
       ivm.drop_view('with_chain'), ivm.drop_view('nested_from');
DROP TABLE wr, ws;

-- an outer join in a subquery's FROM: the join becomes a part, which the
-- subquery reads (was refused: "LEFT JOIN inside a subquery")
SET client_min_messages = warning;
SELECT ivm.create_view('kind_tags', 'SELECT id FROM items i WHERE EXISTS (SELECT 1 FROM kinds k LEFT JOIN tags t ON t.kind = k.id WHERE k.id = i.kind AND t.tag IS NULL)');
SELECT ivm.create_view('kind_tags_in', 'SELECT id FROM items WHERE tag NOT IN (SELECT coalesce(t.tag, ''none'') FROM tags t RIGHT JOIN kinds k ON t.kind = k.id WHERE k.active)');
RESET client_min_messages;
SELECT * FROM kind_tags ORDER BY id;
INSERT INTO tags VALUES ('d', 2), ('e', 3);
INSERT INTO kinds VALUES (3, true), (4, false);
INSERT INTO items VALUES (7, 4, 'd'), (8, 2, 'none');
DELETE FROM tags WHERE tag = 'a';
UPDATE kinds SET active = NOT active WHERE id = 2;
SELECT ivm_check('kind_tags') AS kind_tags, ivm_check('kind_tags_in') AS kind_tags_in;
SELECT * FROM kind_tags ORDER BY id;
SELECT ivm.drop_view('kind_tags'), ivm.drop_view('kind_tags_in');

-- EXISTS and NOT EXISTS in the select list, a value: kept as the scalar
-- subquery (SELECT 0 < count(*) ...), correlated (a LEFT JOIN, false
-- standing in for an outer row without inner rows) or not
SELECT ivm.create_view('item_flags', 'SELECT i.id, EXISTS (SELECT 1 FROM kinds k WHERE k.id = i.kind AND k.active) AS active_kind, NOT EXISTS (SELECT FROM tags t WHERE t.tag = i.tag) AS untagged, EXISTS (SELECT 1 FROM tags WHERE kind IS NULL) AS loose_tags FROM items i');
SELECT ivm.create_view('kind_flags', 'SELECT i.kind, count(*) AS n, EXISTS (SELECT DISTINCT k.active FROM kinds k WHERE k.id = i.kind ORDER BY 1) AS known FROM items i GROUP BY i.kind');
SELECT definition FROM ivm.views WHERE name = 'item_flags__ivm_part1'::regclass;
SELECT * FROM item_flags ORDER BY id, active_kind;
INSERT INTO kinds VALUES (5, true);
UPDATE items SET kind = 5 WHERE id = 8;
INSERT INTO tags VALUES ('c', NULL);
UPDATE kinds SET active = NOT active;
SELECT ivm_check('item_flags') AS item_flags, ivm_check('kind_flags') AS kind_flags;
SELECT * FROM item_flags ORDER BY id, active_kind;
DELETE FROM kinds WHERE id IN (2, 5);
DELETE FROM tags WHERE kind IS NULL;
SELECT ivm_check('item_flags') AS item_flags, ivm_check('kind_flags') AS kind_flags;
SELECT * FROM item_flags ORDER BY id, active_kind;
SELECT * FROM kind_flags ORDER BY kind;
SELECT ivm.drop_view('item_flags'), ivm.drop_view('kind_flags');

-- a scalar subquery in HAVING correlated otherwise than by equality with a
-- group key (scalar_subqueries.sql: over the domain of the outer column)
SELECT ivm.create_view('crowded_kinds', 'SELECT kind, count(*) AS n FROM items i GROUP BY kind HAVING count(*) > (SELECT count(*) FROM kinds k WHERE k.id > i.kind) - 3');
INSERT INTO kinds VALUES (0, true), (-1, false);
INSERT INTO items VALUES (100, 0, 'z'), (101, 0, 'z'), (102, NULL, 'z');
DELETE FROM kinds WHERE id = 3;
SELECT ivm_check('crowded_kinds') AS crowded_kinds;
SELECT * FROM crowded_kinds ORDER BY kind;
SELECT ivm.drop_view('crowded_kinds');

-- a HAVING condition that reads no aggregate holds for all of a group's
-- rows alike: one with subqueries is kept as the same condition in WHERE
-- (compared with the definitions as written)
SELECT ivm.create_view('active_kinds', 'SELECT kind, count(*) AS n FROM items i GROUP BY kind HAVING kind IN (SELECT id FROM kinds WHERE active) AND count(*) > 1');
SELECT ivm.create_view('untagged_kinds', 'SELECT kind, count(*) AS n FROM items i GROUP BY kind HAVING NOT EXISTS (SELECT 1 FROM tags t WHERE t.kind = i.kind)');
INSERT INTO items VALUES (103, 2, 'y'), (104, 4, 'y'), (105, 4, 'y');
UPDATE kinds SET active = NOT active WHERE id IN (1, 4);
INSERT INTO tags VALUES ('d', 0);
DELETE FROM tags WHERE kind = 1;
SELECT (SELECT count(*) FROM ((SELECT * FROM active_kinds EXCEPT ALL (SELECT kind, count(*) AS n FROM items i GROUP BY kind HAVING kind IN (SELECT id FROM kinds WHERE active) AND count(*) > 1))
        UNION ALL ((SELECT kind, count(*) AS n FROM items i GROUP BY kind HAVING kind IN (SELECT id FROM kinds WHERE active) AND count(*) > 1) EXCEPT ALL SELECT * FROM active_kinds)) d) AS active_kinds_differ,
       (SELECT count(*) FROM ((SELECT * FROM untagged_kinds EXCEPT ALL (SELECT kind, count(*) AS n FROM items i GROUP BY kind HAVING NOT EXISTS (SELECT 1 FROM tags t WHERE t.kind = i.kind)))
        UNION ALL ((SELECT kind, count(*) AS n FROM items i GROUP BY kind HAVING NOT EXISTS (SELECT 1 FROM tags t WHERE t.kind = i.kind)) EXCEPT ALL SELECT * FROM untagged_kinds)) d) AS untagged_kinds_differ;
SELECT * FROM active_kinds ORDER BY kind;
SELECT * FROM untagged_kinds ORDER BY kind;
SELECT ivm.drop_view('active_kinds'), ivm.drop_view('untagged_kinds');

-- IN, NOT IN, op ANY and op ALL between columns declared NOT NULL (and not
-- on an outer join's nullable side) are never unknown: a change inside is
-- found by the comparison with the changed rows (for ALL its negation),
-- which the planner can start from (TPC-H Q20's and Q16's shapes);
-- elsewhere by IS NOT FALSE (IS NOT TRUE for ALL)
CREATE TABLE parts (pkey int PRIMARY KEY, name text NOT NULL);
CREATE TABLE supplies (part int NOT NULL, supplier int NOT NULL);
CREATE TABLE suppliers (id int PRIMARY KEY, nation text);
INSERT INTO parts SELECT i, CASE WHEN i % 3 = 0 THEN 'forest ' ELSE 'lake ' END || i FROM generate_series(1, 12) i;
INSERT INTO supplies SELECT i % 12 + 1, i % 5 + 1 FROM generate_series(1, 30) i;
INSERT INTO suppliers SELECT i, CASE WHEN i % 2 = 0 THEN 'x' ELSE 'y' END FROM generate_series(1, 6) i;
SELECT ivm.create_view('forest_suppliers', 'SELECT id, nation FROM suppliers WHERE id IN (SELECT supplier FROM supplies WHERE part IN (SELECT pkey FROM parts WHERE name LIKE ''forest%''))');
SELECT ivm.create_view('supplies_not_x', 'SELECT part, supplier FROM supplies WHERE supplier NOT IN (SELECT id FROM suppliers WHERE nation = ''x'')');
SELECT ivm.create_view('supplies_above_y', 'SELECT part, supplier FROM supplies WHERE supplier > ANY (SELECT id FROM suppliers WHERE nation = ''y'')');
SELECT ivm.create_view('supplies_above_all_y', 'SELECT part, supplier FROM supplies WHERE supplier > ALL (SELECT id FROM suppliers WHERE nation = ''y'')');
SELECT ivm.create_view('suppliers_not_forest', 'SELECT s.id, p.part FROM suppliers s LEFT JOIN supplies p ON p.supplier = s.id WHERE p.part NOT IN (SELECT pkey FROM parts WHERE name LIKE ''forest%'')');
SELECT v, count(*) FILTER (WHERE line LIKE '%IS NOT FALSE%' OR line LIKE '%IS NOT TRUE%') AS unknown_tested, count(*) FILTER (WHERE line LIKE '%IN (%') > 0 AS reads_in
FROM unnest(ARRAY['forest_suppliers', 'supplies_not_x', 'supplies_above_y', 'supplies_above_all_y', 'suppliers_not_forest']) v, ivm.explain_view(v) line GROUP BY v ORDER BY v;
UPDATE parts SET name = 'forest ' || pkey WHERE pkey IN (1, 2);
UPDATE parts SET name = 'lake' WHERE pkey = 3;
INSERT INTO suppliers VALUES (7, 'x'), (8, NULL);
UPDATE suppliers SET nation = 'y' WHERE id = 2;
INSERT INTO supplies VALUES (1, 7), (13, 6);
SELECT ivm_check('forest_suppliers'), ivm_check('supplies_not_x'), ivm_check('supplies_above_y'), ivm_check('supplies_above_all_y'),
       ivm_check('suppliers_not_forest');
-- no forest part left, then one: rows whose supplier supplies nothing
-- (NULL NOT IN an empty set is true, of a set with rows unknown) come and go
UPDATE parts SET name = 'lake' WHERE name LIKE 'forest%';
SELECT count(*) FROM suppliers_not_forest WHERE part IS NULL;
INSERT INTO parts VALUES (20, 'forest 20');
SELECT count(*) FROM suppliers_not_forest WHERE part IS NULL;
DELETE FROM suppliers WHERE nation = 'y';
SELECT ivm_check('forest_suppliers'), ivm_check('supplies_not_x'), ivm_check('supplies_above_y'), ivm_check('supplies_above_all_y'),
       ivm_check('suppliers_not_forest');
SELECT ivm.drop_view('forest_suppliers'), ivm.drop_view('supplies_not_x'), ivm.drop_view('supplies_above_y'),
       ivm.drop_view('supplies_above_all_y'), ivm.drop_view('suppliers_not_forest');
DROP TABLE parts, supplies, suppliers;

-- NOT IN over an aggregating subquery (a part view of its own): its column
-- is never NULL while the table's is declared NOT NULL, and the outer view
-- filters a change by IN alone; once the constraint goes and a NULL group
-- comes, NOT IN is unknown for every order, and the view must follow
CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL);
INSERT INTO orders SELECT i, i % 10 FROM generate_series(1, 50) i;
CREATE TABLE lines (order_id int NOT NULL, qty int NOT NULL);
INSERT INTO lines SELECT i % 50 + 1, 1 + i % 7 FROM generate_series(1, 150) i;
SELECT ivm.create_view('small_orders', 'SELECT o.id FROM orders o
    WHERE o.id NOT IN (SELECT order_id FROM lines GROUP BY order_id HAVING sum(qty) > 12)');
SELECT count(*) FROM small_orders;
INSERT INTO lines VALUES (3, 20);
SELECT count(*), ivm_check('small_orders') FROM small_orders;
ALTER TABLE lines ALTER order_id DROP NOT NULL;
INSERT INTO lines VALUES (NULL, 50);
SELECT count(*), ivm_check('small_orders') FROM small_orders;
DELETE FROM lines WHERE order_id IS NULL;
SELECT count(*), ivm_check('small_orders') FROM small_orders;
SELECT ivm.drop_view('small_orders');
DROP TABLE orders, lines;
-- the same through a view of the user's, redefined to show a nullable column
CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL);
INSERT INTO orders SELECT i, i % 10 FROM generate_series(1, 50) i;
CREATE TABLE lines (order_id int NOT NULL, qty int NOT NULL);
INSERT INTO lines SELECT i % 40 + 1, 1 + i % 7 FROM generate_series(1, 150) i;
SELECT ivm.create_view('ordered', 'SELECT order_id FROM lines GROUP BY order_id');
SELECT ivm.create_view('unordered', 'SELECT id FROM orders WHERE id NOT IN (SELECT order_id FROM ordered)');
INSERT INTO orders VALUES (51, 1);
SELECT count(*), ivm_check('unordered') FROM unordered;
SELECT ivm.alter_view('ordered', 'SELECT CASE WHEN qty < 7 THEN order_id END AS order_id FROM lines GROUP BY 1');
SELECT count(*), ivm_check('unordered') FROM unordered;
INSERT INTO orders VALUES (52, 1);
UPDATE lines SET qty = 1 WHERE qty = 7;
SELECT count(*), ivm_check('unordered') FROM unordered;
SELECT ivm.drop_view('unordered'), ivm.drop_view('ordered');
DROP TABLE orders, lines;

-- what stays refused
SELECT refused($$SELECT id FROM items i WHERE kind = (SELECT max(id) FROM kinds k WHERE k.id = i.kind UNION SELECT 1)$$);
SELECT refused($$SELECT id FROM items i WHERE EXISTS (SELECT 1 FROM kinds k WHERE k.id > i.kind GROUP BY k.id)$$);
SELECT refused($$SELECT id FROM items i WHERE kind IN (SELECT id FROM kinds k WHERE k.id = i.id UNION SELECT kind FROM tags)$$);
SELECT refused($$SELECT id FROM items WHERE kind IN (SELECT id FROM kinds LIMIT 1)$$);
SELECT refused($$SELECT id, EXISTS (SELECT 1 FROM kinds LIMIT 1) AS any_kind FROM items$$);
SELECT refused($$SELECT kind, count(*) FROM items i GROUP BY kind HAVING count(*) > (SELECT count(*) FROM kinds k WHERE k.id > i.kind OR k.active)$$);
SELECT refused($$SELECT kind, count(*) FROM items i GROUP BY kind HAVING count(*) > ALL (SELECT id FROM kinds)$$);
SELECT refused($$SELECT id FROM items i WHERE EXISTS (SELECT 1 FROM kinds k LEFT JOIN tags t ON t.kind = k.id AND t.kind = i.kind)$$);
SELECT refused($$SELECT id FROM items i WHERE EXISTS (SELECT 1 FROM kinds k WHERE k.id = i.kind AND random() > 0.5)$$);

SELECT ivm.drop_view('known'), ivm.drop_view('unknown'), ivm.drop_view('tagged'), ivm.drop_view('untagged'),
       ivm.drop_view('kinds_without_items'), ivm.drop_view('top_items'), ivm.drop_view('known_per_kind'),
       ivm.drop_view('while_tagged');
DROP TABLE items, kinds, tags;
