-- ivm 0.2 -> 0.3: writers of different rows of a view run at once, so the
-- one row per view that every maintenance updated (and waited for) gives
-- way to one row per view, backend and base table (ivm.maintainers).
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.3'" to load this file. \quit

DROP TABLE ivm.maintenance;

-- Which transaction last wrote each view, per backend and per base table it
-- changed: a writer inserts or updates only its own backend's rows, so
-- writers never wait for each other here.  A REPEATABLE READ or
-- SERIALIZABLE writer reads the rows as committed now and fails with 40001
-- when a writer it must see (one of another base table of the view)
-- committed after its snapshot; a READ COMMITTED DRed run learns from them
-- that it waited for another.  Not dumped: rows are made by maintenance.
CREATE TABLE ivm.maintainers (
    view_id integer NOT NULL,
    backend integer NOT NULL,  -- the writer's backend slot
    base    integer NOT NULL,  -- the base table's place in the view, -1 for the whole view
    xid     xid8 NOT NULL,     -- the transaction that wrote it last
    PRIMARY KEY (view_id, backend, base)
);
COMMENT ON TABLE ivm.maintainers IS
    'the last transaction of each backend that maintained each incrementally maintained view, per base table (concurrency control)';
