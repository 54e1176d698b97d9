// How maintenance runs its SQL: as the view's owner in a restricted
// security context (enter, leave), through plans kept in the view's
// runtime, under planner settings chosen for small changes; and the rows
// it reads, registered as ephemeral relations of the SPI connection (the
// transition tables, the sets passed between DRed's steps).
#pragma once
#include "pg/maintain.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace ivm::pg {

// A duration in milliseconds, for the DEBUG lines that time maintenance.
inline double milliseconds(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

// Maintenance runs as the view's owner with SECURITY_RESTRICTED_OPERATION,
// search_path = pg_catalog, pg_temp and jit = off, as REFRESH MATERIALIZED
// VIEW does; enter marks `storage` (default: the view's) as being written
// by maintenance (maintaining()), leave undoes it all.
struct Elevated {
    Oid saved_user = InvalidOid;
    int saved_context = 0;
    int guc_level = 0;
};
Elevated enter(const ViewRuntime& view, Oid storage = InvalidOid);
void leave(const Elevated& e);

// Planner settings turned off until AtEOXact_GUC restores the returned nest
// level; prefer_lookups prices out hash and merge joins and sequential scans.
int planner_without(std::initializer_list<const char*> off);
int prefer_lookups();

// The plan of `generate`'s statement kept in the view's runtime under
// `key` (made the first time; its parameters of `types`; `options`:
// SPI_prepare_cursor's, CURSOR_OPT_GENERIC_PLAN for a lookup run many times
// with parameters the planner would otherwise plan each time); the same made
// under prefer_lookups, or null
// when that needs a way it prices out; the cost of a plan's generic plan
// (raw PostgreSQL calls: inside call()).
SPIPlanPtr kept_plan(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                     int nargs = 0, Oid* types = nullptr, int options = 0);
// (`scans`: sequential scans are not priced out, only hash and merge joins:
// a lookup followed laterally per tuple scans a table without an index as
// a lookup of one tuple does.)
SPIPlanPtr kept_lookups_plan(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                             int nargs = 0, Oid* types = nullptr, int options = 0, bool scans = false);
double generic_plan_cost(SPIPlanPtr plan, bool saved);
// A plan to run, and whether it was made for this run only (freed after).
struct RunPlan {
    SPIPlanPtr plan;
    bool once;
};

// The rows of a recursive step's query as of `snapshot`, at most `limit`
// (0: all), each given to `sink` (`desc` set as spi::fetch_rows sets it):
// through `lookups` (a plan made under prefer_lookups, or null) while it
// finds at most recursion::lookups_up_to of them, else through `usual`'s
// plan, after `restart` forgot what the lookups gave (raw PostgreSQL calls
// allowed in both).  Returns how many.
uint64 fetch_lookups_first(SPIPlanPtr lookups, const std::function<RunPlan()>& usual, Snapshot snapshot, uint64 limit,
                           const std::function<void(HeapTuple)>& sink, const std::function<void()>& restart,
                           TupleDesc* desc = nullptr);

// A merge of a change this small runs a plan made with prefer_lookups.
// Given a delta of a row or two and a small storage (a hundred groups),
// the planner prices a sequential scan and three hash joins below index
// and TID lookups, but starting the hash joins up costs more than the
// lookups do; from 50 transition rows on the usual plan was as fast or
// faster (docs/benchmarks.md, "Measurements behind design decisions").
constexpr double lookup_delta_rows = 20;

// Runs `generate`'s statement through the plan kept under `key` (made
// under prefer_lookups first when `lookups`), or without a key planned for
// this run only; returns SPI's result code.
int run_statement(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                  bool lookups = false);

// A table's rows now, as the planner estimates them (infinity: unknown).
double estimated_rows(Oid relid);

// Whether table `relid` fits in the memory a hash table may take.
bool fits_hash_memory(Oid relid);
// Counts a maintenance run that began at `started` in ivm.stats and in
// the runtime's `maintained`.
void record_run(ViewRuntime& view, const MaintenanceResult& result, TimestampTz started);

// Registers `store` as the ephemeral relation `name` with the row type of
// `shape`, holding `rows` rows.
EphemeralNamedRelation register_set(const char* name, Oid shape, Tuplestorestate* store, double rows);
// ... with the row type `desc` (of a query's rows; kept as given).
EphemeralNamedRelation register_set(const char* name, TupleDesc desc, Tuplestorestate* store, double rows);
// The transition rows of each changed base (indexed like `bases`) as
// counting::new_rows_relation / old_rows_relation, after refusing a base
// whose row-level security would hide rows from the view's owner.
void register_changes(const ViewRuntime& view, const std::vector<BaseChange>& changes, const std::vector<Oid>& bases);

// Sets passed between the steps of one maintenance run, ended when the run
// is done (a large one spills to a temporary file, which must not outlive
// it).  Runs nest, so each ends only those past the mark it took.
std::size_t kept_sets_mark();
Tuplestorestate* new_kept_set();
void end_kept_sets(std::size_t mark);

}  // namespace ivm::pg
