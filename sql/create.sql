-- Creating, reading, refreshing and dropping views; select-project views.
CREATE TABLE items (id int, name text, price numeric, tag text);
INSERT INTO items VALUES (1, 'apple', 1.50, 'fruit'), (2, 'pear', 2.00, 'fruit'),
    (3, 'leek', 0.99, NULL), (3, 'leek', 0.99, NULL), (4, NULL, NULL, 'misc');

-- create_view returns the number of rows, duplicates included
SELECT ivm.create_view('cheap', 'SELECT name, price * 2 AS double_price, tag FROM items WHERE price < 2');
SELECT * FROM cheap ORDER BY name;
SELECT ivm_check('cheap');
-- same column names and types as the query
\d cheap
SELECT name, algorithm, definition, base_relations FROM ivm.views;

-- inserts, updates and deletes are followed, duplicates and NULLs too
INSERT INTO items VALUES (5, 'plum', 0.50, 'fruit'), (5, 'plum', 0.50, 'fruit');
UPDATE items SET price = 0.10 WHERE id = 2;
DELETE FROM items WHERE id = 3;
INSERT INTO items VALUES (6, NULL, 1.00, NULL);
SELECT * FROM cheap ORDER BY name NULLS FIRST, tag NULLS FIRST;
SELECT ivm_check('cheap');

-- an UPDATE that changes nothing leaves the stored counts alone
SELECT ctid AS before_ctid FROM cheap__ivm_data WHERE name = 'plum' \gset
UPDATE items SET name = name;
SELECT ctid = :'before_ctid' AS storage_untouched FROM cheap__ivm_data WHERE name = 'plum';
-- the derivation count is stored, once per distinct tuple
SELECT name, __ivm_count FROM cheap__ivm_data ORDER BY name NULLS FIRST;

-- DISTINCT: each tuple once, still counted underneath
SELECT ivm.create_view('tags', 'SELECT DISTINCT tag FROM items');
SELECT * FROM tags ORDER BY tag;
SELECT tag, __ivm_count FROM tags__ivm_data ORDER BY tag;
DELETE FROM items WHERE id = 5;
SELECT * FROM tags ORDER BY tag;
DELETE FROM items WHERE tag = 'fruit';
SELECT * FROM tags ORDER BY tag;
SELECT ivm_check('tags');

-- ORDER BY is accepted and ignored (a view is a multiset)
SELECT ivm.create_view('ordered', 'SELECT id FROM items ORDER BY name');
SELECT ivm_check('ordered');

-- schema-qualified names and quoted identifiers
CREATE SCHEMA "Other Schema";
SELECT ivm.create_view('"Other Schema"."Mixed Case"', 'SELECT id AS "Id", name AS "select" FROM items');
SELECT * FROM "Other Schema"."Mixed Case" ORDER BY 1;
INSERT INTO items VALUES (7, 'kiwi', 3, NULL);
SELECT * FROM "Other Schema"."Mixed Case" ORDER BY 1;

-- refresh recomputes and returns the row count
SELECT ivm.refresh_view('cheap');
SELECT ivm_check('cheap');

-- drop removes the view, its storage, its triggers and its catalog entry
SELECT ivm.drop_view('"Other Schema"."Mixed Case"');
SELECT ivm.drop_view('ordered');
SELECT ivm.drop_view('tags');
SELECT ivm.drop_view('cheap');
SELECT count(*) AS views_left FROM ivm.views;
SELECT relname FROM pg_class WHERE relname LIKE '%ivm_%' AND relnamespace <> 'ivm'::regnamespace;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'items'::regclass;
SELECT ivm.drop_view('cheap');
SELECT ivm.drop_view('items');
DROP SCHEMA "Other Schema";
DROP TABLE items;
