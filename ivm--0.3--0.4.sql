-- ivm 0.3 -> 0.4: deferred maintenance (ivm.create_view(..., deferred => true),
-- ivm.set_deferred, change logs applied by ivm.refresh_view).
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.4'" to load this file. \quit

ALTER TABLE ivm.view_catalog ADD COLUMN deferred boolean NOT NULL DEFAULT false;

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

DROP FUNCTION ivm.create_view(text, text);
CREATE FUNCTION ivm.create_view(name text, query text, deferred boolean DEFAULT false) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_create_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.create_view(text, text, boolean) IS
    'create an incrementally maintained view (deferred => true: maintained by ivm.refresh_view from logged changes); returns its number of rows';
COMMENT ON FUNCTION ivm.refresh_view(text, boolean) IS
    'recompute an incrementally maintained view from scratch and return its number of rows, or apply a deferred view''s logged changes and return the view rows inserted plus deleted; with_data => false empties it and pauses maintenance, like REFRESH MATERIALIZED VIEW ... WITH NO DATA';

CREATE OR REPLACE VIEW ivm.views AS
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
