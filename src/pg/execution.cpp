#include "pg/execution.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "core/recursion_policy.hpp"
#include "pg/boundary.hpp"
#include "pg/relations.hpp"
#include "pg/shared.hpp"
#include "pg/spi.hpp"

#include <cmath>
#include <limits>

namespace ivm::pg {
namespace {

struct Writing {
    Oid storage;
    SubTransactionId subxact;
};
std::vector<Writing> writing;  // storages being written by maintenance, innermost last


// The sets kept (execution.hpp), each with the subtransaction that made
// it, innermost last.
struct KeptSet {
    Tuplestorestate* store;
    SubTransactionId subxact;
};
std::vector<KeptSet> kept_sets;

}  // namespace

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

std::size_t kept_sets_mark() { return kept_sets.size(); }

// Maintenance runs as the view's owner in a restricted security context
// with only pg_catalog on the search path (and no JIT), as REFRESH MATERIALIZED VIEW
// does: whoever changed a base table cannot make it run their own code.
// There is no cleanup on error paths: the (sub)transaction abort restores
// the user, the GUCs and SPI, and the abort callbacks reset `writing`.
Elevated enter(const ViewRuntime& view, Oid storage) {
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
// the base table its recursion joins, which costs more than the rest of a
// small change (docs/benchmarks.md, "Measurements behind design
// decisions").  While the seeds are few, the step is planned with hash and
// merge joins and sequential scans priced out: its joins become index
// lookups, and a join with no index to
// look up is still hashed (every way then carries the penalty, and a nested
// loop over a sequential scan carries it once per outer row).  Returns the
// GUC nest level to restore with AtEOXact_GUC.
int prefer_lookups() { return planner_without({"enable_hashjoin", "enable_mergejoin", "enable_seqscan"}); }

// The plan of `sql` kept in the view's runtime under `key`, prepared the
// first time (relcache invalidation of what the view reads frees it).
SPIPlanPtr kept_plan(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                     int nargs, Oid* types, int options) {
    auto it = view.plans.find(key);
    if (it != view.plans.end()) return it->second;
    const std::string sql = generate();
    const char* text = sql.c_str();
    SPIPlanPtr plan = call([&] {
        SPIPlanPtr p = spi::prepare(text, nargs, types, options);
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


// The kept plan of `generate`'s statement made with prefer_lookups (its
// generic plan made now, while the settings are in force; an invalidation
// the runtime does not see would have it replanned as usual), or null when
// it needs a way they price out (a base without an index to look up): the
// usual plan then serves.  Kept under `key` either way.
SPIPlanPtr kept_lookups_plan(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                             int nargs, Oid* types, int options, bool scans) {
    auto it = view.plans.find(key);
    if (it != view.plans.end()) return it->second;
    const int level = scans ? planner_without({"enable_hashjoin", "enable_mergejoin"}) : prefer_lookups();
    // (in the map: freed with the others, should planning it fail)
    SPIPlanPtr plan = kept_plan(view, key, generate, nargs, types, options);
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

uint64 fetch_lookups_first(SPIPlanPtr lookups, const std::function<RunPlan()>& usual, Snapshot snapshot, uint64 limit,
                           const std::function<void(HeapTuple)>& sink, const std::function<void()>& restart,
                           TupleDesc* desc) {
    if (lookups != nullptr) {
        // (a limit within the lookups' reach ends them as it ends the step)
        const uint64 cap = limit != 0 && limit <= recursion::lookups_up_to + 1 ? limit : recursion::lookups_up_to + 1;
        const int level = prefer_lookups();
        const uint64 rows = call([&] {
            const uint64 n = spi::fetch_rows(lookups, snapshot, cap, sink, desc);
            AtEOXact_GUC(false, level);
            return n;
        });
        if (rows < cap || cap == limit) return rows;
        call([&] { restart(); });
    }
    const RunPlan plan = usual();
    return call([&] {
        const uint64 n = spi::fetch_rows(plan.plan, snapshot, limit, sink, desc);
        if (plan.once) SPI_freeplan(plan.plan);
        return n;
    });
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

// Whether table `relid` fits in the memory a hash table may take
// (hash_mem_multiplier times work_mem).
bool fits_hash_memory(Oid relid) {
    return call([&] {
        Relation r = table_open(relid, AccessShareLock);
        const double bytes = static_cast<double>(RelationGetNumberOfBlocks(r)) * BLCKSZ;
        table_close(r, AccessShareLock);
        return bytes <= static_cast<double>(get_hash_memory_limit());
    });
}

// Counts a maintenance run that began at `started` in the statistics.
void record_run(ViewRuntime& view, const MaintenanceResult& result, TimestampTz started) {
    long seconds = 0;
    int microseconds = 0;
    TimestampDifference(started, GetCurrentTimestamp(), &seconds, &microseconds);
    view.maintained.rows_added += result.rows_added;
    view.maintained.rows_removed += result.rows_removed;
    shared::record(view.entry.view_id, result.rows_added, result.rows_removed,
                   static_cast<double>(seconds) * 1000.0 + microseconds / 1000.0);
}

// Runs `generate`'s statement through the view's plan kept under `key`
// (made with prefer_lookups first when `lookups`), or, without a key,
// planned for this run only.  Returns SPI's result code.
int run_statement(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                  bool lookups) {
    if (key.empty()) {
        const std::string sql = generate();
        const char* text = sql.c_str();
        return call([&] { return SPI_execute(text, false, 0); });
    }
    SPIPlanPtr plan = lookups ? kept_lookups_plan(view, key + " lookups", generate) : nullptr;
    if (plan == nullptr) plan = kept_plan(view, key, generate);
    return call([&] { return SPI_execute_plan(plan, nullptr, nullptr, false, 0); });
}

uint64 rows_in(Tuplestorestate* store) {
    return store == nullptr ? 0 : static_cast<uint64>(tuplestore_tuple_count(store));
}

namespace {

EphemeralNamedRelation register_enr(const char* name, Oid shape, TupleDesc desc, Tuplestorestate* store, double rows) {
    EphemeralNamedRelation enr = call([&] {
        auto* e = static_cast<EphemeralNamedRelation>(palloc0(sizeof(EphemeralNamedRelationData)));
        e->md.name = pstrdup(name);
        e->md.reliddesc = shape;
        e->md.tupdesc = desc;
        e->md.enrtype = ENR_NAMED_TUPLESTORE;
        e->md.enrtuples = rows;
        e->reldata = store;
        return e;
    });
    if (call([&] { return SPI_register_relation(enr); }) != SPI_OK_REL_REGISTER)
        throw Error(sqlstate::internal_error, std::string("could not register ") + name);
    return enr;
}

}  // namespace

EphemeralNamedRelation register_set(const char* name, Oid shape, Tuplestorestate* store, double rows) {
    return register_enr(name, shape, nullptr, store, rows);
}

EphemeralNamedRelation register_set(const char* name, TupleDesc desc, Tuplestorestate* store, double rows) {
    return register_enr(name, InvalidOid, desc, store, rows);
}

void register_rows(const std::string& name, Oid relid, Tuplestorestate* rows) {
    Tuplestorestate* store = rows != nullptr ? rows : call([] { return tuplestore_begin_heap(false, false, work_mem); });
    register_set(name.c_str(), relid, store, static_cast<double>(rows_in(store)));
}

void register_changes(const ViewRuntime& view, const std::vector<BaseChange>& changes, const std::vector<Oid>& bases) {
    for (std::size_t b = 0; b < changes.size(); ++b) {
        if (changes[b].new_rows == nullptr && changes[b].old_rows == nullptr) continue;
        refuse_row_security(bases[b], view.owner);
        register_rows(counting::new_rows_relation(b), bases[b], changes[b].new_rows);
        register_rows(counting::old_rows_relation(b), bases[b], changes[b].old_rows);
    }
}

bool maintaining(Oid storage) { return !writing.empty() && writing.back().storage == storage; }

bool maintaining_any() { return !writing.empty(); }

void reset_maintenance_state(SubTransactionId aborted) {
    while (!writing.empty() && writing.back().subxact >= aborted) writing.pop_back();
    // The sets an aborted subtransaction made went with its memory; an
    // outer maintenance still running keeps its own.
    while (!kept_sets.empty() && (aborted == InvalidSubTransactionId || kept_sets.back().subxact >= aborted))
        kept_sets.pop_back();
}

}  // namespace ivm::pg
