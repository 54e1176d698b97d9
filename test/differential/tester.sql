-- The differential tester: random DML on small tables full of duplicates
-- and NULLs, and after every statement each incrementally maintained view
-- must equal its defining query run from scratch (EXCEPT ALL both ways).
-- A failure raises an error naming the seed, the step and the statement.
CREATE SCHEMA ivm_dt;

-- Small value ranges so that joins match often, duplicates are common and
-- NULLs show up everywhere.
CREATE FUNCTION ivm_dt.val(hi int, null_pct int DEFAULT 15) RETURNS text
LANGUAGE sql AS $$
    SELECT CASE WHEN random() * 100 < null_pct THEN 'NULL'
                ELSE (floor(random() * hi))::int::text END
$$;

CREATE FUNCTION ivm_dt.pick(VARIADIC options text[]) RETURNS text
LANGUAGE sql AS $$ SELECT options[1 + floor(random() * array_length(options, 1))::int] $$;

-- Values equal but shown otherwise (numeric 1.0 = 1.00, jsonb {"a": 1} =
-- {"a": 1.0}, text under a nondeterministic collation) and json, which has
-- no equality: m's columns, whose views are checked by their rows' text
-- (ivm_dt.by_text).
CREATE FUNCTION ivm_dt.num() RETURNS text
LANGUAGE sql AS $$ SELECT ivm_dt.pick('1', '1.0', '1.00', '2.5', '2.50', '0', '0.000', '-0.0', 'NULL') $$;
CREATE FUNCTION ivm_dt.name() RETURNS text
LANGUAGE sql AS $$ SELECT ivm_dt.pick('''abc''', '''ABC''', '''Abc''', '''x''', '''X''', 'NULL') $$;
-- (m.n: equal under it, 'abc' = 'ABC', but shown otherwise)
CREATE COLLATION ivm_dt.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE FUNCTION ivm_dt.doc() RETURNS text
LANGUAGE sql AS $$ SELECT ivm_dt.pick('''{"a": 1}''', '''{"a": 1.0}''', '''{"a":1}''', '''[1, 2]''', '''[1.0, 2]''', 'NULL') $$;
-- One row of m, as an INSERT (reset_tables' rows and random statements alike).
CREATE FUNCTION ivm_dt.m_row() RETURNS text
LANGUAGE sql AS $$ SELECT format('INSERT INTO public.m VALUES (%s, %s, %s, %s, %s)', ivm_dt.val(5), ivm_dt.num(), ivm_dt.doc(), ivm_dt.doc(), ivm_dt.name()) $$;

-- The last seed's views, the newest first: ivm views (by ivm.drop_view) and
-- the plain views the random generator made (which may read ivm views and
-- be read by them).
CREATE PROCEDURE ivm_dt.drop_views() LANGUAGE plpgsql AS $$
DECLARE
    v record;
BEGIN
    FOR v IN SELECT name::oid AS id, true AS ivm FROM ivm.views WHERE part_of IS NULL
             UNION ALL SELECT oid, false FROM pg_class WHERE relname LIKE 'dt\_pv\_%' AND relkind = 'v'
             ORDER BY 1 DESC LOOP
        IF v.ivm THEN
            PERFORM ivm.drop_view(v.id::regclass::text);
        ELSE
            EXECUTE format('DROP VIEW %s', v.id::regclass);
        END IF;
    END LOOP;
END $$;

-- The schema every run starts from.  Views are created by the caller.
CREATE PROCEDURE ivm_dt.reset_tables() LANGUAGE plpgsql AS $$
BEGIN
    DROP TABLE IF EXISTS public.r, public.s, public.t, public.g, public.g2, public.roots, public.f, public.dim,
                         public.dim2, public.m CASCADE;
    CREATE TABLE public.r (a int, b int, c text);
    -- s is partitioned: its partitions are written directly too
    CREATE TABLE public.s (b int, d int) PARTITION BY HASH (b);
    CREATE TABLE public.s_0 PARTITION OF public.s FOR VALUES WITH (MODULUS 2, REMAINDER 0);
    CREATE TABLE public.s_1 (d int, b int);  -- its columns in another order
    ALTER TABLE public.s ATTACH PARTITION public.s_1 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
    CREATE TABLE public.t (d int, e text);
    INSERT INTO public.r SELECT (random() * 6)::int, nullif((random() * 5)::int, 0),
                                (ARRAY['x', 'y', NULL])[1 + (random() * 2)::int]
                           FROM generate_series(1, 12);
    INSERT INTO public.s SELECT nullif((random() * 5)::int, 0), (random() * 4)::int FROM generate_series(1, 8);
    INSERT INTO public.t SELECT (random() * 4)::int, (ARRAY['p', 'q', NULL])[1 + (random() * 2)::int]
                           FROM generate_series(1, 6);
    -- graphs on a few nodes, so cycles, self-loops and alternative
    -- derivations are common
    CREATE TABLE public.g (src int, dst int);
    CREATE TABLE public.g2 (a int NOT NULL, b int NOT NULL);  -- recursion over NOT NULL columns
    CREATE TABLE public.roots (n int);
    INSERT INTO public.g SELECT (random() * 6)::int, (random() * 6)::int FROM generate_series(1, 8);
    INSERT INTO public.g2 SELECT (random() * 6)::int, (random() * 6)::int FROM generate_series(1, 4);
    INSERT INTO public.roots VALUES (0), (3);
    -- tables with keys: f's key keys the views that join it to dim and
    -- dim2 on theirs (inserts alone skip the lookup, deletes alone the sums)
    CREATE TABLE public.dim2 (name text PRIMARY KEY, x int);
    CREATE TABLE public.dim (k int PRIMARY KEY, name text);
    CREATE TABLE public.f (id int PRIMARY KEY, k int, v int);
    INSERT INTO public.dim2 VALUES ('p', 1), ('q', NULL);
    INSERT INTO public.dim SELECT g, (ARRAY['p', 'q', NULL])[1 + g % 3] FROM generate_series(0, 3) g;
    INSERT INTO public.f SELECT g, nullif((random() * 5)::int, 5), (random() * 3)::int FROM generate_series(1, 10) g;
    CREATE TABLE public.m (k int, x numeric, j jsonb, y json, n text COLLATE ivm_dt.ci);
    FOR i IN 1 .. 8 LOOP
        EXECUTE ivm_dt.m_row();
    END LOOP;
    DELETE FROM ivm_dt.rules;
    INSERT INTO ivm_dt.rules VALUES (0);
    ANALYZE public.r, public.s, public.s_0, public.s_1, public.t, public.g, public.g2, public.roots, public.f,
            public.dim, public.dim2, public.m;
    -- Triggers that write the table their statement wrote: some rows are
    -- changed again, or inserted and deleted, within one statement.
    CREATE TRIGGER again AFTER INSERT OR UPDATE ON public.r FOR EACH ROW WHEN (NEW.c = 'z')
        EXECUTE FUNCTION ivm_dt.again();
    CREATE TRIGGER again AFTER INSERT OR UPDATE ON public.g FOR EACH ROW WHEN (NEW.src = 6 OR NEW.dst = 5)
        EXECUTE FUNCTION ivm_dt.again();
    CREATE TRIGGER again AFTER INSERT OR UPDATE ON public.f FOR EACH ROW WHEN (NEW.v = 2 AND NEW.k IN (1, 2))
        EXECUTE FUNCTION ivm_dt.again();
    CREATE TRIGGER again AFTER UPDATE ON public.dim FOR EACH ROW WHEN (NEW.name = 'r')
        EXECUTE FUNCTION ivm_dt.again();
END $$;

CREATE FUNCTION ivm_dt.again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    CASE TG_TABLE_NAME
    WHEN 'r' THEN
        UPDATE public.r SET c = 'w', b = coalesce(b, 0) + 1
         WHERE a IS NOT DISTINCT FROM NEW.a AND b IS NOT DISTINCT FROM NEW.b AND c = 'z';
    WHEN 'g' THEN
        UPDATE public.g SET src = CASE WHEN src = 6 THEN 0 ELSE src END, dst = CASE WHEN dst = 5 THEN 4 ELSE dst END
         WHERE src IS NOT DISTINCT FROM NEW.src AND dst IS NOT DISTINCT FROM NEW.dst;
    WHEN 'f' THEN
        IF NEW.k = 1 THEN UPDATE public.f SET v = 12 WHERE id = NEW.id; ELSE DELETE FROM public.f WHERE id = NEW.id; END IF;
    ELSE
        UPDATE public.dim SET name = 'r!' WHERE k = NEW.k;
    END CASE;
    RETURN NULL;
END $$;

-- One random statement: single-table DML of every kind, statements that
-- change two tables at once (writable CTEs), MERGE, no-op updates, truncates;
-- the triggers of reset_tables change some rows again inside them.
CREATE FUNCTION ivm_dt.random_statement() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    k int := floor(random() * 50)::int;
BEGIN
    RETURN CASE k
    -- edges of the graphs
    WHEN 22 THEN format('INSERT INTO g VALUES (%s, %s)', ivm_dt.val(7, 5), ivm_dt.val(7, 5))
    WHEN 23 THEN format('INSERT INTO g VALUES (%s, %s), (%s, %s)', ivm_dt.val(7, 0), ivm_dt.val(7, 0), ivm_dt.val(7, 0), ivm_dt.val(7, 0))
    WHEN 24 THEN format('DELETE FROM g WHERE src = %s', ivm_dt.val(7, 0))
    WHEN 25 THEN format('DELETE FROM g WHERE dst = %s AND src <> %s', ivm_dt.val(7, 0), ivm_dt.val(7, 0))
    WHEN 26 THEN format('UPDATE g SET dst = %s WHERE src = %s', ivm_dt.val(7, 5), ivm_dt.val(7, 0))
    WHEN 27 THEN format('UPDATE g SET src = dst, dst = src WHERE src = %s', ivm_dt.val(7, 0))
    WHEN 28 THEN format('INSERT INTO g2 VALUES (%s, %s)', ivm_dt.val(7, 0), ivm_dt.val(7, 0))
    WHEN 29 THEN format('DELETE FROM g2 WHERE a = %s', ivm_dt.val(7, 0))
    WHEN 30 THEN format('WITH x AS (DELETE FROM g WHERE src = %s RETURNING *) INSERT INTO g2 SELECT src, dst FROM x WHERE dst IS NOT NULL', ivm_dt.val(7, 0))
    WHEN 31 THEN format('WITH x AS (DELETE FROM g2 WHERE b = %s RETURNING *) INSERT INTO g SELECT a, b FROM x', ivm_dt.val(7, 0))
    WHEN 32 THEN ivm_dt.pick(format('INSERT INTO roots VALUES (%s)', ivm_dt.val(7, 0)), format('DELETE FROM roots WHERE n = %s', ivm_dt.val(7, 0)), 'UPDATE g SET src = src', 'TRUNCATE g2')
    WHEN 33 THEN ivm_dt.pick('TRUNCATE g', format('WITH x AS (UPDATE roots SET n = n + 1 RETURNING *) DELETE FROM g WHERE src IN (SELECT n FROM x)'), format('INSERT INTO g SELECT dst, src FROM g WHERE src = %s', ivm_dt.val(7, 0)))
    -- a recursive view redefined (its rules without R)
    WHEN 45 THEN format('SELECT ivm_dt.redefine_rules(%s)', floor(random() * 3)::int)
    -- partitions of s, directly
    WHEN 34 THEN format('UPDATE s_%s SET d = %s WHERE d IS DISTINCT FROM %s', (random())::int, ivm_dt.val(4), ivm_dt.val(4, 0))
    WHEN 35 THEN format('DELETE FROM s_%s WHERE d = %s', (random())::int, ivm_dt.val(4, 0))
    -- the keyed tables: inserts alone, deletes alone, and both at once
    WHEN 36 THEN format('INSERT INTO f VALUES (%s, %s, %s), (%s, %s, %s) ON CONFLICT DO NOTHING', ivm_dt.val(30, 0), ivm_dt.val(6), ivm_dt.val(3), ivm_dt.val(30, 0), ivm_dt.val(6), ivm_dt.val(3))
    WHEN 37 THEN format('INSERT INTO f SELECT id + %s, k, v FROM f WHERE v IS DISTINCT FROM %s ON CONFLICT DO NOTHING', 1 + floor(random() * 20)::int, ivm_dt.val(3))
    WHEN 38 THEN ivm_dt.pick(format('DELETE FROM f WHERE k = %s', ivm_dt.val(6, 0)), format('DELETE FROM f WHERE id %% 3 = %s', ivm_dt.val(3, 0)))
    WHEN 39 THEN ivm_dt.pick(format('UPDATE f SET v = %s WHERE k = %s', ivm_dt.val(3), ivm_dt.val(6, 0)), format('UPDATE f SET id = id + (SELECT max(id) + 1 FROM f) WHERE v = %s', ivm_dt.val(3, 0)),
                             format('INSERT INTO f VALUES (%s, %s, 1) ON CONFLICT (id) DO UPDATE SET id = f.id + (SELECT max(id) + 1 FROM f)', ivm_dt.val(30, 0), ivm_dt.val(6)),
                             format('WITH x AS (DELETE FROM f WHERE k = %s RETURNING *) INSERT INTO f SELECT id, k + 1, v FROM x', ivm_dt.val(6, 0)))
    WHEN 40 THEN ivm_dt.pick(format('INSERT INTO dim VALUES (%s, %L) ON CONFLICT DO NOTHING', ivm_dt.val(6, 0), ivm_dt.pick('p', 'q', 'r', NULL)), format('DELETE FROM dim WHERE k = %s', ivm_dt.val(6, 0)),
                             format('UPDATE dim SET name = %L WHERE k = %s', ivm_dt.pick('p', 'q', 'r', NULL), ivm_dt.val(6, 0)))
    WHEN 41 THEN ivm_dt.pick(format('INSERT INTO dim2 VALUES (%L, %s) ON CONFLICT DO NOTHING', ivm_dt.pick('p', 'q', 'r'), ivm_dt.val(3)), format('DELETE FROM dim2 WHERE name = %L', ivm_dt.pick('p', 'q', 'r')),
                             'TRUNCATE f', format('WITH x AS (DELETE FROM dim WHERE k = %s RETURNING *) INSERT INTO f SELECT k + 50, k, 0 FROM x ON CONFLICT DO NOTHING', ivm_dt.val(6, 0)))
    -- m: values moved between equal ones shown otherwise
    WHEN 46 THEN ivm_dt.m_row()
    WHEN 47 THEN ivm_dt.pick(format('UPDATE m SET x = x * 1.0 WHERE k = %s', ivm_dt.val(5, 0)), format('UPDATE m SET x = trim_scale(x) WHERE k <> %s', ivm_dt.val(5, 0)),
                             format('UPDATE m SET x = %s WHERE k = %s', ivm_dt.num(), ivm_dt.val(5, 0)))
    WHEN 48 THEN ivm_dt.pick(format('UPDATE m SET j = %s, y = %s WHERE k = %s', ivm_dt.doc(), ivm_dt.doc(), ivm_dt.val(5, 0)),
                             format('UPDATE m SET y = j::json WHERE k = %s', ivm_dt.val(5, 0)), format('UPDATE m SET k = k + 1 WHERE x = %s', ivm_dt.num()),
                             format('UPDATE m SET n = %s WHERE k = %s', ivm_dt.name(), ivm_dt.val(5, 0)), format('UPDATE m SET n = upper(n) WHERE n = %s', ivm_dt.name()))
    WHEN 49 THEN ivm_dt.pick(format('DELETE FROM m WHERE k = %s', ivm_dt.val(5, 0)), format('DELETE FROM m WHERE x = %s', ivm_dt.num()),
                             format('INSERT INTO m SELECT k + 1, x * 1.00, j, y, lower(n) FROM m WHERE k = %s', ivm_dt.val(5, 0)))
    WHEN 0 THEN format('INSERT INTO r VALUES (%s, %s, %L)', ivm_dt.val(6), ivm_dt.val(5), ivm_dt.pick('x', 'y', 'z', NULL))
    WHEN 1 THEN format('INSERT INTO r SELECT a, b, c FROM r WHERE a = %s', ivm_dt.val(6, 0))
    WHEN 2 THEN format('INSERT INTO s VALUES (%s, %s), (%s, %s)', ivm_dt.val(5), ivm_dt.val(4), ivm_dt.val(5), ivm_dt.val(4))
    WHEN 3 THEN format('INSERT INTO t VALUES (%s, %L)', ivm_dt.val(4), ivm_dt.pick('p', 'q', NULL))
    WHEN 4 THEN format('DELETE FROM r WHERE a = %s', ivm_dt.val(6, 0))
    WHEN 5 THEN format('DELETE FROM r WHERE b IS NULL AND a < %s', ivm_dt.val(6, 0))
    WHEN 6 THEN format('DELETE FROM s WHERE b = %s', ivm_dt.val(5, 0))
    WHEN 7 THEN format('DELETE FROM t WHERE d = %s OR e IS NULL', ivm_dt.val(4, 0))
    WHEN 8 THEN format('UPDATE r SET b = %s WHERE a = %s', ivm_dt.val(5), ivm_dt.val(6, 0))
    WHEN 9 THEN format('UPDATE r SET c = %L WHERE b = %s', ivm_dt.pick('x', 'y', 'z', NULL), ivm_dt.val(5, 0))
    WHEN 10 THEN format('UPDATE s SET b = b + 1 WHERE d = %s', ivm_dt.val(4, 0))
    WHEN 11 THEN format('UPDATE s SET d = %s WHERE b = %s', ivm_dt.val(4), ivm_dt.val(5, 0))
    WHEN 12 THEN 'UPDATE r SET a = a'   -- changes nothing
    WHEN 13 THEN format('UPDATE t SET e = %L WHERE d = %s', ivm_dt.pick('p', 'q', NULL), ivm_dt.val(4, 0))
    WHEN 14 THEN format('WITH x AS (DELETE FROM r WHERE a = %s RETURNING *) INSERT INTO s SELECT b, a FROM x', ivm_dt.val(6, 0))
    WHEN 15 THEN format('WITH x AS (DELETE FROM s WHERE d = %s RETURNING *) INSERT INTO r SELECT d, b, %L FROM x', ivm_dt.val(4, 0), ivm_dt.pick('x', NULL))
    WHEN 16 THEN format('WITH x AS (UPDATE s SET d = d + 1 WHERE b = %s RETURNING *) UPDATE r SET b = b + 1 WHERE a IN (SELECT d FROM x)', ivm_dt.val(5, 0))
    WHEN 17 THEN format('WITH x AS (DELETE FROM r WHERE a = %s RETURNING *) INSERT INTO r SELECT a + 1, b, c FROM x', ivm_dt.val(6, 0))
    WHEN 18 THEN format('WITH x AS (INSERT INTO t VALUES (%s, %L) RETURNING *) DELETE FROM s WHERE d IN (SELECT d FROM x)', ivm_dt.val(4, 0), ivm_dt.pick('p', 'q'))
    WHEN 19 THEN ivm_dt.pick('TRUNCATE s', 'TRUNCATE t', 'DELETE FROM r')
    WHEN 20 THEN format('INSERT INTO r SELECT g %% 6, %s, NULL FROM generate_series(1, %s) g', ivm_dt.val(5), 1 + floor(random() * 8)::int)
    WHEN 42 THEN format('MERGE INTO f USING (SELECT %s::int AS id, %s::int AS k, %s::int AS v) x ON f.id = x.id WHEN MATCHED AND x.v IS NULL THEN DELETE WHEN MATCHED THEN UPDATE SET k = x.k, v = x.v WHEN NOT MATCHED THEN INSERT VALUES (x.id, x.k, x.v)', ivm_dt.val(30, 0), ivm_dt.val(6), ivm_dt.val(3))
    WHEN 43 THEN format('MERGE INTO r USING (SELECT %s::int AS a, %s::int AS b) x ON r.a = x.a WHEN MATCHED THEN UPDATE SET b = x.b WHEN NOT MATCHED THEN INSERT VALUES (x.a, x.b, %L)', ivm_dt.val(6), ivm_dt.val(5), ivm_dt.pick('x', 'z', NULL))
    ELSE format('UPDATE r SET a = b, b = a WHERE c IS NOT DISTINCT FROM %L', ivm_dt.pick('x', 'y', NULL))
    END;
END $$;

-- Queries PostgreSQL runs that equal the views it cannot run itself (the
-- recursive queries ivm evaluates on its own); views.sql fills it.
CREATE TABLE ivm_dt.equivalent (name text PRIMARY KEY, query text NOT NULL);

-- Views checked by their rows' text rather than by equality: a value shown
-- otherwise than its query shows it (1.0 for 1.00) is wrong there; views.sql
-- fills it.  So are views with a json column (json has no equality), such as
-- random views' parts.
CREATE TABLE ivm_dt.by_text (name text PRIMARY KEY);

-- dt_rules and dt_rules_nl are redefined among three sets of rules without
-- their recursive reference (g's edges; and g2's; g2's and g's from a src
-- below 3): ivm keeps R and redefines it by DRed.  dt_rules_nl's closure is
-- non-linear, with a stratum above it that negates (ivm's own fixpoint).
-- Their checks read which set is in force.
CREATE TABLE ivm_dt.rules (mode int NOT NULL);
CREATE FUNCTION ivm_dt.rules_definition(mode int, nonlinear boolean DEFAULT false) RETURNS text LANGUAGE sql AS $$
    SELECT 'WITH RECURSIVE tc(x, y) AS (' ||
           (ARRAY['SELECT src, dst FROM g',
                  'SELECT src, dst FROM g UNION SELECT a, b FROM g2',
                  'SELECT a, b FROM g2 UNION SELECT src, dst FROM g WHERE src < 3'])[mode + 1] ||
           CASE WHEN nonlinear
                THEN ' UNION SELECT p.x, q.y FROM tc p JOIN tc q ON p.y = q.x), ok(x, y) AS (SELECT x, y FROM tc WHERE NOT EXISTS (SELECT 1 FROM roots WHERE roots.n = tc.y)) SELECT x, y FROM ok'
                ELSE ' UNION SELECT tc.x, g.dst FROM tc JOIN g ON tc.y = g.src) SELECT x, y FROM tc' END
$$;
CREATE FUNCTION ivm_dt.redefine_rules(to_mode int) RETURNS bigint LANGUAGE sql AS $$
    UPDATE ivm_dt.rules SET mode = to_mode;
    SELECT ivm.alter_view('dt_rules', ivm_dt.rules_definition(to_mode))
           + ivm.alter_view('dt_rules_nl', ivm_dt.rules_definition(to_mode, true));
$$;

-- dt_points_to's Andersen rules (addr: g2, copy: g, load: g2 (a = *b),
-- store: g's rows from an even src (*src = dst)) evaluated naively, to a
-- fixpoint, in a temporary table: no single recursive reference does it.
CREATE FUNCTION ivm_dt.points_to() RETURNS TABLE (p int, a int) LANGUAGE plpgsql
SET client_min_messages = warning AS $$
DECLARE
    added bigint;
BEGIN
    CREATE TEMP TABLE IF NOT EXISTS ivm_dt_pts (p int, a int);
    TRUNCATE ivm_dt_pts;
    INSERT INTO ivm_dt_pts SELECT DISTINCT g2.a, g2.b FROM g2;
    LOOP
        INSERT INTO ivm_dt_pts
        SELECT * FROM (SELECT c.dst, x.a FROM g c JOIN ivm_dt_pts x ON x.p = c.src
                       UNION SELECT l.a, t.a FROM g2 l JOIN ivm_dt_pts s ON s.p = l.b JOIN ivm_dt_pts t ON t.p = s.a
                       UNION SELECT s.a, t.a FROM g st JOIN ivm_dt_pts s ON s.p = st.src JOIN ivm_dt_pts t ON t.p = st.dst
                             WHERE st.src % 2 = 0
                       EXCEPT SELECT * FROM ivm_dt_pts) n;
        GET DIAGNOSTICS added = ROW_COUNT;
        EXIT WHEN added = 0;
    END LOOP;
    RETURN QUERY SELECT x.p, x.a FROM ivm_dt_pts x;
END $$;

-- Writes ivm_dt.check_views(context): every view equal to its query, as a
-- multiset.  Generated as static SQL once the views exist, so PL/pgSQL keeps
-- the plans of the checks across the statements of a run.
CREATE PROCEDURE ivm_dt.compile_checks() LANGUAGE plpgsql AS $proc$
DECLARE
    v record;
    body text := '';
BEGIN
    -- (a deferred view is applied and checked at about a third of the
    -- checks: in between, several statements' changes pile up in its logs)
    FOR v IN SELECT w.name::text AS name, coalesce(q.query, w.definition) AS definition, w.deferred,
                    w.name::text IN (SELECT name FROM ivm_dt.by_text)
                    OR EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = w.name AND a.attnum > 0
                                                           AND a.atttypid = 'json'::regtype) AS by_text
               FROM ivm.views w LEFT JOIN ivm_dt.equivalent q ON q.name = w.name::text ORDER BY 1 LOOP
        body := body || CASE WHEN v.deferred THEN format($f$
    IF random() < 0.3 THEN PERFORM ivm.refresh_view(%L); extra := 0; ELSE extra := -1; END IF;$f$, v.name) ELSE $f$
    extra := 0;$f$ END || format($f$
    IF extra = 0 THEN
        SELECT (SELECT count(*) FROM (SELECT %3$s FROM %1$s v EXCEPT ALL SELECT %3$s FROM (%2$s) v) x),
               (SELECT count(*) FROM (SELECT %3$s FROM (%2$s) v EXCEPT ALL SELECT %3$s FROM %1$s v) y) INTO extra, missing;
        IF extra <> 0 OR missing <> 0 THEN
            RAISE EXCEPTION 'view %% differs from its query (%% extra, %% missing rows) %%', %1$L, extra, missing, context;
        END IF;
    END IF;$f$, v.name, v.definition, CASE WHEN v.by_text THEN 'v::text' ELSE 'v.*' END);
    END LOOP;
    EXECUTE format($f$CREATE OR REPLACE FUNCTION ivm_dt.check_views(context text) RETURNS void
        LANGUAGE plpgsql AS $body$ DECLARE extra bigint; missing bigint; BEGIN %s
        END $body$$f$, body);
END $proc$;

-- A run: `steps` random statements grouped into transactions that commit
-- or roll back; some statements run in a subtransaction that is rolled
-- back.  Checks after every statement, inside and outside transactions.
CREATE PROCEDURE ivm_dt.run(seed int, steps int) LANGUAGE plpgsql AS $$
DECLARE
    stmt text;
    context text;
    step int := 0;
    in_tx int;
BEGIN
    PERFORM setseed(seed / 1000.0);
    WHILE step < steps LOOP
        in_tx := 1 + floor(random() * 4)::int;
        FOR i IN 1 .. in_tx LOOP
            step := step + 1;
            stmt := ivm_dt.random_statement();
            context := format('(seed %s, step %s, after: %s)', seed, step, stmt);
            IF random() < 0.1 THEN
                BEGIN
                    EXECUTE stmt;
                    PERFORM ivm_dt.check_views(context || ' [inside a subtransaction]');
                    RAISE EXCEPTION USING ERRCODE = 'P0004', MESSAGE = 'roll back';
                EXCEPTION WHEN assert_failure THEN
                    NULL;
                END;
                context := context || ' [rolled back subtransaction]';
            ELSE
                EXECUTE stmt;
                -- A table truncated is planned as ten pages until it is
                -- analyzed: the checks' recursive queries then sized their
                -- hash tables for 360,000 rows, about 40 ms each, a second
                -- a check.
                IF stmt LIKE '%TRUNCATE%' THEN
                    ANALYZE public.r, public.s, public.t, public.g, public.g2, public.roots, public.f, public.dim, public.dim2,
                            public.m;
                END IF;
            END IF;
            PERFORM ivm_dt.check_views(context);
        END LOOP;
        IF random() < 0.2 THEN
            ROLLBACK;
            PERFORM ivm_dt.check_views(format('(seed %s, step %s, after ROLLBACK)', seed, step));
        ELSE
            COMMIT;
        END IF;
    END LOOP;
END $$;
