-- ivm: incrementally maintained views for PostgreSQL.
\echo Use "CREATE EXTENSION ivm" to load this file. \quit

-- One row per incrementally maintained view.  The view itself, its storage
-- table and the plain view holding its defining query are ordinary objects
-- in the view's schema; this table ties them together.  It is dumped by
-- pg_dump (config table), so a restored database keeps its views.
CREATE TABLE ivm.view_catalog (
    view_id        integer PRIMARY KEY,
    view_name      regclass NOT NULL UNIQUE,   -- what users SELECT from
    storage        regclass NOT NULL UNIQUE,   -- tuples and derivation counts
    query_view     regclass NOT NULL UNIQUE,   -- the defining query, as a plain view
    recursive_storage regclass UNIQUE,         -- DRed: the recursive relation, as a set
    algorithm      text NOT NULL CHECK (algorithm IN ('counting', 'dred')),
    definition     text NOT NULL,              -- the query as the user wrote it
    base_relations regclass[] NOT NULL,
    populated      boolean NOT NULL DEFAULT true, -- false after refresh_view(..., false)
    part_of        integer,                    -- made for that view (a subquery of its query)
    key_columns    text[],                     -- the columns its storage key hashes (quoted); NULL: all
    deferred       boolean NOT NULL DEFAULT false -- maintained by ivm.refresh_view from logged changes
);
CREATE SEQUENCE ivm.view_id_seq OWNED BY ivm.view_catalog.view_id;
SELECT pg_catalog.pg_extension_config_dump('ivm.view_catalog', '');
SELECT pg_catalog.pg_extension_config_dump('ivm.view_id_seq', '');
COMMENT ON TABLE ivm.view_catalog IS
    'incrementally maintained views: each one''s storage, query view, algorithm and base relations (read ivm.views)';

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

-- Deferred maintenance: a deferred view's base-table writes only append
-- their transition rows to ivm's change log of each base table
-- (ivm.changes_<oid>, made and dropped by ivm as deferred views need them,
-- members of the extension and so not dumped); ivm.refresh_view applies
-- them.  What each deferred view has consumed of the logs: every row
-- written by a transaction its last apply saw (applied), but those its own
-- transaction (own_xid) wrote after reading them (own_command and later).
-- Not dumped: a restored deferred view is recomputed by its first apply.
CREATE TABLE ivm.deferred_state (
    view_id     integer PRIMARY KEY,
    applied     pg_catalog.pg_snapshot NOT NULL,  -- the snapshot of its last apply
    own_xid     pg_catalog.xid8,                  -- that apply's transaction, if it had an xid
    own_command bigint,                           -- that apply's command id when it read the logs
    rebuild     boolean NOT NULL DEFAULT false    -- TRUNCATE or DDL of a base table: recompute
);
COMMENT ON TABLE ivm.deferred_state IS
    'what each deferred incrementally maintained view has consumed of the change logs';

CREATE FUNCTION ivm.set_deferred(name text, deferred boolean) RETURNS void
    AS 'MODULE_PATHNAME', 'ivm_set_deferred' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.set_deferred(text, boolean) IS
    'make an incrementally maintained view deferred (its base-table writes are logged and applied by ivm.refresh_view) or immediate again (the logged changes applied first)';

CREATE FUNCTION ivm.pending_changes(view_id integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_pending_changes' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION ivm.pending_changes(integer) IS
    'the logged base-table change rows a deferred view has yet to apply (NULL for an immediate view)';

CREATE FUNCTION ivm.log_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_log_change' LANGUAGE C;
-- (a logical replication apply worker: its rows logged, the deferred views
-- applied at its commit)
CREATE FUNCTION ivm.log_row_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_log_row_change' LANGUAGE C;
CREATE FUNCTION ivm.apply_replicated() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_apply_replicated' LANGUAGE C;

CREATE VIEW ivm.views AS
SELECT c.view_name      AS name,
       c.algorithm,
       c.definition,
       c.base_relations,
       c.populated,
       c.storage,
       c.query_view,
       (SELECT p.view_name FROM ivm.view_catalog p WHERE p.view_id = c.part_of) AS part_of,
       c.deferred,
       CASE WHEN c.deferred THEN ivm.pending_changes(c.view_id) END AS pending_changes
  FROM ivm.view_catalog c;
COMMENT ON VIEW ivm.views IS
    'the incrementally maintained views of this database: algorithm, definition, base relations, storage';

GRANT USAGE ON SCHEMA ivm TO PUBLIC;
GRANT SELECT ON ivm.view_catalog, ivm.views TO PUBLIC;

CREATE FUNCTION ivm.create_view(name text, query text, deferred boolean DEFAULT false) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_create_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.create_view(text, text, boolean) IS
    'create an incrementally maintained view (deferred => true: maintained by ivm.refresh_view from logged changes); returns its number of rows';

CREATE FUNCTION ivm.alter_view(name text, query text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_alter_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.alter_view(text, text) IS
    'give an incrementally maintained view a new definition; returns the number of view rows inserted plus deleted';

CREATE FUNCTION ivm.drop_view(name text, cascade boolean DEFAULT false) RETURNS void
    AS 'MODULE_PATHNAME', 'ivm_drop_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.drop_view(text, boolean) IS
    'drop an incrementally maintained view with its storage and triggers; cascade => true drops the views that read it too';

CREATE FUNCTION ivm.refresh_view(name text, with_data boolean DEFAULT true) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_refresh_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.refresh_view(text, boolean) IS
    'recompute an incrementally maintained view from scratch and return its number of rows, or apply a deferred view''s logged changes and return the view rows inserted plus deleted; with_data => false empties it and pauses maintenance, like REFRESH MATERIALIZED VIEW ... WITH NO DATA';

CREATE FUNCTION ivm.explain_view(name text) RETURNS SETOF text
    AS 'MODULE_PATHNAME', 'ivm_explain_view' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION ivm.explain_view(text) IS
    'how an incrementally maintained view is maintained: algorithm, storage, and the SQL run when each base relation changes';

-- Maintenance statistics, kept in shared memory (ivm must be in
-- shared_preload_libraries): counted without any catalog write.
CREATE FUNCTION ivm.stats_entries(OUT view_id integer, OUT maintenance_runs bigint,
        OUT tuples_inserted bigint, OUT tuples_deleted bigint, OUT total_time_ms double precision,
        OUT last_time_ms double precision, OUT last_maintained timestamptz)
    RETURNS SETOF record AS 'MODULE_PATHNAME', 'ivm_stats_entries' LANGUAGE C STRICT VOLATILE;
CREATE FUNCTION ivm.reset_stats() RETURNS void
    AS 'MODULE_PATHNAME', 'ivm_reset_stats' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.reset_stats() IS 'clear the maintenance statistics of this database''s views';
CREATE VIEW ivm.stats AS
SELECT c.view_name AS name,
       COALESCE(s.maintenance_runs, 0) AS maintenance_runs,
       COALESCE(s.tuples_inserted, 0) AS tuples_inserted,
       COALESCE(s.tuples_deleted, 0) AS tuples_deleted,
       COALESCE(s.total_time_ms, 0) AS total_time_ms,
       s.last_time_ms,
       s.last_maintained
  FROM ivm.view_catalog c LEFT JOIN ivm.stats_entries() s ON s.view_id = c.view_id;
COMMENT ON VIEW ivm.stats IS
    'maintenance statistics per view since the server started (counted with ivm in shared_preload_libraries)';
GRANT SELECT ON ivm.stats TO PUBLIC;

-- An unpopulated view reads from this, which refuses (SQLSTATE 55000).
CREATE FUNCTION ivm.unpopulated(view text) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'ivm_unpopulated' LANGUAGE C STRICT VOLATILE;

-- The rows 1..n: a view repeats each stored tuple by its derivation count.
CREATE FUNCTION ivm.copies(n bigint) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'ivm_copies' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;

-- Read by each view's definition: 40001 for a query whose snapshot does not
-- see the storage's current heap (a rebuild swapped it in after the snapshot
-- was taken); true otherwise.  Checked once per query.
CREATE FUNCTION ivm.snapshot_sees_storage(storage regclass) RETURNS boolean
    AS 'MODULE_PATHNAME', 'ivm_snapshot_sees_storage' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ivm.snapshot_sees_storage(regclass) IS
    'fails with 40001 where an incrementally maintained view''s storage was rebuilt after the query''s snapshot';

-- The summed weights of the rows at the greatest (least) value: the delta of a
-- view's max or min counts the derivations that came and went at the extreme.
CREATE FUNCTION ivm.count_at_max_step(internal, anyelement, bigint) RETURNS internal
    AS 'MODULE_PATHNAME', 'ivm_count_at_max_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION ivm.count_at_min_step(internal, anyelement, bigint) RETURNS internal
    AS 'MODULE_PATHNAME', 'ivm_count_at_min_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION ivm.count_at_extreme_final(internal) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_count_at_extreme_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE ivm.count_at_max(anyelement, bigint) (
    SFUNC = ivm.count_at_max_step, STYPE = internal, FINALFUNC = ivm.count_at_extreme_final);
CREATE AGGREGATE ivm.count_at_min(anyelement, bigint) (
    SFUNC = ivm.count_at_min_step, STYPE = internal, FINALFUNC = ivm.count_at_extreme_final);

-- Trigger functions installed by ivm.create_view.
CREATE FUNCTION ivm.before_base_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_before_base_change' LANGUAGE C;
CREATE FUNCTION ivm.after_base_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_after_base_change' LANGUAGE C;
CREATE FUNCTION ivm.refuse_direct_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_refuse_direct_change' LANGUAGE C;

-- DDL event triggers: DROP TABLE ... CASCADE, DROP VIEW, partitions and
-- children coming and going, redefined plain views, row-level security
-- (see src/pg/ddl_events.cpp).
CREATE FUNCTION ivm.on_sql_drop() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'ivm_on_sql_drop' LANGUAGE C;
CREATE FUNCTION ivm.on_ddl_command_end() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'ivm_on_ddl_command_end' LANGUAGE C;
CREATE EVENT TRIGGER ivm_sql_drop ON sql_drop
    EXECUTE FUNCTION ivm.on_sql_drop();
CREATE EVENT TRIGGER ivm_ddl_command_end ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE TRIGGER', 'CREATE VIEW')
    EXECUTE FUNCTION ivm.on_ddl_command_end();
