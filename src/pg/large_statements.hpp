// Statements large enough that the views reading their table are rebuilt
// anyway: their transition rows are not kept.
//
// PostgreSQL copies every row a statement changes into the transition
// tables of ivm's AFTER triggers (into temporary files past work_mem): on
// W1's accounts, deleting all 1,000,000 rows costs 500 ms alone and 830
// ms with an AFTER trigger that only declares the transition table, more
// than a REFRESH of the view after it.  A change that large is not merged
// but rebuilds the view (maintain.hpp, ivm.rebuild_fraction), which reads
// the tables and not the rows.  So where the planner expects a statement
// to change more rows than every view reading its table would merge, the
// statement starts without its transition capture; ivm's AFTER trigger
// then finds no transition table and recomputes the view (trigger.cpp).
//
// Only where nothing else needs the rows: one plain table (no partitions,
// no inheritance children, no ON CONFLICT, no writable WITH), whose only
// triggers with transition tables are ivm's immediate ones of views that
// rebuild.  An estimate too high costs a rebuild where a merge would have
// done (still no more than the statement and a REFRESH); too low, the rows
// are kept as before.  The check runs only for statements the planner
// expects to change more than ivm.large_change_rows rows.
#pragma once

namespace ivm::pg {

// Installs the ExecutorStart hook that drops the capture (once per backend,
// when the library is loaded).
void install_large_statement_hook();

}  // namespace ivm::pg
