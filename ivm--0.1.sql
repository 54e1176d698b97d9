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
    algorithm      text NOT NULL CHECK (algorithm IN ('counting', 'dred')),
    definition     text NOT NULL,              -- the query as the user wrote it
    base_relations regclass[] NOT NULL
);
CREATE SEQUENCE ivm.view_id_seq OWNED BY ivm.view_catalog.view_id;
SELECT pg_catalog.pg_extension_config_dump('ivm.view_catalog', '');
SELECT pg_catalog.pg_extension_config_dump('ivm.view_id_seq', '');

CREATE VIEW ivm.views AS
SELECT c.view_name      AS name,
       c.algorithm,
       c.definition,
       c.base_relations,
       c.storage,
       c.query_view
  FROM ivm.view_catalog c;

GRANT USAGE ON SCHEMA ivm TO PUBLIC;
GRANT SELECT ON ivm.view_catalog, ivm.views TO PUBLIC;

CREATE FUNCTION ivm.create_view(name text, query text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_create_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.create_view(text, text) IS
    'create an incrementally maintained view; returns its number of rows';

CREATE FUNCTION ivm.drop_view(name text) RETURNS void
    AS 'MODULE_PATHNAME', 'ivm_drop_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.drop_view(text) IS
    'drop an incrementally maintained view with its storage and triggers';

CREATE FUNCTION ivm.refresh_view(name text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'ivm_refresh_view' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION ivm.refresh_view(text) IS
    'recompute an incrementally maintained view from scratch; returns its number of rows';

-- The rows 1..n: a view repeats each stored tuple by its derivation count.
CREATE FUNCTION ivm.copies(n bigint) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'ivm_copies' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;

-- Trigger functions installed by ivm.create_view.
CREATE FUNCTION ivm.before_base_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_before_base_change' LANGUAGE C;
CREATE FUNCTION ivm.after_base_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_after_base_change' LANGUAGE C;
CREATE FUNCTION ivm.refuse_direct_change() RETURNS trigger
    AS 'MODULE_PATHNAME', 'ivm_refuse_direct_change' LANGUAGE C;
