-- A rebuild (here every change rebuilds: ivm.rebuild_fraction = 0) fills a
-- new heap and swaps it in for the storage's, as REFRESH does, where
-- nothing but other views reads the storage's changes (they then compute
-- their queries anew) and nothing of this transaction has it open;
-- otherwise, and with ivm.rebuild_by_swap off or a storage of fewer than
-- 1,000 tuples (a swap's new files cost more), it rewrites the storage in
-- place.  Either way the view equals its query.
-- (Concurrent readers: test/isolation/specs/rebuild_swap.spec.)
CREATE TABLE sw_a (aid int PRIMARY KEY, bid int, abalance int);
CREATE TABLE sw_b (bid int PRIMARY KEY, bbalance int);
INSERT INTO sw_b SELECT g, g * 10 FROM generate_series(1, 10) g;
INSERT INTO sw_a SELECT g, g % 10 + 1, 0 FROM generate_series(1, 2000) g;
SET client_min_messages = warning;
SELECT ivm.create_view('sw_join', 'SELECT a.aid, a.bid, a.abalance, b.bbalance FROM sw_a a JOIN sw_b b USING (bid)');
SELECT ivm.create_view('sw_distinct', 'SELECT DISTINCT a.bid, b.bbalance FROM sw_a a JOIN sw_b b USING (bid)');
RESET client_min_messages;
CREATE TABLE sw_heaps (view regclass PRIMARY KEY, filenode oid);
CREATE FUNCTION sw_swapped(v regclass) RETURNS boolean LANGUAGE sql AS $$
    WITH now AS (SELECT pg_relation_filenode(storage) AS filenode FROM ivm.views WHERE name = v),
         old AS (INSERT INTO sw_heaps SELECT v, filenode FROM now
                 ON CONFLICT (view) DO UPDATE SET filenode = excluded.filenode
                 RETURNING (SELECT filenode FROM sw_heaps WHERE view = v) AS before)
    SELECT before IS DISTINCT FROM (SELECT filenode FROM now) FROM old
$$;
SELECT sw_swapped('sw_join') IS NOT NULL AND sw_swapped('sw_distinct') IS NOT NULL AS remembered;
-- the definition checks its readers' snapshots
SELECT pg_get_viewdef('sw_join') LIKE '%ivm.snapshot_sees_storage(%' AS checks;
SET ivm.rebuild_fraction = 0;

-- swapped: the view's rows, its key index (bid set as it is: sw_distinct
-- reads no other column of sw_a, and an UPDATE of none would leave it be);
-- sw_distinct's 10 tuples are rewritten in place, but with
-- ivm.swap_min_tuples lowered
UPDATE sw_a SET abalance = abalance + 1, bid = bid WHERE aid <= 1500;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join,
       sw_swapped('sw_distinct') AS distinct_swapped, ivm_check('sw_distinct') AS sw_distinct;
SET ivm.swap_min_tuples = 10;
UPDATE sw_a SET bid = bid WHERE aid = 1;
SELECT sw_swapped('sw_join') AS swapped, sw_swapped('sw_distinct') AS distinct_swapped, ivm_check('sw_distinct') AS sw_distinct;
RESET ivm.swap_min_tuples;
SELECT indexrelid::regclass AS index, indisvalid FROM pg_index WHERE indrelid = 'sw_join__ivm_data'::regclass;
SET enable_seqscan = off;
SELECT sum(abalance) FROM sw_join WHERE aid BETWEEN 1 AND 2000;  -- the rebuilt index finds the rows
RESET enable_seqscan;

-- a swap rolls back with its (sub)transaction, and can follow another
BEGIN;
DELETE FROM sw_a WHERE aid > 1000;
SELECT sw_swapped('sw_join') AS swapped, count(*) FROM sw_join;
SAVEPOINT s;
UPDATE sw_a SET abalance = 7;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join;
ROLLBACK TO SAVEPOINT s;
SELECT ivm_check('sw_join') AS sw_join, count(*) FROM sw_join;
ROLLBACK;
SELECT ivm_check('sw_join') AS sw_join, count(*) FROM sw_join;
SELECT sw_swapped('sw_join');  -- (the heap of before the transaction)

-- in place: turned off
SET ivm.rebuild_by_swap = off;
UPDATE sw_a SET abalance = abalance + 1;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join;
RESET ivm.rebuild_by_swap;

-- in place: a cursor of this transaction reads the view
BEGIN;
DECLARE c CURSOR FOR SELECT aid FROM sw_join ORDER BY aid;
FETCH 2 FROM c;
UPDATE sw_a SET abalance = abalance + 1;
FETCH 2 FROM c;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join;
COMMIT;

-- in place: the changing statement reads the view
UPDATE sw_a SET abalance = abalance + 1 WHERE aid IN (SELECT aid FROM sw_join WHERE bid = 3);
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join;

-- swapped too where a view reads this one: that view is told its rows
-- are not known, and computes its query anew
SET client_min_messages = warning;
SELECT ivm.create_view('sw_over', 'SELECT bid, count(*) AS n, sum(abalance) AS total FROM sw_join GROUP BY bid');
RESET client_min_messages;
UPDATE sw_a SET abalance = abalance + 1;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join, ivm_check('sw_over') AS sw_over;
-- a view that reads the swapped storage and the base table it changed:
-- both its changes maintained together, also rolled back to a savepoint
SET client_min_messages = warning;
SELECT ivm.create_view('sw_both', 'SELECT j.bid, count(*) AS n FROM sw_join j JOIN sw_a a ON a.aid = j.aid WHERE a.abalance > 3 GROUP BY j.bid');
RESET client_min_messages;
UPDATE sw_a SET abalance = abalance + 1 WHERE aid % 3 > 0;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join, ivm_check('sw_over') AS sw_over,
       ivm_check('sw_both') AS sw_both;
BEGIN;
SAVEPOINT s;
UPDATE sw_a SET abalance = 0 WHERE aid % 2 = 0;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_over') AS sw_over, ivm_check('sw_both') AS sw_both;
ROLLBACK TO SAVEPOINT s;
SELECT ivm_check('sw_join') AS sw_join, ivm_check('sw_over') AS sw_over, ivm_check('sw_both') AS sw_both;
COMMIT;
SELECT ivm.drop_view('sw_both');
SELECT ivm.drop_view('sw_over');
-- a recursive view over the swapped one (DRed's relation reads it): computed anew too
CREATE TABLE sw_edge (src int, dst int, w int);
INSERT INTO sw_edge SELECT g, g + 1, g % 3 FROM generate_series(1, 2000) g;
SET client_min_messages = warning;
SELECT ivm.create_view('sw_light', 'SELECT src, dst FROM sw_edge WHERE w < 2');
SELECT ivm.create_view('sw_reach', 'WITH RECURSIVE t(a, b) AS (SELECT src, dst FROM sw_light UNION SELECT t.a, l.dst FROM t JOIN sw_light l ON t.b = l.src) SELECT a, b FROM t');
RESET client_min_messages;
SELECT sw_swapped('sw_light') IS NOT NULL AS remembered;
UPDATE sw_edge SET w = (w + 1) % 3;
SELECT sw_swapped('sw_light') AS swapped, ivm_check('sw_light') AS sw_light, ivm_check('sw_reach') AS sw_reach,
       (SELECT count(*) FROM sw_reach) AS pairs;
SELECT ivm.drop_view('sw_reach'), ivm.drop_view('sw_light');
DROP TABLE sw_edge;
UPDATE sw_a SET abalance = abalance + 1;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join;

-- in place: a view whose definition does not check its readers' snapshots
-- (made before ivm 0.5)
CREATE OR REPLACE VIEW sw_join AS
    SELECT s.aid, s.bid, s.abalance, s.bbalance FROM sw_join__ivm_data s CROSS JOIN LATERAL ivm.copies(s.__ivm_count) n;
UPDATE sw_a SET abalance = abalance + 1;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join;
-- refreshed, it checks them, and rebuilds by swap again
SELECT ivm.refresh_view('sw_join') AS rows;
SELECT pg_get_viewdef('sw_join') LIKE '%ivm.snapshot_sees_storage(%' AS checks;
UPDATE sw_a SET abalance = abalance + 1;
SELECT sw_swapped('sw_join') AS swapped, ivm_check('sw_join') AS sw_join;

-- a view of groups kept from partial state swaps too, on a large change
-- (past ivm.large_change_rows); a small one merges
SET client_min_messages = warning;
SELECT ivm.create_view('sw_sums', 'SELECT aid, bid, count(*) AS n, sum(abalance) AS total, max(abalance) AS top FROM sw_a GROUP BY aid, bid');
RESET client_min_messages;
SELECT sw_swapped('sw_sums') IS NOT NULL AS remembered;
SET ivm.large_change_rows = 1000;
UPDATE sw_a SET abalance = abalance + aid % 7;
SELECT sw_swapped('sw_sums') AS swapped, ivm_check('sw_sums') AS sw_sums;
UPDATE sw_a SET abalance = 0 WHERE aid <= 10;
SELECT sw_swapped('sw_sums') AS swapped, ivm_check('sw_sums') AS sw_sums;
RESET ivm.large_change_rows;
SELECT aid, bid, n, total, top FROM sw_sums ORDER BY aid LIMIT 3;
SELECT ivm.drop_view('sw_sums');

RESET ivm.rebuild_fraction;
SELECT ivm.drop_view('sw_join'), ivm.drop_view('sw_distinct');
DROP FUNCTION sw_swapped(regclass);
DROP TABLE sw_a, sw_b, sw_heaps;
