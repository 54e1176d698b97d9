// Linear recursion (WITH RECURSIVE) maintained by DRed: over-delete,
// rederive, insert, each a query whose rows are kept as a set for the
// next; a program of general recursion goes to fixpoint_maintenance.cpp.
#include "pg/maintain.hpp"

#include "core/counting.hpp"
#include "core/dred.hpp"
#include "core/error.hpp"
#include "core/recursion_policy.hpp"
#include "pg/boundary.hpp"
#include "pg/bulk_fill.hpp"
#include "pg/dred_backward_forward.hpp"
#include "pg/execution.hpp"
#include "pg/faults.hpp"
#include "pg/fixpoint_maintenance.hpp"
#include "pg/shared.hpp"
#include "pg/spi.hpp"
#include "pg/view_locks.hpp"

#include <chrono>
#include <functional>
#include <optional>

namespace ivm::pg {
namespace {

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
    Tuplestorestate* store = new_kept_set();
    uint64 rows = 0;
    if (make) {
        // (the settings count when the lookups' plan is made: at its first
        // run, or the first after an invalidation)
        SPIPlanPtr lookups = kept.view != nullptr && kept.lookups && lookups_possible(*kept.view, sql)
                                 ? kept_plan(*kept.view, kept.key + " lookups", sql)
                                 : nullptr;
        rows = fetch_lookups_first(
            lookups,
            [&] {
                if (kept.view != nullptr) return RunPlan{kept_plan(*kept.view, kept.key, sql), false};
                const char* text = sql().c_str();
                return RunPlan{call([&] { return spi::prepare(text); }), true};
            },
            snapshot, limit, [&](HeapTuple row) { tuplestore_puttuple(store, row); },
            [&] { tuplestore_clear(store); });
    }
    register_set(name, shape, store, static_cast<double>(rows));
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
    const std::size_t mark = kept_sets_mark();
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

// Steps 2 to 4 of DRed over R of `size` tuples, the over-deleted ones kept
// as deleted_relation (`rederive`: each still to be checked; otherwise
// backward/forward kept only those that go).  `insert` makes step 3's query; `inserts`: it
// derives tuples of its own (from inserted base rows, `base_rows` of them),
// not only what the rederived tuples derive.  `kept_if` names the plans kept
// for steps of few tuples.
MaintenanceResult rederive_insert_apply(const RecursiveRelation& rel, Oid storage, double size, uint64 deleted,
                                        bool rederive, const LazySql& insert, bool inserts, uint64 base_rows,
                                        const std::function<Kept(uint64, const std::string&, bool)>& kept_if) {
    // Looked up one by one, or a pass over all of R: the second pays only
    // for a large part of R (recursion_policy.hpp decides).
    const bool deletes_at_once = recursion::in_one_pass(deleted, size);
    const dred::Rederive how = recursion::rederivation(deleted, size);
    LazySql rederiving;
    if (deleted > 0 && rederive) rederiving = [&] { return dred::rederive_query(rel, how); };
    const uint64 rederived = keep_rows_as(dred::rederived_relation, storage, rederiving, InvalidSnapshot, 0,
                                          kept_if(deleted, "rederive", false));
    // 3. insert what the new tuples derive
    // (with no base rows inserted, R can only shrink: steps 3 and 4 have
    // less to do, and their kept plans are kept apart)
    const std::string only_deletes = inserts ? "" : " only deletes";
    const uint64 derived = keep_rows_as(dred::inserted_relation, storage, inserts || rederived > 0 ? insert : LazySql(),
                                        InvalidSnapshot, 0, kept_if(base_rows + rederived, "insert" + only_deletes, true));
    // 4. one statement, so the views over R are maintained once.  What it
    // does in one pass is never a nested loop: planned for an R analyzed
    // empty (all its tuples deleted, then autovacuum), the anti-join that
    // checks new tuples against R read R again for each of them, while the
    // statement filled it (40,000 pairs inserted: 11 s).  (More than 500
    // tuples: a plan made for this run.)
    MaintenanceResult result;
    if (deleted > 0 || derived > 0) {
        const bool inserts_at_once = recursion::in_one_pass(derived, size);
        const bool in_one_pass = deletes_at_once || inserts_at_once;
        const int level = in_one_pass ? planner_without({"enable_nestloop"}) : 0;
        result = run_recursive_statement(
            [&] { return dred::apply_statement(rel, deletes_at_once, inserts_at_once, !inserts); },
            kept_if(deleted + derived, "apply" + only_deletes, false));
        if (in_one_pass) call([&] { AtEOXact_GUC(false, level); });
    }
    return result;
}

// Backward/forward's budget under auto, given what over-deleting the
// tuples it checks took: stop where most of the first checks went, or past
// that time's share.
backward_forward::Budget auto_budget(std::chrono::steady_clock::duration overdeleting) {
    backward_forward::Budget budget;
    budget.stop_when_most_go = true;
    budget.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                             overdeleting * recursion::backward_forward_time_share);
    return budget;
}

}  // namespace

MaintenanceResult apply_recursive_changes(ViewRuntime& view, const std::vector<BaseChange>& changes,
                                          Snapshot before) {
    if (view.analyzed.program) {
        // (its strata's DRed has no derived old state: recomputed)
        if (before == InvalidSnapshot) return refresh_recursive(view);
        return apply_program_changes(view, changes, before);
    }
    const RecursiveRelation& rel = *view.analyzed.recursive;
    const Oid storage = view.entry.recursive_storage;
    std::vector<bool> changed(rel.bases.size(), false);
    bool deletes = false, inserts = false;
    std::string key;  // which bases changed
    uint64 base_rows = 0;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        changed[b] = changes[b].new_rows != nullptr || changes[b].old_rows != nullptr;
        key += changed[b] ? '1' : '0';
        const uint64 old_rows = changes[b].old_rows != nullptr ? tuplestore_tuple_count(changes[b].old_rows) : 0;
        const uint64 new_rows = changes[b].new_rows != nullptr ? tuplestore_tuple_count(changes[b].new_rows) : 0;
        deletes |= old_rows > 0;
        inserts |= new_rows > 0;
        base_rows += old_rows + new_rows;
    }
    // Steps whose input sets are small (recursion::small_step) run kept
    // plans.  (`lookups`: a recursive step, tried planned for lookups first)
    auto kept_if = [&](uint64 input_rows, const std::string& step, bool lookups = false) {
        return recursion::small_step(input_rows) ? Kept{&view, "dred " + step + " " + key, lookups} : Kept{};
    };
    bool missed = false;
    lock_for_maintenance(view, storage, std::nullopt, before, &missed);
    if (missed) {
        register_changes(view, changes, view.analyzed.recursive_base_oids);  // (refused as always)
        Elevated e = enter(view, storage);
        MaintenanceResult result = recompute_relation(rel, storage);
        leave(e);
        return result;
    }
    register_changes(view, changes, view.analyzed.recursive_base_oids);
    Elevated e = enter(view, storage);
    const std::size_t mark = kept_sets_mark();
    // 1. over-delete, against the state before the statement.  An
    // over-deletion of a large part of R costs more to rederive than R costs
    // to recompute (DRed's known weak spot): it is stopped at the policy's
    // limit (the recursive query runs lazily), and R is recomputed instead.
    LazySql overdelete;
    const dred::OldTables old = before == InvalidSnapshot ? dred::OldTables::WithDeleted : dred::OldTables::AsOfSnapshot;
    if (deletes) overdelete = [&] { return dred::overdelete_query(rel, changed, old); };
    const double size = estimated_rows(storage);
    const uint64 most = recursion::overdeletion_limit(recursion::Engine::Linear, size);
    const std::string overdelete_step = old == dred::OldTables::WithDeleted ? "overdelete with deleted" : "overdelete";
    std::optional<uint64> overdeleted;
    std::chrono::steady_clock::duration overdelete_time{};
    auto over_delete = [&](uint64 limit) {
        const auto started = std::chrono::steady_clock::now();
        overdeleted = keep_rows_as(dred::deleted_relation, storage, overdelete, before, limit,
                                   kept_if(base_rows, overdelete_step, true));
        overdelete_time = std::chrono::steady_clock::now() - started;
    };
    const BackwardForward bf = backward_forward_mode();
    // Where deletions factor, backward/forward checks against a bound on
    // what the deletion can touch instead of an over-deletion (on a grid,
    // tens of thousands of tuples for a few hundred that go).  Under auto,
    // while most of what the view's recent deletions touched stayed
    // (recursion::DeletionHistory), and only until it has looked up as many
    // tuples as an over-deletion may hold before R is recomputed; otherwise
    // DRed as always (the bound holds all the over-deletion can).
    BoundedOutcome bounded;
    if (deletes && old == dred::OldTables::AsOfSnapshot && dred::backward_forward_possible(rel) &&
        dred::deletions_factor(rel) &&
        (bf == BackwardForward::On || (bf == BackwardForward::Auto && view.deletions.mostly_stay())))
    {
        bounded = backward_forward_bounded(
            view, rel, storage, changed, before, key, recursion::small_step(base_rows),
            [&](uint64) -> std::optional<backward_forward::Budget> {
                backward_forward::Budget budget;  // (on: none)
                if (bf == BackwardForward::Auto) budget.lookups = most;
                return budget;
            });
    }
    std::optional<uint64> gone = bounded.gone;
    uint64 deleted = 0;
    if (gone) {
        const uint64 bound = bounded.bound, found = *gone;
        call([&] {
            elog(DEBUG1,
                 "ivm DRed: at most %lu tuples the deletion could take, not over-deleted; backward/forward found %lu gone",
                 static_cast<unsigned long>(bound), static_cast<unsigned long>(found));
        });
        shared::record_overdeletion(view.entry.view_id, shared::Overdeletion::BackwardForward, static_cast<int64>(bound));
        view.deletions.note(bound, bound - found);
    } else {
        // (a bounded check that gave up looked up more tuples than DRed goes
        // on with before it recomputes: counted as a deletion where most went)
        if (bounded.tried) view.deletions.note(bounded.bound, 0);
        if (!overdeleted) over_delete(most + 1);
        deleted = *overdeleted;
        if (deleted > most) {
            shared::record_overdeletion(view.entry.view_id, shared::Overdeletion::Recomputed, static_cast<int64>(deleted));
            MaintenanceResult result = recompute_relation(rel, storage);
            leave(e);
            end_kept_sets(mark);
            return result;
        }
        // 2. Of the over-deleted tuples, those that go: found by backward/
        // forward, which checks a tuple only where a deleted row or a tuple
        // found gone derived it (in proportion to what goes), until it has
        // taken its share of the over-deletion's time or most of what it
        // checked went; otherwise by rederiving every over-deleted tuple.
        // (Not again where it ran against the bound and gave up.)
        if (deleted > 0 && !bounded.tried && dred::backward_forward_possible(rel) &&
            (bf == BackwardForward::On || (bf == BackwardForward::Auto && recursion::backward_forward_pays(deleted))))
        {
            const backward_forward::Budget budget =
                bf == BackwardForward::Auto ? auto_budget(overdelete_time) : backward_forward::Budget{};  // (on: none)
            gone = backward_forward_deletions(view, rel, storage, changed, old, before, key, budget);
        }
        const double od_ms = milliseconds(overdelete_time);
        call([&] {
            if (gone)
                elog(DEBUG1, "ivm DRed: %lu over-deleted, of which backward/forward found %lu gone",
                     static_cast<unsigned long>(deleted), static_cast<unsigned long>(*gone));
            else
                elog(DEBUG1, "ivm DRed: %lu over-deleted, rederived", static_cast<unsigned long>(deleted));
            elog(DEBUG2, "ivm DRed: over-deleted in %.3f ms", od_ms);
        });
        if (deleted > 0)
            shared::record_overdeletion(view.entry.view_id,
                                        gone ? shared::Overdeletion::BackwardForward : shared::Overdeletion::Rederived,
                                        static_cast<int64>(deleted));
    }
    const uint64 touched = deleted;  // (over-deleted; 0 where checked against the bound)
    if (gone) deleted = *gone;
    faults::point("dred.deleted");
    auto insert = [&] { return dred::insert_query(rel, changed, !inserts); };
    MaintenanceResult result = rederive_insert_apply(rel, storage, size, deleted, !gone, insert, inserts, base_rows, kept_if);
    // (what the apply deleted from R is what went of the over-deleted tuples)
    if (touched > 0) view.deletions.note(touched, touched - std::min<uint64>(touched, result.rows_removed));
    leave(e);
    end_kept_sets(mark);  // their names go with the SPI connection
    return result;
}

MaintenanceResult redefine_recursive(ViewRuntime& view, const RecursiveRelation& old_rel,
                                     const RuleDifference& difference) {
    const RecursiveRelation& rel = *view.analyzed.recursive;
    const Oid storage = view.entry.recursive_storage;
    lock_for_maintenance(view, storage);
    Elevated e = enter(view, storage);
    const std::size_t mark = kept_sets_mark();
    // 1. over-delete what the removed rules derived, through the old rules
    LazySql overdelete;
    if (!difference.removed.empty())
        overdelete = [&] { return dred::overdelete_by_rules_query(old_rel, difference.removed); };
    const double size = estimated_rows(storage);
    const uint64 most = recursion::overdeletion_limit(recursion::Engine::Linear, size);
    const uint64 deleted = keep_rows_as(dred::deleted_relation, storage, overdelete, InvalidSnapshot, most + 1);
    call([&] {
        elog(DEBUG1, "ivm DRed: redefined by %zu rules removed and %zu added; %lu over-deleted",
             difference.removed.size(), difference.added.size(), static_cast<unsigned long>(deleted));
    });
    MaintenanceResult result;
    if (deleted > most) {
        shared::record_overdeletion(view.entry.view_id, shared::Overdeletion::Recomputed, static_cast<int64>(deleted));
        result = recompute_relation(rel, storage);
    } else {
        if (deleted > 0)
            shared::record_overdeletion(view.entry.view_id, shared::Overdeletion::Rederived, static_cast<int64>(deleted));
        // 2.-4. as for a change, the added rules' tuples inserted
        auto insert = [&] { return dred::insert_by_rules_query(rel, difference.added); };
        result = rederive_insert_apply(rel, storage, size, deleted, true, insert, !difference.added.empty(), 0,
                                       [](uint64, const std::string&, bool) { return Kept{}; });
    }
    leave(e);
    end_kept_sets(mark);
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

MaintenanceResult first_fill_recursive(ViewRuntime& view) {
    if (view.analyzed.program) return refresh_program(view);
    const RecursiveRelation& rel = *view.analyzed.recursive;
    const Oid storage = view.entry.recursive_storage;
    lock_for_maintenance(view, storage);
    Elevated e = enter(view, storage);
    MaintenanceResult result;
    if (const std::optional<BulkFill> filled = bulk_fill(storage, dred::first_fill_query(rel), nullptr))
        result.rows_added = static_cast<int64>(filled->rows);
    else
        result.rows_added = static_cast<int64>(spi::execute(dred::first_fill_statement(rel)));
    for (const std::string& ddl : dred::storage_index_ddl(rel)) spi::execute(ddl);
    leave(e);
    return result;
}

MaintenanceResult refresh_all(ViewRuntime& view) {
    if (view.analyzed.recursion()) refresh_recursive(view);  // maintains the view from it, too
    return refresh(view);
}

}  // namespace ivm::pg
