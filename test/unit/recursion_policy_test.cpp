#include "core/recursion_policy.hpp"

#include <gtest/gtest.h>

#include <limits>

using ivm::dred::Rederive;
using ivm::recursion::Engine;
namespace recursion = ivm::recursion;

namespace {
constexpr double unknown = std::numeric_limits<double>::infinity();
}

TEST(RecursionPolicy, EnginesRecomputePastTheirOwnFraction) {
    EXPECT_DOUBLE_EQ(recursion::recompute_fraction(Engine::Linear), 0.25);
    EXPECT_DOUBLE_EQ(recursion::recompute_fraction(Engine::Fixpoint), 0.1);
    EXPECT_EQ(recursion::overdeletion_limit(Engine::Linear, 171000), 42750u);
    EXPECT_EQ(recursion::overdeletion_limit(Engine::Fixpoint, 171000), 17100u);
}

TEST(RecursionPolicy, SmallOrUnknownRelationsGetTheFloor) {
    for (Engine e : {Engine::Linear, Engine::Fixpoint}) {
        EXPECT_EQ(recursion::overdeletion_limit(e, 0), 1000u);
        EXPECT_EQ(recursion::overdeletion_limit(e, 3999), 1000u);
        EXPECT_EQ(recursion::overdeletion_limit(e, unknown), 1000u);  // never analyzed
        EXPECT_EQ(recursion::overdeletion_limit(e, -1), 1000u);
        EXPECT_EQ(recursion::overdeletion_limit(e, std::numeric_limits<double>::quiet_NaN()), 1000u);
    }
    EXPECT_EQ(recursion::overdeletion_limit(Engine::Linear, 4000), 1000u);
    EXPECT_EQ(recursion::overdeletion_limit(Engine::Linear, 4004), 1001u);
    EXPECT_EQ(recursion::overdeletion_limit(Engine::Fixpoint, 10000), 1000u);
    EXPECT_EQ(recursion::overdeletion_limit(Engine::Fixpoint, 10010), 1001u);
}

TEST(RecursionPolicy, SmallStepsKeepTheirPlans) {
    EXPECT_TRUE(recursion::small_step(0));
    EXPECT_TRUE(recursion::small_step(500));
    EXPECT_FALSE(recursion::small_step(501));
}

TEST(RecursionPolicy, RederiveOneByOneUnlessManyAndALargePartOfR) {
    // up to 500: lookups, whatever R's size
    EXPECT_EQ(recursion::rederivation(0, 0), Rederive::Lookups);
    EXPECT_EQ(recursion::rederivation(500, 100), Rederive::Lookups);
    EXPECT_FALSE(recursion::in_one_pass(500, 100));
    // past 500 and 10% of R: one pass
    EXPECT_EQ(recursion::rederivation(501, 100), Rederive::SetAtATime);
    EXPECT_TRUE(recursion::in_one_pass(501, 5009));
    EXPECT_FALSE(recursion::in_one_pass(501, 5010));
    // past 500 but a small part of R: one by one, as planned
    EXPECT_EQ(recursion::rederivation(624, 171000), Rederive::Planned);
    EXPECT_EQ(recursion::rederivation(17100, 171000), Rederive::Planned);
    EXPECT_EQ(recursion::rederivation(17101, 171000), Rederive::SetAtATime);
    // R of unknown size: never known to be small enough for one pass
    EXPECT_FALSE(recursion::in_one_pass(100000, unknown));
    EXPECT_EQ(recursion::rederivation(100000, unknown), Rederive::Planned);
}

TEST(RecursionPolicy, DescribesWhatItDecides) {
    const std::string linear = recursion::describe(Engine::Linear, 171000);
    EXPECT_NE(linear.find("more than 42750 tuples (the larger of 1000 and 25% of R, estimated at 171000 tuples)"),
              std::string::npos)
        << linear;
    EXPECT_NE(linear.find("index lookups up to 500"), std::string::npos) << linear;
    EXPECT_NE(linear.find("in one pass over R past 17100 (500 and 10% of R)"), std::string::npos) << linear;
    const std::string small = recursion::describe(Engine::Linear, 16);
    EXPECT_NE(small.find("more than 1000 tuples (the larger of 1000 and 25% of R, estimated at 16 tuples)"),
              std::string::npos)
        << small;
    EXPECT_NE(small.find("in one pass over R past 500 (500 and 10% of R)"), std::string::npos) << small;
    const std::string never = recursion::describe(Engine::Linear, unknown);
    EXPECT_NE(never.find("R, of a size not known until it is analyzed)"), std::string::npos) << never;
    EXPECT_NE(never.find("never in one pass over R while its size is not known"), std::string::npos) << never;
    const std::string strata = recursion::describe(Engine::Fixpoint, 40000);
    EXPECT_NE(strata.find("a stratum whose over-deletion passes 4000 tuples (the larger of 1000 and 10% of the items' "
                          "table, estimated at 40000 tuples) is recomputed"),
              std::string::npos)
        << strata;
    EXPECT_EQ(strata.find("index lookups"), std::string::npos) << strata;
}

TEST(RecursionPolicy, BackwardForwardPastTwoThousand) {
    EXPECT_FALSE(recursion::backward_forward_pays(0));
    EXPECT_FALSE(recursion::backward_forward_pays(2000));
    EXPECT_TRUE(recursion::backward_forward_pays(2001));
    const std::string words = recursion::describe_backward_forward();
    EXPECT_NE(words.find("when over 2000 tuples are over-deleted"), std::string::npos) << words;
    EXPECT_NE(words.find("for at most twice as long as the over-deletion took"), std::string::npos) << words;
}

TEST(RecursionPolicy, BoundFirstWhileMostOfRecentDeletionsStayed) {
    recursion::DeletionHistory h;
    EXPECT_FALSE(h.mostly_stay());  // nothing known: DRed over-deletes first
    h.note(99, 99);                 // too few to count
    EXPECT_FALSE(h.mostly_stay());
    h.note(1852, 1850);  // a DAG's deletion whose pairs nearly all came back
    EXPECT_TRUE(h.mostly_stay());
    h.note(84, 0);  // (too few)
    EXPECT_TRUE(h.mostly_stay());
    h.note(400, 50);  // the sums decay: 0.75 * 1852 + 400 touched, 0.75 * 1850 + 50 stayed
    EXPECT_TRUE(h.mostly_stay());
    for (int i = 0; i < 6; ++i) h.note(1000, 0);  // a tree: everything it touches goes
    EXPECT_FALSE(h.mostly_stay());
    h.note(500, 900);  // (never more stayed than touched)
    EXPECT_LE(h.stayed, h.touched);
    const std::string words = recursion::describe_bounded_backward_forward();
    EXPECT_NE(words.find("while at least half of what the view's recent deletions of 100 tuples or more touched stayed"),
              std::string::npos)
        << words;
}
