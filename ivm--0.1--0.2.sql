-- ivm 0.1 -> 0.2: concurrent maintenances see each other through a row per
-- view (ivm.maintenance) instead of shared memory; comments on the catalog
-- and the views users read.
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.2'" to load this file. \quit

COMMENT ON TABLE ivm.view_catalog IS
    'incrementally maintained views: each one''s storage, query view, algorithm and base relations (read ivm.views)';
COMMENT ON VIEW ivm.views IS
    'the incrementally maintained views of this database: algorithm, definition, base relations, storage';
COMMENT ON VIEW ivm.stats IS
    'maintenance statistics per view since the server started (counted with ivm in shared_preload_libraries)';

-- One row per view, updated by every maintenance of it: concurrent
-- maintenances see each other through PostgreSQL's MVCC, whatever
-- shared_preload_libraries says.  Under REPEATABLE READ and SERIALIZABLE,
-- updating a row that a transaction committed after the snapshot updated
-- fails with 40001; under READ COMMITTED `previous` names the last
-- maintainer.  Not dumped: a row is made by the view's first maintenance.
CREATE TABLE ivm.maintenance (
    view_id    integer PRIMARY KEY,
    maintainer xid8,   -- the transaction that maintained the view last
    previous   xid8    -- the one before it
);
COMMENT ON TABLE ivm.maintenance IS
    'the last transaction that maintained each incrementally maintained view (concurrency control)';
