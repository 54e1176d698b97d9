// Per-view state in shared memory: maintenance statistics, counted without
// any catalog write so they never serialize writers, and the last
// transaction that maintained the view, which REPEATABLE READ and
// SERIALIZABLE maintenance checks.  Needs ivm in shared_preload_libraries;
// without it nothing is counted (ivm.stats says so) and nothing is checked.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg::shared {

// From _PG_init while shared_preload_libraries is processed.
void install_hooks();

// One maintenance run of a view; a no-op without shared memory.
void record(int32 view_id, int64 tuples_inserted, int64 tuples_deleted, double milliseconds);

// Whether a transaction that this one's snapshot does not see has
// maintained the view (it committed after the snapshot was taken): then a
// delta computed under this snapshot would miss its changes.
bool maintained_after_snapshot(int32 view_id, Snapshot snapshot);
// This transaction maintains the view.
void note_maintainer(int32 view_id);

}  // namespace ivm::pg::shared
