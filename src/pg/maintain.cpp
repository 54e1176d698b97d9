#include "pg/maintain.hpp"

#include "core/counting.hpp"
#include "core/dred.hpp"
#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"
#include "pg/shared.hpp"

#include <algorithm>
#include <functional>
#include <memory>

namespace ivm::pg {
namespace {

// A statement's delta above this many transition rows is planned afresh
// with its real size instead of running the kept plan (which was planned
// for a small delta: index lookups, nested loops).
constexpr double large_delta_rows = 5000;

// DRed recomputes the recursive relation instead of rederiving when the
// over-deletion reaches this fraction of it (and at least 1000 tuples).
constexpr double recompute_fraction = 0.05;
// Up to this many over-deleted tuples are rederived one by one through
// index lookups; more at once, each rule evaluated in one pass.
constexpr uint64 rederive_tuple_by_tuple = 500;

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
        call([&] { SPI_freeplan(p); });
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

// Takes the view's maintenance lock (writers of one view's base tables are
// maintained one at a time; readers are not blocked).  Under REPEATABLE
// READ and SERIALIZABLE a transaction whose snapshot misses a concurrent
// maintenance of the view would compute a wrong delta: it fails instead.
void lock_for_maintenance(const ViewRuntime& view, Oid storage, Snapshot before = nullptr,
                          bool* missed = nullptr) {
    call([&] { LockRelationOid(storage, ExclusiveLock); });
    const int32 id = view.entry.view_id;
    // DRed's over-delete reads the state from before the statement; under
    // READ COMMITTED a maintenance that committed since (while this one
    // waited for the lock) is not in it, and the caller recomputes instead.
    if (missed != nullptr) *missed = before != nullptr && call([&] { return shared::maintained_after_snapshot(id, before); });
    if (IsolationUsesXactSnapshot() &&
        call([&] { return shared::maintained_after_snapshot(id, GetTransactionSnapshot()); })) {
        const std::string name = qualified_name(view.entry.view);
        throw Error("40001", "could not serialize access due to concurrent maintenance of " + name,
                    "Another transaction changed the view's base tables after this transaction's snapshot was taken.",
                    "The transaction might succeed if retried.");
    }
    shared::note_maintainer(view.entry.view_id);
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

// Runs a merge statement, through a kept plan when `key` is given, and
// counts it in the statistics.  The SQL is generated only when there is no
// kept plan: a small change must not pay for building the text.
MaintenanceResult run_merge(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate) {
    const TimestampTz started = GetCurrentTimestamp();
    int rc;
    if (key.empty()) {
        const std::string sql = generate();
        const char* text = sql.c_str();
        rc = call([&] { return SPI_execute(text, false, 0); });
    } else {
        auto it = view.plans.find(key);
        if (it == view.plans.end()) {
            const std::string sql = generate();
            const char* text = sql.c_str();
            SPIPlanPtr plan = call([&] {
                SPIPlanPtr p = SPI_prepare(text, 0, nullptr);
                if (p == nullptr) elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
                SPI_keepplan(p);
                return p;
            });
            it = view.plans.emplace(key, plan).first;
        }
        SPIPlanPtr plan = it->second;
        rc = call([&] { return SPI_execute_plan(plan, nullptr, nullptr, false, 0); });
    }
    if (rc != SPI_OK_SELECT || SPI_processed != 1)
        throw Error(sqlstate::internal_error, "ivm merge returned no result");
    MaintenanceResult result;
    result.rows_added = spi::result_int(0, 0);
    result.rows_removed = spi::result_int(0, 1);
    if (view.analyzed.model.distinct) {
        result.rows_added = spi::result_int(0, 2);
        result.rows_removed = spi::result_int(0, 3);
    }
    if (spi::result_int(0, 4) > 0) {
        const std::string name = qualified_name(view.entry.view);
        throw Error(sqlstate::data_corrupted,
                    "incrementally maintained view " + name + " is out of sync with its base tables",
                    "A change would make a stored derivation count negative.",
                    "Run ivm.refresh_view('" + name + "') to recompute it.");
    }
    long seconds = 0;
    int microseconds = 0;
    TimestampDifference(started, GetCurrentTimestamp(), &seconds, &microseconds);
    shared::record(view.entry.view_id, result.rows_added, result.rows_removed,
                  static_cast<double>(seconds) * 1000.0 + microseconds / 1000.0);
    return result;
}

}  // namespace

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
        if (it->second->valid) return it->second;
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
    view->owner = relation_owner(entry->storage);
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
    lock_for_maintenance(view, view.entry.storage);
    for (std::size_t b = 0; b < changes.size(); ++b) {
        if (!changed[b]) continue;
        refuse_row_security(view.analyzed.base_oids[b], view.owner);
        register_rows(counting::new_rows_relation(b), view.analyzed.base_oids[b], changes[b].new_rows);
        register_rows(counting::old_rows_relation(b), view.analyzed.base_oids[b], changes[b].old_rows);
    }
    Elevated e = enter(view);
    const bool small = rows <= large_delta_rows;
    MaintenanceResult result = run_merge(view, small ? key : std::string(), [&] {
        return counting::merge_statement(model, counting::delta_query(model, changed),
                                         small ? counting::Lookup::PerTuple : counting::Lookup::Join);
    });
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
std::vector<Tuplestorestate*> kept_sets;

void end_kept_sets(std::size_t mark) {
    while (kept_sets.size() > mark) {
        Tuplestorestate* store = kept_sets.back();
        kept_sets.pop_back();
        call([&] { tuplestore_end(store); });
    }
}

uint64 keep_rows_as(const char* name, Oid shape, const std::string* sql, Snapshot snapshot, uint64 limit = 0) {
    const char* text = sql != nullptr ? sql->c_str() : nullptr;
    uint64 rows = 0;
    Tuplestorestate* store = call([] { return tuplestore_begin_heap(false, false, work_mem); });
    kept_sets.push_back(store);
    int rc = call([&] {
        if (text != nullptr) {
            SPIPlanPtr plan = SPI_prepare(text, 0, nullptr);
            if (plan == nullptr) elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
            int result = SPI_execute_snapshot(plan, nullptr, nullptr, snapshot, InvalidSnapshot,
                                              snapshot != InvalidSnapshot, false, static_cast<long>(limit));
            if (result != SPI_OK_SELECT) elog(ERROR, "DRed step failed: %s", SPI_result_code_string(result));
            for (uint64 i = 0; i < SPI_processed; ++i) tuplestore_puttuple(store, SPI_tuptable->vals[i]);
            rows = SPI_processed;
            SPI_freetuptable(SPI_tuptable);
            SPI_freeplan(plan);
        }
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
MaintenanceResult run_recursive_statement(const std::string& sql) {
    if (spi::execute(sql) != 1) throw Error(sqlstate::internal_error, "DRed apply returned no result");
    MaintenanceResult result;
    result.rows_removed = spi::result_int(0, 0);
    result.rows_added = spi::result_int(0, 1);
    return result;
}

// Recomputes R: evaluated in full first, so that replacing the storage's
// contents is planned knowing how many tuples there are.
MaintenanceResult recompute_relation(const RecursiveRelation& rel, Oid storage) {
    const std::size_t mark = kept_sets.size();
    const std::string full = dred::full_query(rel);
    keep_rows_as(dred::full_relation, storage, &full, InvalidSnapshot);
    MaintenanceResult result = run_recursive_statement(dred::replace_statement(rel));
    // One SPI connection may recompute several relations (DDL events).
    call([] { SPI_unregister_relation(dred::full_relation); });
    end_kept_sets(mark);
    return result;
}

}  // namespace

MaintenanceResult apply_recursive_changes(ViewRuntime& view, const std::vector<BaseChange>& changes,
                                          Snapshot before) {
    const RecursiveRelation& rel = *view.analyzed.recursive;
    const Oid storage = view.entry.recursive_storage;
    std::vector<bool> changed(rel.bases.size(), false);
    bool deletes = false, inserts = false;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        changed[b] = changes[b].new_rows != nullptr || changes[b].old_rows != nullptr;
        if (changed[b]) refuse_row_security(view.analyzed.recursive_base_oids[b], view.owner);
        deletes |= changes[b].old_rows != nullptr && tuplestore_tuple_count(changes[b].old_rows) > 0;
        inserts |= changes[b].new_rows != nullptr && tuplestore_tuple_count(changes[b].new_rows) > 0;
    }
    bool missed = false;
    lock_for_maintenance(view, storage, before, &missed);
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
    const std::string overdelete = dred::overdelete_query(rel, changed);
    const int64 size = spi::query_int("SELECT GREATEST(reltuples, 0)::bigint FROM pg_catalog.pg_class WHERE oid = $1::oid",
                                      {std::to_string(storage)});
    const auto most = static_cast<uint64>(std::max(1000.0, static_cast<double>(size) * recompute_fraction));
    const uint64 deleted =
        keep_rows_as(dred::deleted_relation, storage, deletes ? &overdelete : nullptr, before, most + 1);
    if (deleted > most) {
        MaintenanceResult result = recompute_relation(rel, storage);
        leave(e);
        end_kept_sets(mark);
        return result;
    }
    // 2. rederive what still has a derivation
    const std::string rederive = dred::rederive_query(rel, deleted > rederive_tuple_by_tuple);
    const uint64 rederived =
        keep_rows_as(dred::rederived_relation, storage, deleted > 0 ? &rederive : nullptr, InvalidSnapshot);
    // 3. insert what the new tuples derive
    const std::string insert = dred::insert_query(rel, changed);
    const uint64 derived = keep_rows_as(dred::inserted_relation, storage,
                                        inserts || rederived > 0 ? &insert : nullptr, InvalidSnapshot);
    // 4. one statement, so the views over R are maintained once
    MaintenanceResult result;
    if (deleted > 0 || derived > 0) result = run_recursive_statement(dred::apply_statement(rel));
    leave(e);
    end_kept_sets(mark);  // their names go with the SPI connection
    return result;
}

MaintenanceResult refresh_recursive(ViewRuntime& view) {
    const Oid storage = view.entry.recursive_storage;
    lock_for_maintenance(view, storage);
    Elevated e = enter(view, storage);
    MaintenanceResult result = recompute_relation(*view.analyzed.recursive, storage);
    leave(e);
    return result;
}

MaintenanceResult refresh_all(ViewRuntime& view) {
    if (view.analyzed.recursive) refresh_recursive(view);  // maintains the view from it, too
    return refresh(view);
}

bool maintaining(Oid storage) { return !writing.empty() && writing.back().storage == storage; }

void reset_maintenance_state(SubTransactionId aborted) {
    while (!writing.empty() && writing.back().subxact >= aborted) writing.pop_back();
    // The sets of an aborted maintenance went with its memory.
    kept_sets.clear();
}

}  // namespace ivm::pg
