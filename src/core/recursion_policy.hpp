// When DRed gives up and recomputes, and how it rederives: one policy for
// both recursion engines, from the relation's estimated size alone.  The
// engines ask it (dred_maintenance.cpp, fixpoint_maintenance.cpp) and
// ivm.explain_view prints what it decides (explain.cpp); the measurements
// behind the numbers are in docs/benchmarks.md ("DRed's steps").
#pragma once
#include "core/no_postgres.hpp"
#include "core/dred.hpp"

#include <cstdint>
#include <string>

namespace ivm::recursion {

// The two engines that maintain recursion by DRed.
enum class Engine {
    Linear,    // WITH RECURSIVE, evaluated by PostgreSQL: the relation R is recomputed as a whole
    Fixpoint,  // ivm's own loop over a program: one stratum at a time is recomputed
};

// DRed goes on while the over-deletion is at most this many tuples (and
// recompute_fraction of the relation, when that is more).
inline constexpr std::uint64_t recompute_floor = 1000;
// The fraction of the relation over-deleted past which it is recomputed.
double recompute_fraction(Engine engine);
// The most over-deleted tuples DRed goes on with: past it the relation (a
// stratum, for Fixpoint) is recomputed instead.  `estimated_rows`: the
// relation's rows as the planner estimates them (for Fixpoint, the storage
// holding every item); infinite, NaN or negative when not known, and then
// the floor.
std::uint64_t overdeletion_limit(Engine engine, double estimated_rows);

// Whether the over-deleted tuples are checked by backward/forward first
// (dred_backward_forward.hpp): past this many.  Below it rederiving them
// all costs a few kept-plan queries, 20 ms at most on W3, of which what
// backward/forward pays before it can stop (its seeds, the over-deleted
// keys, a hundred checks) was a tenth on W3's DAG, where it stops.
inline constexpr std::uint64_t backward_forward_from = 2000;
bool backward_forward_pays(std::uint64_t overdeleted);
// How long backward/forward may take, as a multiple of the time the
// over-deletion took, before the over-deleted tuples are all rederived
// instead: the time a lookup takes differs from rule to rule (12 us on a
// closure, up to 100 on same generation), the over-deletion's measures
// the rule and the machine.  DRed's steps after it took 4 to 17 times as
// long in every graph measured, so a check that gives up adds at most a
// tenth (a grid) to a third (same generation) to DRed's time; on a grid
// most checks finish within it (docs/benchmarks.md, "Recursive deletes").
inline constexpr double backward_forward_time_share = 2.0;

// A recursive step planned for lookups (prefer_lookups) runs first while
// it yields at most this many tuples: past it, hashing the base table costs
// less than looking each tuple's joins up (W3: about 3 us a tuple against
// 1 ms to hash the 7,400 edges), and the step runs again as planned.
inline constexpr std::uint64_t lookups_up_to = 1000;

// Up to this many tuples a step works tuple by tuple, through index
// lookups, with a kept plan.
inline constexpr std::uint64_t tuple_by_tuple_limit = 500;
// More tuples than that and than this fraction of R are worked on in one
// pass over R.
inline constexpr double one_pass_fraction = 0.1;

// Whether a step whose input sets hold `rows` tuples runs a kept plan.
bool small_step(std::uint64_t rows);
// Whether `tuples` over-deleted or derived tuples are checked against R in
// one pass over it rather than one by one.
bool in_one_pass(std::uint64_t tuples, double estimated_rows);
// How the linear engine rederives `overdeleted` tuples.  (The fixpoint
// engine has one rederive query, planned for each run.)
dred::Rederive rederivation(std::uint64_t overdeleted, double estimated_rows);

// What a view's recent deletions left standing, which decides where
// backward/forward checks against the bound first (deletions that factor,
// under auto): of the tuples their over-deletions held (or their bounds),
// how many stayed, rederived or proved.  Where most stay (W3's DAG: one
// deletion over-deleted 1,852 pairs and 1,850 came back, 29 ms by DRed
// against 3 checked), checking them costs less than over-deleting and
// rederiving them; where most go (a tree, every one) DRed costs less.
// Deletions of fewer than `counted_from` tuples are not counted; the sums
// decay by a quarter at each deletion counted, so the last few decide, the
// larger ones most.
struct DeletionHistory {
    static constexpr std::uint64_t counted_from = 100;
    double touched = 0, stayed = 0;
    void note(std::uint64_t touched_now, std::uint64_t stayed_now);
    // Whether at least half of what recent deletions touched stayed.
    bool mostly_stay() const;
};

// When backward/forward runs (under ivm.backward_forward = auto), in the
// words of ivm.explain_view.
std::string describe_backward_forward();
// ... where deletions factor (dred::deletions_factor).
std::string describe_bounded_backward_forward();

// What this policy decides for a relation of this estimated size, in the
// words of ivm.explain_view.
std::string describe(Engine engine, double estimated_rows);

}  // namespace ivm::recursion
