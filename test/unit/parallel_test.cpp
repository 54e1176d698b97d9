// Which writers may maintain a view at once (counting::parallel_writers)
// and the storage keys a merge locks first (counting::delta_keys_query).
#include "core/counting.hpp"

#include "sample_views.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using ivm::Column;
using ivm::CountingView;
using ivm::Source;

TEST(ParallelWriters, EachTableOfAnInnerJoin) {
    EXPECT_TRUE(ivm::counting::parallel_writers(join_view(), 0));
    EXPECT_TRUE(ivm::counting::parallel_writers(join_view(), 1));
}

TEST(ParallelWriters, NotATableReadTwiceInABlock) {
    CountingView v = join_view();
    v.blocks[0].sources[1].base = 0;  // r x JOIN r y
    EXPECT_FALSE(ivm::counting::parallel_writers(v, 0));
}

TEST(ParallelWriters, OnceInEachArmOfAUnion) {
    CountingView v = join_view();
    v.blocks.push_back({{Source{0, true}}, "SELECT r.a, r.a AS c, r.__ivm_cnt AS __ivm_c1 FROM __ivm_src_1 r", 1});
    EXPECT_TRUE(ivm::counting::parallel_writers(v, 0));
}

TEST(ParallelWriters, NotTheNullableSideNorASubquery) {
    for (Source::Role role : {Source::Role::Nullable, Source::Role::Nested}) {
        CountingView v = join_view();
        v.blocks[0].sources[1].role = role;
        EXPECT_FALSE(ivm::counting::parallel_writers(v, 1));
        EXPECT_TRUE(ivm::counting::parallel_writers(v, 0));  // the preserved side, the outer query
    }
}

TEST(ParallelWriters, NotATableTheViewDoesNotRead) {
    CountingView v = join_view();
    v.bases.push_back("public.t");
    EXPECT_FALSE(ivm::counting::parallel_writers(v, 2));
}

TEST(DeltaKeys, TheStorageKeyOfEachDeltaRowOnceInOrder) {
    EXPECT_EQ(ivm::counting::delta_keys_query(join_view(), "SELECT * FROM ivm_delta_rows"),
              "SELECT DISTINCT pg_catalog.hash_record_extended(ROW(__ivm_d.a, __ivm_d.c), 0::bigint) AS __ivm_k FROM "
              "(SELECT * FROM ivm_delta_rows) __ivm_d ORDER BY 1");
}

TEST(DeltaKeys, AnAggregateLocksItsGroups) {
    CountingView v = join_view();
    v.aggregate = true;
    v.group_keys = {{"__ivm_gk1", "OPERATOR(pg_catalog.=)", true}};
    const std::string sql = ivm::counting::delta_keys_query(v, "SELECT 1");
    EXPECT_NE(sql.find("ROW(__ivm_d.__ivm_gk1)"), std::string::npos);
    v.group_keys.clear();  // no GROUP BY: one row, no key
    EXPECT_EQ(ivm::counting::delta_keys_query(v, "SELECT 1"), "");
}

TEST(DeltaKeys, NoneWithoutAHashableColumn) {
    CountingView v = join_view();
    for (Column& c : v.columns) c.hashable = false;
    EXPECT_EQ(ivm::counting::delta_keys_query(v, "SELECT 1"), "");
}

}  // namespace
