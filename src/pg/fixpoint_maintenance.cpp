// General recursion (a program of mutually recursive WITH queries, with
// stratified negation and aggregation) maintained stratum by stratum:
// DRed where a stratum reads its changes through joins only, recomputed
// otherwise, each a loop of queries to a fixpoint over kept sets.
#include "pg/fixpoint_maintenance.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "core/fixpoint.hpp"
#include "core/recursion_policy.hpp"
#include "pg/boundary.hpp"
#include "pg/execution.hpp"
#include "pg/shared.hpp"
#include "pg/spi.hpp"
#include "pg/view_locks.hpp"

#include <chrono>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <utility>

namespace ivm::pg {
namespace {

// The sets a program's fixpoint loop passes between its queries: ephemeral
// relations of the storage's row type, registered by name for the queries
// of one run and ended with it.
class ProgramSets {
public:
    explicit ProgramSets(Oid shape) : shape_(shape), mark_(kept_sets_mark()) {}

    // Registers the set empty, or empties it.
    void clear(const char* name) {
        Tuplestorestate* store = new_kept_set();
        for (Set& s : sets_)
            if (std::strcmp(s.name, name) == 0) {
                s.enr->reldata = store;
                s.enr->md.enrtuples = 0;
                return;
            }
        EphemeralNamedRelation enr = register_set(name, shape_, store, 0);
        sets_.push_back({name, enr});
    }

    // Runs the query (with the snapshot, or the current one; at most
    // `limit` rows when not 0) and adds its rows to each of the sets.
    // `keep`: its plan is kept for the rest of the run and used again for
    // the same query (made for a step of a few rows, it serves the next
    // steps of a few rows: planning a step took longer than running it),
    // until a set has more than doubled since (a nested loop over a set
    // of 100 rows is no plan for one of 50,000).
    uint64 run(const std::string& sql, std::initializer_list<const char*> into, Snapshot snapshot = InvalidSnapshot,
               uint64 limit = 0, bool keep = false) {
        std::vector<EphemeralNamedRelation> targets;
        for (const char* name : into) targets.push_back(find(name));
        const char* text = sql.c_str();
        EphemeralNamedRelation* target = targets.data();
        const std::size_t n = targets.size();
        KeptPlan* entry = keep ? &kept_plans_[sql] : nullptr;  // (an element's address survives rehashing)
        SPIPlanPtr stale = nullptr;
        if (entry != nullptr && entry->plan != nullptr && outgrown(*entry)) std::swap(stale, entry->plan);
        SPIPlanPtr kept = entry != nullptr ? entry->plan : nullptr;
        const bool fresh = keep && kept == nullptr;
        if (fresh) entry->sizes = set_sizes();
        const uint64 rows = call([&] {
            if (stale != nullptr) SPI_freeplan(stale);
            SPIPlanPtr plan = kept != nullptr ? kept : spi::prepare(text);
            if (fresh) kept = plan;
            // Into the first set (never one the query reads: it is new, or
            // the only one), then copied into the others, which it may read.
            auto* first = static_cast<Tuplestorestate*>(target[0]->reldata);
            TupleDesc desc = nullptr;
            const uint64 rows =
                spi::fetch_rows(plan, snapshot, limit, [&](HeapTuple row) { tuplestore_puttuple(first, row); }, &desc);
            if (!keep) SPI_freeplan(plan);
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
        if (fresh) entry->plan = kept;
        return rows;
    }

    uint64 size(const char* name) { return static_cast<uint64>(find(name)->md.enrtuples); }

    void swap(const char* a, const char* b) {
        EphemeralNamedRelation x = find(a), y = find(b);
        std::swap(x->reldata, y->reldata);
        std::swap(x->md.enrtuples, y->md.enrtuples);
    }

    // The names go (one SPI connection may run several programs), then the
    // kept plans and the sets.
    void end() {
        for (const Set& s : sets_) {
            const char* name = s.name;
            call([&] { SPI_unregister_relation(name); });
        }
        sets_.clear();
        for (const auto& [sql, k] : kept_plans_) {
            SPIPlanPtr kept = k.plan;
            if (kept != nullptr) call([&] { SPI_freeplan(kept); });
        }
        kept_plans_.clear();
        end_kept_sets(mark_);
    }

private:
    struct Set {
        const char* name;
        EphemeralNamedRelation enr;
    };
    struct KeptPlan {
        SPIPlanPtr plan = nullptr;
        std::vector<double> sizes;  // each set's rows when it was made
    };
    std::vector<double> set_sizes() const {
        std::vector<double> sizes;
        for (const Set& s : sets_) sizes.push_back(s.enr->md.enrtuples);
        return sizes;
    }
    bool outgrown(const KeptPlan& k) const {
        for (std::size_t i = 0; i < k.sizes.size() && i < sets_.size(); ++i)
            if (sets_[i].enr->md.enrtuples > 2 * k.sizes[i] + 100) return true;
        return false;
    }
    EphemeralNamedRelation find(const char* name) {
        for (Set& s : sets_)
            if (std::strcmp(s.name, name) == 0) return s.enr;
        throw Error(sqlstate::internal_error, std::string("no set ") + name);
    }
    Oid shape_;
    std::size_t mark_;
    std::vector<Set> sets_;
    std::unordered_map<std::string, KeptPlan> kept_plans_;
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
    const auto started = std::chrono::steady_clock::now();
    uint64 n = sets.run(fixpoint::initial_query(p, stratum), {full_set, delta_set});
    const std::string step = fixpoint::step_query(p, stratum, delta_set, full_set, {full_set});
    int steps = 0;
    while (n > 0 && !step.empty()) {
        sets.clear(next_set);
        n = sets.run(step, {next_set, full_set}, InvalidSnapshot, 0, recursion::small_step(n));
        sets.swap(delta_set, next_set);
        ++steps;
    }
    const double ms = milliseconds(std::chrono::steady_clock::now() - started);
    const uint64 rows = sets.size(full_set);
    call([&] { elog(DEBUG2, "ivm fixpoint: stratum %zu evaluated in %d steps, %lu rows, %.1f ms", stratum, steps, rows, ms); });
    sets.clear(gone_set);
    sets.clear(fresh_set);
    const uint64 gone = sets.run(fixpoint::minus(p, "(" + fixpoint::rows_of(p, stratum, p.storage) + ")", full_set),
                                 {gone_set, removed_set});
    const uint64 fresh = sets.run(fixpoint::minus(p, full_set, p.storage), {fresh_set, added_set});
    if (gone > 0) spi::execute(fixpoint::delete_statement(p, gone_set));
    if (fresh > 0) spi::execute(fixpoint::insert_statement(p, fresh_set));
    return gone > 0 || fresh > 0;
}

// A redefinition's rules (RuleDifference) within one stratum:
// the old program (its rules removed followed when over-deleting, its
// storage the new one's) and the new.
struct StratumRules {
    const Program* old_program = nullptr;
    std::vector<std::size_t> removed;  // of the old program's rules
    std::vector<std::size_t> added;    // of the new one's
};

// DRed for one stratum: over-delete (as of `before`), rederive, insert,
// each step semi-naive, writing the storage as it goes; in a redefinition
// (`rules`), also what the removed rules derived (over-deleted through the
// old rules) and what the added ones derive.  Returns false, having changed
// nothing, when the over-deletion passes `most` rows (the stratum is then
// better recomputed); sets `changed`.
bool dred_stratum(const Program& p, std::size_t stratum, const std::vector<bool>& changed_bases,
                  const std::vector<bool>& changed_items, Snapshot before, double size, uint64 most,
                  ProgramSets& sets, bool& changed, uint64& overdeleted, const StratumRules& rules = {}) {
    using fixpoint::Change;
    const auto t0 = std::chrono::steady_clock::now();
    const Program& over = rules.old_program != nullptr ? *rules.old_program : p;
    // (a redefinition changes no base table; the old program's are its own)
    const std::vector<bool> over_bases = rules.old_program != nullptr ? std::vector<bool>(over.bases.size(), false)
                                                                      : changed_bases;
    // 1. over-delete: what lost a derivation, through the stratum's recursion
    sets.clear(deleted_set);
    sets.clear(delta_set);
    const std::string seed = fixpoint::seed_query(over, stratum, over_bases, changed_items, Change::Deleted,
                                                  removed_set, p.storage, {}, rules.removed);
    uint64 n = seed.empty() ? 0 : sets.run(seed, {deleted_set, delta_set}, before, most + 1);
    uint64 deleted = n;
    const std::string overdelete_step = fixpoint::step_query(over, stratum, delta_set, p.storage, {deleted_set});
    while (n > 0 && deleted <= most && !overdelete_step.empty()) {
        sets.clear(next_set);
        n = sets.run(overdelete_step, {next_set, deleted_set}, before, most + 1, recursion::small_step(n));
        deleted += n;
        sets.swap(delta_set, next_set);
    }
    overdeleted = deleted;
    if (deleted > most) return false;
    if (deleted > 0) spi::execute(fixpoint::delete_statement(p, deleted_set, true));  // at most `most` rows
    const auto t1 = std::chrono::steady_clock::now();
    // 2. rederive: what still has a derivation
    sets.clear(delta_set);
    sets.clear(gained_set);
    if (deleted > 0 && sets.run(fixpoint::rederive_query(p, stratum, deleted_set), {delta_set, gained_set}) > 0)
        spi::execute(fixpoint::insert_statement(p, delta_set));
    const auto t2 = std::chrono::steady_clock::now();
    // 3. insert: what the inserted rows derive, and what follows from it
    const std::string inserted = fixpoint::seed_query(p, stratum, changed_bases, changed_items, Change::Inserted,
                                                      added_set, p.storage, {p.storage}, rules.added);
    sets.clear(next_set);
    if (!inserted.empty() && sets.run(inserted, {next_set, delta_set, gained_set}) > 0)
        spi::execute(fixpoint::insert_statement(p, next_set));
    std::string steps[2];  // [by_lookup]
    while (sets.size(delta_set) > 0) {
        const bool by_lookup = !recursion::in_one_pass(sets.size(delta_set), size);
        std::string& step = steps[by_lookup];
        if (step.empty()) step = fixpoint::step_query(p, stratum, delta_set, p.storage, {p.storage}, by_lookup);
        if (step.empty()) break;
        sets.clear(next_set);
        if (sets.run(step, {next_set, gained_set}, InvalidSnapshot, 0, recursion::small_step(sets.size(delta_set))) > 0)
            spi::execute(fixpoint::insert_statement(p, next_set));
        sets.swap(delta_set, next_set);
    }
    const auto t3 = std::chrono::steady_clock::now();
    const double od_ms = milliseconds(t1 - t0), rederive_ms = milliseconds(t2 - t1), insert_ms = milliseconds(t3 - t2);
    call([&] {
        elog(DEBUG2, "ivm fixpoint: stratum %zu: over-deleted in %.1f ms, rederived in %.1f ms, inserted in %.1f ms",
             stratum, od_ms, rederive_ms, insert_ms);
    });
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

// How a stratum's change went, in the log (DEBUG1) and ivm.stats: the
// tuples DRed over-deleted (then rederived), or the stratum recomputed.
// ivm.stats counts deletions only: not a recompute for a change read
// through negation or aggregation, which an insert brings as well.
void report_stratum(const ViewRuntime& view, std::size_t stratum, bool through_joins, bool dred, uint64 overdeleted,
                    uint64 most) {
    const auto n = static_cast<unsigned long>(overdeleted);
    call([&] {
        if (dred && n == 0)
            elog(DEBUG1, "ivm fixpoint: stratum %zu: nothing over-deleted", stratum);
        else if (dred)
            elog(DEBUG1, "ivm fixpoint: stratum %zu: %lu over-deleted, rederived", stratum, n);
        else if (through_joins)
            elog(DEBUG1, "ivm fixpoint: stratum %zu: over-deletion past %lu tuples, recomputed", stratum,
                 static_cast<unsigned long>(most));
        else
            elog(DEBUG1, "ivm fixpoint: stratum %zu: a change read through negation or aggregation, recomputed",
                 stratum);
    });
    if (dred && overdeleted > 0)
        shared::record_overdeletion(view.entry.view_id, shared::Overdeletion::Rederived, static_cast<int64>(overdeleted));
    else if (through_joins && !dred)
        shared::record_overdeletion(view.entry.view_id, shared::Overdeletion::Recomputed, static_cast<int64>(overdeleted));
}

// Each stratum in turn, from what changed in its inputs (base tables,
// lower strata) and, in a redefinition, in its rules (`rules_of`; empty
// for a change): one that nothing reaches is left alone; one that reads a
// change through joins only (and meets no removed rule with a lower
// stratum's change) by DRed, the others recomputed.
void maintain_strata(const ViewRuntime& view, const Program& p, Oid storage, const std::vector<bool>& changed_bases,
                     Snapshot before, const std::function<StratumRules(std::size_t)>& rules_of, ProgramSets& sets) {
    sets.clear(removed_set);
    sets.clear(added_set);
    // (one limit for every stratum, from the table holding all items)
    const double size = estimated_rows(storage);
    const uint64 most = recursion::overdeletion_limit(recursion::Engine::Fixpoint, size);
    std::vector<bool> changed_items(p.items.size(), false);
    for (std::size_t s = 0; s < p.strata.size(); ++s) {
        const StratumRules rules = rules_of(s);
        const bool reached = fixpoint::reads_changed(p, s, changed_bases, changed_items, false);
        if (rules.removed.empty() && rules.added.empty() && !reached) continue;
        // A change read through negation or aggregation, one from below
        // meeting removed rules (which read the lower strata as they were),
        // or an over-deletion of a large part: the stratum is recomputed.
        const bool through_joins =
            !reached || (rules.removed.empty() && fixpoint::reads_changed(p, s, changed_bases, changed_items, true));
        bool changed = false;
        uint64 overdeleted = 0;
        const bool dred = through_joins && dred_stratum(p, s, changed_bases, changed_items, before, size, most, sets,
                                                        changed, overdeleted, rules);
        if (!dred) changed = recompute_stratum(p, s, sets);
        report_stratum(view, s, through_joins, dred, overdeleted, most);
        if (changed)
            for (std::size_t i : p.strata[s]) changed_items[i] = true;
    }
}

}  // namespace

MaintenanceResult apply_program_changes(ViewRuntime& view, const std::vector<BaseChange>& changes, Snapshot before) {
    const Program& p = *view.analyzed.program;
    const Oid storage = view.entry.recursive_storage;
    std::vector<bool> changed_bases(p.bases.size(), false);
    for (std::size_t b = 0; b < changes.size(); ++b)
        changed_bases[b] = changes[b].new_rows != nullptr || changes[b].old_rows != nullptr;
    bool missed = false;
    lock_for_maintenance(view, storage, std::nullopt, before, &missed);
    register_changes(view, changes, view.analyzed.recursive_base_oids);
    Elevated e = enter(view, storage);
    ProgramSets sets(storage);
    if (missed)
        recompute_program(p, sets);
    else
        maintain_strata(view, p, storage, changed_bases, before, [](std::size_t) { return StratumRules{}; }, sets);
    return finish_program(sets, e);
}

MaintenanceResult redefine_program(ViewRuntime& view, const Program& old_program,
                                   const RuleDifference& difference) {
    const Program& p = *view.analyzed.program;
    const Oid storage = view.entry.recursive_storage;
    Program old = old_program;
    old.storage = p.storage;  // (the table was renamed)
    lock_for_maintenance(view, storage);
    Elevated e = enter(view, storage);
    ProgramSets sets(storage);
    call([&] {
        elog(DEBUG1, "ivm fixpoint: redefined by %zu rules removed and %zu added", difference.removed.size(),
             difference.added.size());
    });
    maintain_strata(view, p, storage, std::vector<bool>(p.bases.size(), false), InvalidSnapshot,
                    [&](std::size_t s) {
                        return StratumRules{&old, fixpoint::rules_of(old, s, difference.removed),
                                            fixpoint::rules_of(p, s, difference.added)};
                    },
                    sets);
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

}  // namespace ivm::pg
