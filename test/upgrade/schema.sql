-- The extension's objects as a text listing, one line each: identity,
-- definition, comment and privileges.  Two databases whose listings are
-- equal have the same extension schema.
WITH members AS (
    SELECT d.classid, d.objid
      FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension x ON d.refobjid = x.oid
     WHERE d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.deptype = 'e' AND x.extname = 'ivm'
)
SELECT pg_catalog.pg_describe_object(m.classid, m.objid, 0) || ' | ' ||
       CASE m.classid
       WHEN 'pg_catalog.pg_proc'::regclass THEN
           (SELECT CASE WHEN p.prokind = 'a'
                        THEN 'aggregate ' || pg_catalog.pg_get_function_arguments(p.oid) ||
                             (SELECT ' sfunc ' || a.aggtransfn::text || ' final ' || a.aggfinalfn::text ||
                                     ' stype ' || a.aggtranstype::regtype::text
                                FROM pg_catalog.pg_aggregate a WHERE a.aggfnoid = p.oid)
                        ELSE pg_catalog.pg_get_functiondef(p.oid) END || ' acl ' || coalesce(p.proacl::text, '-')
              FROM pg_catalog.pg_proc p WHERE p.oid = m.objid)
       WHEN 'pg_catalog.pg_class'::regclass THEN
           (SELECT c.relkind::text || ' acl ' || coalesce(c.relacl::text, '-') || ' ' ||
                   coalesce(CASE WHEN c.relkind = 'v' THEN pg_catalog.pg_get_viewdef(c.oid) || ' ' END, '') || 'columns ' ||
                   coalesce((SELECT string_agg(a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod) ||
                                               CASE WHEN a.attnotnull THEN ' not null' ELSE '' END ||
                                               coalesce(' -- ' || pg_catalog.col_description(c.oid, a.attnum), ''),
                                               ', ' ORDER BY a.attnum)
                               FROM pg_catalog.pg_attribute a
                              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') ||
                   coalesce((SELECT ' ' || string_agg(pg_catalog.pg_get_constraintdef(k.oid), ', ' ORDER BY k.conname)
                               FROM pg_catalog.pg_constraint k WHERE k.conrelid = c.oid), '') ||
                   coalesce((SELECT ' ' || string_agg(pg_catalog.pg_get_indexdef(i.indexrelid), ', '
                                                      ORDER BY i.indexrelid::regclass::text)
                               FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid), '')
              FROM pg_catalog.pg_class c WHERE c.oid = m.objid)
       WHEN 'pg_catalog.pg_event_trigger'::regclass THEN
           (SELECT e.evtevent::text || ' ' || e.evtfoid::regproc::text || ' ' || coalesce(e.evttags::text, '') ||
                   ' ' || e.evtenabled::text
              FROM pg_catalog.pg_event_trigger e WHERE e.oid = m.objid)
       WHEN 'pg_catalog.pg_namespace'::regclass THEN
           (SELECT coalesce(n.nspacl::text, '-') FROM pg_catalog.pg_namespace n WHERE n.oid = m.objid)
       ELSE '' END ||
       coalesce(' -- ' || pg_catalog.obj_description(m.objid, m.classid::regclass::name), '')
  FROM members m
 ORDER BY 1;
-- and what pg_dump keeps of its tables
SELECT 'config ' || pg_catalog.array_to_string(x.extconfig::regclass[], ', ') || ' ' ||
       coalesce(pg_catalog.array_to_string(x.extcondition, ', '), '')
  FROM pg_catalog.pg_extension x WHERE x.extname = 'ivm';
