-- What ivm cannot maintain is refused with SQLSTATE 0A000 naming the
-- construct; bad input gets PostgreSQL's own error; nothing is created.
CREATE TABLE t (a int, b text, j json);
CREATE TABLE u (a int, c int);
CREATE VIEW plain AS SELECT a, count(*) AS n FROM t GROUP BY a;
CREATE VIEW plain_sizes AS SELECT n, count(*) AS groups FROM (SELECT a, count(*) AS n FROM t GROUP BY a) s GROUP BY n;  -- needs a part of its own
CREATE MATERIALIZED VIEW mat AS SELECT a FROM t;
CREATE TABLE parted (a int) PARTITION BY RANGE (a);
CREATE TABLE parent (a int);
CREATE TABLE child () INHERITS (parent);
CREATE TEMP TABLE tmp (a int);
-- the message and its hint, as users see them
SELECT ivm.create_view('x', 'SELECT a, random() FROM t');
SELECT ivm.create_view('x', 'SELECT a FROM ONLY parent');
-- every refusal: SQLSTATE and message
SELECT refused($$SELECT a, random() FROM t$$);
SELECT refused($$SELECT a, now() FROM t$$);
SELECT refused($$SELECT a FROM t WHERE b::timestamptz > '2020-01-01'$$);
SELECT refused($$SELECT ctid, a FROM t$$);
SELECT refused($$SELECT t FROM t$$);
SELECT refused($$SELECT a FROM t LIMIT 1$$);
SELECT refused($$SELECT a FROM t OFFSET 1$$);
SELECT refused($$SELECT a FROM t FOR UPDATE$$);
SELECT refused($$SELECT a FROM t TABLESAMPLE SYSTEM (50)$$);
SELECT refused($$SELECT generate_series(1, a) FROM t$$);
SELECT refused($$SELECT DISTINCT ON (a) a, b, rank() OVER (ORDER BY b) FROM t$$);
SELECT refused($$SELECT a, j FROM t UNION SELECT 1, NULL::json$$);
SELECT refused($$(SELECT a FROM t ORDER BY a LIMIT 2) UNION SELECT a FROM u$$);
SELECT refused($$SELECT a FROM t WHERE a = (SELECT DISTINCT c FROM u WHERE u.a = t.a)$$);
SELECT refused($$SELECT t.a FROM t FULL JOIN u ON t.a = u.a AND u.a IN (SELECT a FROM t)$$);
SELECT refused($$WITH RECURSIVE w(a) AS (SELECT a FROM t UNION SELECT u.a FROM w LEFT JOIN u ON w.a = u.a) SELECT a FROM w$$);
SELECT refused($$SELECT a FROM (SELECT a FROM t LIMIT 1) s$$);
SELECT refused($$WITH w AS (SELECT a FROM t LIMIT 1) SELECT a FROM w$$);
SELECT refused($$SELECT FROM t$$);
SELECT refused($$SELECT n FROM plain_sizes$$);
SELECT refused($$SELECT a FROM mat$$);
SELECT refused($$SELECT a FROM ONLY parted$$);
SELECT refused($$SELECT a FROM ONLY parent$$);
SELECT refused($$SELECT a FROM tmp$$);
SELECT ivm_error($$SELECT ivm.create_view('pg_temp.x', 'SELECT a FROM t')$$);
-- PostgreSQL's own errors, reported against the query, with its codes
SELECT ivm.create_view('x', 'SELECT a FROM missing_table');
SELECT ivm.create_view('x', 'SELECT missing_column FROM t');
SELECT ivm.create_view('x', 'SELEC a FROM t');
SELECT refused('SELECT a FROM missing_table'), refused('SELECT missing_column FROM t'), refused('SELEC a FROM t');
SELECT refused($$SELECT a, a FROM t$$);
SELECT refused($$SELECT 1; SELECT 2$$);
SELECT refused($$INSERT INTO t VALUES (1)$$);
SELECT refused($$SELECT a INTO newtab FROM t$$);
SELECT ivm_error($$SELECT ivm.create_view('t', 'SELECT a FROM u')$$);
SELECT ivm_error($$SELECT ivm.create_view('no_such_schema.x', 'SELECT a FROM t')$$);
SELECT ivm.create_view(repeat('n', 60), 'SELECT a FROM t');
SELECT ivm_error($$SELECT ivm.create_view(repeat('n', 60), 'SELECT a FROM t')$$);
SELECT ivm_error($$SELECT ivm.drop_view('t')$$);
SELECT ivm_error($$SELECT ivm.drop_view('nothing_here')$$);
SELECT ivm_error($$SELECT ivm.refresh_view('plain')$$);
-- after all of that, nothing was created
SELECT relname FROM pg_class WHERE relname LIKE 'x%' OR relname LIKE 'n%ivm%';
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'ivm%';
-- a view that can be maintained leaves exactly its own objects
SELECT ivm.create_view('x', 'SELECT a FROM u');
SELECT relname FROM pg_class WHERE relname LIKE 'x%' ORDER BY 1;
SELECT name FROM ivm.views;
SELECT ivm.drop_view('x');
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'ivm%';
DROP VIEW plain_sizes, plain;
DROP MATERIALIZED VIEW mat;
DROP TABLE t, u, parted, parent, child;
