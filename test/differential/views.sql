-- The views the differential tester maintains: one per construct.
SELECT ivm.create_view('dt_project', 'SELECT a, c, a + 1 AS a1 FROM r WHERE b IS DISTINCT FROM 2');
SELECT ivm.create_view('dt_join', 'SELECT r.a, r.c, s.d FROM r JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_join3', 'SELECT r.a, s.d, t.e FROM r, s, t WHERE r.b = s.b AND s.d = t.d');
SELECT ivm.create_view('dt_using', 'SELECT b, r.a, s.d FROM r JOIN s USING (b) WHERE r.a < 5');
SELECT ivm.create_view('dt_self', 'SELECT x.a, y.c FROM r x JOIN r y ON x.b = y.a');
SELECT ivm.create_view('dt_distinct', 'SELECT DISTINCT r.c, s.d FROM r JOIN s ON r.b = s.b');
SELECT ivm.create_view('dt_cross', 'SELECT s.b, t.e FROM s, t WHERE s.d > 1');
SELECT ivm.create_view('dt_nulls', 'SELECT r.b, r.c, t.e FROM r JOIN t ON r.c IS NOT DISTINCT FROM t.e');
