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
-- a grouped subquery in FROM whose alias renames its columns, grouped again
-- (TPC-H's Q13): the part's stored group keys follow its columns, and the
-- alias list no longer names them ("__ivm_cnt" was ambiguous)
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name text);
CREATE TABLE orders (o_orderkey int PRIMARY KEY, o_custkey int, o_comment text);
INSERT INTO customer SELECT g, 'c' || g FROM generate_series(1, 30) g;
INSERT INTO orders SELECT g, 1 + g % 24, CASE WHEN g % 7 = 0 THEN 'special requests' ELSE 'x' END
  FROM generate_series(1, 90) g;
SELECT ivm.create_view('q13', $$SELECT c_count, count(*) AS custdist
  FROM (SELECT c_custkey, count(o_orderkey)
          FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
         GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
 GROUP BY c_count$$);
SELECT * FROM q13 ORDER BY custdist DESC, c_count DESC;
INSERT INTO orders VALUES (1000, 3, 'x'), (1001, 28, 'special requests'), (1002, 29, 'y');
DELETE FROM orders WHERE o_orderkey % 11 = 0;
UPDATE orders SET o_comment = 'special requests' WHERE o_orderkey % 5 = 0;
DELETE FROM customer WHERE c_custkey = 7;
SELECT ivm_check('q13');
SELECT * FROM q13 ORDER BY custdist DESC, c_count DESC;
SELECT ivm.drop_view('q13');
DROP TABLE customer, orders;

-- A WITH query with a WITH query of its own, and a plain view holding one:
-- the inner ones are expanded first.  One that aggregates makes the WITH
-- query holding it a part, and itself a part of that part.
CREATE TABLE nw (a int, b int);
INSERT INTO nw SELECT i % 5, i % 3 FROM generate_series(1, 20) i;
SELECT ivm.create_view('nw_nested', 'WITH x AS (WITH y AS (SELECT a, b FROM nw WHERE b > 0) SELECT y1.a, y2.b FROM y y1 JOIN y y2 ON y1.a = y2.b) SELECT x.a, nw.b FROM x JOIN nw ON x.b = nw.a');
CREATE VIEW nw_plain AS WITH z AS (SELECT a, b FROM nw WHERE a < 4) SELECT a, b FROM z;
SELECT ivm.create_view('nw_view', 'SELECT p.a, nw.b FROM nw_plain p JOIN nw ON p.a = nw.b');
SELECT ivm.create_view('nw_counts', 'WITH x AS (WITH y AS (SELECT a, count(*) AS n FROM nw GROUP BY a) SELECT y.a, y.n, nw.b FROM y JOIN nw ON nw.a = y.n) SELECT a, n, b FROM x');
SELECT name, part_of FROM ivm.views WHERE name::text LIKE 'nw\_counts%' ORDER BY 1;
INSERT INTO nw VALUES (3, 3), (4, 1), (2, 2);
DELETE FROM nw WHERE a = 0;
UPDATE nw SET b = b + 1 WHERE a = 4;
SELECT ivm_check('nw_nested'), ivm_check('nw_view'), ivm_check('nw_counts');
SELECT ivm.drop_view('nw_counts');
SELECT ivm.drop_view('nw_view');
SELECT ivm.drop_view('nw_nested');
DROP VIEW nw_plain;
DROP TABLE nw;

-- A WITH query read inside a join on the nullable side of an outer join:
-- that join becomes a subquery, whose reference still reads the part.
CREATE TABLE ws (d int);
CREATE TABLE wt (d int);
INSERT INTO ws VALUES (1), (2), (3), (3);
INSERT INTO wt VALUES (1), (2), (2);
SELECT ivm.create_view('w_nullable', 'WITH w AS (SELECT DISTINCT d FROM ws) SELECT x.d, y.d AS e FROM w x LEFT JOIN (wt JOIN w y ON y.d = wt.d) ON y.d = x.d');
SELECT * FROM w_nullable ORDER BY 1, 2;
INSERT INTO wt VALUES (3);
DELETE FROM ws WHERE d = 1;
SELECT ivm_check('w_nullable'), ivm_check('w_nullable__ivm_part1');
SELECT ivm.drop_view('w_nullable');
DROP TABLE ws, wt;

-- Parts nest as deep as subqueries do; all are named after the view the
-- user named, cut short where a name would not fit.
CREATE TABLE deep (a int, b int);
INSERT INTO deep SELECT i % 5, i % 3 FROM generate_series(1, 30) i;
SELECT ivm.create_view('a_view_name_of_fifty_two_bytes_the_longest_that_fits',
  'SELECT a, n FROM (SELECT a, count(*) AS n FROM (SELECT DISTINCT a, b FROM (SELECT a, b FROM deep UNION SELECT b, a FROM (SELECT a, max(b) AS b FROM (SELECT DISTINCT a, b FROM deep) q4 GROUP BY a) q3) q2) q1 GROUP BY a) q0');
SELECT name, part_of FROM ivm.views ORDER BY 1;
INSERT INTO deep VALUES (7, 7), (1, 9);
DELETE FROM deep WHERE a = 2;
SELECT ivm_check(name) FROM ivm.views;
SELECT ivm.drop_view('a_view_name_of_fifty_two_bytes_the_longest_that_fits');
SELECT count(*) FROM ivm.views;
DROP TABLE deep;
