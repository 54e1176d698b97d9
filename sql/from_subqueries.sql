-- Subqueries in FROM that aggregate, are DISTINCT or set operations become
-- incrementally maintained views of their own, parts of the view
-- (ivm.views.part_of), which the view then reads; select-project-join
-- subqueries are expanded into the query instead (plain_views.sql).
CREATE TABLE sales (shop int, item text, qty int);
CREATE TABLE shops (id int, city text);
INSERT INTO sales VALUES (1, 'pen', 2), (1, 'ink', 1), (2, 'pen', 5), (3, NULL, 1), (NULL, 'pen', 4);
INSERT INTO shops VALUES (1, 'oslo'), (2, 'rome'), (4, 'kyiv');

SELECT ivm.create_view('shop_totals', 'SELECT s.city, t.total, t.lines FROM shops s JOIN (SELECT shop, sum(qty) AS total, count(*) AS lines FROM sales GROUP BY shop) t ON t.shop = s.id');
SELECT ivm.create_view('shop_items', 'SELECT s.city, i.item FROM shops s LEFT JOIN (SELECT DISTINCT shop, item FROM sales) i ON i.shop = s.id');
SELECT ivm.create_view('known_ids', 'SELECT k.id, count(*) AS n FROM (SELECT id FROM shops UNION SELECT shop FROM sales) k GROUP BY k.id');
-- a WITH query read twice: one part
SELECT ivm.create_view('shop_ranks', 'WITH t AS (SELECT shop, sum(qty) AS total FROM sales GROUP BY shop) SELECT a.shop, b.shop AS below FROM t a JOIN t b ON b.total < a.total');
SELECT name, part_of FROM ivm.views ORDER BY name::text;
SELECT * FROM shop_totals ORDER BY 1;
SELECT * FROM shop_items ORDER BY 1, 2;
SELECT * FROM known_ids ORDER BY 1;

INSERT INTO sales VALUES (4, 'pen', 3), (1, 'pen', 1);
DELETE FROM sales WHERE shop = 2;
UPDATE shops SET id = 3 WHERE city = 'rome';
SELECT * FROM shop_totals ORDER BY 1;
SELECT * FROM shop_items ORDER BY 1, 2;
SELECT * FROM shop_ranks ORDER BY 1, 2;
SELECT ivm_check('shop_totals'), ivm_check('shop_items'), ivm_check('known_ids'), ivm_check('shop_ranks'),
       ivm_check('shop_totals__ivm_part1'), ivm_check('shop_items__ivm_part1');
SELECT ivm.drop_view('shop_ranks');

-- among outer joins, and with an outer join inside, a subquery is a part
-- too: so a nullable side may be a join, and a FULL JOIN may be aggregated
SELECT ivm.create_view('shop_lines', 'SELECT s.city, j.item, j.qty FROM shops s LEFT JOIN (SELECT x.shop, x.item, x.qty FROM sales x JOIN sales y ON y.item = x.item AND y.shop IS DISTINCT FROM x.shop) j ON j.shop = s.id');
SELECT ivm.create_view('coverage', 'SELECT f.city IS NULL AS unknown_shop, count(*) AS n FROM (SELECT s.city, x.qty FROM shops s FULL JOIN sales x ON x.shop = s.id) f GROUP BY 1');
SELECT * FROM coverage ORDER BY 1;
INSERT INTO sales VALUES (7, 'pen', 1);
DELETE FROM shops WHERE id = 4;
SELECT * FROM coverage ORDER BY 1;
SELECT ivm_check('shop_lines'), ivm_check('coverage');
SELECT ivm.drop_view('shop_lines'), ivm.drop_view('coverage');

-- a part is read by its view: it is dropped with it, not alone
SELECT ivm_error($$SELECT ivm.drop_view('shop_totals__ivm_part1')$$);
SELECT ivm.drop_view('shop_totals');
DROP VIEW shop_items;
SELECT name FROM ivm.views ORDER BY name::text;
-- ivm.alter_view to a definition without the subquery drops the part
SELECT ivm.alter_view('known_ids', 'SELECT id, count(*) AS n FROM shops GROUP BY id');
SELECT name FROM ivm.views ORDER BY name::text;
SELECT ivm_check('known_ids');
-- ivm.alter_view to a definition with a subquery makes its part
SELECT ivm.alter_view('known_ids', 'SELECT k.id, k.n FROM (SELECT id, count(*) AS n FROM shops GROUP BY id) k WHERE k.n > 0');
SELECT name, part_of FROM ivm.views ORDER BY name::text;
INSERT INTO shops VALUES (1, 'bergen');
SELECT * FROM known_ids ORDER BY 1;
SELECT ivm_check('known_ids');
-- what stays refused: a subquery with LIMIT
SELECT refused($$SELECT t.shop FROM (SELECT shop FROM sales ORDER BY qty LIMIT 2) t$$);
SELECT ivm.drop_view('known_ids');
DROP TABLE sales, shops;
