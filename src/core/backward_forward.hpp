// Deletions in a linearly recursive relation R without over-deletion: the
// backward/forward idea (Motik, Nenov, Piro, Horrocks, AAAI 2015) for rules
// with at most one occurrence of R each.
//
// In linear recursion every derivation of a tuple is a chain: a tuple a
// rule without R derives (a root), then one tuple from the one before it.
// So a tuple of R is still in R after a change iff a chain of one-step
// derivations, valid over the base tables as they are now, leads to it
// from a root; and every tuple of such a chain was in R before (the change
// only deleted, or what it inserted is found by DRed's insert step after).
//
// Knowing which tuples a deletion cannot have touched (those DRed's
// over-deletion leaves out) ends most walks at their first step: a premise
// outside the over-deleted set proves its consequence.
//
// forward: the tuples to check are those a deleted base row took a
// derivation from (the seeds), then, for each tuple found gone, the tuples
// it derives.  A tuple never checked keeps a chain: on each of its old
// chains, the last seed was found to stay, or it went and the next tuple
// was checked, and so on up to this one.
// backward: a tuple is checked by walking its premises (the stored tuples
// it is derived from now) back towards a root, depth first; the walk
// stops at the first proof.  When the walk runs out, the tuples it met are
// closed under premises (but those already known gone) and none has a
// proof: all of them are gone, decided at once.
//
// So the work is in proportion to the seeds, the tuples that really go and
// the premises met on the way, not to every tuple with a derivation through
// a deleted row (DRed's over-deletion).  The caller gives a budget of
// lookups; past it the run stops unfinished and DRed runs instead.
#pragma once
#include "core/no_postgres.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace ivm::backward_forward {

// A tuple of R as it is stored before the change, numbered by the caller.
using TupleId = std::uint32_t;

// One-step derivations over the base tables as they are now, among the
// tuples R holds before the change.  Each call is a lookup the budget counts.
struct Premises {
    bool root = false;             // a rule without R derives the tuple (then `tuples` may be left out)
    std::vector<TupleId> tuples;   // the stored tuples the recursive rule derives it from
};

class Derivations {
public:
    virtual ~Derivations() = default;
    // Known to stay without a lookup: no derivation of it read a deleted
    // row (DRed's over-deletion left it out).  Never true of a tuple that
    // goes; false is always safe.
    virtual bool unaffected(TupleId t) = 0;
    virtual Premises premises(TupleId t) = 0;
    // The stored tuples the recursive rule derives from `t`.
    virtual std::vector<TupleId> consequences(TupleId t) = 0;
    // Said before the premises of `ts` are asked for one by one: a chance
    // to look them all up at once (a wave of the forward pass).
    virtual void prefetch_premises(const std::vector<TupleId>& ts) { (void)ts; }
    // What the recursive rule derives from any of `ts` (duplicates allowed):
    // by default each one's consequences.
    virtual std::vector<TupleId> consequences_of(const std::vector<TupleId>& ts) {
        std::vector<TupleId> all;
        for (TupleId t : ts) {
            std::vector<TupleId> some = consequences(t);
            all.insert(all.end(), some.begin(), some.end());
        }
        return all;
    }
};

enum class Stop { None, Lookups, Time, MostGo };
struct Outcome {
    bool finished = false;        // false: the budget ran out, nothing decided
    std::vector<TupleId> gone;    // the tuples R loses (finished only)
    std::uint64_t checked = 0;    // tuples whose premises were looked up
    std::uint64_t lookups = 0;
    Stop stopped = Stop::None;    // (unfinished) what ran out
    std::uint64_t found_gone = 0; // (unfinished) the tuples found gone by then
};

// What a run may spend before it stops unfinished.
struct Budget {
    std::uint64_t lookups = UINT64_MAX;
    // Stop once most of what was checked went (more than three quarters of
    // the first 100 tuples checked): then most over-deleted tuples really
    // go, and rederiving them all, a few set-at-a-time queries, costs less
    // than checking them.  (The first hundred, from the seeds, overstate
    // it: on a grid 53-61 of them went where 3% of the bound did, on W3's
    // DAG 73-87 where 27-42% of the over-deletion did; docs/benchmarks.md,
    // "Recursive deletes".)
    bool stop_when_most_go = false;
    static constexpr std::uint64_t most_go_checks = 100, most_go_gone = 75;
    // Stop at this time (the caller's measure of what rederiving costs).
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// Finds the tuples of R gone after a change, from the seeds (every stored
// tuple with a one-step derivation through a deleted base row; duplicates
// allowed), within the budget.
Outcome run(Derivations& derivations, const std::vector<TupleId>& seeds, const Budget& budget);

}  // namespace ivm::backward_forward
