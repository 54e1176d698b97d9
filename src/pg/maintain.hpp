// Maintaining a view: its runtime (runtime.cpp), counting
// (counting_maintenance.cpp), DRed (dred_maintenance.cpp) and general
// recursion (fixpoint_maintenance.cpp), run as execution.hpp says under the
// locks of view_locks.hpp.
#pragma once
#include "core/recursion_policy.hpp"
#include "pg/analyze.hpp"
#include "pg/catalog.hpp"
#include "pg/pg.hpp"

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ivm::pg {

// ivm.large_change_rows: a statement's delta above this many transition
// rows is planned afresh with its real size instead of running the kept
// plan (which was planned for a small delta: index lookups, nested loops,
// the inserted rows hashed in memory).
extern int large_delta_rows;
// ivm.rebuild_fraction: a change of more transition rows than this
// fraction of the rows the view's query reads (and of the tuples its storage
// holds) rebuilds the storage from the query instead of merging the delta
// tuple by tuple (README, "Operating it").
extern double rebuild_fraction;
// ivm.parallel_writers: writers of one base table of a view maintain it at
// the same time (view_locks.hpp); off, one transaction at a time.
extern bool allow_parallel_writers;
void define_settings();

// One base table's changes in a statement; either store may be null.
struct BaseChange {
    Tuplestorestate* new_rows = nullptr;
    Tuplestorestate* old_rows = nullptr;
};

// How many rows the store holds (null: none).
uint64 rows_in(Tuplestorestate* store);

// Registers `rows` (null: none) as the ephemeral relation `name` of the
// current SPI connection, with the row type of `relid`.
void register_rows(const std::string& name, Oid relid, Tuplestorestate* rows);

struct MaintenanceResult {
    int64 rows_added = 0;    // view rows (with multiplicity) that appeared
    int64 rows_removed = 0;  // view rows that went away
};

class ViewRuntime {
public:
    catalog::Entry entry;
    AnalyzedView analyzed;
    Oid owner = InvalidOid;
    bool valid = true;
    std::map<std::string, SPIPlanPtr> plans;  // by which bases changed
    // Whether DRed's small recursive steps are planned as index lookups
    // (dred_maintenance.cpp, lookups_possible): decided on the first one.
    std::optional<bool> index_lookups;
    // What this view's recent deletions left standing (dred_maintenance.cpp):
    // where most stayed, backward/forward checks against a bound first.
    recursion::DeletionHistory deletions;
    // Per lookup base found by a scan (counting::LookupFind::Scan): whether
    // an index of the storage leads with the first column showing its key,
    // which alone makes the lookup update cheaper than the usual merge.
    std::map<std::size_t, bool> lookup_indexed;
    // Pages of the relations maintenance reads when this runtime was made
    // (runtime.cpp, pages_read): its plans were made for about that much.
    double pages_planned_for = 0;
    // Changes and their transition rows maintained since sizes were last
    // checked against pages_planned_for (runtime_for_change).
    int changes_since_sized = 0;
    uint64 rows_since_sized = 0;
    // View rows added and removed by this runtime's maintenance runs
    // (record_run): what a redefinition that writes R changed of the view.
    MaintenanceResult maintained;

    // Index of a base table in the model, or -1.
    int base_index(Oid relid) const;
    // Index of a base table of the recursive relation, or -1.
    int recursive_base_index(Oid relid) const;
    bool depends_on(Oid relid) const;
};

// The runtime of a view, loaded or rebuilt as needed; hold on to it while
// using it (maintenance nests, and invalidation may replace it meanwhile).
// Needs SPI.
std::shared_ptr<ViewRuntime> runtime_for(int32 view_id);
// The same for maintaining a change of `rows` transition rows, whose plans
// are checked against the relations' sizes only now and then (runtime.cpp).
std::shared_ptr<ViewRuntime> runtime_for_change(int32 view_id, uint64 rows);
// The same for what takes locks and runs no kept plan: sizes unchecked.
std::shared_ptr<ViewRuntime> runtime_for_locks(int32 view_id);
// Forget cached state that involves the relation (InvalidOid: everything).
void invalidate_runtimes(Oid relid);
void forget_runtime(int32 view_id);

// Merges the delta of the changed bases (indexed like the model's bases;
// entries with both stores null are unchanged).  Needs SPI.
MaintenanceResult apply_changes(ViewRuntime& view, const std::vector<BaseChange>& changes);
// Makes the storage equal to the query run now.  Needs SPI.
MaintenanceResult refresh(ViewRuntime& view);
// The same after a change whose rows are not known (a statement without
// transition capture, a TRUNCATE) of the bases `changed` says (all false
// for a TRUNCATE, which writes the view alone): filled into a new heap
// where the view may be, as a large change's rebuild is.  Needs SPI.
MaintenanceResult recompute(ViewRuntime& view, const std::vector<bool>& changed);
// Whether a change of about `inserted` and `deleted` rows of the view's
// base `base` (the planner's estimates) would have the view computed anew
// rather than its delta merged, as apply_changes decides with the rows
// counted: a view of tuples past ivm.rebuild_fraction, a view of groups
// where the planner prices the recompute at most half the delta.  Never a
// set operation.  Needs SPI (and makes its own connection).
bool recomputes_change(ViewRuntime& view, std::size_t base, double inserted, double deleted);
// Fills a storage just made, without its key index (counting::can_rebuild
// views: storage_ddl's index_later), then builds the index.  Needs SPI.
MaintenanceResult first_fill(ViewRuntime& view);
// DRed for the recursive relation of a view: the changes of its base
// tables (indexed like recursive->bases), with the snapshot taken before
// the statement, or InvalidSnapshot where none is kept (the old tables
// are then derived: dred::OldTables::WithDeleted; linear recursion only).
// Writing the relation maintains the view over it.
MaintenanceResult apply_recursive_changes(ViewRuntime& view, const std::vector<BaseChange>& changes,
                                          Snapshot before);
// A redefined view whose recursive relation kept its storage, columns and
// recursive rule (dred::rule_difference): the relation as the old rules
// derived it becomes what the view's rules derive, by DRed over the rules
// removed and added, not recomputed.
MaintenanceResult redefine_recursive(ViewRuntime& view, const RecursiveRelation& old_rel,
                                     const RuleDifference& difference);
// Makes the recursive relation equal to its definition evaluated now.
MaintenanceResult refresh_recursive(ViewRuntime& view);
// The same for a recursive relation just made (create_definition), still
// empty and without indexes: filled by one INSERT, then indexed.
MaintenanceResult first_fill_recursive(ViewRuntime& view);
// Recomputes the recursive relation, if any, and the view.
MaintenanceResult refresh_all(ViewRuntime& view);
// Empties the storage (the view becomes unpopulated).  Needs SPI.
void empty_storage(ViewRuntime& view);
int64 row_count(ViewRuntime& view);

// Whether the storage table is being written by maintenance right now.
bool maintaining(Oid storage);
// Whether any view is being maintained right now (in this backend).
bool maintaining_any();
// After a (sub)transaction abort: forget writes begun inside it
// (InvalidSubTransactionId: all of them).
void reset_maintenance_state(SubTransactionId aborted);

}  // namespace ivm::pg
