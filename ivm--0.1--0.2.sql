-- ivm 0.1 -> 0.2: comments on the catalog and the views users read.
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.2'" to load this file. \quit

COMMENT ON TABLE ivm.view_catalog IS
    'incrementally maintained views: each one''s storage, query view, algorithm and base relations (read ivm.views)';
COMMENT ON VIEW ivm.views IS
    'the incrementally maintained views of this database: algorithm, definition, base relations, storage';
COMMENT ON VIEW ivm.stats IS
    'maintenance statistics per view since the server started (counted with ivm in shared_preload_libraries)';
