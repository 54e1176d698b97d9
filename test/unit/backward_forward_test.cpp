#include "core/backward_forward.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace bf = ivm::backward_forward;

namespace {

using Edge = std::pair<int, int>;
using Edges = std::set<Edge>;

// Every (x, y) with a path from x to y, by a search from each node.
Edges closure(const Edges& edges) {
    std::map<int, std::vector<int>> out;
    for (const Edge& e : edges) out[e.first].push_back(e.second);
    Edges r;
    for (const auto& [from, next] : out) {
        std::vector<int> stack(next.begin(), next.end());
        while (!stack.empty()) {
            const int n = stack.back();
            stack.pop_back();
            if (!r.insert({from, n}).second) continue;
            auto it = out.find(n);
            if (it != out.end()) stack.insert(stack.end(), it->second.begin(), it->second.end());
        }
    }
    return r;
}

// Transitive closure, tc(x, y) :- e(x, y); tc(x, y) :- tc(x, z), e(z, y),
// with R as it was before a change and the edges as they are after it.
class Closure : public bf::Derivations {
public:
    Closure(const Edges& old_edges, const Edges& new_edges) : r_(closure(old_edges)), edges_(new_edges) {
        for (const Edge& t : r_) {
            ids_[t] = static_cast<bf::TupleId>(tuples_.size());
            tuples_.push_back(t);
        }
    }
    bool unaffected(bf::TupleId t) override {
        if (bound_) return passed_.count(tuples_[t].first) == 0 || reached_.count(tuples_[t].second) == 0;
        return overdeleted_ != nullptr && overdeleted_->count(tuples_[t]) == 0;
    }
    bf::Premises premises(bf::TupleId t) override {
        bf::Premises out;
        out.root = edges_.count(tuples_[t]) > 0;
        for (const Edge& e : edges_)
            if (e.second == tuples_[t].second) add(out.tuples, {tuples_[t].first, e.first});
        return out;
    }
    std::vector<bf::TupleId> consequences(bf::TupleId t) override {
        std::vector<bf::TupleId> out;
        for (const Edge& e : edges_)
            if (e.first == tuples_[t].second) add(out, {tuples_[t].first, e.second});
        return out;
    }
    // One-step derivations through a deleted edge, in R before the change.
    std::vector<bf::TupleId> seeds(const Edges& deleted) const {
        std::vector<bf::TupleId> out;
        for (const Edge& d : deleted) {
            add(out, d);
            for (const Edge& t : r_)
                if (t.second == d.first) add(out, {t.first, d.second});
        }
        return out;
    }
    Edges named(const std::vector<bf::TupleId>& ids) const {
        Edges out;
        for (bf::TupleId t : ids) out.insert(tuples_[t]);
        return out;
    }
    const Edges& before() const { return r_; }
    // DRed's over-deletion: every tuple of R with a derivation through a
    // deleted edge (tc(x, y) with x reaching a and b reaching y, for a
    // deleted a -> b); the tuples outside it are known to stay.
    void know_overdeleted(const Edges& deleted, const Edges& old_edges) {
        overdeleted_ = std::make_unique<Edges>();
        const Edges r = closure(old_edges);
        auto reaches = [&](int x, int y) { return x == y || r.count({x, y}) > 0; };
        for (const Edge& t : r)
            for (const Edge& d : deleted)
                if (reaches(t.first, d.first) && reaches(d.second, t.second)) overdeleted_->insert(t);
    }

    // The bound where deletions factor (x passes through): a seed's x, and
    // a y that a seed's y reaches over the old edges, itself included.
    void know_bound(const Edges& deleted, const Edges& old_edges) {
        bound_ = true;
        const Edges r = closure(old_edges);
        for (bf::TupleId s : seeds(deleted)) {
            passed_.insert(tuples_[s].first);
            reached_.insert(tuples_[s].second);
            for (const Edge& t : r)
                if (t.first == tuples_[s].second) reached_.insert(t.second);
        }
    }

private:
    void add(std::vector<bf::TupleId>& out, const Edge& t) const {
        auto it = ids_.find(t);
        if (it != ids_.end()) out.push_back(it->second);
    }
    Edges r_, edges_;
    std::unique_ptr<Edges> overdeleted_;
    bool bound_ = false;
    std::set<int> passed_, reached_;
    std::map<Edge, bf::TupleId> ids_;
    std::vector<Edge> tuples_;
};

Edges minus(const Edges& a, const Edges& b) {
    Edges out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
    return out;
}

}  // namespace

TEST(BackwardForward, AnEdgeWithAnotherPathAroundItTakesNothing) {
    // 1 -> 2 -> 4, 1 -> 3 -> 4, 4 -> 5: deleting 2 -> 4 leaves every pair but (2, 4), (2, 5)
    const Edges old_edges{{1, 2}, {2, 4}, {1, 3}, {3, 4}, {4, 5}};
    const Edges new_edges = minus(old_edges, {{2, 4}});
    Closure c(old_edges, new_edges);
    const bf::Outcome o = bf::run(c, c.seeds({{2, 4}}), bf::Budget{1000});
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(c.named(o.gone), (Edges{{2, 4}, {2, 5}}));
    // (1, 4) and (1, 5) were proved through 3, not over-deleted: (1, 5) was never checked
    EXPECT_LE(o.checked, 5u);
}

TEST(BackwardForward, TuplesOutsideTheOverdeletionProveAtOnce) {
    // two chains from 1 to 100, through 2 ... 20 and through 21 ... 40:
    // deleting 20 -> 100 leaves (1, 100), proved through (1, 40), which the
    // deletion cannot have touched; without knowing that, the walk goes
    // back along the second chain to (1, 21)
    Edges old_edges{{1, 2}, {20, 100}, {1, 21}, {40, 100}};
    for (int i = 2; i < 20; ++i) old_edges.insert({i, i + 1});
    for (int i = 21; i < 40; ++i) old_edges.insert({i, i + 1});
    const Edges new_edges = minus(old_edges, {{20, 100}});
    Closure blind(old_edges, new_edges), knowing(old_edges, new_edges);
    knowing.know_overdeleted({{20, 100}}, old_edges);
    const bf::Outcome walked = bf::run(blind, blind.seeds({{20, 100}}), bf::Budget{100000});
    const bf::Outcome told = bf::run(knowing, knowing.seeds({{20, 100}}), bf::Budget{100000});
    ASSERT_TRUE(walked.finished);
    ASSERT_TRUE(told.finished);
    EXPECT_EQ(knowing.named(told.gone), minus(blind.before(), closure(new_edges)));
    EXPECT_EQ(blind.named(walked.gone), knowing.named(told.gone));
    EXPECT_EQ(told.gone.size(), 19u);  // (x, 100) for x = 2 ... 20
    EXPECT_LE(told.lookups + 15, walked.lookups);
}

TEST(BackwardForward, ACycleDoesNotProveItself) {
    // 0 -> 1, 1 -> 2, 2 -> 1: deleting 0 -> 1 takes (0, 1) and (0, 2), which
    // derive each other around the cycle
    const Edges old_edges{{0, 1}, {1, 2}, {2, 1}};
    const Edges new_edges = minus(old_edges, {{0, 1}});
    Closure c(old_edges, new_edges);
    const bf::Outcome o = bf::run(c, c.seeds({{0, 1}}), bf::Budget{1000});
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(c.named(o.gone), (Edges{{0, 1}, {0, 2}}));
}

TEST(BackwardForward, StopsUnfinishedPastItsBudget) {
    Edges old_edges;
    for (int i = 0; i < 50; ++i) old_edges.insert({i, i + 1});
    const Edges new_edges = minus(old_edges, {{0, 1}});
    Closure c(old_edges, new_edges);
    const bf::Outcome o = bf::run(c, c.seeds({{0, 1}}), bf::Budget{20});
    EXPECT_FALSE(o.finished);
    EXPECT_TRUE(o.gone.empty());
    EXPECT_EQ(o.stopped, bf::Stop::Lookups);
    EXPECT_EQ(o.found_gone, 10u);  // in 20 lookups: 10 checks, each found gone, and their consequences
    const bf::Outcome all = bf::run(c, c.seeds({{0, 1}}), bf::Budget{100000});
    ASSERT_TRUE(all.finished);
    EXPECT_EQ(all.stopped, bf::Stop::None);
    EXPECT_EQ(all.gone.size(), 50u);  // (0, 1) ... (0, 50)
    bf::Budget late;
    late.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
    const bf::Outcome too_late = bf::run(c, c.seeds({{0, 1}}), late);
    EXPECT_FALSE(too_late.finished);
    EXPECT_EQ(too_late.lookups, 1u);
    EXPECT_EQ(too_late.stopped, bf::Stop::Time);
}

TEST(BackwardForward, GoesOnWhereTwoThirdsOfTheFirstHundredGo) {
    // a chain 1 -> 2 -> ... -> 300 that 0 reaches only through 0 -> 1; every
    // second chain node also leads to a side node that 0 reaches directly:
    // two of every three tuples checked go (on a grid 53-61 of the first
    // hundred went where 3% of what the deletion could take did)
    Edges e{{0, 1}};
    for (int i = 1; i < 300; ++i) e.insert({i, i + 1});
    for (int i = 2; i <= 300; i += 2) e.insert({i, 1000 + i}), e.insert({0, 1000 + i});
    Closure c(e, minus(e, {{0, 1}}));
    bf::Budget stopping;
    stopping.stop_when_most_go = true;
    const bf::Outcome o = bf::run(c, c.seeds({{0, 1}}), stopping);
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.gone.size(), 300u);  // (0, 1) ... (0, 300)
    EXPECT_EQ(o.checked, 450u);
}

TEST(BackwardForward, StopsWhereMostOfWhatItChecksGoes) {
    // a chain 0 -> 1 -> ... -> 300: deleting 0 -> 1 takes (0, x) for every x
    Edges old_edges;
    for (int i = 0; i < 300; ++i) old_edges.insert({i, i + 1});
    const Edges new_edges = minus(old_edges, {{0, 1}});
    Closure c(old_edges, new_edges);
    bf::Budget stopping;
    stopping.stop_when_most_go = true;
    const bf::Outcome stopped = bf::run(c, c.seeds({{0, 1}}), stopping);
    EXPECT_FALSE(stopped.finished);
    EXPECT_EQ(stopped.checked, 100u);
    EXPECT_EQ(stopped.stopped, bf::Stop::MostGo);
    EXPECT_EQ(stopped.found_gone, 99u);
    const bf::Outcome all = bf::run(c, c.seeds({{0, 1}}), bf::Budget{});
    ASSERT_TRUE(all.finished);
    EXPECT_EQ(all.gone.size(), 300u);
    // where few of the first hundred go, it goes on: 300 chains of two from
    // 0, through 1 ... 300 to 1000 + each; deleting 0 -> 1 takes (0, 1), (0, 1001)
    Edges fan;
    for (int i = 1; i <= 300; ++i) fan.insert({0, i}), fan.insert({i, 1000 + i}), fan.insert({0, 1000 + i});
    Closure f(fan, minus(fan, {{0, 1}}));
    const bf::Outcome kept = bf::run(f, f.seeds({{0, 1}}), stopping);
    ASSERT_TRUE(kept.finished);
    EXPECT_EQ(f.named(kept.gone), (Edges{{0, 1}}));
}

// A grid, edges right and down, one edge deleted: the bound (the seeds'
// sources, and what the deleted edge's end reaches) is the over-deletion
// itself, so the checks end as soon: about one lookup per seed.
TEST(BackwardForward, TheBoundProvesAsTheOverdeletionDoes) {
    Edges grid;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            if (i < 5) grid.insert({i * 10 + j, (i + 1) * 10 + j});
            if (j < 5) grid.insert({i * 10 + j, i * 10 + j + 1});
        }
    const Edges deleted{{22, 23}};
    const Edges after = minus(grid, deleted);
    Closure over(grid, after), bounded(grid, after);
    over.know_overdeleted(deleted, grid);
    bounded.know_bound(deleted, grid);
    const bf::Outcome a = bf::run(over, over.seeds(deleted), bf::Budget{});
    const bf::Outcome b = bf::run(bounded, bounded.seeds(deleted), bf::Budget{});
    ASSERT_TRUE(a.finished && b.finished);
    EXPECT_EQ(bounded.named(b.gone), minus(bounded.before(), closure(after)));
    EXPECT_EQ(b.lookups, a.lookups);
    EXPECT_EQ(b.checked, a.checked);
}

// Asked in waves: the premises of every tuple a wave checks are announced
// together, and what the tuples found gone derive is asked for together;
// the outcome is the one tuple by tuple.
class WaveClosure : public Closure {
public:
    using Closure::Closure;
    void prefetch_premises(const std::vector<bf::TupleId>& ts) override {
        if (ts.size() > 1) ++prefetches;
        announced.insert(ts.begin(), ts.end());
    }
    std::vector<bf::TupleId> consequences_of(const std::vector<bf::TupleId>& ts) override {
        if (ts.size() > 1) ++many;
        return Closure::consequences_of(ts);
    }
    int prefetches = 0, many = 0;
    std::set<bf::TupleId> announced;
};

TEST(BackwardForward, AsksForTuplesInWaves) {
    Edges chain;  // two chains side by side, joined at both ends
    for (int i = 0; i < 8; ++i) {
        chain.insert({i, i + 1});
        chain.insert({100 + i, 100 + i + 1});
    }
    chain.insert({0, 100});
    chain.insert({108, 8});
    const Edges deleted{{0, 1}, {3, 4}};
    const Edges after = minus(chain, deleted);
    WaveClosure w(chain, after);
    w.know_overdeleted(deleted, chain);
    const bf::Outcome o = bf::run(w, w.seeds(deleted), bf::Budget{});
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(w.named(o.gone), minus(w.before(), closure(after)));
    EXPECT_GT(w.prefetches, 0);
    EXPECT_GT(w.many, 0);
    for (bf::TupleId s : w.seeds(deleted)) EXPECT_EQ(w.announced.count(s), 1u);
}

TEST(BackwardForward, EqualsRecomputingOnRandomGraphs) {
    std::mt19937 random(20261205);
    for (int round = 0; round < 300; ++round) {
        const int nodes = 3 + static_cast<int>(random() % 10);
        const int edges = static_cast<int>(random() % (nodes * 3));
        Edges old_edges;
        for (int i = 0; i < edges; ++i) old_edges.insert({static_cast<int>(random() % nodes), static_cast<int>(random() % nodes)});
        Edges deleted;
        for (const Edge& e : old_edges)
            if (random() % 4 == 0) deleted.insert(e);
        const Edges new_edges = minus(old_edges, deleted);
        for (int knowing : {0, 1, 2}) {  // nothing, the over-deletion, the bound
            Closure c(old_edges, new_edges);
            if (knowing == 1) c.know_overdeleted(deleted, old_edges);
            if (knowing == 2) c.know_bound(deleted, old_edges);
            const bf::Outcome o = bf::run(c, c.seeds(deleted), bf::Budget{1000000});
            ASSERT_TRUE(o.finished);
            EXPECT_EQ(c.named(o.gone), minus(c.before(), closure(new_edges))) << "round " << round << " knowing " << knowing;
            EXPECT_EQ(o.gone.size(), c.named(o.gone).size()) << "a tuple reported gone twice, round " << round;
        }
    }
}
