// Lookup bases: the storage key they make, how their tuples are found, and
// the statement that moves them in place.
#include "core/counting.hpp"
#include "core/error.hpp"
#include "core/tuples.hpp"

#include "text_count.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using ivm::Column;
using ivm::CountingView;
using ivm::Source;
using ivm::counting::LookupFind;

Column integer(const char* name) {
    Column c{name, "OPERATOR(pg_catalog.=)", true};
    c.integer = true;
    return c;
}

// W1: accounts a (id, bid, bal) JOIN branches b ON b.bid = a.bid, showing
// a.id, a.bid, a.bal, b.bbal.  accounts shows its key id; branches' key bid
// is shown by a.bid.
CountingView star() {
    CountingView v;
    v.storage = "public.w__ivm_data";
    v.columns = {integer("id"), integer("bid"), integer("bal"), integer("bbal")};
    v.bases = {"public.accounts", "public.branches"};
    v.blocks = {{{Source{0}, Source{1}},
                 "SELECT a.id, a.bid, a.bal, b.bbal, a.__ivm_cnt AS __ivm_c1, b.__ivm_cnt AS __ivm_c2 "
                 "FROM __ivm_src_1 a JOIN __ivm_src_2 b ON b.bid = a.bid"}};
    v.keying = {true, false};
    CountingView::Lookup accounts;
    accounts.key = {{"id", "OPERATOR(pg_catalog.=)", 0, "OPERATOR(pg_catalog.=)"}};
    accounts.shown = {{0, "id"}, {1, "bid"}, {2, "bal"}};
    accounts.guarded = {"bid"};
    CountingView::Lookup branches;
    branches.key = {{"bid", "OPERATOR(pg_catalog.=)", 1, "OPERATOR(pg_catalog.=)"}};
    branches.shown = {{3, "bbal"}};
    branches.guarded = {"bid"};
    v.lookups = {accounts, branches};
    return v;
}

TEST(LookupKey, LeavesOutTheRowValuesAndIsLedByTheDimensionsKey) {
    CountingView v = star();
    const std::vector<std::string> keys = ivm::counting::key_columns(v);
    EXPECT_EQ(keys, (std::vector<std::string>{"bid", "id"}));
    ivm::counting::use_key_columns(v, keys);
    EXPECT_TRUE(v.columns[0].hashed && v.columns[1].hashed);
    EXPECT_FALSE(v.columns[2].hashed || v.columns[3].hashed);
    EXPECT_TRUE(v.columns[1].leads_key);
    EXPECT_FALSE(v.columns[0].leads_key);
    const std::string key = ivm::tuples::key(v.columns, "q");
    EXPECT_NE(key.find("COALESCE(q.bid::bigint, 0)"), std::string::npos);
    EXPECT_NE(key.find("ROW(q.id, q.bid)"), std::string::npos);
}

TEST(LookupKey, TheUsualKeyWithoutLookups) {
    CountingView v = star();
    v.lookups.clear();
    EXPECT_TRUE(ivm::counting::key_columns(v).empty());
    ivm::counting::use_key_columns(v, {});
    for (const Column& c : v.columns) EXPECT_TRUE(c.hashed);
    EXPECT_TRUE(v.columns[0].leads_key);
    EXPECT_NE(ivm::tuples::key(v.columns, "q").find("ROW(q.id, q.bid, q.bal, q.bbal)"), std::string::npos);
}

TEST(LookupFinding, ByKeyRangeOrKeyOrAScan) {
    CountingView v = star();
    ivm::counting::use_key_columns(v, ivm::counting::key_columns(v));
    EXPECT_EQ(ivm::counting::lookup_find(v, 0), LookupFind::ExactKey);  // accounts shows id and bid
    EXPECT_EQ(ivm::counting::lookup_find(v, 1), LookupFind::KeyLead);   // bid leads the key
    // With the usual key (a storage made before), bid does not lead: a scan.
    ivm::counting::use_key_columns(v, {});
    EXPECT_EQ(ivm::counting::lookup_find(v, 1), LookupFind::Scan);
    EXPECT_FALSE(ivm::counting::lookup_change(v, 5));
}

TEST(LookupUpdate, MovesTheDimensionsTuplesInPlaceWhenTheRowsPairUp) {
    CountingView v = star();
    ivm::counting::use_key_columns(v, ivm::counting::key_columns(v));
    const std::string sql = ivm::counting::lookup_update_statement(v, 1);
    // pairs by the key, keeping the guarded columns' images
    EXPECT_NE(sql.find("FROM ivm_new_2 __ivm_n JOIN ivm_old_2 __ivm_o ON __ivm_n.bid OPERATOR(pg_catalog.=) __ivm_o.bid"),
              std::string::npos);
    EXPECT_NE(sql.find("pg_catalog.record_image_eq(ROW(__ivm_o.bid), ROW(__ivm_n.bid)) AS __ivm_same"), std::string::npos);
    EXPECT_NE(sql.find("NOT pg_catalog.record_image_eq(ROW(__ivm_o.bbal), ROW(__ivm_n.bbal)) AS __ivm_moved"),
              std::string::npos);
    // in place, the key left as it is, in the key's range for the branch
    EXPECT_NE(sql.find("UPDATE public.w__ivm_data __ivm_s SET bbal = __ivm_p.__ivm_v1 FROM"), std::string::npos);
    EXPECT_EQ(sql.find("__ivm_key = "), std::string::npos);
    EXPECT_NE(sql.find("__ivm_s.bid OPERATOR(pg_catalog.=) __ivm_p.__ivm_k1"), std::string::npos);
    EXPECT_NE(sql.find("__ivm_s.__ivm_key OPERATOR(pg_catalog.>=) (__ivm_p.__ivm_k1::bigint OPERATOR(pg_catalog.<<) 24)"),
              std::string::npos);
    // nothing unless every inserted row pairs up
    EXPECT_NE(sql.find("(SELECT pg_catalog.count(*) FROM __ivm_p WHERE __ivm_p.__ivm_same) OPERATOR(pg_catalog.=) "
                       "(SELECT pg_catalog.count(*) FROM ivm_new_2)"),
              std::string::npos);
    EXPECT_NE(sql.find("(SELECT __ivm_ok.ok FROM __ivm_ok)"), std::string::npos);
}

TEST(LookupUpdate, TheKeyingTablesTuplesByTheirKey) {
    CountingView v = star();
    ivm::counting::use_key_columns(v, ivm::counting::key_columns(v));
    const std::string sql = ivm::counting::lookup_update_statement(v, 0);
    // the old row tells the stored tuple's key
    EXPECT_NE(sql.find("ROW(__ivm_o.id, __ivm_o.bid), 0::bigint)"), std::string::npos);
    EXPECT_NE(sql.find("__ivm_s.__ivm_key OPERATOR(pg_catalog.=) __ivm_p.__ivm_h"), std::string::npos);
    EXPECT_NE(sql.find("SET id = __ivm_p.__ivm_v1, bid = __ivm_p.__ivm_v2, bal = __ivm_p.__ivm_v3 FROM"), std::string::npos);
    EXPECT_EQ(sql.find("__ivm_key = "), std::string::npos);
}

TEST(LookupUpdate, AStorageWithTheUsualKeyMovesTheKeyToo) {
    CountingView v = star();
    ivm::counting::use_key_columns(v, {});  // made by a build that hashed every column
    const std::string sql = ivm::counting::lookup_update_statement(v, 1);
    EXPECT_NE(sql.find("__ivm_key = ((COALESCE(__ivm_s.id::bigint, 0)"), std::string::npos);
    EXPECT_NE(sql.find("ROW(__ivm_s.id, __ivm_s.bid, __ivm_s.bal, __ivm_p.__ivm_v1)"), std::string::npos);
    EXPECT_EQ(sql.find("__ivm_s.__ivm_key OPERATOR(pg_catalog.>=)"), std::string::npos);  // a scan
}

TEST(LookupUpdate, NotForABaseThatIsNoLookup) {
    CountingView v = star();
    v.lookups[1].reset();
    EXPECT_FALSE(ivm::counting::lookup_change(v, 1));
    EXPECT_THROW(ivm::counting::lookup_update_statement(v, 1), ivm::Error);
    v.aggregate = true;
    EXPECT_FALSE(ivm::counting::lookup_change(v, 0));
}

}  // namespace
