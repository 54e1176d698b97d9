-- Maintenance runs as the view's owner, in a restricted security context
-- with a fixed search_path; row-level security never leaks rows.
CREATE ROLE regress_ivm_owner;
CREATE ROLE regress_ivm_writer;
CREATE ROLE regress_ivm_reader;
GRANT CREATE ON SCHEMA public TO regress_ivm_owner, regress_ivm_writer;
SET ROLE regress_ivm_owner;
CREATE TABLE orders (id int, customer int, qty int);
CREATE TABLE customers (id int, name text);
INSERT INTO customers VALUES (1, 'ann'), (2, 'bob');
INSERT INTO orders VALUES (1, 1, 5), (2, 2, 7);
GRANT INSERT, UPDATE, DELETE, SELECT ON orders TO regress_ivm_writer;  -- but not customers
SELECT ivm.create_view('order_names', 'SELECT o.id, c.name, o.qty FROM orders o JOIN customers c ON o.customer = c.id');
RESET ROLE;

-- a writer with no rights on the view or on the other base table still
-- gets a correct view
SET ROLE regress_ivm_writer;
INSERT INTO orders VALUES (3, 1, 1);
UPDATE orders SET qty = qty + 1 WHERE id = 2;
SELECT * FROM order_names;
SELECT * FROM order_names__ivm_data;
RESET ROLE;
SELECT * FROM order_names ORDER BY id;
SELECT ivm_check('order_names');

-- objects named like the operators and functions maintenance uses have no
-- effect, whatever the writer's search_path
CREATE SCHEMA regress_evil AUTHORIZATION regress_ivm_writer;
SET ROLE regress_ivm_writer;
CREATE FUNCTION regress_evil.int4eq(int, int) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN RAISE NOTICE 'evil = called'; RETURN true; END $$;
CREATE OPERATOR regress_evil.= (LEFTARG = int, RIGHTARG = int, FUNCTION = regress_evil.int4eq);
CREATE FUNCTION regress_evil.sum(bigint) RETURNS bigint LANGUAGE sql AS 'SELECT 0::bigint';
CREATE FUNCTION regress_evil.hash_record_extended(record, bigint) RETURNS bigint LANGUAGE plpgsql AS
  $$ BEGIN RAISE NOTICE 'evil hash called'; RETURN 0; END $$;
SET search_path = regress_evil, pg_catalog, public;
INSERT INTO orders VALUES (4, 2, 2), (5, 1, 3);
DELETE FROM orders WHERE id OPERATOR(pg_catalog.=) 1;
UPDATE orders SET customer = 2 WHERE id OPERATOR(pg_catalog.=) 3;
RESET search_path;
RESET ROLE;
SELECT ivm_check('order_names');
-- the writer's own session is where its functions run
SET ROLE regress_ivm_writer;
SET search_path = regress_evil, pg_catalog, public;
SELECT 1 = 1 AS evil_says;
RESET search_path;
RESET ROLE;

-- ivm's catalog writes run as the catalog's owner, never under the
-- caller's search_path: an operator the caller put first is not run with
-- the owner's rights (it would say so)
CREATE SCHEMA regress_evil2 AUTHORIZATION regress_ivm_writer;
SET ROLE regress_ivm_writer;
CREATE FUNCTION regress_evil2.int4eq(int, int) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN IF current_user <> 'regress_ivm_writer' THEN RAISE NOTICE 'evil = run as %', current_user; END IF;
     RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE OPERATOR regress_evil2.= (LEFTARG = int, RIGHTARG = int, FUNCTION = regress_evil2.int4eq);
CREATE TABLE regress_evil2.notes (id int);
INSERT INTO regress_evil2.notes VALUES (1), (2);
SET search_path = regress_evil2, pg_catalog, public;
SELECT ivm.create_view('regress_evil2.note_ids', 'SELECT id FROM regress_evil2.notes');
INSERT INTO regress_evil2.notes VALUES (3);
SELECT ivm.drop_view('regress_evil2.note_ids');
RESET search_path;
RESET ROLE;
DROP SCHEMA regress_evil2 CASCADE;
-- row-level security: a view may not read a table whose policies apply
-- to its owner, as the changes that maintain it would not be filtered
SET ROLE regress_ivm_owner;
CREATE TABLE secrets (id int, owner_name text, secret text);
INSERT INTO secrets VALUES (1, 'regress_ivm_reader', 'a'), (2, 'someone', 'b');
CREATE POLICY mine ON secrets USING (owner_name = current_user);
ALTER TABLE secrets ENABLE ROW LEVEL SECURITY;
GRANT SELECT, TRIGGER ON secrets TO regress_ivm_reader;
-- the table's owner is not subject to its policies (unless forced)
SELECT ivm.create_view('all_secrets', 'SELECT id, secret FROM secrets');
ALTER TABLE secrets FORCE ROW LEVEL SECURITY;
SELECT count(*) FROM all_secrets;
RESET ROLE;
GRANT CREATE ON SCHEMA public TO regress_ivm_reader;
SET ROLE regress_ivm_reader;
SELECT ivm.create_view('my_secrets', 'SELECT id, secret FROM secrets');
RESET ROLE;
-- a role that may read a table but not create triggers on it is told so
-- (42501) before anything is made
SET ROLE regress_ivm_owner;
CREATE TABLE notes (id int, body text);
CREATE TABLE events (id int, at int) PARTITION BY RANGE (at);
CREATE TABLE events_old PARTITION OF events FOR VALUES FROM (MINVALUE) TO (100);
GRANT SELECT ON notes TO regress_ivm_reader;
GRANT SELECT, TRIGGER ON events TO regress_ivm_reader;  -- not on its partition
RESET ROLE;
SET ROLE regress_ivm_reader;
SELECT ivm.create_view('my_notes', 'SELECT id FROM notes');
SELECT ivm.create_view('my_events', 'SELECT id FROM events');
SELECT count(*) AS made FROM pg_class WHERE relname LIKE 'my\_%';
RESET ROLE;
SET ROLE regress_ivm_owner;
GRANT TRIGGER ON notes TO regress_ivm_reader;
RESET ROLE;
SET ROLE regress_ivm_reader;
SELECT ivm.create_view('my_notes', 'SELECT id FROM notes');
SELECT ivm.drop_view('my_notes');
RESET ROLE;
SET ROLE regress_ivm_owner;
DROP TABLE notes, events;
RESET ROLE;
-- enabling it later on a base table is refused too
SET ROLE regress_ivm_owner;
SELECT ivm.create_view('order_count', 'SELECT customer, count(*) AS n FROM orders GROUP BY customer');
SELECT * FROM order_count ORDER BY customer;
GRANT SELECT ON orders TO regress_ivm_reader;
ALTER TABLE orders ENABLE ROW LEVEL SECURITY;
ALTER TABLE orders FORCE ROW LEVEL SECURITY;
SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = 'orders'::regclass;
SELECT ivm.drop_view('order_count'), ivm.drop_view('order_names'), ivm.drop_view('all_secrets');
DROP TABLE orders, customers, secrets;
RESET ROLE;
DROP SCHEMA regress_evil CASCADE;
REVOKE CREATE ON SCHEMA public FROM regress_ivm_owner, regress_ivm_writer, regress_ivm_reader;
DROP ROLE regress_ivm_owner, regress_ivm_writer, regress_ivm_reader;
