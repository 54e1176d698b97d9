-- ivm 0.5 -> 0.6: views on a logical replication subscriber follow what its
-- apply workers write, immediate views too (src/pg/replicated.hpp): where
-- the database has a subscription, every view's base tables log the rows
-- an apply worker writes, and the views take them in at its commit.  The
-- DDL event trigger now also follows subscriptions coming and going, and
-- updates of the extension (which sync the logs at once).
\echo Use "ALTER EXTENSION ivm UPDATE TO '0.6'" to load this file. \quit

DROP EVENT TRIGGER ivm_ddl_command_end;
CREATE EVENT TRIGGER ivm_ddl_command_end ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE TRIGGER', 'CREATE VIEW',
                 'CREATE SUBSCRIPTION', 'DROP SUBSCRIPTION', 'ALTER EXTENSION')
    EXECUTE FUNCTION ivm.on_ddl_command_end();
