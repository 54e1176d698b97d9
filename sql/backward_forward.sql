-- Backward/forward (src/core/backward_forward.hpp): of DRed's over-deleted
-- tuples, only those a deleted row derives, and what those found gone
-- derive, are checked for another derivation; the rest stay without a
-- rederivation.  ivm.backward_forward = on runs it on every deletion (auto,
-- the default: below, at the grid); the DEBUG line says how
-- many tuples were over-deleted and how many of them went.  Where the
-- recursive rule passes a column through (tc.s below: read nowhere else),
-- nothing is over-deleted: the tuples the deletion can touch are bounded by
-- the seeds' s and the d their d reach, and the DEBUG line gives that bound.
CREATE TABLE bf_e (s int NOT NULL, d int NOT NULL);
-- a 5 x 5 grid, edges right and down: many paths between two nodes
INSERT INTO bf_e SELECT i * 10 + j, (i + 1) * 10 + j FROM generate_series(1, 4) i, generate_series(1, 5) j;
INSERT INTO bf_e SELECT i * 10 + j, i * 10 + j + 1 FROM generate_series(1, 5) i, generate_series(1, 4) j;
SELECT ivm.create_view('bf_tc', 'WITH RECURSIVE tc(s, d) AS (SELECT s, d FROM bf_e UNION SELECT tc.s, bf_e.d FROM tc JOIN bf_e ON tc.d = bf_e.s) SELECT s, d FROM tc');
SELECT count(*) FROM bf_tc;
SET ivm.backward_forward = on;
SET client_min_messages = debug1;
-- a right edge in the middle: only pairs along its row lose their path
DELETE FROM bf_e WHERE (s, d) = (33, 34);
RESET client_min_messages;
SELECT ivm_check('bf_tc'), count(*) FROM bf_tc;
-- a diagonal shortcut: deleting it again takes nothing, as every pair it
-- derived has a path around it
INSERT INTO bf_e VALUES (11, 22);
SET client_min_messages = debug1;
DELETE FROM bf_e WHERE (s, d) = (11, 22);
RESET client_min_messages;
SELECT ivm_check('bf_tc'), count(*) FROM bf_tc;
-- 22 reaches the nodes right of it in its row through (22, 23) alone
SET client_min_messages = debug1;
DELETE FROM bf_e WHERE (s, d) = (22, 23);
RESET client_min_messages;
SELECT ivm_check('bf_tc'), count(*) FROM bf_tc;
-- an UPDATE moves an edge: deleted and inserted rows in one statement
UPDATE bf_e SET d = 35 WHERE (s, d) = (25, 35) RETURNING *;
UPDATE bf_e SET s = 24, d = 34 WHERE (s, d) = (44, 45);
SELECT ivm_check('bf_tc'), count(*) FROM bf_tc;
-- the same without backward/forward: DRed rederives
SET ivm.backward_forward = off;
SET client_min_messages = debug1;
DELETE FROM bf_e WHERE (s, d) = (12, 13);
RESET client_min_messages;
SELECT ivm_check('bf_tc'), count(*) FROM bf_tc;
-- auto: a small over-deletion is rederived
SET ivm.backward_forward = auto;
SET client_min_messages = debug1;
DELETE FROM bf_e WHERE (s, d) = (51, 52);
RESET client_min_messages;
SELECT ivm_check('bf_tc');
SET ivm.backward_forward = on;
-- A cycle does not keep itself: 1 -> 2 -> 3 -> 2; deleting 1 -> 2 takes
-- (1, 2) and (1, 3), which derive each other around the cycle, and (1, NULL).
CREATE TABLE bf_c (s int, d int);
INSERT INTO bf_c VALUES (1, 2), (2, 3), (3, 2), (4, 3), (NULL, 2), (3, NULL), (NULL, NULL);
SELECT ivm.create_view('bf_cyc', 'WITH RECURSIVE r(s, d) AS (SELECT s, d FROM bf_c UNION SELECT r.s, bf_c.d FROM r JOIN bf_c ON r.d = bf_c.s) SELECT s, d FROM r');
SET client_min_messages = debug1;
DELETE FROM bf_c WHERE (s, d) = (1, 2);
RESET client_min_messages;
SELECT ivm_check('bf_cyc');
SELECT * FROM bf_cyc WHERE s = 1 OR s IS NULL ORDER BY s, d;
-- NULLs are values in R: deleting (NULL, 2) takes (NULL, 2) and (NULL, 3);
-- (NULL, NULL) is an edge itself
SET client_min_messages = debug1;
DELETE FROM bf_c WHERE s IS NULL AND d = 2;
RESET client_min_messages;
SELECT ivm_check('bf_cyc');
SELECT * FROM bf_cyc WHERE s IS NULL ORDER BY d;
DELETE FROM bf_c WHERE (s, d) = (3, 2);
SELECT ivm_check('bf_cyc');
-- A rule reading two tables, and a deletion from both in one statement
CREATE TABLE bf_f (a int NOT NULL, b int NOT NULL);
INSERT INTO bf_f SELECT s, d FROM bf_e WHERE s % 2 = 0;
SELECT ivm.create_view('bf_two', 'WITH RECURSIVE p(x, y) AS (SELECT s, d FROM bf_e UNION SELECT p.x, bf_f.b FROM p JOIN bf_e ON p.y = bf_e.s JOIN bf_f ON bf_e.d = bf_f.a) SELECT x, y FROM p');
SET client_min_messages = debug1;
WITH gone_e AS (DELETE FROM bf_e WHERE s = 23 RETURNING 1), gone_f AS (DELETE FROM bf_f WHERE a = 34 RETURNING 1)
SELECT (SELECT count(*) FROM gone_e), (SELECT count(*) FROM gone_f);
RESET client_min_messages;
SELECT ivm_check('bf_two'), ivm_check('bf_tc');
-- A rule that also reads the column it passes on (tc.s < bf_e.d) does not
-- factor: the over-deletion is made, and backward/forward checks against it
SELECT ivm.create_view('bf_up', 'WITH RECURSIVE tc(s, d) AS (SELECT s, d FROM bf_e UNION SELECT tc.s, bf_e.d FROM tc JOIN bf_e ON tc.d = bf_e.s WHERE tc.s < bf_e.d) SELECT s, d FROM tc');
-- and one passing it through from another position (tc.d as s) neither
SELECT ivm.create_view('bf_swap', 'WITH RECURSIVE tc(s, d) AS (SELECT s, d FROM bf_e UNION SELECT tc.d, bf_e.d FROM tc JOIN bf_e ON tc.d = bf_e.s) SELECT s, d FROM tc');
SET client_min_messages = debug1;
DELETE FROM bf_e WHERE (s, d) = (32, 42);
RESET client_min_messages;
SELECT ivm_check('bf_up'), ivm_check('bf_swap'), ivm_check('bf_tc'), ivm_check('bf_two');
-- the same closure written from the other end: tc.d passes through, the
-- bound is the seeds' d and the s their s reach backwards
SELECT ivm.create_view('bf_back', 'WITH RECURSIVE tc(s, d) AS (SELECT s, d FROM bf_e UNION SELECT bf_e.s, tc.d FROM bf_e JOIN tc ON bf_e.d = tc.s) SELECT s, d FROM tc');
SET client_min_messages = debug1;
DELETE FROM bf_e WHERE (s, d) = (43, 44);
RESET client_min_messages;
SELECT ivm_check('bf_back'), ivm_check('bf_tc');
SELECT ivm.drop_view('bf_up'), ivm.drop_view('bf_swap'), ivm.drop_view('bf_back');
INSERT INTO bf_e VALUES (32, 42), (43, 44);
-- A deferred view: its apply reads the changed tables with their deleted rows
SELECT ivm.create_view('bf_later', 'WITH RECURSIVE tc(s, d) AS (SELECT s, d FROM bf_e UNION SELECT tc.s, bf_e.d FROM tc JOIN bf_e ON tc.d = bf_e.s) SELECT s, d FROM tc', deferred => true);
DELETE FROM bf_e WHERE (s, d) IN ((42, 43), (31, 41));
INSERT INTO bf_e VALUES (31, 41);
DELETE FROM bf_e WHERE (s, d) = (24, 25);
SET client_min_messages = debug1;
SELECT ivm.refresh_view('bf_later') > 0 AS applied;
RESET client_min_messages;
SELECT ivm_check('bf_later'), ivm_check('bf_tc');
-- In a transaction, with a savepoint rolled back
BEGIN;
DELETE FROM bf_e WHERE (s, d) = (11, 21);
SAVEPOINT s;
DELETE FROM bf_e WHERE (s, d) = (11, 12);
SELECT ivm_check('bf_tc');
ROLLBACK TO SAVEPOINT s;
SELECT ivm_check('bf_tc');
COMMIT;
SELECT ivm_check('bf_tc'), ivm_check('bf_two');
-- auto, as by default.  A 20 x 20 grid: deleting an edge in its middle
-- over-deletes thousands of pairs and takes a few.  The view's first
-- deletion is over-deleted (past 2,000 tuples, backward/forward checks them
-- for at most twice as long as the over-deletion took, so which way it goes
-- depends on timing; both give the same contents).
RESET ivm.backward_forward;
CREATE TABLE bf_g (s int NOT NULL, d int NOT NULL);
INSERT INTO bf_g SELECT i * 100 + j, (i + 1) * 100 + j FROM generate_series(1, 19) i, generate_series(1, 20) j;
INSERT INTO bf_g SELECT i * 100 + j, i * 100 + j + 1 FROM generate_series(1, 20) i, generate_series(1, 19) j;
SELECT ivm.create_view('bf_grid', 'WITH RECURSIVE tc(s, d) AS (SELECT s, d FROM bf_g UNION SELECT tc.s, bf_g.d FROM tc JOIN bf_g ON tc.d = bf_g.s) SELECT s, d FROM tc');
DELETE FROM bf_g WHERE (s, d) = (606, 607);
SELECT ivm_check('bf_grid');
-- Most of what it touched stayed: from now on each deletion is checked
-- against its bound, without an over-deletion, thousands of tuples or a
-- corner's few.
SET client_min_messages = debug1;
DELETE FROM bf_g WHERE (s, d) = (808, 908);
DELETE FROM bf_g WHERE (s, d) = (1919, 1920);
DELETE FROM bf_g WHERE (s, d) = (1718, 1818);
RESET client_min_messages;
SELECT ivm_check('bf_grid');
-- Where most over-deleted tuples really go, backward/forward stops after
-- 100 checks (or sooner) and DRed rederives: two chains of 60 joined by one
-- edge (3,660 pairs over it), beside a chain of 160 that keeps R large
-- enough not to recompute.  All of them went, so the next deletion is
-- over-deleted too (in a chain, every tuple it touches goes).
CREATE TABLE bf_h (s int NOT NULL, d int NOT NULL);
INSERT INTO bf_h SELECT g, g + 1 FROM generate_series(1, 120) g;
INSERT INTO bf_h SELECT g, g + 1 FROM generate_series(1001, 1160) g;
SELECT ivm.create_view('bf_chain', 'WITH RECURSIVE tc(s, d) AS (SELECT s, d FROM bf_h UNION SELECT tc.s, bf_h.d FROM tc JOIN bf_h ON tc.d = bf_h.s) SELECT s, d FROM tc');
SET client_min_messages = debug1;
DELETE FROM bf_h WHERE (s, d) = (60, 61);
DELETE FROM bf_h WHERE (s, d) = (1150, 1151);
RESET client_min_messages;
SELECT ivm_check('bf_chain'), count(*) FROM bf_chain;
SELECT ivm.drop_view('bf_grid'), ivm.drop_view('bf_chain');
DROP TABLE bf_g, bf_h;
SET ivm.backward_forward = on;
-- explain_view says when it runs, and its lookups
SELECT regexp_replace(line, ':.*', ':') AS step FROM ivm.explain_view('bf_tc') AS line WHERE line ~ '^  2\.';
SELECT substr(line, 1, 48) AS line FROM ivm.explain_view('bf_tc') AS line WHERE line LIKE 'backward/forward%';
SELECT substr(line, 1, 110) AS line FROM ivm.explain_view('bf_tc') AS line
 WHERE line LIKE 'deletions factor%' OR line LIKE '  1. and 2.%';
RESET ivm.backward_forward;
SELECT ivm.drop_view('bf_later'), ivm.drop_view('bf_two'), ivm.drop_view('bf_cyc'), ivm.drop_view('bf_tc');
DROP TABLE bf_e, bf_f, bf_c;
