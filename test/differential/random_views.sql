-- Random view definitions for the differential tester: SELECTs over r, s, t,
-- g2 and m built recursively from joins of every kind, filters, subqueries
-- (EXISTS, IN, scalar aggregates, correlated or not), DISTINCT, grouping,
-- subqueries in FROM, WITH queries and set operations.  Each one must be
-- refused by ivm with SQLSTATE 0A000 or maintained exactly.
--
-- A relation in scope is described by its columns, each 'expr type' with
-- type int (any integer or numeric) or text; a WITH query in scope by
-- 'name|type,type'.  Outputs are named o0, o1, ...; aliases x1, x2, ... and
-- w1, w2, ... are unique within a definition.  Everything draws on random(),
-- so a definition is repeated by setseed() before it.

CREATE FUNCTION ivm_dt.rnd(n int) RETURNS int LANGUAGE sql AS $$ SELECT floor(random() * n)::int $$;
CREATE FUNCTION ivm_dt.chance(pct int) RETURNS boolean LANGUAGE sql AS $$ SELECT random() * 100 < pct $$;
CREATE FUNCTION ivm_dt.pick_of(options text[]) RETURNS text
LANGUAGE sql AS $$ SELECT options[1 + floor(random() * array_length(options, 1))::int] $$;

-- a fresh alias: prefix and a counter random_definition resets
CREATE FUNCTION ivm_dt.fresh(prefix text) RETURNS text LANGUAGE sql AS $$
    SELECT prefix || set_config('ivm_dt.alias', (coalesce(nullif(current_setting('ivm_dt.alias', true), ''), '0')::int + 1)::text, false)
$$;

-- a column of the type from cols ('expr type'), NULL if there is none
CREATE FUNCTION ivm_dt.col_of(cols text[], typ text) RETURNS text LANGUAGE sql AS $$
    SELECT ivm_dt.pick_of(array_agg(split_part(c, ' ', 1)))
      FROM unnest(cols) c WHERE split_part(c, ' ', 2) = typ
$$;

-- an expression of the type over cols: a column, else one of the other type converted
CREATE FUNCTION ivm_dt.expr_of(cols text[], typ text) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(ivm_dt.col_of(cols, typ), CASE typ WHEN 'int' THEN 'length(' || ivm_dt.col_of(cols, 'text') || ')'
                                                       ELSE ivm_dt.col_of(cols, 'int') || '::text' END)
$$;

CREATE FUNCTION ivm_dt.int_const() RETURNS text LANGUAGE sql AS $$ SELECT floor(random() * 6)::int::text $$;
CREATE FUNCTION ivm_dt.text_const() RETURNS text LANGUAGE sql AS $$ SELECT quote_literal(ivm_dt.pick('x', 'y', 'p', 'q')) $$;

-- 1 to 3 output types, mostly int; the first one int when first_int
CREATE FUNCTION ivm_dt.random_types(first_int boolean DEFAULT false) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    n int := 1 + ivm_dt.rnd(100) / 45;  -- 1: 45%, 2: 45%, 3: 10%
    types text[] := '{}';
BEGIN
    FOR i IN 1 .. n LOOP
        types := types || CASE WHEN (i = 1 AND first_int) OR ivm_dt.chance(75) THEN 'int' ELSE 'text' END;
    END LOOP;
    RETURN types;
END $$;

-- the columns of relation `rel` under an alias: a base table or a WITH query ('name|types')
CREATE FUNCTION ivm_dt.rel_cols(rel text, alias text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    cols text[] := '{}';
    types text[];
BEGIN
    IF rel LIKE '%|%' THEN
        types := string_to_array(split_part(rel, '|', 2), ',');
        FOR i IN 1 .. array_length(types, 1) LOOP
            cols := cols || format('%s.o%s %s', alias, i - 1, types[i]);
        END LOOP;
        RETURN cols;
    END IF;
    RETURN CASE rel
        WHEN 'r' THEN ARRAY[alias || '.a int', alias || '.b int', alias || '.c text']
        WHEN 'dt_join' THEN ARRAY[alias || '.a int', alias || '.c text', alias || '.d int']
        WHEN 'dt_distinct' THEN ARRAY[alias || '.c text', alias || '.d int']
        WHEN 's' THEN ARRAY[alias || '.b int', alias || '.d int']
        WHEN 't' THEN ARRAY[alias || '.d int', alias || '.e text']
        WHEN 'm' THEN ARRAY[alias || '.k int', alias || '.x int']  -- (x numeric: 1.0 = 1.00)
        ELSE ARRAY[alias || '.a int', alias || '.b int'] END;
END $$;

CREATE SEQUENCE ivm_dt.plain_views;

-- One relation in FROM: a base table (self-joins come by drawing one
-- twice), a WITH query in scope, a subquery (simple or not; at times as a
-- plain view of it) or, rarely,
-- one of the ivm views dt_join and dt_distinct or a random view made
-- before (create_random_views lists them in ivm_dt.random_rels).
CREATE FUNCTION ivm_dt.gen_rel(depth int, ctes text[], must text, OUT sql text, OUT cols text[])
LANGUAGE plpgsql AS $$
DECLARE
    alias text := ivm_dt.fresh('x');
    k int := ivm_dt.rnd(100);
    rel text;
    types text[];
BEGIN
    IF must IS NOT NULL THEN
        rel := must;
    ELSIF cardinality(ctes) > 0 AND k < 30 THEN
        rel := ivm_dt.pick_of(ctes);
    ELSIF depth < 2 AND k >= 85 THEN
        types := ivm_dt.random_types(true);
        rel := ivm_dt.gen_query(depth + 1, types, ctes);
        -- at times a plain view of it (where it reads no WITH query in scope)
        IF ivm_dt.chance(30) THEN
            BEGIN
                sql := 'dt_pv_' || nextval('ivm_dt.plain_views');
                EXECUTE format('CREATE VIEW %s AS %s', sql, rel);
                sql := format('%s %s', sql, alias);
            EXCEPTION WHEN OTHERS THEN
                sql := NULL;
            END;
        END IF;
        sql := coalesce(sql, format('(%s) %s', rel, alias));
        FOR i IN 1 .. array_length(types, 1) LOOP
            cols := cols || format('%s.o%s %s', alias, i - 1, types[i]);
        END LOOP;
        RETURN;
    ELSIF k >= 82 AND k < 85 THEN  -- an ivm view of views.sql
        rel := ivm_dt.pick('dt_join', 'dt_distinct');
    ELSIF k >= 79 AND k < 82 AND coalesce(current_setting('ivm_dt.random_rels', true), '') <> '' THEN
        -- a random view made before ('name|types')
        rel := ivm_dt.pick_of(string_to_array(current_setting('ivm_dt.random_rels'), ';'));
    ELSE
        rel := ivm_dt.pick('r', 'r', 's', 's', 't', 't', 'g2', 'm');
    END IF;
    sql := split_part(rel, '|', 1) || ' ' || alias;
    cols := ivm_dt.rel_cols(rel, alias);
END $$;

-- the condition joining a new relation (rcols) to those before it (lcols):
-- an equality of ints mostly, of texts where both sides have some; at times
-- over coalesce(), or, but in FULL JOINs (where PostgreSQL wants an
-- equality), NULL-safe or another comparison
CREATE FUNCTION ivm_dt.join_cond(lcols text[], rcols text[], not_full boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    typ text := CASE WHEN ivm_dt.chance(12) AND ivm_dt.col_of(lcols, 'text') IS NOT NULL
                          AND ivm_dt.col_of(rcols, 'text') IS NOT NULL THEN 'text' ELSE 'int' END;
    l text := ivm_dt.col_of(lcols, typ);
    r text := ivm_dt.col_of(rcols, typ);
BEGIN
    IF l IS NULL OR r IS NULL THEN  -- a side without ints
        l := ivm_dt.expr_of(lcols, typ);
        r := ivm_dt.expr_of(rcols, typ);
    END IF;
    IF not_full AND ivm_dt.chance(10) THEN
        RETURN format('%s IS NOT DISTINCT FROM %s', r, l);
    ELSIF not_full AND typ = 'int' AND ivm_dt.chance(6) THEN
        RETURN format('%s %s %s', r, ivm_dt.pick('<', '>=', '<>'), l);
    ELSIF typ = 'int' AND ivm_dt.chance(5) THEN
        RETURN format('coalesce(%s, 0) = %s', r, l);
    END IF;
    RETURN format('%s = %s', r, l);
END $$;

-- FROM: 1 to 3 relations (1 or 2 below the top), all joined by ON
-- conditions or all by commas with the equalities in WHERE (conds);
-- sometimes a join tree nested on the right.
CREATE FUNCTION ivm_dt.gen_from(depth int, ctes text[], must text, max_rels int,
                                OUT sql text, OUT cols text[], OUT conds text[])
LANGUAGE plpgsql AS $$
DECLARE
    n int := least(max_rels, CASE WHEN ivm_dt.chance(35) THEN 1 WHEN ivm_dt.chance(70) THEN 2 ELSE 3 END);
    commas boolean := ivm_dt.chance(25);
    rel record;
    rel2 record;
    kind text;
    cond text;
BEGIN
    conds := '{}';
    SELECT * INTO rel FROM ivm_dt.gen_rel(depth, ctes, must);
    sql := rel.sql;
    cols := rel.cols;
    FOR i IN 2 .. n LOOP
        SELECT * INTO rel FROM ivm_dt.gen_rel(depth, ctes, NULL);
        IF commas THEN
            sql := sql || ', ' || rel.sql;
            conds := conds || ivm_dt.join_cond(cols, rel.cols, true);
            cols := cols || rel.cols;
            CONTINUE;
        END IF;
        kind := ivm_dt.pick('JOIN', 'JOIN', 'JOIN', 'LEFT JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN');
        IF i = 2 AND n = 3 AND ivm_dt.chance(20) THEN
            -- rel LEFT JOIN (rel2 JOIN rel3 ON ..) ON ..
            SELECT * INTO rel2 FROM ivm_dt.gen_rel(depth, ctes, NULL);
            cond := ivm_dt.join_cond(rel.cols, rel2.cols, false);
            sql := format('%s %s (%s %s %s ON %s) ON %s', sql, kind, rel.sql,
                          ivm_dt.pick('JOIN', 'LEFT JOIN', 'FULL JOIN'), rel2.sql, cond,
                          ivm_dt.join_cond(cols, rel.cols || rel2.cols, false));
            cols := cols || rel.cols || rel2.cols;
            EXIT;
        END IF;
        cond := ivm_dt.join_cond(cols, rel.cols, kind <> 'FULL JOIN');
        IF ivm_dt.chance(15) THEN  -- a filter of the new side in ON
            cond := cond || ' AND ' || ivm_dt.simple_pred(rel.cols);
        ELSIF depth < 2 AND ivm_dt.chance(8) THEN  -- one that may hold a subquery
            cond := cond || ' AND ' || ivm_dt.gen_pred(depth + 1, rel.cols, ctes);
        END IF;
        sql := format('%s %s %s ON %s', sql, kind, rel.sql, cond);
        cols := cols || rel.cols;
    END LOOP;
    -- a LATERAL subquery over the relations before it: select-project-join
    -- (expanded into the query; keeping its first rows by ORDER BY ...
    -- LIMIT, numbered in a window part; on the right of a LEFT JOIN,
    -- decorrelated), aggregating without GROUP BY (joined as a scalar
    -- subquery is) or grouping (decorrelated).  (ORDER BY its one output
    -- column: rows tied in it are alike, as ivm and PostgreSQL may pick
    -- different ones of tied rows.)
    IF depth < 2 AND ivm_dt.chance(10) THEN
        SELECT * INTO rel2 FROM ivm_dt.gen_sub_from(depth, cols, ctes);
        cond := ivm_dt.fresh('l');
        IF ivm_dt.chance(40) THEN
            kind := ivm_dt.pick_of(rel2.cols);
            sql := format(CASE WHEN ivm_dt.chance(30) THEN '%s LEFT JOIN LATERAL (SELECT %s AS o0 FROM %s%s) %s ON true'
                               ELSE '%s, LATERAL (SELECT %s AS o0 FROM %s%s) %s' END,
                          sql, split_part(kind, ' ', 1), rel2.sql,
                          CASE WHEN ivm_dt.chance(40)
                               THEN ivm_dt.pick_of('{" ORDER BY 1 LIMIT 1"," ORDER BY 1 DESC LIMIT 2"," ORDER BY 1 LIMIT 2 OFFSET 1"}')
                               ELSE '' END,
                          cond);
            cols := cols || format('%s.o0 %s', cond, split_part(kind, ' ', 2));
        ELSIF ivm_dt.chance(50) THEN
            kind := ivm_dt.pick_of(rel2.cols);
            sql := format('%s, LATERAL (SELECT %s AS o0, count(*)::int AS o1 FROM %s GROUP BY 1) %s', sql,
                          split_part(kind, ' ', 1), rel2.sql, cond);
            cols := cols || format('%s.o0 %s', cond, split_part(kind, ' ', 2)) || format('%s.o1 int', cond);
        ELSE
            sql := format('%s, LATERAL (SELECT count(*)::int AS o0, sum(%s)::int AS o1 FROM %s) %s', sql,
                          coalesce(ivm_dt.col_of(rel2.cols, 'int'), '1'), rel2.sql, cond);
            cols := cols || format('%s.o0 int', cond) || format('%s.o1 int', cond);
        END IF;
    END IF;
    -- an immutable function of a column beside it, without outer joins
    -- (refused over a subquery's, a view's or a WITH query's columns)
    IF ivm_dt.chance(15) AND ivm_dt.col_of(cols, 'int') IS NOT NULL AND sql !~ '(LEFT|RIGHT|FULL) JOIN' THEN
        cond := ivm_dt.fresh('f');
        sql := format('%s, generate_series(0, least(%s, 2)) %s(v)', sql, ivm_dt.col_of(cols, 'int'), cond);
        cols := cols || format('%s.v int', cond);
    END IF;
END $$;

-- a comparison, IS NULL, IS DISTINCT FROM or LIKE on columns of cols
CREATE FUNCTION ivm_dt.simple_pred(cols text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    c text := ivm_dt.pick_of(cols);
    e text := split_part(c, ' ', 1);
    typ text := split_part(c, ' ', 2);
    other text := ivm_dt.col_of(cols, typ);
    k int := ivm_dt.rnd(100);
BEGIN
    IF typ = 'int' THEN
        RETURN CASE
            WHEN k < 40 THEN format('%s %s %s', e, ivm_dt.pick('=', '<>', '<', '>', '<=', '>='), ivm_dt.int_const())
            WHEN k < 50 THEN format('%s %s %s', e, ivm_dt.pick('=', '<', '>='), other)
            WHEN k < 60 THEN format('%s IS %sNULL', e, ivm_dt.pick('', 'NOT '))
            WHEN k < 70 THEN format('%s IS DISTINCT FROM %s', e, ivm_dt.int_const())
            WHEN k < 78 THEN format('%s IS %sDISTINCT FROM %s', e, ivm_dt.pick('', 'NOT '), other)
            WHEN k < 86 THEN format('coalesce(%s, 0) < %s', e, ivm_dt.int_const())
            WHEN k < 93 THEN format('%s + %s > %s', e, other, ivm_dt.int_const())
            ELSE format('%s BETWEEN %s AND %s', e, ivm_dt.int_const(), 2 + ivm_dt.rnd(4)) END;
    END IF;
    RETURN CASE
        WHEN k < 40 THEN format('%s %s %s', e, ivm_dt.pick('=', '<>', '<'), ivm_dt.text_const())
        WHEN k < 55 THEN format('%s IS %sNULL', e, ivm_dt.pick('', 'NOT '))
        WHEN k < 75 THEN format('%s IS %sDISTINCT FROM %s', e, ivm_dt.pick('', 'NOT '), ivm_dt.text_const())
        WHEN k < 85 THEN format('%s %sLIKE %L', e, ivm_dt.pick('', 'NOT '), ivm_dt.pick('x%', '%y', 'p_'))
        ELSE format('%s = %s', e, other) END;
END $$;

-- The FROM and WHERE of a subquery (EXISTS, IN, scalar): one relation,
-- sometimes two; correlated to outer (an equality, sometimes another
-- comparison) or not; sometimes with a filter of its own (nested subqueries).
CREATE FUNCTION ivm_dt.gen_sub_from(depth int, outer_cols text[], ctes text[], OUT sql text, OUT cols text[])
LANGUAGE plpgsql AS $$
DECLARE
    f record;
    conds text[];
    typ text;
    o text;
    i text;
BEGIN
    SELECT * INTO f FROM ivm_dt.gen_from(depth + 1, ctes, NULL, CASE WHEN ivm_dt.chance(20) THEN 2 ELSE 1 END);
    conds := f.conds;
    cols := f.cols;
    IF cardinality(outer_cols) > 0 AND ivm_dt.chance(65) THEN
        typ := CASE WHEN ivm_dt.chance(10) THEN 'text' ELSE 'int' END;
        o := ivm_dt.col_of(outer_cols, typ);
        i := ivm_dt.col_of(f.cols, typ);
        IF o IS NOT NULL AND i IS NOT NULL THEN
            conds := conds || format('%s %s %s', i, CASE WHEN ivm_dt.chance(88) THEN '=' ELSE ivm_dt.pick('<', '<>', '>=') END, o);
        END IF;
        IF ivm_dt.chance(10) THEN  -- a second correlation
            o := ivm_dt.col_of(outer_cols, 'int');
            i := ivm_dt.col_of(f.cols, 'int');
            IF o IS NOT NULL AND i IS NOT NULL THEN
                conds := conds || format('%s = %s', i, o);
            END IF;
        END IF;
    END IF;
    IF ivm_dt.chance(45) THEN
        conds := conds || ivm_dt.gen_pred(depth + 1, f.cols, ctes);
    END IF;
    sql := f.sql || CASE WHEN cardinality(conds) > 0 THEN ' WHERE ' || array_to_string(conds, ' AND ') ELSE '' END;
END $$;

-- A scalar subquery that aggregates (or an EXISTS as 1 or 0, an element of an
-- ordered ARRAY, an ordered LIMIT 1), of type typ, correlated to outer_cols or not.
CREATE FUNCTION ivm_dt.gen_scalar(depth int, outer_cols text[], ctes text[], typ text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    f record;
    c text;
    agg text;
BEGIN
    SELECT * INTO f FROM ivm_dt.gen_sub_from(depth, outer_cols, ctes);
    c := ivm_dt.expr_of(f.cols, typ);
    IF typ = 'int' AND ivm_dt.chance(15) THEN  -- EXISTS as a value
        RETURN format('(CASE WHEN %sEXISTS (SELECT 1 FROM %s) THEN 1 ELSE 0 END)', ivm_dt.pick('', 'NOT '), f.sql);
    END IF;
    IF ivm_dt.chance(10) THEN  -- an element of an ordered ARRAY(subquery)
        RETURN format('(ARRAY(SELECT %1$s FROM %2$s ORDER BY %1$s %3$s))[%4$s]', c, f.sql, ivm_dt.pick('', 'DESC'),
                      ivm_dt.pick('1', '2'));
    END IF;
    IF ivm_dt.chance(8) THEN  -- the first or second row's value
        RETURN format('(SELECT %1$s FROM %2$s ORDER BY %1$s %3$s LIMIT 1%4$s)', c, f.sql, ivm_dt.pick('', 'DESC'),
                      ivm_dt.pick('', ' OFFSET 1'));
    END IF;
    IF typ = 'text' THEN
        agg := format('%s(%s)', ivm_dt.pick('min', 'max'), c);
    ELSE
        agg := CASE ivm_dt.rnd(8)
            WHEN 0 THEN 'count(*)' WHEN 1 THEN format('count(%s)', c) WHEN 2 THEN format('sum(%s)', c)
            WHEN 3 THEN format('min(%s)', c) WHEN 4 THEN format('max(%s)', c)
            WHEN 5 THEN format('count(*) + %s', ivm_dt.int_const())
            ELSE format('avg(%s)', c) END;
    END IF;
    RETURN format('(SELECT %s FROM %s)', agg, f.sql);
END $$;

-- A WHERE condition over cols: simple ones, EXISTS and IN subqueries
-- (correlated or not, the IN ones also aggregating or set operations, of
-- one column or two), op ANY / ALL, comparisons with scalar subqueries, OR
-- and NOT.
CREATE FUNCTION ivm_dt.gen_pred(depth int, cols text[], ctes text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    k int := CASE WHEN depth >= 3 THEN 0 ELSE ivm_dt.rnd(100) END;
    f record;
    c text;
    typ text;
BEGIN
    IF k < 40 THEN
        RETURN ivm_dt.simple_pred(cols);
    ELSIF k < 58 THEN
        SELECT * INTO f FROM ivm_dt.gen_sub_from(depth, cols, ctes);
        RETURN format('%sEXISTS (SELECT 1 FROM %s)', ivm_dt.pick('', 'NOT '), f.sql);
    ELSIF k < 74 THEN
        c := ivm_dt.pick_of(cols);
        typ := split_part(c, ' ', 2);
        IF depth < 2 AND ivm_dt.chance(35) THEN  -- any query of one column, uncorrelated
            RETURN format('%s %sIN (%s)', split_part(c, ' ', 1), ivm_dt.pick('', 'NOT '),
                          ivm_dt.gen_query(depth + 1, ARRAY[typ], ctes));
        END IF;
        SELECT * INTO f FROM ivm_dt.gen_sub_from(depth, cols, ctes);
        IF ivm_dt.chance(15) THEN  -- op ANY / ALL
            RETURN format('%s %s %s (SELECT %s FROM %s)', split_part(c, ' ', 1), ivm_dt.pick('=', '<', '>=', '<>'),
                          ivm_dt.pick('ANY', 'ALL'), ivm_dt.expr_of(f.cols, typ), f.sql);
        ELSIF ivm_dt.chance(10) THEN  -- two columns
            RETURN format('(%s, %s) %sIN (SELECT %s, %s FROM %s)', split_part(c, ' ', 1), ivm_dt.expr_of(cols, 'int'),
                          ivm_dt.pick('', 'NOT '), ivm_dt.expr_of(f.cols, typ), ivm_dt.expr_of(f.cols, 'int'), f.sql);
        END IF;
        RETURN format('%s %sIN (SELECT %s FROM %s)', split_part(c, ' ', 1), ivm_dt.pick('', 'NOT '),
                      ivm_dt.expr_of(f.cols, typ), f.sql);
    ELSIF k < 88 THEN
        typ := CASE WHEN ivm_dt.chance(85) OR ivm_dt.col_of(cols, 'text') IS NULL THEN 'int' ELSE 'text' END;
        c := ivm_dt.col_of(cols, typ);
        IF c IS NULL THEN
            RETURN ivm_dt.simple_pred(cols);
        END IF;
        RETURN format('%s %s %s', c, ivm_dt.pick('=', '<', '>', '>=', '<>'), ivm_dt.gen_scalar(depth, cols, ctes, typ));
    ELSIF k < 96 THEN
        RETURN format('(%s OR %s)', ivm_dt.gen_pred(depth + 1, cols, ctes), ivm_dt.gen_pred(depth + 1, cols, ctes));
    END IF;
    RETURN format('NOT (%s)', ivm_dt.gen_pred(depth + 1, cols, ctes));
END $$;

-- An expression of type typ over cols for a select list (not grouped).
CREATE FUNCTION ivm_dt.gen_expr(depth int, cols text[], ctes text[], typ text, arm boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    c text := ivm_dt.col_of(cols, typ);
    k int := ivm_dt.rnd(100);
BEGIN
    IF depth < 3 AND k >= (CASE WHEN arm THEN 97 ELSE 90 END) THEN
        RETURN ivm_dt.gen_scalar(depth, cols, ctes, typ);
    ELSIF k = 89 THEN
        RETURN 'NULL::' || CASE typ WHEN 'int' THEN 'int' ELSE 'text' END;
    END IF;
    IF typ = 'int' THEN
        IF c IS NULL THEN
            RETURN ivm_dt.pick('length(' || ivm_dt.col_of(cols, 'text') || ')', ivm_dt.int_const());
        END IF;
        RETURN CASE
            WHEN k < 72 THEN c
            WHEN k < 76 THEN format('%s + %s', c, ivm_dt.int_const())
            WHEN k < 80 THEN format('coalesce(%s, %s)', c, ivm_dt.int_const())
            WHEN k < 83 THEN format('%s * %s', c, ivm_dt.col_of(cols, 'int'))
            WHEN k < 86 THEN ivm_dt.int_const()
            ELSE format('CASE WHEN %s THEN %s ELSE %s END', ivm_dt.simple_pred(cols), c, ivm_dt.int_const()) END;
    END IF;
    IF (c IS NULL OR k >= 80) AND ivm_dt.col_of(cols, 'int') IS NOT NULL THEN
        c := ivm_dt.col_of(cols, 'int');
        RETURN ivm_dt.pick(format('CASE WHEN %s > 2 THEN ''hi'' ELSE ''lo'' END', c), format('%s::text', c), '''k''::text');
    END IF;
    RETURN CASE WHEN k < 72 THEN c ELSE format('coalesce(%s, ''none'')', c) END;
END $$;

-- An aggregate of type typ over cols.
CREATE FUNCTION ivm_dt.gen_agg(cols text[], typ text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    c text := ivm_dt.col_of(cols, typ);
BEGIN
    IF typ = 'text' THEN
        IF c IS NULL THEN
            RETURN format('max(%s::text)', ivm_dt.col_of(cols, 'int'));
        END IF;
        RETURN ivm_dt.pick(format('min(%s)', c), format('max(%s)', c), format('string_agg(%s, '','' ORDER BY %s)', c, c));
    END IF;
    IF c IS NULL THEN
        RETURN 'count(*)';
    END IF;
    RETURN CASE ivm_dt.rnd(11)
        WHEN 0 THEN 'count(*)' WHEN 1 THEN 'count(*)' WHEN 2 THEN format('count(%s)', c) WHEN 3 THEN format('sum(%s)', c)
        WHEN 4 THEN format('min(%s)', c) WHEN 5 THEN format('max(%s)', c) WHEN 6 THEN format('avg(%s)', c)
        WHEN 7 THEN format('count(DISTINCT %s)', c)
        -- expressions over aggregates (kept from their hidden partial state)
        WHEN 8 THEN format('(%s * sum(%s) - count(*))::int', ivm_dt.int_const(), c)
        WHEN 9 THEN format('(coalesce(max(%s), 0) - coalesce(min(%s), 0) + count(%s))::int', c, c, c)
        ELSE format('sum(%s) FILTER (WHERE %s)', c, ivm_dt.simple_pred(cols)) END;
END $$;

-- One SELECT with outputs of the given types: plain, DISTINCT or grouped
-- (with or without GROUP BY, with or without HAVING).  must: a WITH query
-- ('name|types') the FROM starts with.
CREATE FUNCTION ivm_dt.gen_select(depth int, types text[], ctes text[], must text DEFAULT NULL, arm boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    f record;
    conds text[];
    items text[] := '{}';
    groups text[] := '{}';
    group_cols text[] := '{}';
    plain_groups text[];
    having_clause text := '';
    -- plain 45%, DISTINCT 15%, grouped 40%; arms of set operations, kept
    -- simpler: plain 70%, DISTINCT 20%, grouped 10%
    mode int := ivm_dt.rnd(100);
    c text;
    n int;
BEGIN
    IF arm THEN
        mode := CASE WHEN mode < 10 THEN 0 WHEN mode < 80 THEN 50 ELSE 90 END;
    END IF;
    SELECT * INTO f FROM ivm_dt.gen_from(depth, ctes, must, CASE WHEN depth = 0 THEN 3 ELSE 2 END);
    conds := f.conds;
    n := CASE WHEN ivm_dt.chance(35) THEN 0 WHEN ivm_dt.chance(75) THEN 1 ELSE 2 END;
    FOR i IN 1 .. n LOOP
        conds := conds || ivm_dt.gen_pred(depth, f.cols, ctes);
    END LOOP;
    IF mode >= 40 THEN  -- plain or DISTINCT
        FOR i IN 1 .. array_length(types, 1) LOOP
            items := items || format('%s AS o%s', ivm_dt.gen_expr(depth, f.cols, ctes, types[i], arm), i - 1);
        END LOOP;
        RETURN format('SELECT %s%s FROM %s%s', CASE WHEN mode >= 85 THEN 'DISTINCT ' ELSE '' END,
                      array_to_string(items, ', '), f.sql,
                      CASE WHEN cardinality(conds) > 0 THEN ' WHERE ' || array_to_string(conds, ' AND ') ELSE '' END);
    END IF;
    -- grouped: 0 to 2 grouping columns or expressions (0: one row)
    FOR i IN 1 .. CASE WHEN ivm_dt.chance(20) THEN 0 WHEN ivm_dt.chance(70) THEN 1 ELSE 2 END LOOP
        c := ivm_dt.pick_of(f.cols);
        IF ivm_dt.chance(15) THEN  -- an expression (without spaces, as cols wants)
            c := CASE split_part(c, ' ', 2)
                WHEN 'int' THEN format('%s %s', ivm_dt.pick(format('(%s%%3)', split_part(c, ' ', 1)),
                                                            format('coalesce(%s,0)', split_part(c, ' ', 1))), 'int')
                ELSE format('upper(%s) text', split_part(c, ' ', 1)) END;
        END IF;
        IF NOT c = ANY (group_cols) THEN
            group_cols := group_cols || c;
            groups := groups || split_part(c, ' ', 1);
        END IF;
    END LOOP;
    -- subqueries may be correlated to grouping columns, not to expressions
    plain_groups := ARRAY(SELECT g FROM unnest(group_cols) g WHERE g ~ '^x[0-9]+\.\w+ ');
    FOR i IN 1 .. array_length(types, 1) LOOP
        c := ivm_dt.col_of(group_cols, types[i]);
        IF c IS NOT NULL AND ivm_dt.chance(55) THEN
            items := items || format('%s AS o%s', c, i - 1);
        ELSIF depth < 3 AND ivm_dt.chance(8) THEN  -- correlated to the groups or not
            items := items || format('%s AS o%s', ivm_dt.gen_scalar(depth, plain_groups, ctes, types[i]), i - 1);
        ELSIF ivm_dt.chance(5) THEN  -- a constant (what a grouping set shows for a key it leaves out)
            items := items || format('%s AS o%s', CASE types[i] WHEN 'int' THEN ivm_dt.int_const() ELSE ivm_dt.text_const() END, i - 1);
        ELSE
            items := items || format('%s AS o%s', ivm_dt.gen_agg(f.cols, types[i]), i - 1);
        END IF;
    END LOOP;
    IF ivm_dt.chance(30) THEN
        c := ivm_dt.expr_of(f.cols, 'int');
        having_clause := ' HAVING ' || CASE ivm_dt.rnd(6)
            WHEN 5 THEN format('%s > %s', ivm_dt.gen_scalar(depth, plain_groups, ctes, 'int'), ivm_dt.int_const())  -- no aggregate
            WHEN 0 THEN format('count(*) > %s', 1 + ivm_dt.rnd(2))
            WHEN 1 THEN format('sum(%s) > %s', c, ivm_dt.int_const())
            WHEN 2 THEN format('max(%s) IS NOT NULL', c)
            WHEN 3 THEN format('count(*) %s %s', ivm_dt.pick('>', '<', '>='), ivm_dt.gen_scalar(depth, plain_groups, ctes, 'int'))
            ELSE format('min(%s) < %s', c, 2 + ivm_dt.rnd(4)) END;
    END IF;
    RETURN format('SELECT %s%s FROM %s%s%s%s', CASE WHEN ivm_dt.chance(10) THEN 'DISTINCT ' ELSE '' END,
                  array_to_string(items, ', '), f.sql,
                  CASE WHEN cardinality(conds) > 0 THEN ' WHERE ' || array_to_string(conds, ' AND ') ELSE '' END,
                  CASE WHEN cardinality(groups) = 0 THEN ''
                       WHEN ivm_dt.chance(85) THEN ' GROUP BY ' || array_to_string(groups, ', ')
                       ELSE ' GROUP BY ' || ivm_dt.pick(  -- one arm per grouping set
                           format('ROLLUP (%s)', array_to_string(groups, ', ')),
                           format('CUBE (%s)', array_to_string(groups, ', ')),
                           format('GROUPING SETS ((%s), ())', array_to_string(groups, ', ')),
                           format('%s, ROLLUP (%s)', groups[1], array_to_string(groups, ', '))) END,
                  having_clause);
END $$;

-- A query with outputs of the given types: a set operation (arms generated
-- in turn, simpler: arm), a WITH query (read once or twice; mostly at the
-- top) or a SELECT.
CREATE FUNCTION ivm_dt.gen_query(depth int, types text[], ctes text[], arm boolean DEFAULT false) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    k int := ivm_dt.rnd(100);
    withs text[] := '{}';
    name text;
    wtypes text[];
    cte text;
    q text;
BEGIN
    IF depth < 2 AND k < (CASE WHEN arm THEN 10 ELSE 22 END) THEN
        q := format('(%s) %s (%s)', ivm_dt.gen_query(depth + 1, types, ctes, true),
                    ivm_dt.pick('UNION', 'UNION ALL', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL'),
                    ivm_dt.gen_query(depth + 1, types, ctes, true));
        IF ivm_dt.chance(20) THEN
            q := format('%s %s (%s)', q, ivm_dt.pick('UNION', 'UNION ALL', 'EXCEPT ALL', 'INTERSECT'),
                        ivm_dt.gen_query(depth + 1, types, ctes, true));
        END IF;
        RETURN q;
    ELSIF k >= 80 AND k < (CASE WHEN depth = 0 THEN 96 WHEN depth = 1 THEN 83 ELSE 0 END) AND cardinality(ctes) = 0 THEN
        FOR i IN 1 .. CASE WHEN ivm_dt.chance(75) THEN 1 ELSE 2 END LOOP
            wtypes := ivm_dt.random_types(true);
            name := ivm_dt.fresh('w');
            withs := withs || format('%s AS (%s)', name, ivm_dt.gen_query(depth + 1, wtypes, ctes));
            cte := name || '|' || array_to_string(wtypes, ',');
            ctes := ctes || cte;
        END LOOP;
        -- the last one read by the body (a set operation's arms: twice)
        IF ivm_dt.chance(20) THEN
            q := format('(%s) %s (%s)', ivm_dt.gen_select(depth, types, ctes, cte, true),
                        ivm_dt.pick('UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT ALL'),
                        ivm_dt.gen_select(depth, types, ctes, cte, true));
        ELSE
            q := ivm_dt.gen_select(depth, types, ctes, cte, arm);
        END IF;
        RETURN format('WITH %s %s', array_to_string(withs, ', '), q);
    END IF;
    RETURN ivm_dt.gen_select(depth, types, ctes, NULL, arm);
END $$;

-- A random view definition (the caller sets the seed).
CREATE FUNCTION ivm_dt.random_definition(depth int DEFAULT 0) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF depth = 0 THEN
        PERFORM set_config('ivm_dt.alias', '0', false);
    END IF;
    RETURN ivm_dt.gen_query(depth, ivm_dt.random_types(), '{}');
END $$;

-- Every random definition tried, by the seed of create_random_views and
-- its number k (the view dt_rand_<k>).
CREATE TABLE ivm_dt.random_views (
    seed int, k int, definition text NOT NULL, accepted boolean NOT NULL, message text, nrows bigint, query_ms numeric,
    PRIMARY KEY (seed, k));

-- n random views dt_rand_1 .. dt_rand_n: each definition refused with
-- 0A000 or created and equal to its query; anything else is an error
-- naming the seed and the definition, but for the SQLSTATEs listed in
-- ivm_dt.tolerate (known bugs, to look past them).  Commits after each one.
CREATE PROCEDURE ivm_dt.create_random_views(seed int, n int) LANGUAGE plpgsql AS $$
DECLARE
    def text;
    msg text;
    state text;
    ok boolean;
    extra bigint;
    missing bigint;
    nrows bigint;
    t0 timestamptz;
    ms numeric;
BEGIN
    PERFORM setseed(seed / 2147483648.0);
    PERFORM set_config('ivm_dt.random_rels', '', false);
    DELETE FROM ivm_dt.random_views r WHERE r.seed = create_random_views.seed;
    FOR k IN 1 .. n LOOP
        def := ivm_dt.random_definition();
        -- the generator's own mistakes are not ivm's
        BEGIN
            t0 := clock_timestamp();
            EXECUTE format('SELECT count(*) FROM (%s) q', def) INTO nrows;
            ms := round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
        EXCEPTION WHEN OTHERS THEN
            RAISE EXCEPTION 'random definition % of seed % is not a valid query: % (SQLSTATE %)',
                k, seed, SQLERRM, SQLSTATE USING DETAIL = 'definition: ' || def;
        END;
        BEGIN
            PERFORM ivm.create_view('dt_rand_' || k, def);
            ok := true;
            msg := NULL;
        EXCEPTION WHEN feature_not_supported THEN
            ok := false;
            msg := SQLERRM;
        WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
            IF state = ANY (string_to_array(current_setting('ivm_dt.tolerate', true), ',')) THEN
                ok := false;  -- a known bug, counted with the refusals
                msg := format('tolerated %s: %s', state, msg);
            ELSE
                RAISE EXCEPTION 'ivm.create_view of random view dt_rand_% (seed %) failed other than with 0A000: % (SQLSTATE %)',
                    k, seed, msg, state USING DETAIL = 'definition: ' || def;
            END IF;
        END;
        IF ok THEN
            EXECUTE format('SELECT (SELECT count(*) FROM (SELECT * FROM dt_rand_%1$s EXCEPT ALL (%2$s)) x),
                                   (SELECT count(*) FROM ((%2$s) EXCEPT ALL SELECT * FROM dt_rand_%1$s) y)', k, def)
               INTO extra, missing;
            IF extra <> 0 OR missing <> 0 THEN
                RAISE EXCEPTION 'random view dt_rand_% (seed %) differs from its query right after creation (% extra, % missing rows)',
                    k, seed, extra, missing USING DETAIL = 'definition: ' || def;
            END IF;
            -- later definitions may read it
            PERFORM set_config('ivm_dt.random_rels', concat_ws(';', nullif(current_setting('ivm_dt.random_rels'), ''),
                        'dt_rand_' || k || '|' || string_agg(CASE WHEN atttypid = 'text'::regtype THEN 'text' ELSE 'int' END, ',' ORDER BY attnum)), false)
               FROM pg_attribute WHERE attrelid = ('dt_rand_' || k)::regclass AND attnum > 0 AND NOT attisdropped;
        END IF;
        INSERT INTO ivm_dt.random_views VALUES (seed, k, def, ok, msg, nrows, ms);
        COMMIT;
    END LOOP;
END $$;
