-- Seeing what maintenance does and costs, and pausing it.
CREATE TABLE stock (item int, store int, qty int);
CREATE TABLE store (id int, city text);
INSERT INTO stock VALUES (1, 1, 5), (2, 1, 0), (3, 2, 7);
INSERT INTO store VALUES (1, 'oslo'), (2, 'rome');

-- create_view says what it did, and the view carries a comment
SELECT ivm.create_view('stock_cities', 'SELECT s.item, t.city, s.qty FROM stock s JOIN store t ON s.store = t.id');
SELECT c.relname, d.description FROM pg_class c JOIN pg_description d ON d.objoid = c.oid
 WHERE c.relname LIKE 'stock_cities%' ORDER BY 1;

-- the maintenance plan, in readable lines
SELECT * FROM ivm.explain_view('stock_cities');

-- statistics move with DML
SELECT ivm.reset_stats();
SELECT name, maintenance_runs, tuples_inserted, tuples_deleted, last_maintained FROM ivm.stats;
INSERT INTO stock VALUES (4, 2, 1);
UPDATE store SET city = 'roma' WHERE id = 2;      -- two view rows change
DELETE FROM stock WHERE qty = 0;
UPDATE stock SET qty = qty WHERE item = 1;        -- changes no view row
SELECT name, maintenance_runs, tuples_inserted, tuples_deleted,
       total_time_ms >= last_time_ms AS times_add_up, last_maintained <= now() AS last_maintained_set
  FROM ivm.stats;
SELECT ivm.reset_stats();
SELECT name, maintenance_runs, tuples_inserted, tuples_deleted, last_maintained FROM ivm.stats;

-- unpopulated: reading is refused, base tables are written freely, not maintained
SELECT ivm.refresh_view('stock_cities', with_data => false);
SELECT name, populated FROM ivm.views;
SELECT * FROM stock_cities;
SELECT ivm_error('SELECT count(*) FROM stock_cities');
INSERT INTO stock SELECT g, 1 + g % 2, g FROM generate_series(10, 1000) g;
DELETE FROM store WHERE id = 1;
SELECT count(*) AS storage_rows FROM stock_cities__ivm_data;
SELECT name, maintenance_runs FROM ivm.stats;
SELECT * FROM ivm.explain_view('stock_cities') LIMIT 1;
-- pausing twice is harmless; refresh fills it again and maintenance resumes
SELECT ivm.refresh_view('stock_cities', false);
SELECT ivm.refresh_view('stock_cities');
SELECT name, populated FROM ivm.views;
SELECT ivm_check('stock_cities');
INSERT INTO store VALUES (1, 'bergen');
SELECT ivm_check('stock_cities');
SELECT count(*) FROM stock_cities WHERE city = 'bergen';
-- a pause that is rolled back leaves the view populated and maintained
BEGIN;
SELECT ivm.refresh_view('stock_cities', false);
ROLLBACK;
SELECT name, populated FROM ivm.views;
SELECT ivm_check('stock_cities');

-- explain for an aggregate view and a recursive one (the first lines)
SELECT ivm.create_view('stock_totals', 'SELECT store, sum(qty) AS qty FROM stock GROUP BY store');
SELECT line FROM ivm.explain_view('stock_totals') AS line
 WHERE line LIKE 'algorithm%' OR line LIKE 'storage%' OR line LIKE 'on %';
CREATE TABLE route (a int, b int);
SELECT ivm.create_view('reach', 'WITH RECURSIVE r(a, b) AS (SELECT a, b FROM route UNION SELECT r.a, route.b FROM r JOIN route ON r.b = route.a) SELECT a, b FROM r');
SELECT line FROM ivm.explain_view('reach') AS line
 WHERE line LIKE 'algorithm%' OR line LIKE 'recursive relation%' OR line LIKE 'on %public.route%'
    OR line LIKE 'when DRed gives up%' OR line LIKE 'recompute R%';
SELECT regexp_replace(line, ':.*', ':') AS step FROM ivm.explain_view('reach') AS line WHERE line ~ '^  [0-9]\.';
-- ivm.stats counts how a recursive view's deletions went: a chain
-- 1 -> 2 -> 3 -> 4 with a shortcut 1 -> 3; deleting 2 -> 3 over-deletes
-- (1, 3), (1, 4), (2, 3), (2, 4), and only (2, 3) and (2, 4) go
INSERT INTO route VALUES (1, 2), (2, 3), (3, 4), (1, 3);
SELECT ivm.reset_stats();
SET ivm.backward_forward = on;
DELETE FROM route WHERE (a, b) = (2, 3);
-- and without it, deleting 1 -> 3 over-deletes (1, 3), (1, 4), rederived
SET ivm.backward_forward = off;
DELETE FROM route WHERE (a, b) = (1, 3);
RESET ivm.backward_forward;
SELECT name, overdeletions, overdeleted_tuples, backward_forward_runs, recursive_recomputes
  FROM ivm.stats WHERE name = 'reach'::regclass;
SELECT ivm_check('reach');
-- and ivm's own fixpoint engine, a non-linear closure: deleting 2 -> 3
-- over-deletes (2, 3), (1, 3), (2, 4), (1, 4), of which (1, 3) and (1, 4)
-- are rederived; deleting 1 -> 3 then over-deletes (1, 3), (1, 4)
INSERT INTO route VALUES (2, 3), (1, 3);
SELECT ivm.create_view('reach_nl', 'WITH RECURSIVE r(a, b) AS (SELECT a, b FROM route UNION SELECT p.a, q.b FROM r p JOIN r q ON p.b = q.a) SELECT a, b FROM r');
SELECT ivm.reset_stats();
DELETE FROM route WHERE (a, b) = (2, 3);
DELETE FROM route WHERE (a, b) = (1, 3);
SELECT name, overdeletions, overdeleted_tuples, backward_forward_runs, recursive_recomputes
  FROM ivm.stats WHERE name = 'reach_nl'::regclass;
SELECT * FROM reach_nl ORDER BY a, b;
SELECT ivm.drop_view('reach_nl');
-- a stratum recomputed because an insert reaches it through negation is
-- no deletion: ivm.stats counts none
SELECT ivm.create_view('unreached_nl', 'WITH RECURSIVE r(a, b) AS (SELECT a, b FROM route UNION SELECT p.a, q.b FROM r p JOIN r q ON p.b = q.a), lone(a) AS (SELECT a FROM route WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.b = route.a)) SELECT a FROM lone');
SELECT ivm.reset_stats();
INSERT INTO route VALUES (4, 1);
SELECT name, maintenance_runs > 0 AS maintained, overdeletions, overdeleted_tuples, recursive_recomputes
  FROM ivm.stats WHERE name = 'unreached_nl'::regclass;
SELECT * FROM unreached_nl ORDER BY a;
SELECT ivm.drop_view('unreached_nl');
DELETE FROM route WHERE (a, b) = (4, 1);

-- an UPDATE that sets no column a view reads changes none of its rows: the
-- view is not maintained (ivm.stats counts no run); one that sets a column
-- it reads (anywhere in the query), or one whose generated columns follow,
-- or under a BEFORE ROW trigger that may change any column, is
CREATE TABLE member (id int PRIMARY KEY, pts int, seen text, twice int GENERATED ALWAYS AS (pts * 2) STORED);
INSERT INTO member (id, pts, seen) SELECT i, i % 7, 'never' FROM generate_series(1, 20) i;
SELECT ivm.create_view('member_pts', 'SELECT pts, count(*) AS n FROM member GROUP BY pts');
SELECT ivm.create_view('member_twice', 'SELECT id FROM member WHERE twice > 8');
SELECT ivm.create_view('member_seen', 'SELECT m.id FROM member m JOIN member o ON o.id = m.id + 1 WHERE o.seen = ''today''');
-- the same for tables read by a subquery or on an outer join's nullable
-- side (their unique key counts as read); a deferred view's log keeps
-- only the columns its views read, so an UPDATE of others nets to nothing
CREATE TABLE tier (p int);
INSERT INTO tier SELECT generate_series(0, 8);
SELECT ivm.create_view('member_tiers', 'SELECT p FROM tier t WHERE EXISTS (SELECT 1 FROM member m WHERE m.pts = t.p)');
-- (an EXISTS's select list decides nothing: it reads none of the columns it names)
SELECT ivm.create_view('member_star', 'SELECT p FROM tier t WHERE EXISTS (SELECT * FROM member m WHERE m.pts = t.p)');
SELECT ivm.create_view('member_left', 'SELECT t.p, m.twice FROM tier t LEFT JOIN member m ON m.pts = t.p');
SELECT ivm.create_view('member_later', 'SELECT p FROM tier t WHERE NOT EXISTS (SELECT 1 FROM member m WHERE m.pts = t.p + 1)', deferred => true);
SELECT ivm.reset_stats();
UPDATE member SET seen = 'today' WHERE id < 10;
SELECT name, maintenance_runs FROM ivm.stats WHERE name::text LIKE 'member%' ORDER BY 1;
UPDATE member SET pts = pts + 1 WHERE id = 4;
SELECT name, maintenance_runs FROM ivm.stats WHERE name::text LIKE 'member%' ORDER BY 1;
UPDATE member SET pts = 8 WHERE id IN (7, 14);
UPDATE member SET id = id + 100, pts = pts - 6 WHERE id IN (20, 13, 6);
SELECT ivm.refresh_view('member_later');
SELECT ivm_check('member_pts'), ivm_check('member_twice'), ivm_check('member_seen'),
       ivm_check('member_tiers'), ivm_check('member_left'), ivm_check('member_later'), ivm_check('member_star');
SELECT * FROM member_tiers ORDER BY p;
CREATE FUNCTION member_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.pts := NEW.pts + 10; RETURN NEW; END $$;
CREATE TRIGGER member_bump BEFORE UPDATE ON member FOR EACH ROW EXECUTE FUNCTION member_bump();
SELECT ivm.reset_stats();
UPDATE member SET seen = 'again' WHERE id = 5;
SELECT name, maintenance_runs FROM ivm.stats WHERE name::text LIKE 'member%' ORDER BY 1;
SELECT ivm_check('member_pts'), ivm_check('member_twice'), ivm_check('member_seen'), ivm_check('member_tiers'), ivm_check('member_left');
SELECT * FROM member_pts WHERE pts > 10;
SELECT ivm.drop_view('member_pts');
SELECT ivm.drop_view('member_twice');
SELECT ivm.drop_view('member_seen');
SELECT ivm.drop_view('member_tiers');
SELECT ivm.drop_view('member_star');
SELECT ivm.drop_view('member_left');
SELECT ivm.drop_view('member_later');
DROP TABLE member, tier;
DROP FUNCTION member_bump();

SELECT ivm.drop_view('reach');
SELECT ivm.drop_view('stock_totals');
SELECT ivm.drop_view('stock_cities');
DROP TABLE stock, store, route;
