-- ivm 0.6 -> 0.7: ivm.stats also says how deletions in a view's recursive
-- relation went (src/pg/shared.hpp, record_overdeletion): how many
-- over-deleted tuples, and whether backward/forward decided which of them
-- go, they were all rederived, or the relation was recomputed instead.
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.7'" to load this file. \quit

DROP VIEW ivm.stats;
DROP FUNCTION ivm.stats_entries();
CREATE FUNCTION ivm.stats_entries(OUT view_id integer, OUT maintenance_runs bigint,
        OUT tuples_inserted bigint, OUT tuples_deleted bigint, OUT total_time_ms double precision,
        OUT last_time_ms double precision, OUT last_maintained timestamptz,
        OUT overdeletions bigint, OUT overdeleted_tuples bigint, OUT backward_forward_runs bigint,
        OUT recursive_recomputes bigint)
    RETURNS SETOF record AS 'MODULE_PATHNAME', 'ivm_stats_entries' LANGUAGE C STRICT VOLATILE;
CREATE VIEW ivm.stats AS
SELECT c.view_name AS name,
       COALESCE(s.maintenance_runs, 0) AS maintenance_runs,
       COALESCE(s.tuples_inserted, 0) AS tuples_inserted,
       COALESCE(s.tuples_deleted, 0) AS tuples_deleted,
       COALESCE(s.total_time_ms, 0) AS total_time_ms,
       s.last_time_ms,
       s.last_maintained,
       COALESCE(s.overdeletions, 0) AS overdeletions,
       COALESCE(s.overdeleted_tuples, 0) AS overdeleted_tuples,
       COALESCE(s.backward_forward_runs, 0) AS backward_forward_runs,
       COALESCE(s.recursive_recomputes, 0) AS recursive_recomputes
  FROM ivm.view_catalog c LEFT JOIN ivm.stats_entries() s ON s.view_id = c.view_id;
COMMENT ON VIEW ivm.stats IS
    'maintenance statistics per view since the server started (counted with ivm in shared_preload_libraries)';
COMMENT ON COLUMN ivm.stats.overdeletions IS
    'deletions that over-deleted tuples of the view''s recursive relation (WITH RECURSIVE, by DRed)';
COMMENT ON COLUMN ivm.stats.overdeleted_tuples IS 'the tuples those deletions over-deleted';
COMMENT ON COLUMN ivm.stats.backward_forward_runs IS
    'of those deletions, the ones where backward/forward found which over-deleted tuples go (the others rederived them all)';
COMMENT ON COLUMN ivm.stats.recursive_recomputes IS
    'of those deletions, the ones that over-deleted so much that the recursive relation was recomputed instead';
GRANT SELECT ON ivm.stats TO PUBLIC;
