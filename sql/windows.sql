-- Window functions: the view is kept like an aggregate view whose groups
-- are the partitions (the PARTITION BY keys all its windows share); a change
-- recomputes the partitions whose input rows it touched.  A partition's rows
-- may repeat: each stored row keeps its count.
CREATE TABLE staff (id int, team int, pay int);
CREATE TABLE teams (id int, name text);
INSERT INTO staff VALUES (1, 10, 100), (2, 10, 80), (3, 10, 100), (4, 20, 90), (5, 20, 60),
                         (6, NULL, 50), (7, NULL, 50), (8, 30, 70);
INSERT INTO teams VALUES (10, 'core'), (20, 'web'), (30, 'ops');

SELECT ivm.create_view('pay_rank', 'SELECT team, pay, rank() OVER (PARTITION BY team ORDER BY pay DESC) AS r FROM staff');
-- duplicate rows; a window over all rows (one partition)
SELECT ivm.create_view('team_totals', 'SELECT team, sum(pay) OVER (PARTITION BY team) AS total, count(*) OVER () AS n FROM staff');
-- over a join, partitions by a column of the other table
SELECT ivm.create_view('team_order', 'SELECT t.name, s.pay, row_number() OVER (PARTITION BY t.id ORDER BY s.pay, s.id) AS k FROM staff s JOIN teams t ON t.id = s.team');
-- the top earners per team: the windowed subquery is a part, filtered
SELECT ivm.create_view('team_top', 'SELECT name, pay FROM (SELECT t.name, s.pay, rank() OVER (PARTITION BY t.id ORDER BY s.pay DESC) AS r FROM staff s JOIN teams t ON t.id = s.team) x WHERE r = 1');
-- two windows sharing one partition key, with a filter
SELECT ivm.create_view('pay_steps', 'SELECT team, pay, lag(pay) OVER (PARTITION BY team ORDER BY id) AS prev, avg(pay) OVER (PARTITION BY team, pay > 75) AS peers FROM staff WHERE pay > 55');
-- windows over groups: the aggregation becomes a part, the windows read its rows
SELECT ivm.create_view('team_rank', 'SELECT team, sum(pay) AS total, rank() OVER (ORDER BY sum(pay) DESC) AS r FROM staff GROUP BY team');
SELECT ivm.create_view('team_share', 'SELECT team, count(*) AS n, sum(count(*)) OVER () AS all_n, sum(pay) - lag(sum(pay)) OVER (ORDER BY team) AS step FROM staff WHERE pay > 50 GROUP BY team HAVING count(*) > 0');
-- DISTINCT over windows: the windows' query becomes a part, DISTINCT reads it
SELECT ivm.create_view('team_sizes', 'SELECT DISTINCT team, count(*) OVER (PARTITION BY team) AS n FROM staff');
SELECT ivm.create_view('team_ranks', 'SELECT DISTINCT rank() OVER (ORDER BY count(*)) AS r, count(*) > 1 AS many FROM staff GROUP BY team');
SELECT name, part_of FROM ivm.views WHERE name::text LIKE 'team\_rank%' ORDER BY 1;
SELECT * FROM team_rank ORDER BY r, team;
SELECT line FROM ivm.explain_view('pay_rank') AS line WHERE line LIKE 'algorithm%' OR line LIKE 'storage%';
SELECT * FROM pay_rank ORDER BY team, pay DESC;
SELECT * FROM team_top ORDER BY 1;

CREATE FUNCTION check_all() RETURNS SETOF text LANGUAGE sql AS $$
    WITH mine AS (SELECT name FROM ivm.views WHERE name::text ~ '^(pay_rank|team_totals|team_order|team_top|pay_steps|team_rank|team_share|team_sizes|team_ranks)')
    SELECT name::text || ': ' || ivm_check(name) FROM mine WHERE ivm_check(name) <> 'ok'
    UNION ALL SELECT 'checked ' || count(*) || ' views' FROM mine
$$;
SELECT check_all();
INSERT INTO staff VALUES (9, 10, 100), (10, 30, 200);
SELECT check_all();
DELETE FROM staff WHERE id IN (1, 6);
SELECT check_all();
UPDATE staff SET pay = 100 WHERE id = 2;
UPDATE staff SET team = 20 WHERE id = 3;
SELECT check_all();
UPDATE teams SET id = 40 WHERE id = 30;
DELETE FROM staff WHERE team = 10;
SELECT check_all();
SELECT * FROM pay_rank ORDER BY team, pay DESC;
SELECT * FROM team_top ORDER BY 1;
-- a change inside one partition rewrites no stored row of another
SELECT array_agg(ctid ORDER BY pay)::text AS before FROM pay_rank__ivm_data WHERE __ivm_gk1 = 20 \gset
UPDATE staff SET pay = pay + 1 WHERE team = 30;
SELECT array_agg(ctid ORDER BY pay)::text = :'before' AS untouched FROM pay_rank__ivm_data WHERE __ivm_gk1 = 20;
SELECT check_all();
SELECT ivm.refresh_view('pay_rank');
SELECT check_all();

-- DISTINCT ON: row_number() over its groups in ORDER BY's order, the rows
-- numbered 1 kept; of rows tied in ORDER BY, the one first by the output
-- columns (compared here with the query given that order too: team 40's
-- two 70s tie)
SELECT ivm.create_view('top_earner', 'SELECT DISTINCT ON (team) team, id, pay FROM staff ORDER BY team, pay DESC');
SELECT ivm.create_view('busiest_team', 'SELECT DISTINCT ON (s.pay > 80) s.pay > 80 AS high, s.team, count(*) AS n FROM staff s GROUP BY s.pay > 80, s.team ORDER BY s.pay > 80, count(*) DESC');
SELECT * FROM top_earner ORDER BY 1;
CREATE FUNCTION distinct_on_differs() RETURNS TABLE (top_earner bigint, busiest_team bigint) LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM ((SELECT * FROM top_earner EXCEPT ALL (SELECT DISTINCT ON (team) team, id, pay FROM staff ORDER BY team, pay DESC, id))
                                  UNION ALL ((SELECT DISTINCT ON (team) team, id, pay FROM staff ORDER BY team, pay DESC, id) EXCEPT ALL SELECT * FROM top_earner)) x),
           (SELECT count(*) FROM ((SELECT * FROM busiest_team EXCEPT ALL (SELECT DISTINCT ON (s.pay > 80) s.pay > 80, s.team, count(*) FROM staff s GROUP BY s.pay > 80, s.team ORDER BY s.pay > 80, count(*) DESC, s.team))
                                  UNION ALL ((SELECT DISTINCT ON (s.pay > 80) s.pay > 80, s.team, count(*) FROM staff s GROUP BY s.pay > 80, s.team ORDER BY s.pay > 80, count(*) DESC, s.team) EXCEPT ALL SELECT * FROM busiest_team)) x)
$$;
SELECT * FROM distinct_on_differs();
INSERT INTO staff VALUES (11, 20, 500), (12, 40, 70), (13, 40, 70);
UPDATE staff SET pay = 300 WHERE id = 1;
DELETE FROM staff WHERE id = 11;
SELECT * FROM distinct_on_differs();
SELECT ivm_check('top_earner'), ivm_check('busiest_team');
SELECT * FROM top_earner ORDER BY 1;
SELECT ivm.drop_view('top_earner'), ivm.drop_view('busiest_team');
DROP FUNCTION distinct_on_differs();

-- what stays refused
SELECT refused($$SELECT pay FROM staff UNION ALL (SELECT rank() OVER (ORDER BY id) FROM teams LIMIT 1)$$);
SELECT refused($$SELECT DISTINCT ON (team) team, pay FROM staff ORDER BY team, pay LIMIT 3$$);
SELECT refused($$SELECT DISTINCT ON (team) team, count(*) OVER (PARTITION BY team) FROM staff$$);
DROP FUNCTION check_all();
