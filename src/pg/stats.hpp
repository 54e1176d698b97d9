// Maintenance statistics in shared memory, per view: counted without any
// catalog write, so they never serialize writers.  Needs ivm in
// shared_preload_libraries; without it nothing is counted and ivm.stats
// says so.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg::stats {

// From _PG_init while shared_preload_libraries is processed.
void install_hooks();

// One maintenance run of a view; a no-op without shared memory.
void record(int32 view_id, int64 tuples_inserted, int64 tuples_deleted, double milliseconds);

}  // namespace ivm::pg::stats
