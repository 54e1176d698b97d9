#include "core/change_log.hpp"

#include <gtest/gtest.h>

namespace cl = ivm::change_log;

TEST(ChangeLog, OneLogPerBaseTableNamedByItsOid) {
    EXPECT_EQ(cl::table_name(16384), "ivm.changes_16384");
    const std::string ddl = cl::create_ddl("public.r", 16384);
    EXPECT_EQ(ddl.rfind("CREATE TABLE ivm.changes_16384 (LIKE public.r, ", 0), 0u);
    EXPECT_NE(ddl.find("\"ivm$xid\" pg_catalog.xid8 NOT NULL"), std::string::npos);
    EXPECT_NE(ddl.find("\"ivm$sign\" smallint NOT NULL"), std::string::npos);
}

TEST(ChangeLog, TriggersPerEventWithTheirTransitionTables) {
    const auto ddl = cl::statement_trigger_ddl("public.r");
    ASSERT_EQ(ddl.size(), 4u);
    EXPECT_NE(ddl[1].find("AFTER UPDATE ON public.r REFERENCING OLD TABLE AS ivm_old NEW TABLE AS ivm_new FOR EACH "
                          "STATEMENT EXECUTE FUNCTION ivm.log_change()"),
              std::string::npos);
    EXPECT_EQ(ddl[3].find("REFERENCING"), std::string::npos);  // TRUNCATE has no transition tables
    const auto drops = cl::statement_trigger_drop("public.r");
    ASSERT_EQ(drops.size(), 4u);
    EXPECT_EQ(drops[0], "DROP TRIGGER IF EXISTS ivm_log_insert ON public.r");
}

TEST(ChangeLog, ReplicaTriggersFireOnlyForAnApplyWorker) {
    // a logical replication apply worker's rows: row triggers enabled for replicas only
    const auto ddl = cl::replica_trigger_ddl("public.r", true);
    ASSERT_EQ(ddl.size(), 6u);
    EXPECT_NE(ddl[0].find(std::string("CREATE TRIGGER ") + cl::replica_truncate_trigger + " AFTER TRUNCATE"),
              std::string::npos);
    EXPECT_NE(ddl[1].find("FOR EACH ROW EXECUTE FUNCTION ivm.log_row_change()"), std::string::npos);
    EXPECT_NE(ddl[2].find("DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ivm.apply_replicated()"),
              std::string::npos);
    EXPECT_EQ(ddl[4], "ALTER TABLE public.r ENABLE REPLICA TRIGGER ivm_log_row");
    for (std::size_t i = 3; i < ddl.size(); ++i) EXPECT_EQ(ddl[i].rfind("ALTER TABLE public.r ENABLE REPLICA", 0), 0u);
    // a partitioned table: its partitions get the row triggers
    const auto parent = cl::replica_trigger_ddl("public.p", false);
    ASSERT_EQ(parent.size(), 2u);
    for (const auto& d : parent) EXPECT_EQ(d.find("FOR EACH ROW"), std::string::npos);
    EXPECT_EQ(cl::replica_trigger_drop("public.p", false).size(), 1u);
    EXPECT_EQ(cl::replica_trigger_drop("public.r", true).size(), 3u);
}

TEST(ChangeLog, AnImmediateViewTakesInItsTransactionsRowsFromACommandOn) {
    const std::string sql = cl::own_rows_sql("ivm.changes_1", "public.r", {"a", "b"}, false, 7, 9);
    EXPECT_EQ(sql, "SELECT ROW(l.a, l.b)::public.r, __ivm_n.copies FROM (SELECT pg_catalog.min(l.ctid) AS tid, "
                   "pg_catalog.sum(l.\"ivm$sign\")::bigint AS copies FROM ivm.changes_1 l WHERE l.\"ivm$xid\" "
                   "OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id() AND l.\"ivm$command\" "
                   "OPERATOR(pg_catalog.>=) 7 AND l.\"ivm$command\" OPERATOR(pg_catalog.<) 9 "
                   "GROUP BY ((ROW(l.a, l.b)::public.r)::pg_catalog.text COLLATE pg_catalog.\"C\") "
                   "HAVING pg_catalog.sum(l.\"ivm$sign\") OPERATOR(pg_catalog.<>) 0) __ivm_n "
                   "JOIN ivm.changes_1 l ON l.ctid OPERATOR(pg_catalog.=) __ivm_n.tid");
    // then gone, where no deferred view reads the table
    const std::string taken = cl::taken_in_sql("ivm.changes_1");
    EXPECT_EQ(taken.rfind("DELETE FROM ivm.changes_1 l WHERE l.\"ivm$xid\" OPERATOR(pg_catalog.=) "
                          "pg_catalog.pg_current_xact_id() AND l.\"ivm$command\" OPERATOR(pg_catalog.<) $2::bigint AND NOT EXISTS",
                          0),
              0u);
    EXPECT_NE(taken.find("c.deferred"), std::string::npos);
}

TEST(ChangeLog, PendingRowsAreThoseTheLastApplyDidNotSee) {
    const std::string pending = cl::pending_condition("l", "s");
    // its own transaction's rows by command id, others' by the snapshot
    EXPECT_NE(pending.find("WHEN l.\"ivm$xid\" OPERATOR(pg_catalog.=) s.own_xid THEN l.\"ivm$command\" "
                           "OPERATOR(pg_catalog.<) s.own_command"),
              std::string::npos);
    EXPECT_NE(pending.find("pg_catalog.pg_visible_in_snapshot(l.\"ivm$xid\", s.applied)"), std::string::npos);
    EXPECT_EQ(pending.rfind("NOT CASE", 0), 0u);
    const std::string rows = cl::pending_rows_sql("ivm.changes_1", "public.r", {"a", "b"}, false, 7);
    EXPECT_NE(rows.find("FROM ivm.changes_1 l, ivm.deferred_state s WHERE"), std::string::npos);
    EXPECT_NE(rows.find("s.view_id OPERATOR(pg_catalog.=) 7"), std::string::npos);
    // a column the view does not read comes as NULL
    const std::string read = cl::pending_rows_sql("ivm.changes_1", "public.r", {"a", "", "c"}, false, 7);
    EXPECT_EQ(read.rfind("SELECT ROW(l.a, NULL, l.c)::public.r, __ivm_n.copies FROM ", 0), 0u);
    // columns whose equality is their image's: grouped by themselves, no
    // text and no second read of the log
    const std::string by_value = cl::pending_rows_sql("ivm.changes_1", "public.r", {"a", "", "c"}, true, 7);
    EXPECT_EQ(by_value.rfind("SELECT ROW(l.a, NULL, l.c)::public.r, pg_catalog.sum(l.\"ivm$sign\")::bigint FROM "
                             "ivm.changes_1 l, ivm.deferred_state s WHERE ",
                             0),
              0u);
    EXPECT_NE(by_value.find(" GROUP BY l.a, l.c HAVING pg_catalog.sum(l.\"ivm$sign\") OPERATOR(pg_catalog.<>) 0"),
              std::string::npos);
    EXPECT_EQ(by_value.find("text"), std::string::npos);
    // nothing read: every row alike
    const std::string none = cl::pending_rows_sql("ivm.changes_1", "public.r", {"", ""}, true, 7);
    EXPECT_EQ(none.find("GROUP BY"), std::string::npos);
    EXPECT_NE(rows.find(pending), std::string::npos);
    // pruned: rows no deferred view reading the base has pending
    const std::string prune = cl::prune_sql("ivm.changes_1");
    EXPECT_NE(prune.find("NOT EXISTS"), std::string::npos);
    EXPECT_NE(prune.find("c.deferred"), std::string::npos);
    EXPECT_NE(prune.find(pending), std::string::npos);
}
