-- Shared by the regression tests: ivm_check(view) compares a view with its
-- defining query run from scratch, as multisets.
CREATE FUNCTION ivm_check(view regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    q text;
    extra bigint;
    missing bigint;
BEGIN
    -- (a recursive query's estimate passes jit_above_cost: compiling it
    -- costs more than the check on these small tables)
    PERFORM pg_catalog.set_config('jit', 'off', true);
    -- the definition as PostgreSQL keeps it, following renames
    SELECT 'SELECT * FROM ' || query_view INTO STRICT q FROM ivm.views WHERE name = view;
    EXECUTE format('SELECT (SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL (%s)) x),
                           (SELECT count(*) FROM ((%s) EXCEPT ALL SELECT * FROM %s) y)',
                   view, q, q, view) INTO extra, missing;
    IF extra = 0 AND missing = 0 THEN
        RETURN 'ok';
    END IF;
    RETURN format('MISMATCH: %s extra, %s missing', extra, missing);
END $$;
SELECT extname, extversion FROM pg_extension WHERE extname = 'ivm';
\dn ivm
-- ivm_error(statement): the SQLSTATE and message of the error the statement
-- raises (in a subtransaction, so nothing it did survives).
CREATE FUNCTION ivm_error(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RAISE EXCEPTION USING ERRCODE = 'IV000', MESSAGE = 'no error';  -- undo what it did
EXCEPTION WHEN OTHERS THEN
    RETURN CASE WHEN SQLSTATE = 'IV000' THEN 'no error' ELSE SQLSTATE || ': ' || SQLERRM END;
END $$;
-- differs(view, query): the rows of the view and of the query as written
-- (not over the view's parts) that the other lacks, as multisets.
CREATE FUNCTION differs(view text, query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM ((TABLE %I EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %I)) d', view, query, query, view) INTO n;
    RETURN n;
END $$;
-- refused(query): what ivm.create_view says to a definition.
CREATE FUNCTION refused(query text) RETURNS text LANGUAGE sql AS $$
    SELECT ivm_error(format('SELECT ivm.create_view(%L, %L)', 'x', query))
$$;
