-- The changes run.sh applies after the views are created, one unit at a
-- time, each unit its own transaction (psql --single-transaction), every
-- view checked against its query after each.  Units are separated by blank
-- lines; a unit's first line is a comment naming it.  Targets are picked by
-- the queries' predicates (hot parts, a Q18 order, Q15's top supplier, ...)
-- so that view contents change; run.sh reports which views each unit changed.
-- The refresh functions follow TPC-H 2.5.2 (RF1: new orders with their
-- lineitems, new keys; RF2: old orders and their lineitems deleted), each
-- once as one statement (a writable CTE) and once as two statements.

-- RF1 (1): 5 new orders with 3-7 lines each (writable CTE, one statement)
WITH new_orders AS (
    INSERT INTO orders
    SELECT k, cust, 'F', 100000 + j, orderdate, '1-URGENT', 'Clerk#000000001', 0,
           'new ' || CASE WHEN j % 2 = 0 THEN 'special rush requests' ELSE 'regular order' END
    FROM (SELECT j, (SELECT max(o_orderkey) FROM orders) + j AS k,
                 CASE j WHEN 1 THEN 8 WHEN 2 THEN 1 WHEN 3 THEN 9 WHEN 4 THEN 5 ELSE 3 END AS cust,
                 (ARRAY[date '1995-03-01', date '1993-07-15', date '1994-06-01', date '1993-11-01',
                        date '1995-12-20'])[j] AS orderdate
          FROM generate_series(1, 5) j) o
    RETURNING o_orderkey, o_orderdate, o_orderkey - (SELECT max(o_orderkey) FROM orders) AS j
)
INSERT INTO lineitem
SELECT o_orderkey, part,
       (SELECT ps_suppkey FROM partsupp WHERE ps_partkey = part ORDER BY ps_suppkey OFFSET (j + n) % 4 LIMIT 1),
       n, quantity, quantity * (SELECT p_retailprice FROM part WHERE p_partkey = part), 0.06, 0.02,
       CASE WHEN o_orderdate + 10 * n + 5 <= date '1995-06-17' THEN 'R' ELSE 'N' END,
       CASE WHEN o_orderdate + 10 * n > date '1995-06-17' THEN 'O' ELSE 'F' END,
       o_orderdate + 10 * n, o_orderdate + 30, o_orderdate + 10 * n + 5,
       CASE WHEN n <= 3 THEN 'DELIVER IN PERSON' ELSE 'COLLECT COD' END,
       CASE WHEN n <= 3 THEN 'AIR' WHEN n % 2 = 0 THEN 'MAIL' ELSE 'SHIP' END,
       'new line'
FROM (SELECT o_orderkey, o_orderdate, j, n,
             CASE WHEN n <= 3 THEN n ELSE 10 * n + j END AS part,
             CASE n WHEN 1 THEN 2 + j WHEN 2 THEN 10 + j WHEN 3 THEN 19 + j ELSE 44 + j END AS quantity
      FROM new_orders, generate_series(1, 2 + j) n) l;

-- UPDATE part: three hot parts become promotional size-15 brass
UPDATE part SET p_retailprice = p_retailprice + 10, p_type = 'PROMO ANODIZED BRASS', p_size = 15
WHERE p_partkey IN (4, 5, 6);

-- UPDATE partsupp: supply cost of some German suppliers' parts tripled (Q11's total and threshold move)
UPDATE partsupp SET ps_supplycost = ps_supplycost * 3
WHERE ps_partkey % 3 = 0
  AND ps_suppkey IN (SELECT s_suppkey FROM supplier JOIN nation ON s_nationkey = n_nationkey WHERE n_name = 'GERMANY');

-- UPDATE supplier: two suppliers of hot parts get complaints and a higher balance
UPDATE supplier SET s_acctbal = s_acctbal + 1000, s_comment = 'slyly Customer pinto beans Complaints'
WHERE s_suppkey IN (2, 4);

-- UPDATE customer: balances down, hot customers move to BUILDING
UPDATE customer SET c_acctbal = c_acctbal - 2500, c_mktsegment = 'BUILDING'
WHERE c_custkey <= 7;

-- UPDATE orders: every 25th order a month later and urgent
UPDATE orders SET o_orderdate = o_orderdate + 31, o_orderpriority = '1-URGENT'
WHERE o_orderkey % 25 = 0;

-- UPDATE lineitem: more quantity, a 6% discount, by ship, on every 10th order (Q18's threshold crossed)
UPDATE lineitem SET l_quantity = l_quantity + 15, l_extendedprice = l_extendedprice + 15 * l_extendedprice / l_quantity,
                    l_discount = 0.06, l_shipmode = 'SHIP'
WHERE l_orderkey % 10 = 0;

-- UPDATE nation: FRANCE and GERMANY swap names
UPDATE nation SET n_name = CASE n_name WHEN 'FRANCE' THEN 'GERMANY' ELSE 'FRANCE' END
WHERE n_name IN ('FRANCE', 'GERMANY');

-- UPDATE region: ASIA and EUROPE swap names
UPDATE region SET r_name = CASE r_name WHEN 'ASIA' THEN 'EUROPE' ELSE 'ASIA' END
WHERE r_name IN ('ASIA', 'EUROPE');

-- RF2 (1): 3 old orders and their lineitems deleted (writable CTE, one statement): a Q18 order,
-- a Q4 order, customer 1's first
WITH gone AS (
    DELETE FROM orders
    WHERE o_orderkey IN ((SELECT min(l_orderkey) FROM (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey
                                                       HAVING sum(l_quantity) > 200) big),
                         (SELECT min(o_orderkey) FROM orders
                          WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-10-01'),
                         (SELECT min(o_orderkey) FROM orders WHERE o_custkey = 1))
    RETURNING o_orderkey
)
DELETE FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM gone);

-- RF1 (2): 4 new orders, then their lineitems (two statements, one transaction)
INSERT INTO orders
SELECT (SELECT max(o_orderkey) FROM orders) + j, 3 * j + 1, 'O', 50000 + j,
       date '1996-01-05' + 40 * j, '3-MEDIUM', 'Clerk#000000002', 0, 'second refresh'
FROM generate_series(1, 4) j;
INSERT INTO lineitem
SELECT o_orderkey, part,
       (SELECT ps_suppkey FROM partsupp WHERE ps_partkey = part ORDER BY ps_suppkey OFFSET n % 4 LIMIT 1),
       n, 30 + n, (30 + n) * (SELECT p_retailprice FROM part WHERE p_partkey = part), 0.05, 0.01,
       'N', 'O', o_orderdate + 3 * n, o_orderdate + 20, o_orderdate + 3 * n + 30,
       'NONE', 'MAIL', 'second refresh line'
FROM (SELECT o_orderkey, o_orderdate, n, 1 + (o_orderkey * 7 + n * 13) % 40 AS part
      FROM orders, generate_series(1, 6) n
      WHERE NOT EXISTS (SELECT FROM lineitem WHERE l_orderkey = o_orderkey)) l;

-- UPDATE part: three more parts become Brand#23 MED BOX forest parts
UPDATE part SET p_brand = 'Brand#23', p_mfgr = 'Manufacturer#2', p_container = 'MED BOX',
                p_name = 'forest ' || left(p_name, 40), p_size = 8
WHERE p_partkey IN (7, 8, 9);

-- UPDATE partsupp: Canadian suppliers' stock of forest parts runs out, cheaper brass
UPDATE partsupp SET ps_availqty = CASE WHEN ps_suppkey % 2 = 0 THEN 1 ELSE ps_availqty END,
                    ps_supplycost = ps_supplycost - 0.5
WHERE ps_suppkey IN (SELECT s_suppkey FROM supplier JOIN nation ON s_nationkey = n_nationkey WHERE n_name = 'CANADA');

-- UPDATE partsupp: Q2's parts get cheaper from odd suppliers, and part 3's suppliers all cost the same (ties)
UPDATE partsupp SET ps_supplycost = CASE WHEN ps_partkey = 3 THEN 5.00 ELSE ps_supplycost / 2 END
WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_size = 15 AND p_type LIKE '%BRASS')
  AND (ps_partkey = 3 OR ps_suppkey % 2 = 1);

-- UPDATE supplier: supplier 5 moves to SAUDI ARABIA, Q15's top supplier gets a new phone
UPDATE supplier SET s_nationkey = CASE WHEN s_suppkey = 5 THEN (SELECT n_nationkey FROM nation WHERE n_name = 'SAUDI ARABIA')
                                       ELSE s_nationkey END,
                    s_phone = '30-000-000-0000'
WHERE s_suppkey IN (5, (SELECT l_suppkey FROM lineitem
                        WHERE l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-04-01'
                        GROUP BY l_suppkey ORDER BY sum(l_extendedprice * (1 - l_discount)) DESC LIMIT 1));

-- UPDATE customer: a customer changes nation and country code (Q22), balances up
UPDATE customer SET c_nationkey = 7, c_phone = '17' || substring(c_phone from 3),
                    c_acctbal = c_acctbal + 3000
WHERE c_custkey IN (6, 12, 20);

-- UPDATE orders: customer 2's orders get special requests, all finished
UPDATE orders SET o_comment = 'ask about special gift requests', o_orderstatus = 'F'
WHERE o_custkey = 2;

-- UPDATE lineitem: Q15's top supplier's first-quarter 1996 lines ship 100 days later
UPDATE lineitem SET l_shipdate = l_shipdate + 100, l_receiptdate = l_receiptdate + 100
WHERE l_suppkey = (SELECT l_suppkey FROM lineitem
                   WHERE l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-04-01'
                   GROUP BY l_suppkey ORDER BY sum(l_extendedprice * (1 - l_discount)) DESC LIMIT 1)
  AND l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-04-01';

-- UPDATE lineitem: every 97th order's lines move to part 1 (join keys), late receipts
UPDATE lineitem SET l_partkey = 1, l_suppkey = (SELECT min(ps_suppkey) FROM partsupp WHERE ps_partkey = 1),
                    l_receiptdate = l_commitdate + 7
WHERE l_orderkey % 97 = 0;

-- UPDATE lineitem: Saudi suppliers' lines late in even orders and on time in odd ones (Q21)
UPDATE lineitem SET l_receiptdate = CASE WHEN l_orderkey % 2 = 0 THEN l_commitdate + 3 ELSE l_commitdate - 3 END
WHERE l_suppkey IN (SELECT s_suppkey FROM supplier JOIN nation ON s_nationkey = n_nationkey WHERE n_name = 'SAUDI ARABIA');

-- UPDATE lineitem: every line shipped in the first quarter of 1996 at a 100% discount (Q15: all suppliers tie at 0)
UPDATE lineitem SET l_discount = 1.00
WHERE l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-04-01';

-- UPDATE lineitem: a quarter of them back to 5% (Q15: a new top supplier)
UPDATE lineitem SET l_discount = 0.05
WHERE l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-04-01' AND l_orderkey % 4 = 0;

-- UPDATE partsupp: forest parts' stock down to 10 (Q20: 0.5 * sum(l_quantity) decides)
UPDATE partsupp SET ps_availqty = 10
WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%');

-- UPDATE lineitem: more of the forest parts shipped in 1994 in even orders (Q20)
UPDATE lineitem SET l_quantity = l_quantity + 10
WHERE l_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')
  AND l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01' AND l_orderkey % 2 = 0;

-- UPDATE lineitem: nothing goes by air delivered in person any more (Q19: no rows, the sum is NULL)
UPDATE lineitem SET l_shipinstruct = 'NONE'
WHERE l_shipinstruct = 'DELIVER IN PERSON' AND l_shipmode IN ('AIR', 'AIR REG');

-- savepoints: a quantity change rolled back to a savepoint, then a discount change kept
SAVEPOINT before_quantities;
UPDATE lineitem SET l_quantity = l_quantity + 100 WHERE l_orderkey % 3 = 0;
ROLLBACK TO SAVEPOINT before_quantities;
UPDATE lineitem SET l_discount = 0.01 WHERE l_orderkey % 3 = 0 AND l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01';

-- DELETE and INSERT customer: the last customer with orders leaves them behind, a new one with code 13 arrives
DELETE FROM customer WHERE c_custkey = (SELECT max(o_custkey) FROM orders);
INSERT INTO customer
SELECT max(c_custkey) + 1, 'Customer#new', 'nowhere', 3, '13-555-555-5555', 9000.00, 'BUILDING', 'new customer'
FROM customer;

-- RF2 (2): all orders of the Q22 customer with fewest orders deleted (lineitems first, then orders; two statements)
DELETE FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders WHERE o_custkey = (
    SELECT c_custkey FROM customer JOIN orders ON o_custkey = c_custkey
    WHERE substring(c_phone from 1 for 2) IN ('13', '31', '23', '29', '30', '18', '17') AND c_acctbal > 5000
    GROUP BY c_custkey ORDER BY count(*), c_custkey LIMIT 1));
DELETE FROM orders WHERE o_custkey = (
    SELECT c_custkey FROM customer JOIN orders ON o_custkey = c_custkey
    WHERE substring(c_phone from 1 for 2) IN ('13', '31', '23', '29', '30', '18', '17') AND c_acctbal > 5000
    GROUP BY c_custkey ORDER BY count(*), c_custkey LIMIT 1);

-- UPDATE region: ASIA and EUROPE swap names back
UPDATE region SET r_name = CASE r_name WHEN 'ASIA' THEN 'EUROPE' ELSE 'ASIA' END
WHERE r_name IN ('ASIA', 'EUROPE');
