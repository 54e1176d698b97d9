#include "pg/maintain.hpp"

#include "core/counting.hpp"
#include "core/dred.hpp"
#include "core/fixpoint.hpp"
#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/faults.hpp"
#include "pg/keys.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"
#include "pg/shared.hpp"
#include "pg/view_locks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <memory>
#include <optional>

namespace ivm::pg {
namespace {

// DRed recomputes the recursive relation instead of rederiving when the
// over-deletion reaches this fraction of it (and at least 1000 tuples):
// ivm's own loop, and PostgreSQL's WITH RECURSIVE (the linear engine).  The
// second's recompute evaluates R and replaces the stored R by difference,
// about three REFRESHes; its DRed steps look tuples up one by one.  On W3's
// closure (171,000 pairs) deleting the out-edges of the first nodes: 14,000
// pairs gone 240-320 ms by DRed against 690-790 ms recomputed, 42,000 gone
// 550-750 against 620-650, 61,000 gone 680-790 against 670; the crossover
// is near a third of R (measured before the recompute's replace statement
// stopped merge-joining, which made it faster: somewhat lower now).
constexpr double recompute_fraction = 0.05;
constexpr double linear_recompute_fraction = 0.25;
// Over-deleted tuples are rederived, and derived ones checked against R,
// one by one through index lookups (a few probes each), unless there are
// more than this many and more than this fraction of R: then in one pass
// that reads all of R (a 171,000-pair closure: 190 ms to rederive 624
// tuples so, 85 ms to check 3,386, each about 10 times the lookups).
constexpr uint64 rederive_tuple_by_tuple = 500;
constexpr double rederive_set_fraction = 0.1;

}  // namespace

double rebuild_fraction = 0.5;
bool parallel_writers = true;

void define_settings() {
    DefineCustomBoolVariable("ivm.parallel_writers",
                             "Lets writers of one base table of a view maintain it at the same time.",
                             "Off: each view is maintained by one transaction at a time, which never waits for a "
                             "lock this transaction holds (for sessions whose transactions write several base tables "
                             "of one view and end before they learn to, see view_locks.hpp).",
                             &parallel_writers, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomRealVariable("ivm.rebuild_fraction",
                             "Changes larger than this fraction of a view's input rebuild its storage.",
                             "A change of more transition rows than this fraction of the rows the view's query reads "
                             "(and of the tuples it stores) recomputes the view instead of merging its delta.",
                             &rebuild_fraction, 0.5, 0.0, 1e10, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

namespace {

std::map<int32, std::shared_ptr<ViewRuntime>> runtimes;
// Replaced runtimes whose kept plans may still be executing further up the
// stack (maintenance nests); freed once nobody holds them.
std::vector<std::shared_ptr<ViewRuntime>> retired;

struct Writing {
    Oid storage;
    SubTransactionId subxact;
};
std::vector<Writing> writing;  // storages being written by maintenance, innermost last


void free_plans(ViewRuntime& view) {
    for (auto& [key, plan] : view.plans) {
        SPIPlanPtr p = plan;
        if (p != nullptr) call([&] { SPI_freeplan(p); });
    }
    view.plans.clear();
}

// Maintenance runs as the view's owner in a restricted security context
// with only pg_catalog on the search path (and no JIT), as REFRESH MATERIALIZED VIEW
// does: whoever changed a base table cannot make it run their own code.
// There is no cleanup on error paths: the (sub)transaction abort restores
// the user, the GUCs and SPI, and the abort callbacks reset `writing`.
struct Elevated {
    Oid saved_user = InvalidOid;
    int saved_context = 0;
    int guc_level = 0;
};

Elevated enter(const ViewRuntime& view, Oid storage = InvalidOid) {
    Elevated e;
    GetUserIdAndSecContext(&e.saved_user, &e.saved_context);
    SetUserIdAndSecContext(view.owner, e.saved_context | SECURITY_RESTRICTED_OPERATION);
    e.guc_level = call([] {
        int level = NewGUCNestLevel();
        set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
                          GUC_ACTION_SAVE, true, 0, false);
        // Kept plans decide on JIT once, from estimates; compiling costs more
        // than the small deltas they are kept for ever take.
        set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        return level;
    });
    writing.push_back({storage != InvalidOid ? storage : view.entry.storage, GetCurrentSubTransactionId()});
    return e;
}

void leave(const Elevated& e) {
    writing.pop_back();
    int level = e.guc_level;
    call([&] { AtEOXact_GUC(false, level); });
    SetUserIdAndSecContext(e.saved_user, e.saved_context);
}

// The planner settings `off` turned off until AtEOXact_GUC restores the
// returned nest level (an error restores them with the transaction).
int planner_without(std::initializer_list<const char*> off) {
    return call([&] {
        int level = NewGUCNestLevel();
        for (const char* name : off)
            set_config_option(name, "off", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        return level;
    });
}

// PostgreSQL plans the work table of a recursive CTE at ten times its seed
// rows, so a DRed step seeded by a few tuples hashes (or merge-joins) all of
// the base table its recursion joins (W3's 7,400 edges: 0.7-1.2 ms in each
// of two steps, more than the rest of a small change).  While the seeds are
// few, the step is planned with hash and merge joins and sequential scans
// priced out: its joins become index lookups, and a join with no index to
// look up is still hashed (every way then carries the penalty, and a nested
// loop over a sequential scan carries it once per outer row).  Returns the
// GUC nest level to restore with AtEOXact_GUC.
int prefer_lookups() { return planner_without({"enable_hashjoin", "enable_mergejoin", "enable_seqscan"}); }

// Whether the top-level transaction `xid` (an xid8, finished) is hidden from
// `snapshot`: it committed after the snapshot was taken.  One older than
// half the 32-bit xid space has long been visible (and the 32-bit
// comparison would wrap).
bool committed_after(uint64 xid, Snapshot snapshot) {
    return call([&] {
        const uint64 next = U64FromFullTransactionId(ReadNextFullTransactionId());
        if (next - xid >= (uint64{1} << 31)) return false;
        const auto xid32 = static_cast<TransactionId>(xid);
        return !TransactionIdIsCurrentTransactionId(xid32) && XidInMVCCSnapshot(xid32, snapshot);
    });
}

// Takes the view's writer locks (view_locks.hpp; readers are never
// blocked) for a maintenance that changes the view's base `shared_base`
// alone, alongside other writers of it, or (none) as the view's only
// writer, which also locks `storage` EXCLUSIVE; returns whether it writes
// alone.  Then marks the view written by this transaction
// (catalog::mark_writer).  Under REPEATABLE READ and SERIALIZABLE a
// transaction whose snapshot misses a writer it had to wait for (one of
// another base table, or any when alone) would compute a wrong delta: it
// fails with 40001 instead.  Under READ COMMITTED every statement reads the
// latest state, but DRed's over-delete reads the state from before the
// statement (`before`): *missed says that a maintenance committed since
// (while this one waited for the lock), and the caller recomputes instead.
bool lock_for_maintenance(const ViewRuntime& view, Oid storage, std::optional<std::size_t> shared_base = std::nullopt,
                          Snapshot before = nullptr, bool* missed = nullptr) {
    const int32 id = view.entry.view_id;
    const bool alone = view_locks::lock_writers(id, view.analyzed.base_oids.size(), shared_base);
    if (alone) call([&] { LockRelationOid(storage, ExclusiveLock); });
    if (missed != nullptr) *missed = false;
    if (!catalog::have_maintainers()) {
        // The extension's SQL objects predate the marks: READ COMMITTED
        // stays exact (DRed recomputes where it cannot tell), the
        // snapshot isolation levels cannot be checked.
        if (IsolationUsesXactSnapshot())
            throw Error(sqlstate::object_not_in_prerequisite_state,
                        "cannot maintain view " + qualified_name(view.entry.view) +
                            " under REPEATABLE READ or SERIALIZABLE before ivm is updated",
                        "The ivm library is newer than the extension's objects in this database.",
                        "Run ALTER EXTENSION ivm UPDATE.");
        if (missed != nullptr) *missed = before != nullptr;
        return alone;
    }
    const int base = alone ? -1 : static_cast<int>(*shared_base);
    catalog::mark_writer(id, base);
    const bool snapshot_isolation = IsolationUsesXactSnapshot();
    if (!snapshot_isolation && before == nullptr) return alone;
    const Snapshot snapshot = snapshot_isolation ? call([] { return GetTransactionSnapshot(); }) : before;
    for (uint64 xid : catalog::committed_writers(id, alone ? -2 : base)) {
        if (!committed_after(xid, snapshot)) continue;
        if (snapshot_isolation)
            throw Error("40001", "could not serialize access due to concurrent maintenance of " + qualified_name(view.entry.view),
                        "Another transaction changed the view's base tables after this transaction's snapshot was taken.",
                        "The transaction might succeed if retried.");
        *missed = true;
    }
    return alone;
}

// The plan of `sql` kept in the view's runtime under `key`, prepared the
// first time (relcache invalidation of what the view reads frees it).
SPIPlanPtr kept_plan(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate) {
    auto it = view.plans.find(key);
    if (it != view.plans.end()) return it->second;
    const std::string sql = generate();
    const char* text = sql.c_str();
    SPIPlanPtr plan = call([&] {
        SPIPlanPtr p = spi::prepare(text);
        SPI_keepplan(p);
        return p;
    });
    view.plans.emplace(key, plan);
    return plan;
}

// The total cost of `plan`'s generic plan, which this makes (and the plan
// keeps) under the planner settings in force.  Raw PostgreSQL calls: run it
// inside call().
double generic_plan_cost(SPIPlanPtr plan, bool saved) {
    CachedPlan* cached = SPI_plan_get_cached_plan(plan);
    double total = 0;
    ListCell* lc;
    foreach (lc, cached->stmt_list) total += lfirst_node(PlannedStmt, lc)->planTree->total_cost;
    ReleaseCachedPlan(cached, saved ? CurrentResourceOwner : nullptr);  // an unsaved plan has no resource owner
    return total;
}

// A merge of a change this small runs a plan made with prefer_lookups.
// Given a delta of a row or two and a small storage (W2's 100 groups), the
// planner prices a sequential scan and three hash joins below index and
// TID lookups, but starting the hash joins up costs more than the lookups
// do: W2's one-row merge under EXPLAIN ANALYZE 0.174 -> 0.089 ms (whole
// one-row UPDATEs, two builds alternated, moved less than this machine's
// noise); from 50 transition rows on the usual plan was as fast or faster.
constexpr double lookup_delta_rows = 20;

// The kept plan of `generate`'s statement made with prefer_lookups (its
// generic plan made now, while the settings are in force; an invalidation
// the runtime does not see would have it replanned as usual), or null when
// it needs a way they price out (a base without an index to look up): the
// usual plan then serves.  Kept under `key` either way.
SPIPlanPtr kept_lookups_plan(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate) {
    auto it = view.plans.find(key);
    if (it != view.plans.end()) return it->second;
    const int level = prefer_lookups();
    SPIPlanPtr plan = kept_plan(view, key, generate);  // in the map: freed with the others, should planning it fail
    const double cost = call([&] {
        const double total = generic_plan_cost(plan, true);
        AtEOXact_GUC(false, level);
        return total;
    });
    if (cost < disable_cost) return plan;
    call([&] { SPI_freeplan(plan); });
    view.plans[key] = nullptr;
    return nullptr;
}

// The rows of a table now, as the planner estimates them: its tuple density
// at the last VACUUM or ANALYZE times its pages now (infinity when it was
// never counted: nothing is known to be small).
double estimated_rows(Oid relid) {
    const double rows = call([&] {
        Relation r = table_open(relid, AccessShareLock);
        const double tuples = r->rd_rel->reltuples;
        const double pages = r->rd_rel->relpages;
        double n = -1;
        if (r->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
            n = tuples;
        else if (tuples >= 0 && pages > 0)
            n = tuples / pages * static_cast<double>(RelationGetNumberOfBlocks(r));
        else if (tuples == 0)
            n = 0;
        table_close(r, AccessShareLock);
        return n;
    });
    return rows < 0 ? std::numeric_limits<double>::infinity() : rows;
}

// Whether a change of `rows` transition rows costs more to merge tuple by
// tuple than the view costs to compute anew: compared with the rows its
// query reads and the tuples its storage holds.  A small change (a kept
// plan) never asks (ivm.rebuild_fraction = 0 rebuilds on every change).
bool rebuild_pays(const ViewRuntime& view, double rows) {
    if (rebuild_fraction == 0) return rows > 0;
    if (rows <= large_delta_rows) return false;
    double size = estimated_rows(view.entry.storage);
    for (Oid base : view.analyzed.base_oids) size = std::max(size, estimated_rows(base));
    return rows > rebuild_fraction * size;
}

// Counts a maintenance run that began at `started` in the statistics.
void record_run(const ViewRuntime& view, const MaintenanceResult& result, TimestampTz started) {
    long seconds = 0;
    int microseconds = 0;
    TimestampDifference(started, GetCurrentTimestamp(), &seconds, &microseconds);
    shared::record(view.entry.view_id, result.rows_added, result.rows_removed,
                   static_cast<double>(seconds) * 1000.0 + microseconds / 1000.0);
}

// Runs `generate`'s statement through the view's plan kept under `key`
// (made with prefer_lookups first when `lookups`), or, without a key,
// planned for this run only.  Returns SPI's result code.
int run_statement(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                  bool lookups = false) {
    if (key.empty()) {
        const std::string sql = generate();
        const char* text = sql.c_str();
        return call([&] { return SPI_execute(text, false, 0); });
    }
    SPIPlanPtr plan = lookups ? kept_lookups_plan(view, key + " lookups", generate) : nullptr;
    if (plan == nullptr) plan = kept_plan(view, key, generate);
    return call([&] { return SPI_execute_plan(plan, nullptr, nullptr, false, 0); });
}

// Runs a merge statement, through a kept plan when `key` is given, and
// counts it in the statistics.  A merge returns one row of counts (see
// counting::merge_statement), or is a plain INSERT of tuples with count 1.
// The SQL is generated only when there is no kept plan: a small change
// must not pay for building the text.
MaintenanceResult run_merge(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                            bool lookups = false) {
    const TimestampTz started = GetCurrentTimestamp();
    int rc = run_statement(view, key, generate, lookups);
    MaintenanceResult result;
    if (rc == SPI_OK_INSERT) {  // a plain INSERT of tuples shown once each
        result.rows_added = static_cast<int64>(SPI_processed);
    } else if (rc != SPI_OK_SELECT || SPI_processed != 1) {
        throw Error(sqlstate::internal_error, "ivm merge returned no result");
    } else {
        result.rows_added = spi::result_int(0, 0);
        result.rows_removed = spi::result_int(0, 1);
        if (view.analyzed.model.distinct) {
            result.rows_added = spi::result_int(0, 2);
            result.rows_removed = spi::result_int(0, 3);
        }
    }
    if (rc == SPI_OK_SELECT && spi::result_int(0, 4) > 0) {
        const std::string name = qualified_name(view.entry.view);
        throw Error(sqlstate::data_corrupted,
                    "incrementally maintained view " + name + " is out of sync with its base tables",
                    "A change would make a stored derivation count negative.",
                    "Run ivm.refresh_view('" + name + "') to recompute it.");
    }
    // Groups whose min or max went: recomputed by a second statement, which
    // a change that leaves every extreme known never starts.
    if (rc == SPI_OK_SELECT && SPI_tuptable->tupdesc->natts > 5 && spi::result_int(0, 5) > 0) {
        SPIPlanPtr plan = kept_plan(view, "extremes", [&] { return counting::extremes_statement(view.analyzed.model); });
        rc = call([&] { return SPI_execute_plan(plan, nullptr, nullptr, false, 0); });
        if (rc != SPI_OK_UPDATE) throw Error(sqlstate::internal_error, "ivm could not recompute the extremes of a view");
    }
    record_run(view, result, started);
    return result;
}

// A lookup base's change whose rows pair up by its key moves its tuples in
// place (counting::lookup_update_statement); nothing when they do not.
std::optional<MaintenanceResult> run_lookup_update(ViewRuntime& view, std::size_t base, bool small) {
    const TimestampTz started = GetCurrentTimestamp();
    const int rc = run_statement(view, small ? "lookup " + std::to_string(base) : std::string(),
                                 [&] { return counting::lookup_update_statement(view.analyzed.model, base); });
    if (rc != SPI_OK_SELECT || SPI_processed != 1) throw Error(sqlstate::internal_error, "ivm lookup update returned no result");
    if (spi::result_int(0, 0) == 0) return std::nullopt;
    MaintenanceResult result;
    result.rows_added = result.rows_removed = spi::result_int(0, view.analyzed.model.distinct ? 2 : 1);
    record_run(view, result, started);
    return result;
}


// Whether an index of the storage leads with `column` (quoted).
bool storage_indexed_on(Oid storage, const std::string& column) {
    for (AttrNumber lead : index_leads(storage))
        if (column == call([&] { return quote_identifier(get_attname(storage, lead, false)); })) return true;
    return false;
}

// A change of a lookup base of the view (counting::lookup_change) alone,
// as many rows deleted as inserted: an UPDATE, which may keep the keys.  A
// base whose tuples a scan finds needs an index of the storage for them.
std::optional<std::size_t> lookup_change(ViewRuntime& view, const std::vector<BaseChange>& changes) {
    const CountingView& model = view.analyzed.model;
    std::optional<std::size_t> found;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        const uint64 inserted = rows_in(changes[b].new_rows), deleted = rows_in(changes[b].old_rows);
        if (inserted == 0 && deleted == 0) continue;
        if (found || inserted != deleted || !counting::lookup_change(model, b)) return std::nullopt;
        found = b;
    }
    if (!found || counting::lookup_find(model, *found) != counting::LookupFind::Scan) return found;
    auto it = view.lookup_indexed.find(*found);
    if (it == view.lookup_indexed.end()) {
        const std::size_t column = model.lookups[*found]->key.front().shown;
        it = view.lookup_indexed.emplace(*found, storage_indexed_on(view.entry.storage, model.columns.at(column).name)).first;
    }
    return it->second ? found : std::nullopt;
}

// A change of a keyed view's one base read once (counting::keyed_change),
// other bases having fired with no rows.
struct KeyedChange {
    std::size_t base;
    bool deleted;   // has deleted rows
    bool inserted;  // has inserted rows
};
std::optional<KeyedChange> keyed_change(const CountingView& model, const std::vector<BaseChange>& changes) {
    std::optional<KeyedChange> found;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        const uint64 inserted = rows_in(changes[b].new_rows), deleted = rows_in(changes[b].old_rows);
        if (inserted == 0 && deleted == 0) continue;
        if (found || !counting::keyed_change(model, b)) return std::nullopt;
        found = KeyedChange{b, deleted > 0, inserted > 0};
    }
    return found;
}

}  // namespace

uint64 rows_in(Tuplestorestate* store) {
    return store == nullptr ? 0 : static_cast<uint64>(tuplestore_tuple_count(store));
}

void register_rows(const std::string& name, Oid relid, Tuplestorestate* rows) {
    const char* enr_name = name.c_str();
    int rc = call([&] {
        Tuplestorestate* store = rows ? rows : tuplestore_begin_heap(false, false, work_mem);
        auto* enr = static_cast<EphemeralNamedRelation>(palloc0(sizeof(EphemeralNamedRelationData)));
        enr->md.name = pstrdup(enr_name);
        enr->md.reliddesc = relid;
        enr->md.tupdesc = nullptr;
        enr->md.enrtype = ENR_NAMED_TUPLESTORE;
        enr->md.enrtuples = static_cast<double>(tuplestore_tuple_count(store));
        enr->reldata = store;
        return SPI_register_relation(enr);
    });
    if (rc != SPI_OK_REL_REGISTER)
        throw Error(sqlstate::internal_error, "could not register transition table " + name);
}

int ViewRuntime::base_index(Oid relid) const {
    auto it = std::find(analyzed.base_oids.begin(), analyzed.base_oids.end(), relid);
    return it == analyzed.base_oids.end() ? -1 : static_cast<int>(it - analyzed.base_oids.begin());
}

int ViewRuntime::recursive_base_index(Oid relid) const {
    const std::vector<Oid>& oids = analyzed.recursive_base_oids;
    auto it = std::find(oids.begin(), oids.end(), relid);
    return it == oids.end() ? -1 : static_cast<int>(it - oids.begin());
}

bool ViewRuntime::depends_on(Oid relid) const {
    return relid == entry.view || relid == entry.storage || relid == entry.query_view ||
           (relid == entry.recursive_storage && relid != InvalidOid) || base_index(relid) >= 0 ||
           recursive_base_index(relid) >= 0 ||
           std::find(analyzed.expanded_views.begin(), analyzed.expanded_views.end(), relid) !=
               analyzed.expanded_views.end();
}

// The pages of the relations a view's maintenance reads: its storage, its
// recursive relation and its base tables.
double pages_read(const ViewRuntime& view) {
    std::vector<Oid> relations = view.analyzed.base_oids;
    relations.insert(relations.end(), view.analyzed.recursive_base_oids.begin(), view.analyzed.recursive_base_oids.end());
    relations.push_back(view.entry.storage);
    if (view.entry.recursive_storage != InvalidOid) relations.push_back(view.entry.recursive_storage);
    return call([&] {
        double pages = 0;
        for (Oid relid : relations) {
            Relation r = table_open(relid, AccessShareLock);
            if (RELKIND_HAS_STORAGE(r->rd_rel->relkind)) pages += static_cast<double>(RelationGetNumberOfBlocks(r));
            table_close(r, AccessShareLock);
        }
        return pages;
    });
}

// Kept plans are remade when what they read has more than doubled since:
// PostgreSQL replans them after an ANALYZE, but a table that grows in one
// transaction, or before autovacuum comes, keeps plans made for it small.
// A storage emptied and analyzed so, then loaded again 500 rows a statement:
// each merge looked every delta tuple up by a scan of the whole storage
// (200 statements: 120 s).
bool outgrown(const ViewRuntime& view) { return pages_read(view) > 2 * view.pages_planned_for + 16; }

std::shared_ptr<ViewRuntime> runtime_for(int32 view_id) {
    for (auto it = retired.begin(); it != retired.end();) {
        if (it->use_count() > 1) {
            ++it;
            continue;
        }
        free_plans(**it);
        it = retired.erase(it);
    }
    auto it = runtimes.find(view_id);
    if (it != runtimes.end()) {
        if (it->second->valid && !outgrown(*it->second)) return it->second;
        retired.push_back(it->second);
        runtimes.erase(it);
    }
    std::optional<catalog::Entry> entry = catalog::find_by_id(view_id);
    if (!entry)
        throw Error(sqlstate::undefined_object,
                    "incrementally maintained view " + std::to_string(view_id) + " does not exist",
                    "A trigger of a dropped view was left behind.");
    auto view = std::make_shared<ViewRuntime>();
    view->entry = *entry;
    const Oid rec = entry->recursive_storage;
    view->analyzed = analyze_view(entry->query_view, qualified_name(entry->storage),
                                  rec == InvalidOid ? std::string() : qualified_name(rec), rec);
    counting::use_key_columns(view->analyzed.model, entry->key_columns);  // what the storage was made with
    view->owner = relation_owner(entry->storage);
    view->pages_planned_for = pages_read(*view);
    runtimes.emplace(view_id, view);
    return view;
}

void invalidate_runtimes(Oid relid) {
    for (auto& [id, view] : runtimes)
        if (relid == InvalidOid || view->depends_on(relid)) view->valid = false;
}

void forget_runtime(int32 view_id) {
    auto it = runtimes.find(view_id);
    if (it == runtimes.end()) return;
    it->second->valid = false;
    retired.push_back(it->second);
    runtimes.erase(it);
}

namespace {

// The one base a change touches when other writers of it may maintain the
// view at the same time (counting::parallel_writers).
std::optional<std::size_t> shared_base(const ViewRuntime& view, const std::vector<bool>& changed) {
    if (!parallel_writers || view.analyzed.recursion() || std::count(changed.begin(), changed.end(), true) != 1)
        return std::nullopt;
    const std::size_t base = static_cast<std::size_t>(std::find(changed.begin(), changed.end(), true) - changed.begin());
    if (!counting::parallel_writers(view.analyzed.model, base)) return std::nullopt;
    return base;
}

// Under REPEATABLE READ and SERIALIZABLE, a writer whose snapshot misses
// what another writer of the same base committed to the stored rows of
// `keys` (all of them now locked) would merge into rows it cannot see:
// the rows as committed now must be those its snapshot sees.  (Where it
// sees a row that another deleted or updated, writing it fails with 40001
// anyway; a row inserted since, it would not find.)
void check_keys(ViewRuntime& view, const std::vector<uint64>& keys) {
    auto found = view.plans.find("stored keys");
    if (found == view.plans.end()) {
        const std::string sql =
            "SELECT xmin FROM " + view.analyzed.model.storage + " WHERE __ivm_key OPERATOR(pg_catalog.=) ANY ($1)";
        const char* text = sql.c_str();
        SPIPlanPtr p = call([&] {
            Oid types[1] = {INT8ARRAYOID};
            SPIPlanPtr prepared = spi::prepare(text, 1, types);
            SPI_keepplan(prepared);
            return prepared;
        });
        found = view.plans.emplace("stored keys", p).first;
    }
    SPIPlanPtr plan = found->second;
    const bool same = call([&] {
        Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * std::max<std::size_t>(keys.size(), 1)));
        for (std::size_t i = 0; i < keys.size(); ++i) items[i] = Int64GetDatum(static_cast<int64>(keys[i]));
        Datum values[1] = {PointerGetDatum(construct_array(items, static_cast<int>(keys.size()), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE))};
        // The transaction's snapshot as of the same command as the latest.
        PushCopiedSnapshot(GetTransactionSnapshot());
        UpdateActiveSnapshotCommandId();
        const Snapshot mine = GetActiveSnapshot();
        int rc = SPI_execute_snapshot(plan, values, nullptr, mine, InvalidSnapshot, true, false, 0);
        if (rc != SPI_OK_SELECT) elog(ERROR, "SPI_execute_snapshot failed: %s", SPI_result_code_string(rc));
        const uint64 seen = SPI_processed;
        rc = SPI_execute_snapshot(plan, values, nullptr, GetLatestSnapshot(), InvalidSnapshot, true, false, 0);
        if (rc != SPI_OK_SELECT) elog(ERROR, "SPI_execute_snapshot failed: %s", SPI_result_code_string(rc));
        if (SPI_processed != seen) {
            PopActiveSnapshot();
            return false;
        }
        for (uint64 i = 0; i < SPI_processed; ++i) {
            bool isnull = true;
            const TransactionId xmin =
                DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
            if (!TransactionIdIsCurrentTransactionId(xmin) && XidInMVCCSnapshot(xmin, mine)) {
                PopActiveSnapshot();
                return false;
            }
        }
        PopActiveSnapshot();
        return true;
    });
    if (!same)
        throw Error("40001", "could not serialize access due to concurrent update of view " + qualified_name(view.entry.view),
                    "Another transaction changed the same rows of the view after this transaction's snapshot was taken.",
                    "The transaction might succeed if retried.");
}

// A writer alongside others of its base (lock_for_maintenance) about to
// merge `delta`: locks the stored rows the merge reads and writes by key,
// or the whole storage where there are no keys or too many (the merge is
// not small, or would pass view_locks' budget).
void lock_rows(ViewRuntime& view, const std::string& plan_key, const std::function<std::string()>& delta) {
    const int32 id = view.entry.view_id;
    const Oid storage = view.entry.storage;
    auto whole = [&] {
        view_locks::writing_whole(id);
        call([&] { LockRelationOid(storage, ExclusiveLock); });
    };
    if (plan_key.empty() || counting::delta_keys_query(view.analyzed.model, "").empty()) return whole();
    call([&] { LockRelationOid(storage, RowExclusiveLock); });  // the lock order: storage, then its rows
    const int rc = run_statement(view, "keys " + plan_key,
                                 [&] { return counting::delta_keys_query(view.analyzed.model, delta()); });
    if (rc != SPI_OK_SELECT) throw Error(sqlstate::internal_error, "ivm could not find the keys of a change");
    std::vector<uint64> keys;
    for (uint64 i = 0; i < SPI_processed; ++i) keys.push_back(static_cast<uint64>(spi::result_int(i, 0)));
    if (!view_locks::lock_keys(id, keys)) return whole();
    if (IsolationUsesXactSnapshot() && !keys.empty()) check_keys(view, keys);
}

}  // namespace

MaintenanceResult apply_changes(ViewRuntime& view, const std::vector<BaseChange>& changes) {
    const CountingView& model = view.analyzed.model;
    std::vector<bool> changed(model.bases.size(), false);
    std::string key;
    double rows = 0;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        changed[b] = changes[b].new_rows != nullptr || changes[b].old_rows != nullptr;
        key += changed[b] ? '1' : '0';
        for (Tuplestorestate* store : {changes[b].new_rows, changes[b].old_rows})
            if (store != nullptr) rows += static_cast<double>(tuplestore_tuple_count(store));
    }
    const bool alone = lock_for_maintenance(view, view.entry.storage, shared_base(view, changed));
    for (std::size_t b = 0; b < changes.size(); ++b) {
        if (!changed[b]) continue;
        refuse_row_security(view.analyzed.base_oids[b], view.owner);
        register_rows(counting::new_rows_relation(b), view.analyzed.base_oids[b], changes[b].new_rows);
        register_rows(counting::old_rows_relation(b), view.analyzed.base_oids[b], changes[b].old_rows);
    }
    Elevated e = enter(view);
    faults::point("maintain.locked");
    const bool small = rows <= large_delta_rows;
    const bool lookups = rows <= lookup_delta_rows;
    // A lookup or keyed change writes only stored rows that show its own
    // base rows' keys, which no other writer can be changing (PostgreSQL's
    // row locks on the base rows keep them apart): it needs no row locks.
    if (const std::optional<std::size_t> lookup = lookup_change(view, changes)) {
        if (std::optional<MaintenanceResult> moved = run_lookup_update(view, *lookup, small)) {
            leave(e);
            return *moved;
        }
    }
    const std::optional<KeyedChange> keyed = keyed_change(model, changes);
    // Fresh tuples alone are cheaper to write than the view is to rebuild.
    const bool rebuild = (!keyed || keyed->deleted) && counting::can_rebuild(model) && rebuild_pays(view, rows);
    auto delta = [&] { return counting::delta_query(model, changed); };
    if (!alone && (rebuild || !keyed)) lock_rows(view, small && !rebuild ? key : std::string(), delta);
    MaintenanceResult result;
    if (keyed && !rebuild) {
        using counting::KeyedRows;
        const KeyedRows rows = !keyed->deleted   ? KeyedRows::Inserted
                               : keyed->inserted ? KeyedRows::Both
                                                 : KeyedRows::Deleted;
        const char* what = rows == KeyedRows::Inserted ? "inserted " : rows == KeyedRows::Deleted ? "deleted " : "changed ";
        const std::string plan = what + std::to_string(keyed->base);
        result = run_merge(view, small ? plan : std::string(), [&] {
            return counting::keyed_merge_statement(model, counting::keyed_delta_query(model, keyed->base), rows);
        }, lookups);
    } else if (rebuild) {
        result = run_merge(view, "rebuild", [&] { return counting::rebuild_statement(model); });
    } else {
        result = run_merge(view, small ? key : std::string(), [&] {
            return counting::merge_statement(model, delta(),
                                             small ? counting::Lookup::PerTuple : counting::Lookup::Join);
        }, lookups);
    }
    faults::point("maintain.merged");
    leave(e);
    return result;
}

MaintenanceResult refresh(ViewRuntime& view) {
    const CountingView& model = view.analyzed.model;
    lock_for_maintenance(view, view.entry.storage);
    Elevated e = enter(view);
    MaintenanceResult result = run_merge(view, "refresh", [&] { return counting::refresh_statement(model); });
    leave(e);
    return result;
}

void empty_storage(ViewRuntime& view) {
    lock_for_maintenance(view, view.entry.storage);
    Elevated e = enter(view);
    spi::execute("DELETE FROM " + view.analyzed.model.storage);
    leave(e);
}

int64 row_count(ViewRuntime& view) {
    Elevated e = enter(view);
    int64 n = spi::query_int(counting::row_count_query(view.analyzed.model));
    leave(e);
    return n;
}

namespace {

// Runs a query (with the given snapshot, or the current one) and keeps its
// rows as the ephemeral relation `name`, shaped like the recursive
// relation's storage table (its columns, then __ivm_key).
// The sets passed between DRed's steps, ended when the steps are done: a
// large one spills to a temporary file, which must not outlive them.
// Maintenance nests (a DRed view over another), so each run ends only the
// sets it made, those past the mark it took.
// Each with the subtransaction that made it (innermost last).
struct KeptSet {
    Tuplestorestate* store;
    SubTransactionId subxact;
};
std::vector<KeptSet> kept_sets;

void end_kept_sets(std::size_t mark) {
    while (kept_sets.size() > mark) {
        Tuplestorestate* store = kept_sets.back().store;
        kept_sets.pop_back();
        call([&] { tuplestore_end(store); });
    }
}

// A new set, kept until end_kept_sets.
Tuplestorestate* new_kept_set() {
    kept_sets.reserve(kept_sets.size() + 1);  // the push below cannot fail, leaving the set unknown
    Tuplestorestate* store = call([] { return tuplestore_begin_heap(false, false, work_mem); });
    kept_sets.push_back({store, GetCurrentSubTransactionId()});
    return store;
}


// A DRed step's plan is kept (`kept` names it in the view's runtime) while
// the sets it reads are small; otherwise it is planned for this run, with
// their real sizes.
struct Kept {
    ViewRuntime* view = nullptr;
    std::string key;
    bool lookups = false;  // a recursive step: try it planned for lookups first
};

// SQL text made only when it is needed: a step that runs a kept plan does
// not pay for building it.
using LazySql = std::function<std::string()>;

// Whether the view's recursive steps can run as index lookups: under
// prefer_lookups, a plan that needs a way priced out (no index to look up)
// costs at least disable_cost.  Found out on the first small step.
bool lookups_possible(ViewRuntime& view, const LazySql& make) {
    if (view.index_lookups.has_value()) return *view.index_lookups;
    const std::string sql = make();
    const int level = prefer_lookups();
    const char* text = sql.c_str();
    const double cost = call([&] {
        SPIPlanPtr plan = spi::prepare(text);
        const double total = generic_plan_cost(plan, false);
        SPI_freeplan(plan);
        AtEOXact_GUC(false, level);
        return total;
    });
    view.index_lookups = cost < disable_cost;
    return *view.index_lookups;
}

// A recursive step planned for lookups (prefer_lookups) runs first while
// it yields at most this many tuples: past it, hashing the base table costs
// less than looking each tuple's joins up (W3: about 3 us a tuple against
// 1 ms to hash the 7,400 edges), and the step runs again as planned.
constexpr uint64 lookups_up_to = 1000;

// Keeps the rows of `make`'s query (none when it is empty) in a tuplestore
// registered as the named relation of `shape`, at most `limit` (0: all);
// returns how many.
uint64 keep_rows_as(const char* name, Oid shape, const LazySql& make, Snapshot snapshot, uint64 limit = 0,
                    const Kept& kept = {}) {
    std::string made;
    auto sql = [&]() -> const std::string& {
        if (made.empty()) made = make();
        return made;
    };
    uint64 rows = 0;
    Tuplestorestate* store = new_kept_set();
    auto keep = [&](HeapTuple row) { tuplestore_puttuple(store, row); };
    bool done = !make;
    if (!done && kept.view != nullptr && kept.lookups && lookups_possible(*kept.view, sql)) {
        // The settings count when the plan is made: at its first run, or
        // the first after an invalidation.
        SPIPlanPtr plan = kept_plan(*kept.view, kept.key + " lookups", sql);
        const uint64 cap = limit != 0 && limit <= lookups_up_to + 1 ? limit : lookups_up_to + 1;
        const int level = prefer_lookups();
        call([&] {
            rows = spi::fetch_rows(plan, snapshot, cap, keep);
            AtEOXact_GUC(false, level);
        });
        done = rows < cap || cap == limit;
        if (!done) {
            call([&] { tuplestore_clear(store); });
            rows = 0;
        }
    }
    if (!done) {
        SPIPlanPtr kept_step = kept.view != nullptr ? kept_plan(*kept.view, kept.key, sql) : nullptr;
        const char* text = kept_step == nullptr ? sql().c_str() : nullptr;
        call([&] {
            SPIPlanPtr plan = kept_step != nullptr ? kept_step : spi::prepare(text);
            rows = spi::fetch_rows(plan, snapshot, limit, keep);
            if (kept_step == nullptr) SPI_freeplan(plan);
        });
    }
    int rc = call([&] {
        auto* enr = static_cast<EphemeralNamedRelation>(palloc0(sizeof(EphemeralNamedRelationData)));
        enr->md.name = pstrdup(name);
        enr->md.reliddesc = shape;
        enr->md.enrtype = ENR_NAMED_TUPLESTORE;
        enr->md.enrtuples = static_cast<double>(rows);
        enr->reldata = store;
        return SPI_register_relation(enr);
    });
    if (rc != SPI_OK_REL_REGISTER) throw Error(sqlstate::internal_error, std::string("could not register ") + name);
    return rows;
}

// (tuples deleted from, tuples inserted into) the recursive relation.
MaintenanceResult run_recursive_statement(const LazySql& make, const Kept& kept = {}) {
    uint64 rows;
    if (kept.view != nullptr) {
        SPIPlanPtr plan = kept_plan(*kept.view, kept.key, make);
        rows = call([&] { return SPI_execute_plan(plan, nullptr, nullptr, false, 0) == SPI_OK_SELECT ? SPI_processed : 0; });
    } else {
        rows = spi::execute(make());
    }
    if (rows != 1) throw Error(sqlstate::internal_error, "DRed apply returned no result");
    MaintenanceResult result;
    result.rows_removed = spi::result_int(0, 0);
    result.rows_added = spi::result_int(0, 1);
    return result;
}

// Recomputes R: evaluated in full first, so that replacing the storage's
// contents is planned knowing how many tuples there are.
MaintenanceResult recompute_relation(const RecursiveRelation& rel, Oid storage) {
    const std::size_t mark = kept_sets.size();
    keep_rows_as(dred::full_relation, storage, [&] { return dred::full_query(rel); }, InvalidSnapshot);
    // Left to itself, the planner merges R's index with the full relation
    // sorted on disk (W3: 370 of the statement's 510 ms); hashed, it costs
    // what the other anti-join costs (110 ms).
    const int level = planner_without({"enable_mergejoin"});
    MaintenanceResult result = run_recursive_statement([&] { return dred::replace_statement(rel); });
    call([&] { AtEOXact_GUC(false, level); });
    // One SPI connection may recompute several relations (DDL events).
    call([] { SPI_unregister_relation(dred::full_relation); });
    end_kept_sets(mark);
    return result;
}

}  // namespace

namespace {

// The sets a program's fixpoint loop passes between its queries: ephemeral
// relations of the storage's row type, registered by name for the queries
// of one run and ended with it.
class ProgramSets {
public:
    explicit ProgramSets(Oid shape) : shape_(shape), mark_(kept_sets.size()) {}

    // Registers the set empty, or empties it.
    void clear(const char* name) {
        Tuplestorestate* store = new_kept_set();
        for (Set& s : sets_)
            if (std::strcmp(s.name, name) == 0) {
                s.enr->reldata = store;
                s.enr->md.enrtuples = 0;
                return;
            }
        const Oid shape = shape_;
        EphemeralNamedRelation enr = call([&] {
            auto* e = static_cast<EphemeralNamedRelation>(palloc0(sizeof(EphemeralNamedRelationData)));
            e->md.name = pstrdup(name);
            e->md.reliddesc = shape;
            e->md.enrtype = ENR_NAMED_TUPLESTORE;
            e->reldata = store;
            return e;
        });
        if (call([&] { return SPI_register_relation(enr); }) != SPI_OK_REL_REGISTER)
            throw Error(sqlstate::internal_error, std::string("could not register ") + name);
        sets_.push_back({name, enr});
    }

    // Runs the query (with the snapshot, or the current one; at most
    // `limit` rows when not 0) and adds its rows to each of the sets.
    uint64 run(const std::string& sql, std::initializer_list<const char*> into, Snapshot snapshot = InvalidSnapshot,
               uint64 limit = 0) {
        std::vector<EphemeralNamedRelation> targets;
        for (const char* name : into) targets.push_back(find(name));
        const char* text = sql.c_str();
        EphemeralNamedRelation* target = targets.data();
        const std::size_t n = targets.size();
        return call([&] {
            SPIPlanPtr plan = spi::prepare(text);
            // Into the first set (never one the query reads: it is new, or
            // the only one), then copied into the others, which it may read.
            auto* first = static_cast<Tuplestorestate*>(target[0]->reldata);
            TupleDesc desc = nullptr;
            const uint64 rows =
                spi::fetch_rows(plan, snapshot, limit, [&](HeapTuple row) { tuplestore_puttuple(first, row); }, &desc);
            SPI_freeplan(plan);
            if (n > 1 && rows > 0) {
                TupleTableSlot* slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
                const int reader = tuplestore_alloc_read_pointer(first, EXEC_FLAG_REWIND);
                tuplestore_select_read_pointer(first, reader);
                tuplestore_rescan(first);
                for (uint64 skip = static_cast<uint64>(target[0]->md.enrtuples); skip > 0; --skip)
                    tuplestore_advance(first, true);  // rows it held before
                while (tuplestore_gettupleslot(first, true, false, slot))
                    for (std::size_t t = 1; t < n; ++t)
                        tuplestore_puttupleslot(static_cast<Tuplestorestate*>(target[t]->reldata), slot);
                tuplestore_select_read_pointer(first, 0);
                ExecDropSingleTupleTableSlot(slot);
            }
            for (std::size_t t = 0; t < n; ++t) target[t]->md.enrtuples += static_cast<double>(rows);
            return rows;
        });
    }

    uint64 size(const char* name) { return static_cast<uint64>(find(name)->md.enrtuples); }

    void swap(const char* a, const char* b) {
        EphemeralNamedRelation x = find(a), y = find(b);
        std::swap(x->reldata, y->reldata);
        std::swap(x->md.enrtuples, y->md.enrtuples);
    }

    // The names go (one SPI connection may run several programs), then the sets.
    void end() {
        for (const Set& s : sets_) {
            const char* name = s.name;
            call([&] { SPI_unregister_relation(name); });
        }
        sets_.clear();
        end_kept_sets(mark_);
    }

private:
    struct Set {
        const char* name;
        EphemeralNamedRelation enr;
    };
    EphemeralNamedRelation find(const char* name) {
        for (Set& s : sets_)
            if (std::strcmp(s.name, name) == 0) return s.enr;
        throw Error(sqlstate::internal_error, std::string("no set ") + name);
    }
    Oid shape_;
    std::size_t mark_;
    std::vector<Set> sets_;
};

// The sets' names.
constexpr const char* full_set = "ivm_fix_full";          // a stratum recomputed
constexpr const char* delta_set = "ivm_fix_delta";        // the last step's new rows
constexpr const char* next_set = "ivm_fix_next";          // this step's
constexpr const char* deleted_set = "ivm_fix_deleted";    // DRed: over-deleted
constexpr const char* gained_set = "ivm_fix_gained";      // DRed: inserted into the stratum
constexpr const char* gone_set = "ivm_fix_gone";          // a recomputed stratum's rows that go
constexpr const char* fresh_set = "ivm_fix_fresh";        // and those that come
constexpr const char* removed_set = "ivm_fix_removed";    // every stratum's rows that went, so far
constexpr const char* added_set = "ivm_fix_added";        // and those that came

// Recomputes a stratum semi-naively into full_set, then makes the storage
// hold it.  Returns whether its rows changed.
bool recompute_stratum(const Program& p, std::size_t stratum, ProgramSets& sets) {
    sets.clear(full_set);
    sets.clear(delta_set);
    uint64 n = sets.run(fixpoint::initial_query(p, stratum), {full_set, delta_set});
    while (n > 0) {
        const std::string step = fixpoint::step_query(p, stratum, delta_set, full_set, {full_set});
        if (step.empty()) break;
        sets.clear(next_set);
        n = sets.run(step, {next_set, full_set});
        sets.swap(delta_set, next_set);
    }
    sets.clear(gone_set);
    sets.clear(fresh_set);
    const uint64 gone = sets.run(fixpoint::minus(p, "(" + fixpoint::rows_of(p, stratum, p.storage) + ")", full_set),
                                 {gone_set, removed_set});
    const uint64 fresh = sets.run(fixpoint::minus(p, full_set, p.storage), {fresh_set, added_set});
    if (gone > 0) spi::execute(fixpoint::delete_statement(p, gone_set));
    if (fresh > 0) spi::execute(fixpoint::insert_statement(p, fresh_set));
    return gone > 0 || fresh > 0;
}

// DRed for one stratum: over-delete (as of `before`), rederive, insert,
// each step semi-naive, writing the storage as it goes.  Returns false,
// having changed nothing, when the over-deletion passes `most` rows (the
// stratum is then better recomputed); sets `changed`.
bool dred_stratum(const Program& p, std::size_t stratum, const std::vector<bool>& changed_bases,
                  const std::vector<bool>& changed_items, Snapshot before, uint64 most, ProgramSets& sets,
                  bool& changed) {
    using fixpoint::Change;
    // 1. over-delete: what lost a derivation, through the stratum's recursion
    sets.clear(deleted_set);
    sets.clear(delta_set);
    const std::string seed = fixpoint::seed_query(p, stratum, changed_bases, changed_items, Change::Deleted,
                                                  removed_set, p.storage, {});
    uint64 n = seed.empty() ? 0 : sets.run(seed, {deleted_set, delta_set}, before, most + 1);
    uint64 deleted = n;
    while (n > 0 && deleted <= most) {
        const std::string step = fixpoint::step_query(p, stratum, delta_set, p.storage, {deleted_set});
        if (step.empty()) break;
        sets.clear(next_set);
        n = sets.run(step, {next_set, deleted_set}, before, most + 1);
        deleted += n;
        sets.swap(delta_set, next_set);
    }
    if (deleted > most) return false;
    if (deleted > 0) spi::execute(fixpoint::delete_statement(p, deleted_set, true));  // at most `most` rows
    // 2. rederive: what still has a derivation
    sets.clear(delta_set);
    sets.clear(gained_set);
    if (deleted > 0 && sets.run(fixpoint::rederive_query(p, stratum, deleted_set), {delta_set, gained_set}) > 0)
        spi::execute(fixpoint::insert_statement(p, delta_set));
    // 3. insert: what the inserted rows derive, and what follows from it
    const std::string inserted = fixpoint::seed_query(p, stratum, changed_bases, changed_items, Change::Inserted,
                                                      added_set, p.storage, {p.storage});
    sets.clear(next_set);
    if (!inserted.empty() && sets.run(inserted, {next_set, delta_set, gained_set}) > 0)
        spi::execute(fixpoint::insert_statement(p, next_set));
    while (sets.size(delta_set) > 0) {
        const std::string step = fixpoint::step_query(p, stratum, delta_set, p.storage, {p.storage});
        if (step.empty()) break;
        sets.clear(next_set);
        if (sets.run(step, {next_set, gained_set}) > 0) spi::execute(fixpoint::insert_statement(p, next_set));
        sets.swap(delta_set, next_set);
    }
    // What the strata above see: the rows that went and those that came.
    // (at most `most` rows, each looked up through the key index: the
    // planner would rather hash the whole table)
    const uint64 gone = deleted > 0 ? sets.run(fixpoint::minus(p, deleted_set, p.storage, true), {removed_set}) : 0;
    const uint64 came = sets.run(fixpoint::minus(p, gained_set, deleted_set), {added_set});
    changed = gone > 0 || came > 0;
    return true;
}

void recompute_program(const Program& p, ProgramSets& sets) {
    sets.clear(removed_set);
    sets.clear(added_set);
    for (std::size_t s = 0; s < p.strata.size(); ++s) recompute_stratum(p, s, sets);
}

// The rows the items' table lost and gained; the run's sets end.
MaintenanceResult finish_program(ProgramSets& sets, const Elevated& e) {
    MaintenanceResult result;
    result.rows_removed = static_cast<int64>(sets.size(removed_set));
    result.rows_added = static_cast<int64>(sets.size(added_set));
    sets.end();
    leave(e);
    return result;
}

MaintenanceResult apply_program_changes(ViewRuntime& view, const std::vector<BaseChange>& changes, Snapshot before) {
    const Program& p = *view.analyzed.program;
    const Oid storage = view.entry.recursive_storage;
    std::vector<bool> changed_bases(p.bases.size(), false);
    for (std::size_t b = 0; b < changes.size(); ++b) {
        changed_bases[b] = changes[b].new_rows != nullptr || changes[b].old_rows != nullptr;
        if (changed_bases[b]) refuse_row_security(view.analyzed.recursive_base_oids[b], view.owner);
    }
    bool missed = false;
    lock_for_maintenance(view, storage, std::nullopt, before, &missed);
    for (std::size_t b = 0; b < changes.size(); ++b) {
        if (!changed_bases[b]) continue;
        register_rows(counting::new_rows_relation(b), view.analyzed.recursive_base_oids[b], changes[b].new_rows);
        register_rows(counting::old_rows_relation(b), view.analyzed.recursive_base_oids[b], changes[b].old_rows);
    }
    Elevated e = enter(view, storage);
    ProgramSets sets(storage);
    if (missed) {
        recompute_program(p, sets);
    } else {
        sets.clear(removed_set);
        sets.clear(added_set);
        const int64 size = spi::query_int("SELECT GREATEST(reltuples, 0)::bigint FROM pg_catalog.pg_class WHERE oid = $1::oid",
                                          {std::to_string(storage)});
        const auto most = static_cast<uint64>(std::max(1000.0, static_cast<double>(size) * recompute_fraction));
        std::vector<bool> changed_items(p.items.size(), false);
        for (std::size_t s = 0; s < p.strata.size(); ++s) {
            if (!fixpoint::reads_changed(p, s, changed_bases, changed_items, false)) continue;
            bool changed = false;
            // A change read through negation or aggregation, or an
            // over-deletion of a large part: the stratum is recomputed.
            if (!fixpoint::reads_changed(p, s, changed_bases, changed_items, true) ||
                !dred_stratum(p, s, changed_bases, changed_items, before, most, sets, changed))
                changed = recompute_stratum(p, s, sets);
            if (changed)
                for (std::size_t i : p.strata[s]) changed_items[i] = true;
        }
    }
    return finish_program(sets, e);
}

MaintenanceResult refresh_program(ViewRuntime& view) {
    const Oid storage = view.entry.recursive_storage;
    lock_for_maintenance(view, storage);
    Elevated e = enter(view, storage);
    ProgramSets sets(storage);
    recompute_program(*view.analyzed.program, sets);
    return finish_program(sets, e);
}

}  // namespace

MaintenanceResult apply_recursive_changes(ViewRuntime& view, const std::vector<BaseChange>& changes,
                                          Snapshot before) {
    if (view.analyzed.program) return apply_program_changes(view, changes, before);
    const RecursiveRelation& rel = *view.analyzed.recursive;
    const Oid storage = view.entry.recursive_storage;
    std::vector<bool> changed(rel.bases.size(), false);
    bool deletes = false, inserts = false;
    std::string key;  // which bases changed
    uint64 base_rows = 0;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        changed[b] = changes[b].new_rows != nullptr || changes[b].old_rows != nullptr;
        key += changed[b] ? '1' : '0';
        if (changed[b]) refuse_row_security(view.analyzed.recursive_base_oids[b], view.owner);
        const uint64 old_rows = changes[b].old_rows != nullptr ? tuplestore_tuple_count(changes[b].old_rows) : 0;
        const uint64 new_rows = changes[b].new_rows != nullptr ? tuplestore_tuple_count(changes[b].new_rows) : 0;
        deletes |= old_rows > 0;
        inserts |= new_rows > 0;
        base_rows += old_rows + new_rows;
    }
    // Steps whose input sets are this small run kept plans.
    // (`lookups`: a recursive step, tried planned for lookups first)
    auto kept_if = [&](uint64 input_rows, const std::string& step, bool lookups = false) {
        return input_rows <= rederive_tuple_by_tuple ? Kept{&view, "dred " + step + " " + key, lookups} : Kept{};
    };
    bool missed = false;
    lock_for_maintenance(view, storage, std::nullopt, before, &missed);
    if (missed) {
        Elevated e = enter(view, storage);
        MaintenanceResult result = recompute_relation(rel, storage);
        leave(e);
        return result;
    }
    for (std::size_t b = 0; b < changes.size(); ++b) {
        if (!changed[b]) continue;
        register_rows(counting::new_rows_relation(b), view.analyzed.recursive_base_oids[b], changes[b].new_rows);
        register_rows(counting::old_rows_relation(b), view.analyzed.recursive_base_oids[b], changes[b].old_rows);
    }
    Elevated e = enter(view, storage);
    const std::size_t mark = kept_sets.size();
    // 1. over-delete, against the state before the statement.  An
    // over-deletion of a large part of R costs more to rederive than R costs
    // to recompute (DRed's known weak spot): it is stopped at that size (the
    // recursive query runs lazily), and R is recomputed instead.
    LazySql overdelete;
    if (deletes) overdelete = [&] { return dred::overdelete_query(rel, changed); };
    const double size = estimated_rows(storage);
    const auto most = static_cast<uint64>(std::max(1000.0, std::isinf(size) ? 0.0 : size * linear_recompute_fraction));
    const uint64 deleted =
        keep_rows_as(dred::deleted_relation, storage, overdelete, before, most + 1, kept_if(base_rows, "overdelete", true));
    faults::point("dred.deleted");
    if (deleted > most) {
        MaintenanceResult result = recompute_relation(rel, storage);
        leave(e);
        end_kept_sets(mark);
        return result;
    }
    // 2. rederive what still has a derivation
    // Looked up one by one, or a pass over all of R: the second pays only
    // for a large part of R.
    auto at_once = [&](uint64 tuples) {
        return tuples > rederive_tuple_by_tuple && !(static_cast<double>(tuples) <= size * rederive_set_fraction);
    };
    const bool deletes_at_once = at_once(deleted);
    const dred::Rederive how = deletes_at_once                     ? dred::Rederive::SetAtATime
                               : deleted > rederive_tuple_by_tuple ? dred::Rederive::Planned
                                                                   : dred::Rederive::Lookups;
    LazySql rederive;
    if (deleted > 0) rederive = [&] { return dred::rederive_query(rel, how); };
    const uint64 rederived =
        keep_rows_as(dred::rederived_relation, storage, rederive, InvalidSnapshot, 0, kept_if(deleted, "rederive"));
    // 3. insert what the new tuples derive
    LazySql insert;
    // (with no base rows inserted, R can only shrink: steps 3 and 4 have
    // less to do, and their kept plans are kept apart)
    const std::string only_deletes = inserts ? "" : " only deletes";
    if (inserts || rederived > 0) insert = [&] { return dred::insert_query(rel, changed, !inserts); };
    const uint64 derived = keep_rows_as(dred::inserted_relation, storage, insert, InvalidSnapshot, 0,
                                        kept_if(base_rows + rederived, "insert" + only_deletes, true));
    // 4. one statement, so the views over R are maintained once.  What it
    // does in one pass is never a nested loop: planned for an R analyzed
    // empty (all its tuples deleted, then autovacuum), the anti-join that
    // checks new tuples against R read R again for each of them, while the
    // statement filled it (40,000 pairs inserted: 11 s).  (More than 500
    // tuples: a plan made for this run.)
    MaintenanceResult result;
    if (deleted > 0 || derived > 0) {
        const bool inserts_at_once = at_once(derived);
        const bool in_one_pass = deletes_at_once || inserts_at_once;
        const int level = in_one_pass ? planner_without({"enable_nestloop"}) : 0;
        result = run_recursive_statement(
            [&] { return dred::apply_statement(rel, deletes_at_once, inserts_at_once, !inserts); },
            kept_if(deleted + derived, "apply" + only_deletes));
        if (in_one_pass) call([&] { AtEOXact_GUC(false, level); });
    }
    leave(e);
    end_kept_sets(mark);  // their names go with the SPI connection
    return result;
}

MaintenanceResult refresh_recursive(ViewRuntime& view) {
    if (view.analyzed.program) return refresh_program(view);
    const Oid storage = view.entry.recursive_storage;
    lock_for_maintenance(view, storage);
    Elevated e = enter(view, storage);
    MaintenanceResult result = recompute_relation(*view.analyzed.recursive, storage);
    leave(e);
    return result;
}

MaintenanceResult refresh_all(ViewRuntime& view) {
    if (view.analyzed.recursion()) refresh_recursive(view);  // maintains the view from it, too
    return refresh(view);
}

bool maintaining(Oid storage) { return !writing.empty() && writing.back().storage == storage; }

void reset_maintenance_state(SubTransactionId aborted) {
    while (!writing.empty() && writing.back().subxact >= aborted) writing.pop_back();
    // The sets an aborted subtransaction made went with its memory; an
    // outer maintenance still running keeps its own.
    while (!kept_sets.empty() && (aborted == InvalidSubTransactionId || kept_sets.back().subxact >= aborted))
        kept_sets.pop_back();
}

}  // namespace ivm::pg
