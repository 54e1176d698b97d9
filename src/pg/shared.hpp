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

}  // namespace ivm::pg::shared
