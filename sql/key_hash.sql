-- ivm.key_hash(a, b, ...) is hash_record_extended(ROW(a, b, ...), 0): the
-- key a view stores for a tuple, computed without forming the row.  Keys
-- stored by earlier versions (with hash_record_extended) stay valid.
CREATE TYPE regress_pair AS (x int, y text);
CREATE DOMAIN regress_even AS int CHECK (VALUE % 2 = 0);
CREATE TABLE key_values (i int, b bigint, t text, c text COLLATE "C", n numeric, f float8, a int[],
                         p regress_pair, d regress_even, j jsonb, ts timestamptz, u uuid, bo bool);
INSERT INTO key_values
SELECT g, g::bigint << 40, 'text ' || g, 'C ' || g, g / 7.0, g / 3.0, ARRAY[g, -g], ROW(g, 'p' || g)::regress_pair,
       2 * g, jsonb_build_object('k', g), timestamptz '2026-01-01' + g * interval '1 hour',
       md5(g::text)::uuid, g % 2 = 0
  FROM generate_series(1, 200) g;
INSERT INTO key_values VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                              (0, NULL, '', NULL, 'NaN', 'Infinity', '{}', ROW(NULL, NULL)::regress_pair, 0, 'null', NULL, NULL, false);
-- all columns, each column alone, and pairs in both orders
SELECT count(*) AS tuples,
       count(*) FILTER (WHERE ivm.key_hash(i, b, t, c, n, f, a, p, d, j, ts, u, bo)
                              = hash_record_extended(ROW(i, b, t, c, n, f, a, p, d, j, ts, u, bo), 0)) AS all_columns,
       count(*) FILTER (WHERE ivm.key_hash(i) = hash_record_extended(ROW(i), 0)
                          AND ivm.key_hash(t) = hash_record_extended(ROW(t), 0)
                          AND ivm.key_hash(n) = hash_record_extended(ROW(n), 0)
                          AND ivm.key_hash(a) = hash_record_extended(ROW(a), 0)
                          AND ivm.key_hash(p) = hash_record_extended(ROW(p), 0)
                          AND ivm.key_hash(d) = hash_record_extended(ROW(d), 0)) AS alone,
       count(*) FILTER (WHERE ivm.key_hash(i, t) = hash_record_extended(ROW(i, t), 0)
                          AND ivm.key_hash(t, i) = hash_record_extended(ROW(t, i), 0)
                          AND ivm.key_hash(i, t) <> ivm.key_hash(t, i)) AS ordered
  FROM key_values;
-- a nondeterministic collation: strings it holds equal hash alike, as in a ROW
CREATE COLLATION regress_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT ivm.key_hash('ABC'::text COLLATE regress_ci, 1) = ivm.key_hash('abc'::text COLLATE regress_ci, 1) AS case_ignored,
       ivm.key_hash('ABC'::text COLLATE regress_ci, 1) = hash_record_extended(ROW('abc'::text COLLATE regress_ci, 1), 0) AS as_in_a_row,
       ivm.key_hash('ABC'::text, 1) = ivm.key_hash('abc'::text, 1) AS case_kept_by_default;
-- a type without an extended hash function fails as in a ROW; an array
-- passed as VARIADIC is refused
SELECT ivm.key_hash(1, point(1, 2));
SELECT hash_record_extended(ROW(1, point(1, 2)), 0);
SELECT ivm.key_hash(VARIADIC ARRAY[1, 2]);
-- a view made now keys its storage with it, and the keys equal
-- hash_record_extended's
CREATE TABLE key_source (id int, name text COLLATE "C", score numeric);
INSERT INTO key_source SELECT g % 50, 'n' || g, g / 4.0 FROM generate_series(1, 300) g;
SELECT ivm.create_view('key_view', 'SELECT name, score FROM key_source WHERE id < 40');
SELECT count(*) AS stored, count(*) FILTER (WHERE __ivm_key = hash_record_extended(ROW(name, score), 0)) AS same
  FROM key_view__ivm_data;
UPDATE key_source SET score = score + 1 WHERE id % 3 = 0;
DELETE FROM key_source WHERE id % 5 = 0;
SELECT count(*) AS stored, count(*) FILTER (WHERE __ivm_key = hash_record_extended(ROW(name, score), 0)) AS same
  FROM key_view__ivm_data;
SELECT (SELECT count(*) FROM (SELECT * FROM key_view EXCEPT ALL SELECT name, score FROM key_source WHERE id < 40) x) +
       (SELECT count(*) FROM (SELECT name, score FROM key_source WHERE id < 40 EXCEPT ALL SELECT * FROM key_view) x) AS differences;
-- a recursive relation's key is a generated column: its expression says which
CREATE TABLE key_edge (src int, dst int);
INSERT INTO key_edge VALUES (1, 2), (2, 3), (3, 1);
SELECT ivm.create_view('key_closure', 'WITH RECURSIVE c(x, y) AS (SELECT src, dst FROM key_edge UNION SELECT c.x, e.dst FROM c JOIN key_edge e ON c.y = e.src) SELECT x, y FROM c');
SELECT pg_get_expr(d.adbin, d.adrelid) AS key_expression
  FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
 WHERE d.adrelid = 'key_closure__ivm_rec'::regclass AND a.attname = '__ivm_key';
SELECT count(*) AS stored, count(*) FILTER (WHERE __ivm_key = hash_record_extended(ROW(x, y), 0)) AS same
  FROM key_closure__ivm_rec;
SELECT ivm.drop_view('key_closure');
SELECT ivm.drop_view('key_view');
DROP TABLE key_source, key_values, key_edge;
DROP COLLATION regress_ci;
DROP DOMAIN regress_even;
DROP TYPE regress_pair;
