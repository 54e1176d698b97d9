// The rows of a change estimated with the statistics of their table.
//
// A transition table has no statistics: the planner gives every filter on
// it a default selectivity (a range or an equality: 0.005), so a change of
// 30,218 lineitems of which 4,444 fall in a view's date range is planned
// for 151 rows, and the delta looks each one up in an index where hashing
// the other side would cost a fraction (TPC-H Q20, docs/benchmarks.md).
// The rows of a transition table are rows of its table, and so are those
// of every set ivm registers in a relation's shape: the planner's
// range-table entry of such a set names that relation (its relid).  While
// ivm maintains a view, a planner hook estimates the filters on such a set
// with that relation's column statistics, and the rows of a UNION ALL over
// such sets (new rows and old) as the sum of their estimates.  Where the
// relation has no statistics the defaults stay, as before.
#pragma once

namespace ivm::pg {

// Installs the planner hook (once per backend, when the library is loaded).
void install_change_estimates_hook();

}  // namespace ivm::pg
