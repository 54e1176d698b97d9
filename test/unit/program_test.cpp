#include "core/error.hpp"
#include "core/fixpoint.hpp"
#include "core/program.hpp"

#include "text_count.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>

namespace {

using ivm::ItemEdge;
using ivm::Program;
using ivm::ProgramRule;
using ivm::ProgramSource;

const std::vector<std::string> names{"a", "b", "c"};

TEST(Stratify, ReadItemsComeFirst) {
    // a reads b, b reads c
    auto strata = ivm::stratify(3, {{0, 1, false}, {1, 2, true}}, names);
    ASSERT_EQ(strata.size(), 3u);
    EXPECT_EQ(strata[0], std::vector<std::size_t>{2});
    EXPECT_EQ(strata[1], std::vector<std::size_t>{1});
    EXPECT_EQ(strata[2], std::vector<std::size_t>{0});
}

TEST(Stratify, MutualRecursionIsOneStratum) {
    // a and b read each other; c reads a negatively, from above
    auto strata = ivm::stratify(3, {{0, 1, false}, {1, 0, false}, {2, 0, true}}, names);
    ASSERT_EQ(strata.size(), 2u);
    EXPECT_EQ(strata[0], (std::vector<std::size_t>{0, 1}));
    EXPECT_EQ(strata[1], std::vector<std::size_t>{2});
}

TEST(Stratify, NegationThroughItsOwnRecursionIsRefused) {
    try {
        ivm::stratify(2, {{0, 1, false}, {1, 0, true}}, names);
        FAIL() << "not stratifiable, but accepted";
    } catch (const ivm::Error& e) {
        EXPECT_STREQ(e.code(), "0A000");
        EXPECT_NE(std::string(e.what()).find("\"b\" depends on \"a\""), std::string::npos);
    }
    EXPECT_THROW(ivm::stratify(1, {{0, 0, true}}, names), ivm::Error);
}

// tc(x, y) = e UNION tc p JOIN tc q: non-linear.
Program closure() {
    Program p;
    p.storage = "public.v__ivm_rec";
    ivm::ProgramItem tc;
    tc.name = "tc";
    tc.reference = "tc";
    tc.columns = {{"x", "OPERATOR(pg_catalog.=)", true, "integer"}, {"y", "OPERATOR(pg_catalog.=)", true, "integer"}};
    tc.stored = {"__ivm_1_1", "__ivm_1_2"};
    p.items = {tc};
    p.bases = {"public.e"};
    ProgramSource e{false, 0, false, false};
    ProgramSource self{true, 0, false, false};
    p.rules = {ProgramRule{0, "SELECT src AS x, dst AS y FROM __ivm_src_1 e", {e}, {}, {}},
               ProgramRule{0, "SELECT p.x, q.y FROM __ivm_src_1 p JOIN __ivm_src_2 q ON p.y = q.x", {self, self}, {}, {}}};
    p.strata = {{0}};
    return p;
}

TEST(Fixpoint, StepVariesEachOccurrenceOfTheStratum) {
    const Program p = closure();
    const std::string step = ivm::fixpoint::step_query(p, 0, "delta", "state", {"state"});
    // the recursive term twice: p reading the delta, then q
    EXPECT_EQ(occurrences(step, "FROM delta __ivm_r"), 2u);
    EXPECT_EQ(occurrences(step, "FROM state __ivm_r"), 2u);
    EXPECT_EQ(occurrences(step, "public.e"), 0u);  // the base term does not recurse
    EXPECT_NE(step.find("NOT EXISTS (SELECT 1 FROM state __ivm_x"), std::string::npos);
}

TEST(Fixpoint, InitialQueryHasOnlyTermsWithoutTheStratum) {
    const std::string q = ivm::fixpoint::initial_query(closure(), 0);
    EXPECT_EQ(occurrences(q, "FROM public.e __ivm_r"), 1u);
    EXPECT_EQ(occurrences(q, "__ivm_src_2"), 0u);
    EXPECT_NE(q.find("SELECT DISTINCT"), std::string::npos);  // a lone term may repeat rows
}

TEST(Fixpoint, SeedsReadTheChangedRowsOfTheChangedInputsOnly) {
    const Program p = closure();
    const std::string del = ivm::fixpoint::seed_query(p, 0, {true}, {false}, ivm::fixpoint::Change::Deleted, "removed",
                                                      p.storage, {});
    EXPECT_NE(del.find("ivm_old_1"), std::string::npos);
    EXPECT_EQ(del.find("ivm_new_1"), std::string::npos);
    EXPECT_TRUE(ivm::fixpoint::seed_query(p, 0, {false}, {false}, ivm::fixpoint::Change::Inserted, "added", p.storage, {})
                    .empty());
    EXPECT_TRUE(ivm::fixpoint::reads_changed(p, 0, {true}, {false}, true));
    EXPECT_FALSE(ivm::fixpoint::reads_changed(p, 0, {false}, {false}, false));
}

TEST(Fixpoint, ChangesReadThroughNegationAreNotThroughSources) {
    Program p = closure();
    p.bases.push_back("public.blocked");
    p.rules[1].other_bases = {1};
    EXPECT_TRUE(ivm::fixpoint::reads_changed(p, 0, {false, true}, {false}, false));
    EXPECT_FALSE(ivm::fixpoint::reads_changed(p, 0, {false, true}, {false}, true));
}

TEST(Fixpoint, StorageKeepsEveryItemTaggedAndIndexedPerItem) {
    const std::vector<std::string> ddl = ivm::fixpoint::storage_ddl(closure());
    ASSERT_GE(ddl.size(), 4u);
    EXPECT_NE(ddl[0].find("__ivm_item integer NOT NULL"), std::string::npos);
    EXPECT_NE(ddl[0].find("__ivm_key bigint GENERATED ALWAYS"), std::string::npos);
    EXPECT_NE(ddl[2].find("(__ivm_1_1) WHERE __ivm_item OPERATOR(pg_catalog.=) 1"), std::string::npos);
}

// A few thousand rows lost by a stratum are looked up through the key index,
// one by one; the planner, left to itself, hashes the whole table.
TEST(Fixpoint, LostRowsLookedUpOneByOne) {
    const Program p = closure();
    const std::string del = ivm::fixpoint::delete_statement(p, "gone", true);
    EXPECT_NE(del.find("WHERE __ivm_t.ctid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT (SELECT __ivm_k.ctid FROM "), std::string::npos);
    EXPECT_NE(del.find("__ivm_k.__ivm_key OPERATOR(pg_catalog.=) __ivm_g.__ivm_key"), std::string::npos);
    EXPECT_NE(del.find(" LIMIT 1) FROM gone __ivm_g))"), std::string::npos);
    EXPECT_EQ(ivm::fixpoint::delete_statement(p, "gone").find("ARRAY"), std::string::npos);
    EXPECT_NE(ivm::fixpoint::minus(p, "gone", p.storage, true).find(" OFFSET 0)"), std::string::npos);
    EXPECT_EQ(ivm::fixpoint::minus(p, "gone", p.storage).find("OFFSET"), std::string::npos);
}

// Redefinition: rules match by item, template and what they read (a base
// by its table, wherever it stands in the list); other items, columns or
// strata make the programs differ otherwise.
TEST(FixpointRedefinition, RulesAddedAndRemoved) {
    const Program old_p = closure();
    Program new_p = closure();
    new_p.bases = {"public.s", "public.e"};
    new_p.rules[0].sources[0].index = 1;
    new_p.rules.push_back(ProgramRule{0, "SELECT src AS x, dst AS y FROM __ivm_src_1 s", {ProgramSource{false, 0, false, false}}, {}, {}});
    const std::optional<ivm::RuleDifference> added = ivm::fixpoint::rule_difference(old_p, new_p);
    ASSERT_TRUE(added.has_value());
    EXPECT_TRUE(added->removed.empty());
    EXPECT_EQ(added->added, std::vector<std::size_t>{2});
    EXPECT_EQ(ivm::fixpoint::rules_of(new_p, 0, added->added), std::vector<std::size_t>{2});
    const std::optional<ivm::RuleDifference> removed = ivm::fixpoint::rule_difference(new_p, old_p);
    ASSERT_TRUE(removed.has_value());
    EXPECT_EQ(removed->removed, std::vector<std::size_t>{2});
    Program renamed = closure();
    renamed.items[0].columns[1].type = "bigint";
    EXPECT_FALSE(ivm::fixpoint::rule_difference(old_p, renamed).has_value());
}

// What a removed or added rule derives is a seed as a whole: every
// occurrence read as it is (the stratum's items from the storage).
TEST(FixpointRedefinition, WholeRulesSeedTheStratum) {
    const Program p = closure();
    const std::string seed = ivm::fixpoint::seed_query(p, 0, {false}, {false}, ivm::fixpoint::Change::Deleted,
                                                       "removed", p.storage, {}, {1});
    EXPECT_EQ(occurrences(seed, "FROM public.v__ivm_rec __ivm_r"), 2u);  // both occurrences of tc
    EXPECT_EQ(seed.find("ivm_old_1"), std::string::npos);
    EXPECT_EQ(seed.find("public.e"), std::string::npos);
}

}  // namespace
