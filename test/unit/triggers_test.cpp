#include "core/triggers.hpp"

#include <gtest/gtest.h>

TEST(Triggers, OneBeforeAndOneAfterTriggerPerEvent) {
    auto ddl = ivm::triggers::base_table_ddl(7, "public.r");
    ASSERT_EQ(ddl.size(), 5u);
    EXPECT_NE(ddl[0].find("BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON public.r FOR EACH STATEMENT"),
              std::string::npos);
    EXPECT_NE(ddl[2].find("AFTER UPDATE ON public.r REFERENCING OLD TABLE AS ivm_old NEW TABLE AS ivm_new"),
              std::string::npos);
    for (const auto& d : ddl) EXPECT_NE(d.find("('7')"), std::string::npos);
    auto drops = ivm::triggers::base_table_drop(7, "public.r");
    ASSERT_EQ(drops.size(), ddl.size());
    EXPECT_EQ(drops[4], "DROP TRIGGER IF EXISTS ivm_7_truncate ON public.r");
}

// A storage swapped for a new heap may carry these (its readers are told)
// and the guard, nothing else.
TEST(Triggers, BaseTriggerNamesAreKnown) {
    for (auto part : {ivm::triggers::Part::Counting, ivm::triggers::Part::Recursive})
        for (const auto& d : ivm::triggers::base_table_ddl(42, "public.r", part)) {
            const std::string name = d.substr(std::string("CREATE TRIGGER ").size(), d.find(' ', 15) - 15);
            EXPECT_TRUE(ivm::triggers::is_base_trigger_name(name)) << name;
        }
    for (const char* other : {"ivm_log_insert", "ivm_refuse_change", "ivm_42_audit", "ivm__insert", "ivm_42insert",
                              "ivm_42_insert_x", "my_ivm_42_insert", "ivm_12345678901_insert"})
        EXPECT_FALSE(ivm::triggers::is_base_trigger_name(other)) << other;
}
