// Maintenance statistics in shared memory, counted without any catalog
// write so they never serialize writers.  Needs ivm in
// shared_preload_libraries; without it nothing is counted (ivm.stats says
// so).  Nothing that maintenance's correctness rests on lives here.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg::shared {

// From _PG_init while shared_preload_libraries is processed.
void install_hooks();

// One maintenance run of a view; a no-op without shared memory.
void record(int32 view_id, int64 tuples_inserted, int64 tuples_deleted, double milliseconds);

// How a deletion in a view's recursive relation went: the over-deleted
// tuples rederived, checked by backward/forward, or R recomputed instead.
enum class Overdeletion { Rederived, BackwardForward, Recomputed };
void record_overdeletion(int32 view_id, Overdeletion how, int64 overdeleted);

}  // namespace ivm::pg::shared
