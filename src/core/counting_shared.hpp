// What the counting generators (counting_*.cpp) share: the delta terms
// every view shape is built from, the storage key's column, and the
// partial state of aggregates.  Not part of counting.hpp's interface.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "core/tuples.hpp"
#include "core/view_model.hpp"

namespace ivm::counting {

// How one occurrence is read in a delta term.
enum class State { Now, Before, Delta };

// A term limited to what the change of non-linear occurrence `filtered`
// can alter reads that change as "__ivm_chg_<k+1>" and counts `sign` times;
// `large`: the change is planned for its size (rows_before).
struct Limit {
    std::optional<std::size_t> filtered;
    const char* sign = nullptr;
    bool large = false;
    // A changed occurrence with a crossing template reads it
    // (Source::crossing_template), its change checked for one row replaced.
    bool crossing = false;
};

// One term of the telescoped delta: the template with each occurrence bound
// to the relation its state names, and the product of the occurrences'
// counts (tagged with the arm `side` of a set operation).
std::string term_query(const CountingView& view, const Block& block, const std::vector<State>& states, int side = 0,
                       Limit limit = {});
std::vector<State> all_now(const Block& block);
// Whether each row of term_query(view, block, states) counts 1: every
// occurrence read as it is now, none through another view's storage.
bool counts_one(const Block& block, const std::vector<State>& states);
// Each block's term over the relations as they are now (tagged with its arm).
std::vector<std::string> terms_now(const CountingView& view);
// Aggregate views: the whole query over the base tables as they are now.
std::string full_query(const CountingView& view);
// The same limited to the groups in __ivm_a (CountingView::grouped_full_template).
std::string groups_query(const CountingView& view);
// Sum the counts per tuple; tuples whose changes cancel out disappear.
std::string netted(const CountingView& view, const std::string& counted_union);

std::string output_columns(const CountingView& view, const std::string& qualifier);
// A set operation's per-arm column: prefix<arm+1>.
std::string arm_column(const std::string& prefix, int arm);
// The number of __ivm_m's rows for which `condition` holds (a merge's report).
std::string written(const std::string& condition);

// The storage key's columns (a group's keys, or the tuple's), the key column
// to name in an insert, and its value for a row of `q` (both empty when the
// storage has no key).
const std::vector<Column>& keyed_columns(const CountingView& view);
std::string key_target(const CountingView& view);
std::string key_value(const CountingView& view, const std::string& q, tuples::Key k);

// Partial state of aggregate views (counting_aggregates.cpp).
bool has_argument(CountingView::Partial::Kind kind);

// Aggregates over one argument share its partial state: count, sum, avg
// and max of one column keep one count of non-NULL values and one sum.
// Each part is kept by the first aggregate that has it, under its number:
// __ivm_n<n>; __ivm_s<s> with a numeric sum's specials; __ivm_x<x> and
// __ivm_xn<x> (a min, a max, a numeric sum's largest scale).  An
// aggregate owns a part only if it has that part at all.
struct Parts {
    std::string n, s, x;
    bool own_n = false, own_s = false, own_x = false;
};
Parts state_parts(const CountingView& view, std::size_t k);
// The type of aggregate k's tracked value (its own for min and max, a scale).
std::string tracked_type(const CountingView& view, std::size_t k);

// Numeric sums count NaN and the infinities apart from the finite sum.
struct Special {
    const char* column;  // in the storage
    const char* delta;   // its change, in the delta
    const char* value;
};
inline constexpr Special specials[] = {{"__ivm_nan", "__ivm_dnan", "'NaN'"},
                                       {"__ivm_pinf", "__ivm_dpinf", "'Infinity'"},
                                       {"__ivm_ninf", "__ivm_dninf", "'-Infinity'"}};
// Those a numeric sum counts: NaN alone where its arguments' scale is
// fixed (CountingView::Partial::scale), as no value of them is infinite.
inline std::vector<Special> specials_of(const CountingView::Partial& p) {
    return p.scale >= 0 ? std::vector<Special>{specials[0]} : std::vector<Special>(std::begin(specials), std::end(specials));
}

// Partial state: per group, the change of the row count and of each
// aggregate's non-NULL count and sum.  Rows are netted first where several
// terms add up (Net::Yes).  Counts::One: every row counts 1 (counts_one),
// so plain count(*), count and sum, a sixth cheaper per row than sums of
// counts (W2's first fill), and every group has rows.  `whole`: every
// group, changed or not.
enum class Net { Yes, No };
enum class Counts { Signed, One };
std::string partial_delta(const CountingView& view, const std::string& signed_rows, Net net, Counts counts = Counts::Signed,
                          bool whole = false);
// The partial state merged into the storage, or into an emptied one; or,
// for an empty storage, the query of the rows to write (its columns the
// storage's, in order: counting::first_fill_query).
enum class Into { Storage, Emptied, NewRows };
std::string partial_merge(const CountingView& view, const std::string& delta, Into into);
// Aggregate views: the groups a set of input rows falls into, and the merge
// that recomputes them.
std::string groups_of(const CountingView& view, const std::string& rows);
std::string aggregate_merge(const CountingView& view, const std::string& affected);

}  // namespace ivm::counting
