-- Names: whatever the user calls the view's columns, ivm's own names never
-- meet them.  ivm's names begin with __ivm_ (never __ivm_u_); an output
-- column the user names __ivm_... is stored (and read by ivm) as
-- __ivm_u___ivm_..., and the view shows the user's name.  Base columns and
-- aliases named like ivm's are read as they are.
CREATE TABLE nt (a int, b int, __ivm_count int, __ivm_cnt int);
INSERT INTO nt SELECT i % 5, i % 3, i, i % 2 FROM generate_series(1, 20) i;
SELECT ivm.create_view('n_plain', 'SELECT a AS __ivm_count, b AS __ivm_key, __ivm_count AS __ivm_cnt, __ivm_cnt AS __ivm_tid FROM nt');
SELECT ivm.create_view('n_partial', 'SELECT a AS __ivm_gk1, count(*) AS __ivm_count, sum(b) AS __ivm_n1, max(b) AS __ivm_x1, avg(__ivm_cnt) AS __ivm_s1 FROM nt GROUP BY a');
SELECT ivm.create_view('n_groups', 'SELECT a AS __ivm_h, string_agg(b::text, '','' ORDER BY b) AS __ivm_old FROM nt GROUP BY a');
SELECT ivm.create_view('n_union', 'SELECT a AS __ivm_arm1 FROM nt UNION SELECT b FROM nt');
SELECT ivm.create_view('n_distinct', 'SELECT DISTINCT a AS "__ivm_Side", __ivm_cnt AS __ivm_d1 FROM nt __ivm_s WHERE EXISTS (SELECT 1 FROM nt __ivm_r WHERE __ivm_r.b = __ivm_s.a)');
SELECT ivm.create_view('n_window', 'SELECT a, rank() OVER (PARTITION BY b ORDER BY a) AS __ivm_count FROM nt');
SELECT ivm.create_view('n_over', 'SELECT x.__ivm_count AS __ivm_side, y.__ivm_key FROM n_plain x LEFT JOIN n_plain y ON x.__ivm_count = y.__ivm_key');
SELECT ivm.create_view('n_part', 'SELECT s.__ivm_c1, count(*) AS __ivm_value FROM (SELECT a, max(b) AS __ivm_c1 FROM nt GROUP BY a) s GROUP BY s.__ivm_c1');
-- the view shows the user's names; its storage keeps them apart from ivm's
\d n_plain
SELECT attname FROM pg_attribute WHERE attrelid = 'n_plain__ivm_data'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM n_partial ORDER BY 1;
INSERT INTO nt VALUES (1, 1, 1, 1), (9, 9, 9, 9);
DELETE FROM nt WHERE a = 2;
UPDATE nt SET b = b + 1, __ivm_cnt = __ivm_cnt + 1 WHERE a = 3;
SELECT name, ivm_check(name) FROM ivm.views WHERE name::text LIKE 'n\_%' ORDER BY name::text;
SELECT * FROM n_over ORDER BY 1, 2 LIMIT 3;
-- a redefinition and a refresh keep them so
SELECT ivm.alter_view('n_plain', 'SELECT a AS __ivm_count, b AS __ivm_key, __ivm_count AS __ivm_cnt, __ivm_cnt AS __ivm_tid FROM nt WHERE a > 0');
SELECT ivm_check('n_plain'), ivm_check('n_over');
SELECT ivm.refresh_view('n_over');
-- a name that would not fit once stored so
SELECT refused($$SELECT a AS __ivm_a_name_of_sixty_two_bytes_fits_a_column_not_8_bytes_more FROM nt$$);
SELECT ivm.drop_view(name::text) FROM ivm.views WHERE part_of IS NULL AND name::text LIKE 'n\_%' ORDER BY name::oid DESC;
DROP TABLE nt;
