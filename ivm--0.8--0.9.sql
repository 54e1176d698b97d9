-- ivm 0.8 -> 0.9:
-- ivm.single_value, the value of the one row aggregated (NULL over none,
-- 21000 over two): a scalar subquery that does not aggregate is maintained
-- as one that aggregates with it (src/pg/single_value.cpp).
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.9'" to load this file. \quit

CREATE FUNCTION ivm.single_value_step(internal, anyelement) RETURNS internal
    AS 'MODULE_PATHNAME', 'ivm_single_value_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION ivm.single_value_final(internal, anyelement) RETURNS anyelement
    AS 'MODULE_PATHNAME', 'ivm_single_value_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE ivm.single_value(anyelement) (
    SFUNC = ivm.single_value_step, STYPE = internal,
    FINALFUNC = ivm.single_value_final, FINALFUNC_EXTRA, PARALLEL = SAFE);
COMMENT ON AGGREGATE ivm.single_value(anyelement) IS
    'the value of the one row aggregated, NULL over none; a second row raises 21000 as a scalar subquery does';
