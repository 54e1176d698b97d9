// Statements large enough that the views reading their table are computed
// anew anyway: their transition rows are not kept.
//
// PostgreSQL copies every row a statement changes into the transition
// tables of ivm's AFTER triggers (into temporary files past work_mem): on
// W1's accounts, deleting all 1,000,000 rows costs 500 ms alone and 830
// ms with an AFTER trigger that only declares the transition table, more
// than a REFRESH of the view after it.  A change that large is better not
// merged: the view is computed from the tables, not the rows (maintain.hpp,
// recomputes_change, ivm.rebuild_fraction).  So where the planner expects
// a statement to change that many rows for every view reading its table,
// the statement starts without its transition capture; ivm's AFTER
// trigger then finds no transition table and recomputes the view
// (trigger.cpp): rebuilt, or for groups the difference merged.
//
// Only where nothing else needs the rows: one plain table (no partitions,
// no inheritance children, no ON CONFLICT, no writable WITH), whose only
// triggers with transition tables are ivm's immediate ones of views so
// recomputed.  An estimate too high costs a recompute where a merge would
// have done (about a REFRESH); too low, the rows are kept as before.  The
// check runs only for statements the planner expects to change more than
// ivm.large_change_rows rows.
#pragma once

namespace ivm::pg {

// Installs the ExecutorStart hook that drops the capture (once per backend,
// when the library is loaded).
void install_large_statement_hook();

}  // namespace ivm::pg
