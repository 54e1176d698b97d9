-- ivm 0.4 -> 0.5: a rebuild may swap in a new heap for a view's storage
-- (ivm.rebuild_by_swap); views made from now on check that their readers'
-- snapshots see it.  Views made before keep their definitions (an extension
-- script may not replace them) and are rebuilt in place until
-- ivm.refresh_view(name) makes their definitions check.
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.5'" to load this file. \quit

-- Read by each view's definition: 40001 for a query whose snapshot does not
-- see the storage's current heap (a rebuild swapped it in after the snapshot
-- was taken); true otherwise.  Checked once per query.
CREATE FUNCTION ivm.snapshot_sees_storage(storage regclass) RETURNS boolean
    AS 'MODULE_PATHNAME', 'ivm_snapshot_sees_storage' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ivm.snapshot_sees_storage(regclass) IS
    'fails with 40001 where an incrementally maintained view''s storage was rebuilt after the query''s snapshot';
