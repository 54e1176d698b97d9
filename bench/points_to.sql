-- A synthetic program for Andersen's points-to analysis (bench/datalog.sh):
-- :vars variables in modules of 50, each statement's variables drawn from
-- its own module with probability 0.98 and from anywhere otherwise (calls
-- across modules); setseed makes every run draw the same program.  Facts:
--   addr(dst, src)   dst = &src   (half the variables)
--   copy(dst, src)   dst = src    (0.6 per variable)
--   load(dst, src)   dst = *src   (0.08 per variable)
--   store(dst, src)  *dst = src   (0.08 per variable)
-- Denser programs (more cross-module statements) merge the points-to sets
-- into one: with 10% of them, 500 variables already point to 128 things
-- each.  Included with \i; pg_temp.statement_var draws the second variable
-- of a new statement the same way.
CREATE FUNCTION pg_temp.statement_var(v int, vars int) RETURNS int LANGUAGE sql AS $$
    SELECT CASE WHEN random() < 0.98 THEN (v / 50) * 50 + floor(random() * 50)::int
                ELSE floor(random() * vars)::int END
$$;
CREATE TABLE addr (dst int NOT NULL, src int NOT NULL);
CREATE TABLE copy (dst int NOT NULL, src int NOT NULL);
CREATE TABLE load (dst int NOT NULL, src int NOT NULL);
CREATE TABLE store (dst int NOT NULL, src int NOT NULL);
SELECT setseed(0.29) \gset
INSERT INTO addr SELECT v, pg_temp.statement_var(v, :vars) FROM generate_series(0, :vars - 1) v WHERE random() < 0.5;
INSERT INTO copy SELECT v, pg_temp.statement_var(v, :vars) FROM generate_series(0, :vars - 1) v WHERE random() < 0.6;
INSERT INTO load SELECT v, pg_temp.statement_var(v, :vars) FROM generate_series(0, :vars - 1) v WHERE random() < 0.08;
INSERT INTO store SELECT v, pg_temp.statement_var(v, :vars) FROM generate_series(0, :vars - 1) v WHERE random() < 0.08;
-- each relation indexed on both columns, as a Datalog engine indexes its
-- relations: a change is joined to the others on src or dst, and DRed's
-- rederivation looks a tuple's derivations up by the column it derives
CREATE INDEX ON addr (dst, src);
CREATE INDEX ON copy (src);
CREATE INDEX ON copy (dst);
CREATE INDEX ON load (src);
CREATE INDEX ON load (dst);
CREATE INDEX ON store (dst);
CREATE INDEX ON store (src);
