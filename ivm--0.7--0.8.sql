-- ivm 0.7 -> 0.8:
-- ivm.key_hash, the key of a tuple as hash_record_extended(ROW(...), 0)
-- gives it, without forming the record (src/pg/key_hash.cpp).  Keys stored
-- before stay valid: the values are the same.
-- ivm.count_at_max and ivm.count_at_min run in parallel aggregation (a
-- first fill of an aggregate view, src/pg/count_at_extreme.cpp): made anew
-- with combine, serialize and deserialize functions.
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.8'" to load this file. \quit

CREATE FUNCTION ivm.key_hash(VARIADIC "any") RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_key_hash' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION ivm.key_hash("any") IS
    'the key ivm stores for a tuple: hash_record_extended(ROW(<arguments>), 0), computed without forming the row';

CREATE FUNCTION ivm.count_at_max_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'ivm_count_at_max_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION ivm.count_at_min_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'ivm_count_at_min_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION ivm.count_at_extreme_serialize(internal) RETURNS bytea
    AS 'MODULE_PATHNAME', 'ivm_count_at_extreme_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ivm.count_at_extreme_deserialize(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'ivm_count_at_extreme_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
DROP AGGREGATE ivm.count_at_max(anyelement, bigint);
DROP AGGREGATE ivm.count_at_min(anyelement, bigint);
CREATE AGGREGATE ivm.count_at_max(anyelement, bigint) (
    SFUNC = ivm.count_at_max_step, STYPE = internal, FINALFUNC = ivm.count_at_extreme_final,
    COMBINEFUNC = ivm.count_at_max_combine, SERIALFUNC = ivm.count_at_extreme_serialize,
    DESERIALFUNC = ivm.count_at_extreme_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE ivm.count_at_min(anyelement, bigint) (
    SFUNC = ivm.count_at_min_step, STYPE = internal, FINALFUNC = ivm.count_at_extreme_final,
    COMBINEFUNC = ivm.count_at_min_combine, SERIALFUNC = ivm.count_at_extreme_serialize,
    DESERIALFUNC = ivm.count_at_extreme_deserialize, PARALLEL = SAFE);
