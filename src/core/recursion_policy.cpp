#include "core/recursion_policy.hpp"

#include "core/backward_forward.hpp"

#include <algorithm>
#include <cmath>

namespace ivm::recursion {
namespace {

// Why the fractions differ.  The linear engine's DRed steps run kept plans
// that look tuples up one by one, and its recompute evaluates all of R and
// replaces the stored R by difference (about three REFRESHes): DRed stays
// cheaper until a quarter to a third of R is over-deleted.  The fixpoint
// engine's steps write the storage after each step and its recompute is one
// stratum's own loop: on Andersen's points-to (bench/datalog.sh, 50,000
// tuples, recomputed in 1.35-1.57 s) DRed took 0.45 s for 4,000 tuples
// over-deleted and 1.5-3.3 s for 14,500, so a tenth.
constexpr double linear_fraction = 0.25;
constexpr double fixpoint_fraction = 0.1;

bool known(double rows) { return std::isfinite(rows) && rows >= 0; }

std::string count(double rows) { return std::to_string(static_cast<std::uint64_t>(std::llround(rows))); }

std::string percent(double fraction) { return std::to_string(static_cast<int>(std::lround(fraction * 100))) + "%"; }

}  // namespace

double recompute_fraction(Engine engine) { return engine == Engine::Linear ? linear_fraction : fixpoint_fraction; }

std::uint64_t overdeletion_limit(Engine engine, double estimated_rows) {
    const double share = known(estimated_rows) ? estimated_rows * recompute_fraction(engine) : 0.0;
    return static_cast<std::uint64_t>(std::max(static_cast<double>(recompute_floor), share));
}

bool backward_forward_pays(std::uint64_t overdeleted) { return overdeleted > backward_forward_from; }

void DeletionHistory::note(std::uint64_t touched_now, std::uint64_t stayed_now) {
    if (touched_now < counted_from) return;
    touched = 0.75 * touched + static_cast<double>(touched_now);
    stayed = 0.75 * stayed + static_cast<double>(std::min(stayed_now, touched_now));
}

bool DeletionHistory::mostly_stay() const { return touched > 0 && 2 * stayed >= touched; }

bool small_step(std::uint64_t rows) { return rows <= tuple_by_tuple_limit; }

bool in_one_pass(std::uint64_t tuples, double estimated_rows) {
    // (an R of unknown size, infinite, is never known to be small enough)
    return tuples > tuple_by_tuple_limit && !(static_cast<double>(tuples) <= estimated_rows * one_pass_fraction);
}

dred::Rederive rederivation(std::uint64_t overdeleted, double estimated_rows) {
    if (in_one_pass(overdeleted, estimated_rows)) return dred::Rederive::SetAtATime;
    return overdeleted > tuple_by_tuple_limit ? dred::Rederive::Planned : dred::Rederive::Lookups;
}

std::string describe_backward_forward() {
    return "when over " + std::to_string(backward_forward_from) +
           " tuples are over-deleted (auto; on: always), only those a deleted row derives, and what those found gone "
           "derive, are checked for another derivation, walking back through their premises to a rule without R or "
           "to a tuple not over-deleted, for at most twice as long as the over-deletion took and until more than " +
           std::to_string(backward_forward::Budget::most_go_gone) + " of the first " +
           std::to_string(backward_forward::Budget::most_go_checks) + " checked are found gone (auto; on: no limit), before they are all rederived instead";
}

std::string describe_bounded_backward_forward() {
    return "where the statement's snapshot from before it is kept, backward/forward checks against that bound instead "
           "of an over-deletion (on: always; auto: while at least half of what the view's recent deletions of " +
           std::to_string(DeletionHistory::counted_from) +
           " tuples or more touched stayed, until it has looked up as many tuples as DRed over-deletes before it "
           "recomputes R)";
}

std::string describe(Engine engine, double estimated_rows) {
    const std::string limit = std::to_string(overdeletion_limit(engine, estimated_rows));
    const std::string floor_rows = std::to_string(recompute_floor);
    const std::string share = percent(recompute_fraction(engine));
    const bool linear = engine == Engine::Linear;
    const std::string size = known(estimated_rows) ? "estimated at " + count(estimated_rows) + " tuples"
                                                   : "of a size not known until it is analyzed";
    std::string text =
        linear ? "when DRed gives up: an over-deletion of more than " + limit + " tuples (the larger of " + floor_rows +
                     " and " + share + " of R, " + size + ") stops, and R is recomputed instead"
               : "when DRed gives up: a stratum whose over-deletion passes " + limit + " tuples (the larger of " +
                     floor_rows + " and " + share + " of the items' table, " + size +
                     ") is recomputed instead, as is one that reads a change through negation or aggregation";
    if (!linear) return text + "; over-deleted tuples are rederived by one query per stratum, planned for each run";
    const std::string by_one = std::to_string(tuple_by_tuple_limit);
    const std::string one_pass =
        known(estimated_rows)
            ? "in one pass over R past " +
                  std::to_string(std::max<std::uint64_t>(
                      tuple_by_tuple_limit, static_cast<std::uint64_t>(std::floor(estimated_rows * one_pass_fraction)))) +
                  " (" + by_one + " and " + percent(one_pass_fraction) + " of R)"
            : "never in one pass over R while its size is not known";
    return text + "; over-deleted tuples are rederived through index lookups up to " + by_one +
           ", as planned past that, and " + one_pass +
           "; step 4 deletes them and checks new tuples against R in one pass likewise, otherwise one by one; a step "
           "whose input sets hold at most " +
           by_one + " tuples keeps its plan";
}

}  // namespace ivm::recursion
