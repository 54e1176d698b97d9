-- ivm 0.7 -> 0.8: ivm.key_hash, the key of a tuple as
-- hash_record_extended(ROW(...), 0) gives it, without forming the record
-- (src/pg/key_hash.cpp).  Keys stored before stay valid: the values are the same.
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.8'" to load this file. \quit

CREATE FUNCTION ivm.key_hash(VARIADIC "any") RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_key_hash' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION ivm.key_hash("any") IS
    'the key ivm stores for a tuple: hash_record_extended(ROW(<arguments>), 0), computed without forming the row';
