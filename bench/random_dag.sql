-- The benchmarks' random DAGs (bench/run.sh's W3, bench/recursive_deletes.sh):
-- node n > 1 gets one parent below it at random and a second with
-- probability `second_parent` (the same as the first at times); setseed
-- makes every run draw the same graph.  Included with \i in the session
-- that uses it.
CREATE FUNCTION pg_temp.random_dag(nodes int, second_parent float8) RETURNS TABLE (parent int, child int)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM setseed(0.42);
    FOR n IN 2 .. nodes LOOP
        parent := 1 + floor(random() * (n - 1))::int;
        child := n;
        RETURN NEXT;
        IF random() < second_parent THEN
            parent := 1 + floor(random() * (n - 1))::int;
            RETURN NEXT;
        END IF;
    END LOOP;
END $$;
