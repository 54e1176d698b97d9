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
