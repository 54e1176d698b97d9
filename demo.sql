-- The ivm demo: a view that follows inserts, updates and deletes on the
-- two tables it joins, inside the transaction that changes them.
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
DROP DATABASE IF EXISTS ivm_demo;
CREATE DATABASE ivm_demo;
\c ivm_demo
SET client_min_messages = warning;
CREATE EXTENSION ivm;

CREATE TABLE customers (id int PRIMARY KEY, name text, city text);
CREATE TABLE orders (id int PRIMARY KEY, customer int, item text, qty int);
INSERT INTO customers VALUES (1, 'Ada', 'London'), (2, 'Grace', 'New York'), (3, 'Edsger', 'Austin');
INSERT INTO orders VALUES (10, 1, 'lamp', 1), (11, 1, 'desk', 1), (12, 2, 'chair', 4);

\echo
\echo '-- an incrementally maintained view: every order with its customer''s city'
\echo 'SELECT ivm.create_view(''order_cities'', ''SELECT o.id, c.name, c.city, o.item, o.qty FROM orders o JOIN customers c ON o.customer = c.id'');'
SELECT ivm.create_view('order_cities',
    'SELECT o.id, c.name, c.city, o.item, o.qty FROM orders o JOIN customers c ON o.customer = c.id') AS rows;
SELECT * FROM order_cities ORDER BY id;

\echo '-- INSERT INTO orders VALUES (13, 3, ''pen'', 10), (14, 2, ''desk'', 1);'
INSERT INTO orders VALUES (13, 3, 'pen', 10), (14, 2, 'desk', 1);
SELECT * FROM order_cities ORDER BY id;

\echo '-- UPDATE customers SET city = ''Cambridge'' WHERE name = ''Ada'';   (two view rows change)'
UPDATE customers SET city = 'Cambridge' WHERE name = 'Ada';
SELECT * FROM order_cities ORDER BY id;

\echo '-- DELETE FROM orders WHERE item = ''desk'';'
DELETE FROM orders WHERE item = 'desk';
SELECT * FROM order_cities ORDER BY id;

\echo '-- BEGIN; DELETE FROM customers WHERE id = 2; (the view follows inside the transaction) ... ROLLBACK;'
BEGIN;
DELETE FROM customers WHERE id = 2;
SELECT * FROM order_cities ORDER BY id;
ROLLBACK;
\echo '-- after ROLLBACK'
SELECT * FROM order_cities ORDER BY id;

\echo '-- the view always equals its query:'
SELECT (SELECT count(*) FROM (SELECT * FROM order_cities EXCEPT ALL
        SELECT o.id, c.name, c.city, o.item, o.qty FROM orders o JOIN customers c ON o.customer = c.id) d) AS rows_differing;

\echo '-- a recursive view (DRed): which stations reach which, over a rail network'
CREATE TABLE rail (src text, dst text);
INSERT INTO rail VALUES ('Bergen', 'Oslo'), ('Oslo', 'Stockholm'), ('Stockholm', 'Helsinki');
\echo 'SELECT ivm.create_view(''reaches'', ''WITH RECURSIVE r(a, b) AS (SELECT src, dst FROM rail UNION SELECT r.a, rail.dst FROM r JOIN rail ON r.b = rail.src) SELECT a, b FROM r'');'
SELECT ivm.create_view('reaches',
    'WITH RECURSIVE r(a, b) AS (SELECT src, dst FROM rail UNION SELECT r.a, rail.dst FROM r JOIN rail ON r.b = rail.src) SELECT a, b FROM r') AS rows;
SELECT a AS from_station, string_agg(b, ', ' ORDER BY b) AS reaches FROM reaches GROUP BY a ORDER BY a;
\echo '-- INSERT INTO rail VALUES (''Oslo'', ''Copenhagen''), (''Copenhagen'', ''Hamburg'');'
INSERT INTO rail VALUES ('Oslo', 'Copenhagen'), ('Copenhagen', 'Hamburg');
SELECT a AS from_station, string_agg(b, ', ' ORDER BY b) AS reaches FROM reaches GROUP BY a ORDER BY a;
\echo '-- DELETE FROM rail WHERE src = ''Oslo'' AND dst = ''Stockholm'';   (over-delete, rederive, insert)'
DELETE FROM rail WHERE src = 'Oslo' AND dst = 'Stockholm';
SELECT a AS from_station, string_agg(b, ', ' ORDER BY b) AS reaches FROM reaches GROUP BY a ORDER BY a;
\echo '-- a cycle: INSERT INTO rail VALUES (''Hamburg'', ''Bergen'');'
INSERT INTO rail VALUES ('Hamburg', 'Bergen');
SELECT a AS from_station, string_agg(b, ', ' ORDER BY b) AS reaches FROM reaches GROUP BY a ORDER BY a;

\echo '-- an aggregate over it, maintained too:'
SELECT ivm.create_view('reach_counts',
    'WITH RECURSIVE r(a, b) AS (SELECT src, dst FROM rail UNION SELECT r.a, rail.dst FROM r JOIN rail ON r.b = rail.src) SELECT a, count(*) AS stations FROM r GROUP BY a') AS rows;
DELETE FROM rail WHERE src = 'Hamburg';
SELECT * FROM reach_counts ORDER BY a;

SELECT name, algorithm, base_relations FROM ivm.views;
