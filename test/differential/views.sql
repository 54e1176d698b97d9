-- The views the differential tester maintains: one per construct (counting),
-- and the recursive shapes (DRed).
SELECT ivm.create_view('dt_project', 'SELECT a, c, a + 1 AS a1 FROM r WHERE b IS DISTINCT FROM 2');
SELECT ivm.create_view('dt_join', 'SELECT r.a, r.c, s.d FROM r JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_join3', 'SELECT r.a, s.d, t.e FROM r, s, t WHERE r.b = s.b AND s.d = t.d');
SELECT ivm.create_view('dt_using', 'SELECT b, r.a, s.d FROM r JOIN s USING (b) WHERE r.a < 5');
SELECT ivm.create_view('dt_self', 'SELECT x.a, y.c FROM r x JOIN r y ON x.b = y.a');
SELECT ivm.create_view('dt_distinct', 'SELECT DISTINCT r.c, s.d FROM r JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_cross', 'SELECT s.b, t.e FROM s, t WHERE s.d > 1');
SELECT ivm.create_view('dt_nulls', 'SELECT r.b, r.c, t.e FROM r JOIN t ON r.c IS NOT DISTINCT FROM t.e');
-- recursive views (DRed)
SELECT ivm.create_view('dt_tc', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT x, y FROM tc');
-- columns every rule derives from NOT NULL columns are matched by plain
-- equality (g2's), the others NULL-safely (y, from g, in dt_tc_mixed)
SELECT ivm.create_view('dt_tc_notnull', 'WITH RECURSIVE p(x, y) AS (SELECT a, b FROM g2 UNION SELECT p.x, g2.b FROM p JOIN g2 ON p.y = g2.a) SELECT x, y FROM p');
SELECT ivm.create_view('dt_tc_mixed', 'WITH RECURSIVE p(x, y) AS (SELECT a, b FROM g2 UNION SELECT p.x, g.dst FROM p JOIN g ON p.y = g.src) SELECT x, y FROM p');
SELECT ivm.create_view('dt_reach', 'WITH RECURSIVE reach(n) AS (SELECT n FROM roots UNION SELECT g.dst FROM reach JOIN g ON g.src = reach.n) SELECT n FROM reach');
SELECT ivm.create_view('dt_two_hop', 'WITH RECURSIVE p(x, y) AS (SELECT src, dst FROM g UNION SELECT a, b FROM g2 UNION SELECT p.x, g2.b FROM p JOIN g ON p.y = g.src JOIN g2 ON g.dst = g2.a) SELECT x, y FROM p WHERE x IS DISTINCT FROM y');
SELECT ivm.create_view('dt_tc_outer', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT tc.x, g.dst AS z FROM tc JOIN g ON tc.y = g.src JOIN roots ON roots.n = tc.x');
SELECT ivm.create_view('dt_tc_pairs', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g WHERE src IS NOT NULL UNION SELECT tc.x, g.dst FROM g JOIN tc ON g.src = tc.y) SELECT a.x, b.y FROM tc a JOIN tc b ON a.y = b.x');
SELECT ivm.create_view('dt_tc_distinct', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT DISTINCT y FROM tc WHERE x < 4');
-- same generation: a linear rule reading g twice around the recursion (up
-- one edge, across, down another)
SELECT ivm.create_view('dt_same_gen', 'WITH RECURSIVE sg(x, y) AS (SELECT a, b FROM g2 UNION SELECT u.src, d.src FROM sg JOIN g u ON u.dst = sg.x JOIN g d ON d.dst = sg.y) SELECT x, y FROM sg');
-- DISTINCT over an aggregation (the aggregation a part)
SELECT ivm.create_view('dt_distinct_agg', 'SELECT DISTINCT count(*) AS n, min(c) AS lo FROM r GROUP BY b');
-- aggregates (groups recomputed) and an aggregate over a recursive relation
SELECT ivm.create_view('dt_agg', 'SELECT b, count(*) AS n, count(c) AS nc, sum(a) AS sa, avg(a) AS aa, min(c) AS mc, max(a) AS xa FROM r GROUP BY b');
SELECT ivm.create_view('dt_agg_join', 'SELECT s.d, count(*) AS n, sum(r.a) AS sa, string_agg(r.c, '','' ORDER BY r.c) AS cs FROM r JOIN s ON r.b = s.b GROUP BY s.d HAVING count(*) > 1');
SELECT ivm.create_view('dt_agg_all', 'SELECT count(*) AS n, sum(b) AS sb, max(c) AS mc FROM r WHERE a > 1');
-- redefined among three sets of rules by random statements (tester.sql)
SELECT ivm.create_view('dt_rules', ivm_dt.rules_definition(0));
INSERT INTO ivm_dt.equivalent VALUES ('dt_rules', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g, ivm_dt.rules m WHERE m.mode < 2 OR src < 3 UNION SELECT a, b FROM g2, ivm_dt.rules m WHERE m.mode > 0 UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT x, y FROM tc') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_rules_nl', ivm_dt.rules_definition(0, true));
-- (its closure composes any two pairs: the closure of the edges its rules give)
INSERT INTO ivm_dt.equivalent VALUES ('dt_rules_nl', 'WITH RECURSIVE e(x, y) AS (SELECT src, dst FROM g, ivm_dt.rules m WHERE m.mode < 2 OR src < 3 UNION SELECT a, b FROM g2, ivm_dt.rules m WHERE m.mode > 0), tc(x, y) AS (SELECT x, y FROM e UNION SELECT tc.x, e.y FROM tc JOIN e ON tc.y = e.x) SELECT x, y FROM tc WHERE NOT EXISTS (SELECT 1 FROM roots WHERE roots.n = tc.y)') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_tc_agg', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT x, count(*) AS n, min(y) AS lo FROM tc GROUP BY x');
-- set operations
SELECT ivm.create_view('dt_union_all', 'SELECT a AS v, c FROM r UNION ALL SELECT d, NULL FROM s UNION ALL SELECT s.d, r.c FROM r JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_union', 'SELECT b AS v FROM r UNION SELECT b FROM s UNION SELECT d FROM t');
SELECT ivm.create_view('dt_intersect_all', 'SELECT b, c FROM r INTERSECT ALL SELECT s.b, t.e FROM s JOIN t ON s.d = t.d');
SELECT ivm.create_view('dt_intersect', 'SELECT b FROM r INTERSECT SELECT b FROM s');
SELECT ivm.create_view('dt_except_all', 'SELECT b FROM r EXCEPT ALL SELECT b FROM s');
-- SELECT DISTINCT arms of set operations
SELECT ivm.create_view('dt_distinct_arm', 'SELECT b, c FROM r EXCEPT ALL SELECT DISTINCT s.b, t.e FROM s JOIN t ON s.d = t.d WHERE EXISTS (SELECT 1 FROM r x WHERE x.b = s.b)');
SELECT ivm.create_view('dt_distinct_arm_all', 'SELECT DISTINCT a AS v FROM r UNION ALL SELECT d FROM s');
SELECT ivm.create_view('dt_except', 'SELECT d FROM s EXCEPT SELECT d FROM t WHERE e IS NOT NULL');
-- views over views
SELECT ivm.create_view('dt_over_join', 'SELECT d, count(*) AS n, sum(a) AS sa FROM dt_join GROUP BY d');
SELECT ivm.create_view('dt_over_distinct', 'SELECT c, d FROM dt_distinct WHERE d IS NOT NULL UNION ALL SELECT c, NULL FROM dt_project');
SELECT ivm.create_view('dt_over_rec', 'WITH RECURSIVE r(x, y) AS (SELECT x, y FROM dt_tc WHERE x < 5 UNION SELECT r.x, t.y FROM r JOIN dt_tc t ON r.y = t.x) SELECT x, y FROM r');
SELECT ivm.create_view('dt_over_except', 'SELECT b FROM dt_except_all UNION ALL SELECT d FROM dt_except');
-- aggregates kept from partial state (count, sum, avg over integers, min, max), and a numeric avg (recomputed)
SELECT ivm.create_view('dt_partial', 'SELECT b, count(*) AS n, count(c) AS nc, sum(a) AS sa, avg(a) AS aa FROM r GROUP BY b');
SELECT ivm.create_view('dt_partial_join', 'SELECT s.d, sum(r.a * s.d) AS w, count(r.c) AS nc, avg(r.a::numeric / 3) AS q FROM r JOIN s ON r.b = s.b GROUP BY s.d');
SELECT ivm.create_view('dt_extremes', 'SELECT s.d, min(r.a) AS lo, max(r.c) AS hi, max(r.a + s.d) AS top, count(*) AS n FROM r JOIN s ON r.b = s.b GROUP BY s.d');
SELECT ivm.create_view('dt_partial_over', 'SELECT x, count(*) AS n, sum(y) AS sy FROM dt_tc GROUP BY x');
-- expressions over such aggregates and group keys, kept from the aggregates' hidden partial state
SELECT ivm.create_view('dt_partial_expr', 'SELECT b, 0.5 * sum(a) AS h, sum(a)::numeric / nullif(count(c), 0) AS per_c, b * count(*) + coalesce(max(a), 0) AS m, min(c) || ''!'' AS lo FROM r GROUP BY b');
SELECT ivm.create_view('dt_partial_share', 'SELECT 100.0 * sum(CASE WHEN s.d > 2 THEN r.a ELSE 0 END) / nullif(sum(r.a), 0) AS share, max(s.d) - min(r.a) AS spread FROM r JOIN s ON r.b = s.b');
-- a plain view expanded into the query (recreated with the tables)
CREATE VIEW dt_plain_rs AS SELECT r.a, r.c, s.d FROM r JOIN s USING (b) WHERE r.a IS DISTINCT FROM 3;
SELECT ivm.create_view('dt_over_plain', 'SELECT p.d, count(*) AS n, max(p.a) AS hi FROM dt_plain_rs p JOIN t ON p.d = t.d GROUP BY p.d');
-- plain views that aggregate, are set operations, have outer joins: read
-- through parts of their own (a view showing one is that part itself)
CREATE VIEW dt_plain_agg AS SELECT b, count(*) AS n, sum(a) AS sa, max(c) AS hi FROM r GROUP BY b;
CREATE VIEW dt_plain_keys AS SELECT d AS k FROM s UNION SELECT d FROM t WHERE e IS DISTINCT FROM 'q';
CREATE VIEW dt_plain_outer AS SELECT r.a, s.d FROM r LEFT JOIN s ON s.b = r.b;
CREATE VIEW dt_plain_sizes AS SELECT p.n, count(*) AS groups, sum(p.sa) AS total FROM dt_plain_agg p JOIN dt_plain_keys k ON k.k = p.b GROUP BY p.n HAVING count(*) > 0;
SELECT ivm.create_view('dt_shows_plain', 'SELECT * FROM dt_plain_agg');
SELECT ivm.create_view('dt_outer_plain', 'SELECT t.d, t.e, p.a FROM t LEFT JOIN dt_plain_rs p ON p.d = t.d');
SELECT ivm.create_view('dt_over_plain_sizes', 'SELECT n, total FROM dt_plain_sizes WHERE groups < 4');
SELECT ivm.create_view('dt_over_plain_agg', 'SELECT s.d, p.n, p.hi FROM s JOIN dt_plain_agg p ON p.b = s.b WHERE p.sa > 2');
SELECT ivm.create_view('dt_over_plain_keys', 'SELECT u.k, count(o.a) AS n FROM dt_plain_keys u LEFT JOIN dt_plain_outer o ON o.d = u.k GROUP BY u.k');
-- a subquery in FROM and WITH queries, expanded into the query
SELECT ivm.create_view('dt_subquery', 'SELECT q.a, q.d, t.e FROM (SELECT r.a, s.d FROM r, s WHERE r.b = s.b AND r.c IS NOT NULL) q JOIN t ON q.d = t.d');
SELECT ivm.create_view('dt_with', 'WITH x AS (SELECT a, b FROM r WHERE a > 0), y AS (SELECT x.a, s.d FROM x JOIN s ON x.b = s.b) SELECT d, count(*) AS n, min(a) AS lo FROM y GROUP BY d');
-- numeric sum and avg from partial state, with values of several scales
SELECT ivm.create_view('dt_numeric', 'SELECT b, sum(round(a::numeric / 4, b)) AS s, avg(round(a::numeric / 3, a % 3)) AS m, count(*) AS n FROM r GROUP BY b');
-- numeric sums of a scale their arguments' types fix (no scale kept), shown as text so that it is compared
SELECT ivm.create_view('dt_fixed_scale', 'SELECT b, sum((a / 3.0)::numeric(12,2) * 1.5 + 2)::text AS s, avg((a / 7.0)::numeric(10,3))::text AS m, sum(-((a * 0.25)::numeric(9,1)) + b)::text AS neg, count(*) AS n FROM r GROUP BY b');
-- aggregates over one argument share its partial state (count, sum, scale; min and max apart)
SELECT ivm.create_view('dt_shared', 'SELECT b, sum(round(a::numeric / 4, a % 3)) AS s, avg(round(a::numeric / 4, a % 3)) AS m, min(round(a::numeric / 4, a % 3)) AS lo, max(round(a::numeric / 4, a % 3)) AS hi, count(round(a::numeric / 4, a % 3)) AS n FROM r GROUP BY b');
-- a side of EXCEPT ALL / INTERSECT that is a UNION ALL / UNION
SELECT ivm.create_view('dt_nested_except', 'SELECT b FROM r UNION ALL SELECT b FROM s EXCEPT ALL SELECT d FROM t');
SELECT ivm.create_view('dt_nested_intersect', 'SELECT d FROM t INTERSECT ALL (SELECT b FROM r UNION SELECT b FROM s)');
-- outer joins: a padded row comes when the last match goes and goes when one comes
SELECT ivm.create_view('dt_left', 'SELECT r.a, r.c, s.d FROM r LEFT JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_right', 'SELECT t.e, s.b FROM s RIGHT JOIN t ON s.d = t.d AND s.b > 1');
SELECT ivm.create_view('dt_left_chain', 'SELECT r.a, s.d, t.e FROM r LEFT JOIN s ON r.b = s.b LEFT JOIN t ON t.d = s.d JOIN g ON g.src = r.a');
SELECT ivm.create_view('dt_left_anti', 'SELECT r.a, r.b FROM r LEFT JOIN s ON r.b = s.b WHERE s.b IS NULL');
SELECT ivm.create_view('dt_left_agg', 'SELECT r.b, count(s.d) AS n, sum(s.d) AS sd, count(*) AS rows FROM r LEFT JOIN s ON r.b = s.b GROUP BY r.b');
SELECT ivm.create_view('dt_left_self', 'SELECT x.a, y.c FROM r x LEFT JOIN r y ON x.b = y.a AND y.c IS NOT NULL');
-- semi-joins and anti-joins, correlated, nested, under OR, in UNION arms and aggregates
SELECT ivm.create_view('dt_exists', 'SELECT r.a, r.c FROM r WHERE EXISTS (SELECT 1 FROM s WHERE s.b = r.b AND s.d > 0)');
SELECT ivm.create_view('dt_not_exists', 'SELECT s.b, s.d FROM s WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.d = s.d AND t.e IS NOT NULL)');
SELECT ivm.create_view('dt_in', 'SELECT a, c FROM r WHERE b IN (SELECT d FROM t)');
SELECT ivm.create_view('dt_not_in', 'SELECT a, b FROM r WHERE b NOT IN (SELECT b FROM s WHERE d < 3)');
SELECT ivm.create_view('dt_nested_neg', 'SELECT t.d, t.e FROM t WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.d = t.d AND NOT EXISTS (SELECT 1 FROM r WHERE r.b = s.b))');
SELECT ivm.create_view('dt_self_anti', 'SELECT x.a, x.b FROM r x WHERE NOT EXISTS (SELECT 1 FROM r y WHERE y.a = x.b)');
SELECT ivm.create_view('dt_any_all', 'SELECT a, c FROM r WHERE a > ALL (SELECT d FROM s WHERE s.b = r.b) OR c = ANY (SELECT e FROM t WHERE t.d > r.a)');
SELECT ivm.create_view('dt_exists_agg', 'SELECT s.d, count(*) AS n, max(s.b) AS hi FROM s WHERE EXISTS (SELECT 1 FROM r JOIN t ON r.c = t.e WHERE r.b = s.b) GROUP BY s.d');
SELECT ivm.create_view('dt_neg_union', 'SELECT b FROM r WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.d = r.b) UNION SELECT b FROM s WHERE b IN (SELECT a FROM g2)');
SELECT ivm.create_view('dt_neg_join', 'SELECT r.a, s.d FROM r JOIN s ON r.b = s.b WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.d = s.d AND t.e = r.c)');
-- FULL JOIN: the LEFT JOIN and the unmatched right rows padded
SELECT ivm.create_view('dt_full', 'SELECT r.a, r.c, s.d, coalesce(r.b, s.b) AS k FROM r FULL JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_full_using', 'SELECT DISTINCT b, d, e FROM s FULL JOIN t USING (d) WHERE e IS DISTINCT FROM ''q''');
-- set operations nested and mixed: each tuple's count kept per arm
SELECT ivm.create_view('dt_setops_nested', 'SELECT b FROM r INTERSECT SELECT b FROM s EXCEPT SELECT d FROM t');
SELECT ivm.create_view('dt_setops_mixed', 'SELECT b FROM r UNION SELECT b FROM s UNION ALL SELECT d FROM t');
SELECT ivm.create_view('dt_setops_deep', '(SELECT b, c FROM r EXCEPT ALL SELECT b, NULL FROM s) INTERSECT ALL (SELECT d, e FROM t UNION ALL SELECT a, ''x'' FROM g2 INTERSECT SELECT src, ''x'' FROM g)');
SELECT ivm.create_view('dt_setops_joins', 'SELECT r.b FROM r FULL JOIN s ON r.b = s.b EXCEPT ALL SELECT t.d FROM t WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.d = t.d)');
-- subqueries in FROM that aggregate, are DISTINCT or set operations: views of their own (parts)
SELECT ivm.create_view('dt_from_agg', 'SELECT r.a, q.n, q.hi FROM r JOIN (SELECT b, count(*) AS n, max(d) AS hi FROM s GROUP BY b) q ON q.b = r.b');
SELECT ivm.create_view('dt_from_distinct', 'SELECT q.d, t.e FROM (SELECT DISTINCT d FROM s WHERE b > 1) q LEFT JOIN t ON t.d = q.d');
SELECT ivm.create_view('dt_from_union', 'SELECT u.x, count(*) AS n FROM (SELECT b AS x FROM r UNION SELECT d FROM t) u JOIN s ON s.b = u.x GROUP BY u.x');
SELECT ivm.create_view('dt_with_agg', 'WITH q AS (SELECT d, count(*) AS n FROM s GROUP BY d) SELECT q.d, q.n, x.n AS m FROM q JOIN q x ON x.d = q.d + 1');
SELECT ivm.create_view('dt_left_subjoin', 'SELECT r.a, q.d, q.e FROM r LEFT JOIN (SELECT s.b, s.d, t.e FROM s JOIN t ON t.d = s.d) q ON q.b = r.b');
SELECT ivm.create_view('dt_full_agg', 'SELECT f.k, count(*) AS n, sum(f.d) AS sd FROM (SELECT coalesce(r.b, s.b) AS k, s.d FROM r FULL JOIN s ON r.b = s.b) f GROUP BY f.k');
-- scalar subqueries (one-row parts cross-joined, correlated ones grouped and joined) and IN over an aggregate
SELECT ivm.create_view('dt_scalar', 'SELECT a, c, (SELECT max(d) FROM s) AS top FROM r WHERE a > (SELECT avg(b) FROM r)');
SELECT ivm.create_view('dt_scalar_corr', 'SELECT r.a, r.b FROM r WHERE r.a >= (SELECT min(s.d) FROM s WHERE s.b = r.b) AND r.c IS NOT NULL');
SELECT ivm.create_view('dt_scalar_having', 'SELECT b, sum(a) AS sa FROM r GROUP BY b HAVING sum(a) > (SELECT sum(d) FROM s) / 4');
SELECT ivm.create_view('dt_scalar_nested', 'SELECT t.d, t.e FROM t WHERE t.d IN (SELECT s.b FROM s WHERE s.d < (SELECT sum(r.a) FROM r WHERE r.b = s.b))');
SELECT ivm.create_view('dt_scalar_left', 'SELECT t.d, t.e, (SELECT count(*) FROM s WHERE s.d = t.d) AS n FROM t WHERE t.d > (SELECT count(*) FROM r WHERE r.b = t.d) OR t.e IS NULL');
-- a relation read by WHERE alone: where its change replaces one row by
-- another, only the rows its conditions take differently are re-derived
-- (crossing_filter.cpp); the same table on both sides, and a part
SELECT ivm.create_view('dt_cross_self', 'SELECT r1.a, r1.c FROM r r1, r r2 WHERE r1.b > r2.a AND r2.c = ''x''');
SELECT ivm.create_view('dt_cross_part', 'SELECT t.e, count(*) AS n FROM t WHERE t.d >= (SELECT min(d) FROM s WHERE b > 1) GROUP BY t.e');
SELECT ivm.create_view('dt_exists_grouped', 'SELECT t.d, t.e FROM t WHERE EXISTS (SELECT 1 FROM s WHERE s.d = t.d GROUP BY s.b HAVING count(*) > 1)');
SELECT ivm.create_view('dt_in_agg', 'SELECT s.b, s.d FROM s WHERE s.b IN (SELECT b FROM r GROUP BY b HAVING count(*) > 1)');
SELECT ivm.create_view('dt_scalar_with', 'WITH q AS (SELECT b, sum(a) AS n FROM r GROUP BY b) SELECT q.b, q.n FROM q WHERE q.n = (SELECT max(n) FROM q)');
-- window functions: partitions recomputed (duplicates counted); a windowed subquery is a part
SELECT ivm.create_view('dt_window', 'SELECT r.b, r.a, rank() OVER (PARTITION BY r.b ORDER BY r.a) AS rk, count(*) OVER (PARTITION BY r.b) AS n FROM r');
SELECT ivm.create_view('dt_window_join', 'SELECT s.d, r.c, sum(r.a) OVER (PARTITION BY s.d ORDER BY r.c) AS run FROM r JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_window_top', 'SELECT x.d, x.e FROM (SELECT t.d, t.e, dense_rank() OVER (PARTITION BY t.d ORDER BY t.e DESC) AS k FROM t) x WHERE x.k = 1');
SELECT ivm.create_view('dt_window_all', 'SELECT a, count(*) OVER () AS n FROM r WHERE a > 2');
-- set operation arms that aggregate or have windows read parts
SELECT ivm.create_view('dt_arm_agg', 'SELECT b, count(*) AS n FROM r GROUP BY b UNION ALL SELECT d, sum(b) FROM s GROUP BY d');
SELECT ivm.create_view('dt_arm_except', 'SELECT d FROM t EXCEPT SELECT b FROM s GROUP BY b HAVING count(*) > 1');
-- join trees the engine cannot take apart become parts
SELECT ivm.create_view('dt_left_join_tree', 'SELECT r.a, s.d, t.e FROM r LEFT JOIN (s JOIN t ON t.d = s.d) ON s.b = r.b');
SELECT ivm.create_view('dt_full_chain', 'SELECT r.a, s.d, t.e FROM r FULL JOIN s ON r.b = s.b FULL JOIN t ON t.d = s.d');
SELECT ivm.create_view('dt_full_grouped', 'SELECT s.d, count(*) AS n, count(r.a) AS na FROM r FULL JOIN s ON r.b = s.b GROUP BY s.d');
-- a counting view of pairs for a program to read
SELECT ivm.create_view('dt_join_pairs', 'SELECT DISTINCT r.a AS x, s.d AS y FROM r JOIN s ON r.b = s.b');
-- recursive queries PostgreSQL does not evaluate (ivm's own fixpoint and DRed per stratum),
-- each checked against an equivalent query PostgreSQL runs
SELECT ivm.create_view('dt_nl_tc', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x) SELECT x, y FROM tc');
INSERT INTO ivm_dt.equivalent VALUES ('dt_nl_tc', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT x, y FROM tc') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_nl_tc_agg', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x) SELECT x, count(*) AS n, max(y) AS hi FROM tc GROUP BY x');
INSERT INTO ivm_dt.equivalent VALUES ('dt_nl_tc_agg', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT x, count(*) AS n, max(y) AS hi FROM tc GROUP BY x') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_even', 'WITH RECURSIVE odd(x, y) AS (SELECT src, dst FROM g UNION SELECT ev.x, g.dst FROM even ev JOIN g ON ev.y = g.src), even(x, y) AS (SELECT o.x, g.dst FROM odd o JOIN g ON o.y = g.src) SELECT x, y FROM even');
INSERT INTO ivm_dt.equivalent VALUES ('dt_even', 'WITH RECURSIVE p(x, y, odd) AS (SELECT src, dst, true FROM g UNION SELECT p.x, g.dst, NOT p.odd FROM p JOIN g ON p.y = g.src) SELECT x, y FROM p WHERE NOT odd') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_odd_even', 'WITH RECURSIVE odd(x, y) AS (SELECT src, dst FROM g UNION SELECT ev.x, g2.b FROM even ev JOIN g2 ON ev.y = g2.a), even(x, y) AS (SELECT o.x, g.dst FROM odd o JOIN g ON o.y = g.src) SELECT o.x, e.y FROM odd o JOIN even e ON o.y = e.x');
INSERT INTO ivm_dt.equivalent VALUES ('dt_odd_even', 'WITH RECURSIVE p(x, y, odd) AS (SELECT src, dst, true FROM g UNION SELECT p.x, s.b, NOT p.odd FROM p JOIN (SELECT src, dst, true FROM g UNION ALL SELECT a, b, false FROM g2) s(a, b, after_odd) ON p.y = s.a AND s.after_odd = p.odd) SELECT o.x, e.y FROM p o JOIN p e ON o.y = e.x WHERE o.odd AND NOT e.odd') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_reach2', 'WITH RECURSIVE r(n) AS (SELECT n FROM roots UNION SELECT g.dst FROM r JOIN g ON g.src = r.n UNION SELECT g2.b FROM r JOIN g2 ON g2.a = r.n) SELECT n FROM r');
INSERT INTO ivm_dt.equivalent VALUES ('dt_reach2', 'WITH RECURSIVE r(n) AS (SELECT n FROM roots UNION SELECT x.b FROM r JOIN (SELECT src, dst FROM g UNION ALL SELECT a, b FROM g2) x(a, b) ON x.a = r.n) SELECT n FROM r') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_sg_swapped', 'WITH RECURSIVE sg(x, y) AS (SELECT a.src, b.src FROM sg JOIN g a ON a.dst = sg.x JOIN g b ON b.dst = sg.y UNION SELECT a.src, b.src FROM g a JOIN g b ON a.dst = b.dst) SELECT x, y FROM sg');
INSERT INTO ivm_dt.equivalent VALUES ('dt_sg_swapped', 'WITH RECURSIVE sg(x, y) AS (SELECT a.src, b.src FROM g a JOIN g b ON a.dst = b.dst UNION SELECT a.src, b.src FROM sg JOIN g a ON a.dst = sg.x JOIN g b ON b.dst = sg.y) SELECT x, y FROM sg') ON CONFLICT DO NOTHING;
-- Andersen's points-to analysis: four rules, two reading pts twice
SELECT ivm.create_view('dt_points_to', 'WITH RECURSIVE pts(p, a) AS (SELECT a, b FROM g2 UNION SELECT c.dst, pts.a FROM g c JOIN pts ON pts.p = c.src UNION SELECT l.a, t.a FROM g2 l JOIN pts s ON s.p = l.b JOIN pts t ON t.p = s.a UNION SELECT s.a, t.a FROM g st JOIN pts s ON s.p = st.src JOIN pts t ON t.p = st.dst WHERE st.src % 2 = 0) SELECT p, a FROM pts');
INSERT INTO ivm_dt.equivalent VALUES ('dt_points_to', 'SELECT * FROM ivm_dt.points_to()') ON CONFLICT DO NOTHING;
-- stratified negation and aggregation (PostgreSQL runs these: nothing negated recurses)
SELECT ivm.create_view('dt_open_reach', 'WITH RECURSIVE r(n) AS (SELECT n FROM roots UNION SELECT g.dst FROM r JOIN g ON g.src = r.n WHERE NOT EXISTS (SELECT 1 FROM g2 WHERE g2.b = g.dst)) SELECT n FROM r');
SELECT ivm.create_view('dt_unreached', 'WITH RECURSIVE r(n) AS (SELECT n FROM roots UNION SELECT g.dst FROM r JOIN g ON g.src = r.n), node(n) AS (SELECT src FROM g UNION SELECT dst FROM g), lost(n) AS (SELECT n FROM node WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.n = node.n)), size(k) AS (SELECT count(*) FROM r) SELECT lost.n, size.k FROM lost, size');
SELECT ivm.create_view('dt_reach_over_lost', 'WITH RECURSIVE r(n) AS (SELECT n FROM roots UNION SELECT g.dst FROM r JOIN g ON g.src = r.n), lost(n) AS (SELECT src FROM g WHERE src NOT IN (SELECT n FROM r WHERE n IS NOT NULL)), far(x, y) AS (SELECT l.n, g2.b FROM lost l JOIN g2 ON g2.a = l.n UNION SELECT f.x, g2.b FROM far f JOIN g2 ON g2.a = f.y) SELECT x, y FROM far');
-- a program's final query joining a base table its terms read too (one statement changes both
-- parts), a program over an ivm view, and a final set operation over items
SELECT ivm.create_view('dt_nl_tc_outer', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x) SELECT tc.x, g.dst AS z FROM tc JOIN g ON tc.y = g.src JOIN roots ON roots.n = tc.x');
INSERT INTO ivm_dt.equivalent VALUES ('dt_nl_tc_outer', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT tc.x, g.dst AS z FROM tc JOIN g ON tc.y = g.src JOIN roots ON roots.n = tc.x') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_nl_over_view', 'WITH RECURSIVE a(x, y) AS (SELECT x, y FROM dt_join_pairs WHERE x < 4 UNION SELECT p.x, q.y FROM a p JOIN a q ON p.y = q.x) SELECT x, y FROM a');
INSERT INTO ivm_dt.equivalent VALUES ('dt_nl_over_view', 'WITH RECURSIVE a(x, y) AS (SELECT x, y FROM dt_join_pairs WHERE x < 4 UNION SELECT a.x, t.y FROM a JOIN dt_join_pairs t ON a.y = t.x WHERE t.x < 4) SELECT x, y FROM a') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_parities', 'WITH RECURSIVE odd(x, y) AS (SELECT src, dst FROM g UNION SELECT ev.x, g.dst FROM even ev JOIN g ON ev.y = g.src), even(x, y) AS (SELECT o.x, g.dst FROM odd o JOIN g ON o.y = g.src) SELECT x, y FROM odd EXCEPT ALL SELECT x, y FROM even');
INSERT INTO ivm_dt.equivalent VALUES ('dt_parities', 'WITH RECURSIVE p(x, y, odd) AS (SELECT src, dst, true FROM g UNION SELECT p.x, g.dst, NOT p.odd FROM p JOIN g ON p.y = g.src) SELECT x, y FROM p WHERE odd EXCEPT ALL SELECT x, y FROM p WHERE NOT odd') ON CONFLICT DO NOTHING;
-- keyed by f: inserts into f alone are written without a lookup
SELECT ivm.create_view('dt_keyed', 'SELECT f.id, f.v, dim.name FROM f JOIN dim ON f.k = dim.k');
SELECT ivm.create_view('dt_keyed_chain', 'SELECT f.id, d.name, e.x FROM f, dim d, dim2 e WHERE d.k = f.k AND e.name = d.name AND f.v IS DISTINCT FROM 2');
SELECT ivm.create_view('dt_keyed_alone', 'SELECT id, k FROM f WHERE v > 0');
SELECT ivm.create_view('dt_keyed_over', 'SELECT name, count(*) AS n, sum(v) AS sv FROM dt_keyed GROUP BY name');
SELECT ivm.create_view('dt_keyed_not', 'SELECT f.v, dim.name FROM f LEFT JOIN dim ON f.k = dim.k');
-- IN, NOT IN, > ANY and >= ALL between NOT NULL columns: changes inside
-- found by the comparison itself (for ALL its negation) (occurrences.cpp, compares_never_unknown)
SELECT ivm.create_view('dt_in_notnull', 'SELECT id, v FROM f WHERE id IN (SELECT a FROM g2 WHERE b IN (SELECT k FROM dim WHERE name IS DISTINCT FROM ''x''))');
SELECT ivm.create_view('dt_not_in_notnull', 'SELECT a, b FROM g2 WHERE a NOT IN (SELECT k FROM dim WHERE name IS NOT NULL) AND b > ANY (SELECT id FROM f WHERE v > 1) AND a >= ALL (SELECT id FROM f WHERE v = 3)');
-- joins read through their alias (the templates read the tables under them)
SELECT ivm.create_view('dt_named_join', 'SELECT j.a, j.d, j.c FROM (r JOIN s ON r.b = s.b) AS j WHERE j.a IS DISTINCT FROM 2');
SELECT ivm.create_view('dt_named_left', 'SELECT x.id, x.name FROM (f LEFT JOIN dim ON dim.k = f.k) AS x');
-- lookup bases: f shows its key id, dim its key k (through f.k): updates that keep the keys
-- and what the views read otherwise move the tuples in place
SELECT ivm.create_view('dt_lookup', 'SELECT f.id, f.k, f.v, dim.name FROM f JOIN dim ON f.k = dim.k');
SELECT ivm.create_view('dt_lookup_chain', 'SELECT f.v, d.k, d.name, e.x FROM f, dim d, dim2 e WHERE d.k = f.k AND e.name = d.name');
SELECT ivm.create_view('dt_lookup_distinct', 'SELECT DISTINCT f.k, dim.name FROM f JOIN dim ON dim.k = f.k');
-- scalar subqueries that do not aggregate: at most one row per outer row
-- (dim and dim2 by their keys), kept as ivm.single_value over the rows
SELECT ivm.create_view('dt_scalar_lookup', 'SELECT f.id, f.v, (SELECT d.name FROM dim d WHERE d.k = f.k) AS name FROM f');
-- scalar subqueries that group, have HAVING or are set operations (one row at most here)
SELECT ivm.create_view('dt_scalar_grouped', 'SELECT r.a, (SELECT sum(s.d) FROM s WHERE s.b = r.b GROUP BY s.b) AS t FROM r');
SELECT ivm.create_view('dt_scalar_having_rows', 'SELECT t.d, (SELECT count(*) FROM r WHERE r.b = t.d HAVING count(*) > 1) AS n FROM t');
SELECT ivm.create_view('dt_scalar_union', 'SELECT r.a, r.b FROM r WHERE r.a <= (SELECT b FROM s WHERE b = 2 UNION SELECT d FROM t WHERE d = 2)');
SELECT ivm.create_view('dt_scalar_where', 'SELECT d.k, d.name FROM dim d WHERE (SELECT e.x FROM dim2 e WHERE e.name = d.name) >= 1');
-- immutable functions of the columns beside them in FROM
SELECT ivm.create_view('dt_lateral', 'SELECT r.a, g FROM r, generate_series(0, r.b) g WHERE g < 3');
SELECT ivm.create_view('dt_lateral_agg', 'SELECT x, count(*) AS n, sum(r.a) AS sa FROM r, unnest(ARRAY[r.a, r.b]) x GROUP BY x');
-- LATERAL subqueries, joined into the query
SELECT ivm.create_view('dt_lateral_sub', 'SELECT r.a, x.d, x.sum_b FROM r CROSS JOIN LATERAL (SELECT s.d, s.b + r.a AS sum_b FROM s WHERE s.b = r.b AND s.d > r.a) x');
SELECT ivm.create_view('dt_lateral_agg_sub', 'SELECT r.a, r.c, x.n, x.top FROM r, LATERAL (SELECT count(*) AS n, max(t.e) AS top FROM t WHERE t.d = r.b) x WHERE x.n < 3');
SELECT ivm.create_view('dt_lateral_groups', 'SELECT r.a, x.e, x.n, x.top FROM r JOIN LATERAL (SELECT t.e, count(*) AS n, max(t.d) AS top FROM t WHERE t.d = r.b GROUP BY t.e) x ON x.n < 3');
SELECT ivm.create_view('dt_lateral_grouped', 'SELECT x.e, count(*) AS n FROM r, LATERAL (SELECT t.e FROM t WHERE t.d = r.a) x GROUP BY x.e');
-- keeping their first rows by ORDER BY ... LIMIT (a window part numbering
-- each correlation's rows), and on the right of a LEFT JOIN
SELECT ivm.create_view('dt_lateral_top', 'SELECT r.a, x.e, x.d FROM r, LATERAL (SELECT t.e, t.d FROM t WHERE t.d = r.b ORDER BY t.e DESC, t.d LIMIT 2) x');
SELECT ivm.create_view('dt_lateral_left', 'SELECT r.a, x.d, x.e FROM r LEFT JOIN LATERAL (SELECT t.d, t.e FROM t WHERE t.d = r.b AND t.e <> ''x'' ORDER BY t.e, t.d LIMIT 1 OFFSET 1) x ON true');
SELECT ivm.create_view('dt_lateral_left_agg', 'SELECT r.a, x.n FROM r LEFT JOIN LATERAL (SELECT count(*) AS n FROM s WHERE s.b = r.a) x ON true');
SELECT ivm.create_view('dt_lateral_join', 'SELECT s.d, x FROM r JOIN s ON r.b = s.b, unnest(ARRAY[r.c, ''k'']) WITH ORDINALITY u(x, o) WHERE o = 1 OR s.d > 1');
-- ARRAY(subquery) ordered by its value: (SELECT COALESCE(array_agg(...), '{}') ...)
SELECT ivm.create_view('dt_latest', 'SELECT f.id, (SELECT r.c FROM r WHERE r.b = f.k ORDER BY r.a DESC, r.c LIMIT 1) AS c FROM f');
SELECT ivm.create_view('dt_array', 'SELECT f.id, ARRAY(SELECT r.c FROM r WHERE r.b = f.k ORDER BY r.a DESC, r.c) AS cs FROM f');
-- EXISTS in the select list: the scalar subquery (SELECT 0 < count(*) ...)
SELECT ivm.create_view('dt_exists_value', 'SELECT r.a, EXISTS (SELECT 1 FROM s WHERE s.b = r.b AND s.d > 0) AS has_s, NOT EXISTS (SELECT 1 FROM t WHERE t.d = r.a) AS no_t FROM r');
-- correlated otherwise than by equalities: over the domain of the outer columns
SELECT ivm.create_view('dt_scalar_theta', 'SELECT r.a, (SELECT count(*) FROM s WHERE s.d < r.b) AS n, (SELECT sum(t.d) FROM t WHERE t.d >= r.a AND t.e = r.c) AS m FROM r');
SELECT ivm.create_view('dt_scalar_theta_where', 'SELECT f.id FROM f WHERE f.v > (SELECT count(*) FROM r WHERE r.a BETWEEN f.k - 1 AND f.k + 1)');
SELECT ivm.create_view('dt_scalar_const', 'SELECT f.id, f.v FROM f WHERE f.v <= (SELECT x FROM dim2 WHERE name = ''p'')');
-- values equal but shown otherwise, and json (no equality): checked by
-- their rows' text (ivm_dt.by_text), but where PostgreSQL itself shows
-- whichever of equal values it meets first (GROUP BY x, min and max)
SELECT ivm.create_view('dt_m_rows', 'SELECT k, x, j, y, n FROM m');
SELECT ivm.create_view('dt_m_join', 'SELECT m.k, m.x, m.j, r.c FROM m JOIN r ON m.k = r.a');
SELECT ivm.create_view('dt_m_left', 'SELECT r.a, m.x, m.y FROM r LEFT JOIN m ON m.k = r.a AND m.x > 0');
SELECT ivm.create_view('dt_m_union_all', 'SELECT k, x FROM m WHERE k < 3 UNION ALL SELECT a, b * 1.0 FROM r');
SELECT ivm.create_view('dt_m_sums', 'SELECT k, count(*) AS n, sum(x) AS s, avg(x) AS av FROM m GROUP BY k');
SELECT ivm.create_view('dt_m_window', 'SELECT k, x, sum(x) OVER (PARTITION BY k) AS s, count(*) OVER (PARTITION BY k) AS n FROM m');
SELECT ivm.create_view('dt_m_unmatched', 'SELECT m.k, m.x, m.y FROM m WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.a = m.k)');
-- correlated subqueries compared under the nondeterministic collation
SELECT ivm.create_view('dt_m_same_name', 'SELECT k, n, (SELECT count(*) FROM m o WHERE o.n = m.n) AS same FROM m');
SELECT ivm.create_view('dt_m_named_twice', 'SELECT k, n FROM m WHERE EXISTS (SELECT 1 FROM m o WHERE o.n = m.n AND o.k IS DISTINCT FROM m.k)');
SELECT ivm.create_view('dt_m_heaviest', 'SELECT k, n FROM m WHERE x >= (SELECT max(x) FROM m o WHERE o.n = m.n)');
INSERT INTO ivm_dt.by_text VALUES ('dt_m_rows'), ('dt_m_join'), ('dt_m_left'), ('dt_m_union_all'), ('dt_m_sums'),
                                  ('dt_m_window'), ('dt_m_unmatched'), ('dt_m_same_name'), ('dt_m_named_twice'),
                                  ('dt_m_heaviest') ON CONFLICT DO NOTHING;
SELECT ivm.create_view('dt_m_group', 'SELECT x, count(*) AS n, count(DISTINCT j) AS nj FROM m GROUP BY x');
SELECT ivm.create_view('dt_m_extremes', 'SELECT k, min(x) AS lo, max(x) AS hi, sum(x) AS s FROM m GROUP BY k');
-- deferred views: their writes only logged, applied now and then by a
-- check (ivm_dt.compile_checks), inside transactions and subtransactions too
SELECT ivm.create_view('dt_later_join3', 'SELECT r.a, s.d, t.e FROM r, s, t WHERE r.b = s.b AND s.d = t.d', deferred => true);
SELECT ivm.create_view('dt_later_self', 'SELECT x.a, y.c FROM r x JOIN r y ON x.b = y.a', deferred => true);
SELECT ivm.create_view('dt_later_agg', 'SELECT s.d, count(*) AS n, sum(r.a) AS sa, min(r.c) AS mc FROM r JOIN s ON r.b = s.b GROUP BY s.d', deferred => true);
SELECT ivm.create_view('dt_later_outer', 'SELECT s.b, r.a FROM s LEFT JOIN r ON r.b = s.b AND r.a > 1', deferred => true);
SELECT ivm.create_view('dt_later_except', 'SELECT b FROM r EXCEPT SELECT b FROM s WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.d = s.d)', deferred => true);
-- deferred recursive views: DRed over the logged rows, the tables' old state
-- derived (sql/deferred.sql also has a rule reading its table twice)
SELECT ivm.create_view('dt_later_tc_outer', 'WITH RECURSIVE tc(x, y) AS (SELECT src, dst FROM g UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT tc.x, g.dst AS z FROM tc JOIN g ON tc.y = g.src JOIN roots ON roots.n = tc.x', deferred => true);
