-- Deferred views (from 0.4), with changes still pending when dumped: the
-- storage is dumped as it stands, the logs are not (ivm's own tables), and
-- the restored view's first apply recomputes it.
SELECT ivm.create_view('staff_later', 'SELECT e.id, d.name, e.pay FROM emp e JOIN dept d ON e.dept = d.id', deferred => true);
SELECT ivm.create_view('pay_later', 'SELECT dept, count(*) AS n, sum(pay) AS total FROM emp GROUP BY dept', deferred => true);
INSERT INTO emp VALUES (200, 1, 50, 'pending'), (201, 2, 60, 'pending');
UPDATE dept SET name = name || '!' WHERE id = 2;
