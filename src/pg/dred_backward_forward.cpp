#include "pg/dred_backward_forward.hpp"

#include "core/backward_forward.hpp"
#include "core/error.hpp"
#include "core/recursion_policy.hpp"
#include "pg/boundary.hpp"
#include "pg/execution.hpp"
#include "pg/spi.hpp"

#include <chrono>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace ivm::pg {

namespace {

int mode = static_cast<int>(BackwardForward::Auto);

const config_enum_entry modes[] = {
    {"off", static_cast<int>(BackwardForward::Off), false},
    {"auto", static_cast<int>(BackwardForward::Auto), false},
    {"on", static_cast<int>(BackwardForward::On), false},
    {nullptr, 0, false},
};

}  // namespace

BackwardForward backward_forward_mode() { return static_cast<BackwardForward>(mode); }

void define_backward_forward_setting() {
    DefineCustomEnumVariable("ivm.backward_forward",
                             "Whether a deletion's over-deleted tuples in a recursive view are checked one by one "
                             "for another derivation instead of all rederived.",
                             "auto: where many are over-deleted, within a budget of lookups; on: always, without a "
                             "budget; off: never.",
                             &mode, static_cast<int>(BackwardForward::Auto), modes, PGC_USERSET, 0, nullptr, nullptr,
                             nullptr);
}

namespace {

using backward_forward::TupleId;

// A stored tuple of R: where it is, and its columns as a lookup's
// parameters (palloc'd in the run's memory context).
struct StoredTuple {
    ItemPointerData tid;
    int64 key;
    Datum* values;
    char* nulls;  // SPI's: 'n' for NULL, ' ' otherwise
    // Where deletions factor (dred::deletions_factor): hashes of its P and
    // of its Q columns.
    uint64 passed;
    uint64 rest;
};

// The rows of a lookup's result, (__ivm_tid, __ivm_key, R's columns), copied;
// for a lookup of many tuples' premises, led by the place of the tuple each
// is of (`place`, from 1).
struct Found {
    StoredTuple* rows = nullptr;
    int64* place = nullptr;
    uint64 count = 0;
};

uint64 tid_number(const ItemPointerData& tid) {
    return (static_cast<uint64>(ItemPointerGetBlockNumberNoCheck(&tid)) << 16) | ItemPointerGetOffsetNumberNoCheck(&tid);
}

// Hashes of some of R's columns by each type's extended hash function (as
// ivm.key_hash hashes them), so that equal values hash alike whatever
// query made them.  Plain C data, filled and used inside call().
struct ColumnHasher {
    FmgrInfo* functions = nullptr;
    Oid* collations = nullptr;
    bool* passed = nullptr;  // [column]: one of P (else of Q)
    int columns = 0;

    // The hashes of P's and of Q's values, NULL as 0.  Raw PostgreSQL calls.
    void hash(const Datum* values, const char* nulls, uint64* p, uint64* q) const {
        *p = 0;
        *q = 0;
        for (int a = 0; a < columns; ++a) {
            uint64 element = 0;
            if (nulls[a] != 'n')
                element = DatumGetUInt64(FunctionCall2Coll(&functions[a], collations[a], values[a], Int64GetDatum(0)));
            uint64* into = passed[a] ? p : q;
            *into = (*into << 5) - *into + element;
        }
    }
};

// Set up for `storage`'s first `columns` columns (R's), `passed` saying
// which pass through.  Raw PostgreSQL calls.
void prepare_hasher(ColumnHasher& h, Oid storage, int columns, const bool* passed) {
    h.columns = columns;
    h.functions = static_cast<FmgrInfo*>(palloc0(sizeof(FmgrInfo) * (columns + 1)));
    h.collations = static_cast<Oid*>(palloc0(sizeof(Oid) * (columns + 1)));
    h.passed = static_cast<bool*>(palloc0(sizeof(bool) * (columns + 1)));
    for (int a = 0; a < columns; ++a) {
        Oid type = InvalidOid;
        int32 typmod = -1;
        get_atttypetypmodcoll(storage, static_cast<AttrNumber>(a + 1), &type, &typmod, &h.collations[a]);
        TypeCacheEntry* entry = lookup_type_cache(type, TYPECACHE_HASH_EXTENDED_PROC_FINFO);
        if (!OidIsValid(entry->hash_extended_proc_finfo.fn_oid))
            elog(ERROR, "ivm: no extended hash function for type %s", format_type_be(type));
        fmgr_info_copy(&h.functions[a], &entry->hash_extended_proc_finfo, CurrentMemoryContext);
        h.passed[a] = passed[a];
    }
}

// The hashes of the Q values a reach query's rows hold (its columns R's,
// P's NULL), in an array of `memory` grown as they come.  Raw PostgreSQL
// calls.
struct ReachedHashes {
    const ColumnHasher* hasher;
    int columns;
    MemoryContext memory;
    TupleDesc desc = nullptr;  // the rows' (set by the first fetched)
    uint64* values = nullptr;
    uint64 count = 0;
    uint64 room = 64;
    Datum* row_values = nullptr;
    char* nulls = nullptr;

    void begin() {
        values = static_cast<uint64*>(MemoryContextAlloc(memory, sizeof(uint64) * room));
        row_values = static_cast<Datum*>(palloc(sizeof(Datum) * (columns + 1)));
        nulls = static_cast<char*>(palloc(columns + 1));
    }
    void add(HeapTuple row) {
        for (int a = 0; a < columns; ++a) {
            bool isnull = false;
            row_values[a] = heap_getattr(row, a + 1, desc, &isnull);
            nulls[a] = isnull ? 'n' : ' ';
        }
        if (count == room) {
            room *= 2;
            values = static_cast<uint64*>(repalloc(values, sizeof(uint64) * room));
        }
        uint64 ignored = 0;
        hasher->hash(row_values, nulls, &ignored, &values[count++]);
    }
    void end() {
        pfree(row_values);
        pfree(nulls);
    }
};

// The lookups of backward/forward as kept plans over R's storage and the
// base tables as they are now; tuples numbered as first met.
class StoredDerivations final : public backward_forward::Derivations {
public:
    // `now`: the snapshot the lookups read the tables with, after the change.
    // `hasher`: where deletions factor, to hash each tuple's P and Q.
    // `types`: R's column types, then their array types (the lookups of
    // many tuples take an array per column).
    StoredDerivations(ViewRuntime& view, const RecursiveRelation& rel, Oid* types, MemoryContext memory, Snapshot now,
                      const ColumnHasher* hasher)
        : view_(view), rel_(rel), columns_(static_cast<int>(rel.columns.size())), types_(types), memory_(memory),
          now_(now), hasher_(hasher) {
        for (int a = 0; a < columns_; ++a) arrays_ = arrays_ && OidIsValid(types_[columns_ + a]);
    }

    std::vector<TupleId> seeds(const std::vector<bool>& changed, dred::OldTables old, Snapshot before,
                               const std::string& key) {
        const bool with_deleted = old == dred::OldTables::WithDeleted;
        SPIPlanPtr plan = kept_plan(view_, "bf seeds " + std::string(with_deleted ? "with deleted " : "") + key,
                                    [&] { return dred::seeds_query(rel_, changed, old); });
        return numbered(run(plan, nullptr, nullptr, before != InvalidSnapshot ? before : now_));
    }

    // Of the over-deleted tuples' keys (a tuple outside them stays; one
    // sharing a key with one of them is only checked).
    void know_overdeleted(std::unordered_set<int64> keys) { overdeleted_ = std::move(keys); }
    // Where deletions factor: the hashes of the seeds' P values and of the
    // Q values their Q reach (a tuple outside both stays; a collision only
    // has a tuple checked).
    void know_bound(std::unordered_set<uint64> passed, std::unordered_set<uint64> reached) {
        bounded_ = true;
        passed_ = std::move(passed);
        reached_ = std::move(reached);
    }

    bool unaffected(TupleId t) override {
        const StoredTuple& s = tuples_[t];
        if (bounded_) return passed_.count(s.passed) == 0 || reached_.count(s.rest) == 0;
        return overdeleted_.count(s.key) == 0;
    }

    backward_forward::Premises premises(TupleId t) override {
        auto known = prefetched_.find(t);
        if (known != prefetched_.end()) {
            backward_forward::Premises out = std::move(known->second);
            prefetched_.erase(known);
            return out;
        }
        SPIPlanPtr plan = kept_plan(view_, "bf premises", [&] { return dred::premises_query(rel_); }, columns_, types_,
                                     CURSOR_OPT_GENERIC_PLAN);
        const Found found = run(plan, tuples_[t].values, tuples_[t].nulls, now_);
        std::vector<uint64> all(found.count);
        for (uint64 r = 0; r < found.count; ++r) all[r] = r;
        return premises_of(found, all);
    }

    // Many tuples' premises in one lookup, kept until premises() asks.
    void prefetch_premises(const std::vector<TupleId>& ts) override {
        std::vector<TupleId> wanted;
        for (TupleId t : ts)
            if (prefetched_.count(t) == 0) wanted.push_back(t);
        if (wanted.size() < 2 || !arrays_) return;
        SPIPlanPtr plan = many_plan("bf premises of many", [&] { return dred::premises_batch_query(rel_); });
        if (plan == nullptr) return;
        const Found found = run_many(plan, wanted, true);
        std::vector<std::vector<uint64>> rows(wanted.size());  // each tuple's rows (a tuple without any: no premises)
        for (uint64 r = 0; r < found.count; ++r) {
            const int64 place = found.place[r];
            if (place < 1 || place > static_cast<int64>(wanted.size()))
                throw Error(sqlstate::internal_error, "backward/forward: a premise of no tuple asked for");
            rows[place - 1].push_back(r);
        }
        for (std::size_t i = 0; i < wanted.size(); ++i) prefetched_[wanted[i]] = premises_of(found, rows[i]);
    }

    std::vector<TupleId> consequences(TupleId t) override {
        SPIPlanPtr plan = kept_plan(view_, "bf consequences", [&] { return dred::consequences_query(rel_); }, columns_,
                                     types_, CURSOR_OPT_GENERIC_PLAN);
        return numbered(run(plan, tuples_[t].values, tuples_[t].nulls, now_));
    }

    std::vector<TupleId> consequences_of(const std::vector<TupleId>& ts) override {
        SPIPlanPtr plan = ts.size() < 2 || !arrays_ ? nullptr : many_plan("bf consequences of many", [&] {
            return dred::consequences_batch_query(rel_);
        });
        if (plan == nullptr) return Derivations::consequences_of(ts);
        return numbered(run_many(plan, ts, false));
    }

    const StoredTuple& tuple(TupleId t) const { return tuples_[t]; }

private:
    // A lookup of many tuples, planned once without hash or merge joins
    // (inside the lateral lookup they would hash a table for every tuple),
    // or null where it cannot be (then they are looked up one by one).
    SPIPlanPtr many_plan(const std::string& key, const std::function<std::string()>& generate) {
        return kept_lookups_plan(view_, key, generate, columns_, types_ + columns_, CURSOR_OPT_GENERIC_PLAN, true);
    }

    // Runs a lookup of many tuples: their columns as one array each (the
    // arrays made in the lookups' memory, freed with it).  `numbered`: its
    // rows lead with the place of the tuple each is of.
    Found run_many(SPIPlanPtr plan, const std::vector<TupleId>& ts, bool numbered) {
        const int columns = columns_;
        const int n = static_cast<int>(ts.size());
        Datum* arrays = nullptr;
        char* array_nulls = nullptr;
        const StoredTuple* tuples = tuples_.data();
        const TupleId* ids = ts.data();
        const Oid* types = types_;
        MemoryContext memory = memory_;
        call([&] {
            MemoryContext caller = MemoryContextSwitchTo(memory);
            arrays = static_cast<Datum*>(palloc(sizeof(Datum) * (columns + 1)));
            array_nulls = static_cast<char*>(palloc(columns + 1));
            Datum* elements = static_cast<Datum*>(palloc(sizeof(Datum) * (n + 1)));
            bool* element_nulls = static_cast<bool*>(palloc(sizeof(bool) * (n + 1)));
            for (int a = 0; a < columns; ++a) {
                for (int i = 0; i < n; ++i) {
                    elements[i] = tuples[ids[i]].values[a];
                    element_nulls[i] = tuples[ids[i]].nulls[a] == 'n';
                }
                int16 length;
                bool by_value;
                char align;
                get_typlenbyvalalign(types[a], &length, &by_value, &align);
                int dims[1] = {n};
                int lower[1] = {1};
                arrays[a] = PointerGetDatum(
                    construct_md_array(elements, element_nulls, 1, dims, lower, types[a], length, by_value, align));
                array_nulls[a] = ' ';
            }
            MemoryContextSwitchTo(caller);
        });
        return run(plan, arrays, array_nulls, now_, numbered ? 1 : 0);
    }

    // Runs a lookup (with `values` as its parameters) and copies its rows,
    // which start after `lead` columns (the place of the tuple, for a
    // lookup of many).
    Found run(SPIPlanPtr plan, Datum* values, const char* nulls, Snapshot snapshot, int lead = 0) {
        Found found;
        const int columns = columns_;
        MemoryContext memory = memory_;
        const ColumnHasher* hasher = hasher_;
        call([&] {
            const int rc = SPI_execute_snapshot(plan, values, nulls, snapshot, InvalidSnapshot, true, false, 0);
            if (rc != SPI_OK_SELECT) elog(ERROR, "ivm: a backward/forward lookup failed: %s", SPI_result_code_string(rc));
            TupleDesc desc = SPI_tuptable->tupdesc;
            MemoryContext caller = MemoryContextSwitchTo(memory);
            found.count = SPI_processed;
            found.rows = static_cast<StoredTuple*>(palloc(sizeof(StoredTuple) * (found.count + 1)));
            if (lead > 0) found.place = static_cast<int64*>(palloc(sizeof(int64) * (found.count + 1)));
            for (uint64 i = 0; i < found.count; ++i) {
                HeapTuple row = SPI_tuptable->vals[i];
                StoredTuple& out = found.rows[i];
                bool isnull = false;
                if (lead > 0) found.place[i] = DatumGetInt64(SPI_getbinval(row, desc, 1, &isnull));
                const Datum tid = SPI_getbinval(row, desc, lead + 1, &isnull);
                if (isnull)
                    ItemPointerSetInvalid(&out.tid);  // (premises_query's row for a root)
                else
                    out.tid = *reinterpret_cast<ItemPointer>(DatumGetPointer(tid));
                const Datum key = SPI_getbinval(row, desc, lead + 2, &isnull);
                out.key = isnull ? 0 : DatumGetInt64(key);
                out.values = static_cast<Datum*>(palloc(sizeof(Datum) * (columns + 1)));
                out.nulls = static_cast<char*>(palloc(columns + 1));
                for (int a = 0; a < columns; ++a) {
                    const Form_pg_attribute att = TupleDescAttr(desc, lead + a + 2);
                    const Datum v = SPI_getbinval(row, desc, lead + a + 3, &isnull);
                    out.values[a] = isnull ? static_cast<Datum>(0) : datumCopy(v, att->attbyval, att->attlen);
                    out.nulls[a] = isnull ? 'n' : ' ';
                }
                out.passed = out.rest = 0;
                if (hasher != nullptr && ItemPointerIsValid(&out.tid)) hasher->hash(out.values, out.nulls, &out.passed, &out.rest);
            }
            MemoryContextSwitchTo(caller);
            SPI_freetuptable(SPI_tuptable);
        });
        return found;
    }

    // A stored tuple's number: the one it got when first met.
    TupleId number(const StoredTuple& row) {
        auto [it, added] = ids_.emplace(tid_number(row.tid), static_cast<TupleId>(tuples_.size()));
        if (added) tuples_.push_back(row);
        return it->second;
    }

    std::vector<TupleId> numbered(const Found& found) {
        std::vector<TupleId> ids;
        ids.reserve(found.count);
        for (uint64 i = 0; i < found.count; ++i) ids.push_back(number(found.rows[i]));
        return ids;
    }

    // A tuple's premises from `rows` of a lookup: a rule without R derives
    // it (a row without a tid), or the stored tuples the rows are.
    backward_forward::Premises premises_of(const Found& found, const std::vector<uint64>& rows) {
        backward_forward::Premises out;
        for (uint64 r : rows) out.root |= !ItemPointerIsValid(&found.rows[r].tid);
        if (!out.root)
            for (uint64 r : rows) out.tuples.push_back(number(found.rows[r]));
        return out;
    }

    ViewRuntime& view_;
    const RecursiveRelation& rel_;
    int columns_;
    Oid* types_;
    MemoryContext memory_;
    Snapshot now_;
    const ColumnHasher* hasher_;
    bool arrays_ = true;  // every column's type has an array type: many tuples are looked up at once
    std::unordered_set<int64> overdeleted_;
    bool bounded_ = false;
    std::unordered_set<uint64> passed_;
    std::unordered_set<uint64> reached_;
    std::unordered_map<uint64, TupleId> ids_;
    std::vector<StoredTuple> tuples_;
    std::unordered_map<TupleId, backward_forward::Premises> prefetched_;
};

// What a run of backward/forward needs from PostgreSQL: R's column types
// (the lookups' parameters), a memory context for the tuples it meets, and
// one snapshot for every lookup, taken after the change (the lookups run
// read-only with it: no snapshot or command each).
struct Lookups {
    Oid* types = nullptr;
    MemoryContext memory = nullptr;
    Snapshot now = nullptr;
    ColumnHasher hasher;
};

Lookups begin_lookups(const RecursiveRelation& rel, Oid storage, bool factored) {
    const int columns = static_cast<int>(rel.columns.size());
    bool* passed = nullptr;
    if (factored) {
        passed = call([&] { return static_cast<bool*>(palloc0(sizeof(bool) * (columns + 1))); });
        for (std::size_t c : dred::passed_columns(rel)) passed[c] = true;
    }
    Lookups l;
    call([&] {
        // R's columns are the storage's first (dred::storage_ddl).
        l.types = static_cast<Oid*>(palloc(sizeof(Oid) * (2 * columns + 1)));
        for (int a = 0; a < columns; ++a) {
            l.types[a] = get_atttype(storage, static_cast<AttrNumber>(a + 1));
            l.types[columns + a] = get_array_type(l.types[a]);  // (InvalidOid: none)
        }
        l.memory = AllocSetContextCreate(CurrentMemoryContext, "ivm backward/forward", ALLOCSET_DEFAULT_SIZES);
        if (passed != nullptr) {
            MemoryContext caller = MemoryContextSwitchTo(l.memory);
            prepare_hasher(l.hasher, storage, columns, passed);
            MemoryContextSwitchTo(caller);
        }
        CommandCounterIncrement();
        l.now = RegisterSnapshot(GetTransactionSnapshot());
    });
    return l;
}

void end_lookups(Lookups& l) {
    call([&] {
        UnregisterSnapshot(l.now);
        MemoryContextDelete(l.memory);
    });
}

// Runs backward/forward from `seeds`; DEBUG2 says how it went.
backward_forward::Outcome run_logged(StoredDerivations& derivations, const std::vector<TupleId>& seeds,
                                     const backward_forward::Budget& budget, double setup_ms) {
    const auto started = std::chrono::steady_clock::now();
    backward_forward::Outcome outcome = backward_forward::run(derivations, seeds, budget);
    const double ms = milliseconds(std::chrono::steady_clock::now() - started);
    const uint64 nseeds = seeds.size(), checked = outcome.checked, lookups = outcome.lookups;
    const uint64 ngone = outcome.finished ? outcome.gone.size() : outcome.found_gone;
    const char* stopped = "";
    switch (outcome.stopped) {
        case backward_forward::Stop::None: break;
        case backward_forward::Stop::Lookups: stopped = " (stopped: out of lookups)"; break;
        case backward_forward::Stop::Time: stopped = " (stopped: out of time)"; break;
        case backward_forward::Stop::MostGo: stopped = " (stopped: most went)"; break;
    }
    call([&] {
        elog(DEBUG2, "ivm backward/forward: %lu seeds, %lu checked, %lu lookups, %lu gone%s, %.3f ms (seeds and bound %.3f ms)",
             nseeds, checked, lookups, ngone, stopped, ms, setup_ms);
    });
    return outcome;
}

// The tuples that go, read again whole (with their key) as the set the
// insert and apply steps read, registered as dred::deleted_relation (in
// place of the over-deleted tuples, if `replacing`); returns how many.
uint64 keep_gone(ViewRuntime& view, const RecursiveRelation& rel, Oid storage, const StoredDerivations& derivations,
                 const std::vector<TupleId>& gone_ids, bool replacing) {
    const std::size_t gone = gone_ids.size();
    ItemPointerData* tids = call([&] { return static_cast<ItemPointerData*>(palloc(sizeof(ItemPointerData) * (gone + 1))); });
    for (std::size_t i = 0; i < gone; ++i) tids[i] = derivations.tuple(gone_ids[i]).tid;
    Oid tid_array = TIDARRAYOID;
    SPIPlanPtr plan = kept_plan(view, "bf gone", [&] { return dred::stored_at_query(rel); }, 1, &tid_array);
    Tuplestorestate* store = new_kept_set();
    uint64 rows = 0;
    call([&] {
        Datum* elements = static_cast<Datum*>(palloc(sizeof(Datum) * (gone + 1)));
        for (std::size_t i = 0; i < gone; ++i) elements[i] = PointerGetDatum(&tids[i]);
        Datum array = PointerGetDatum(construct_array(elements, static_cast<int>(gone), TIDOID, sizeof(ItemPointerData), false, TYPALIGN_SHORT));
        if (SPI_execute_plan(plan, &array, nullptr, false, 0) != SPI_OK_SELECT)
            elog(ERROR, "ivm: backward/forward could not read the tuples that go");
        rows = SPI_processed;
        for (uint64 i = 0; i < rows; ++i) tuplestore_puttuple(store, SPI_tuptable->vals[i]);
        SPI_freetuptable(SPI_tuptable);
    });
    if (rows != gone) throw Error(sqlstate::internal_error, "backward/forward lost a stored tuple");
    if (replacing) call([] { SPI_unregister_relation(dred::deleted_relation); });
    register_set(dred::deleted_relation, storage, store, static_cast<double>(rows));
    return rows;
}

}  // namespace

std::optional<uint64> backward_forward_deletions(ViewRuntime& view, const RecursiveRelation& rel, Oid storage,
                                                 const std::vector<bool>& changed, dred::OldTables old, Snapshot before,
                                                 const std::string& key, const backward_forward::Budget& budget) {
    Lookups l = begin_lookups(rel, storage, false);
    const auto prepared = std::chrono::steady_clock::now();
    StoredDerivations derivations(view, rel, l.types, l.memory, l.now, nullptr);
    // The over-deleted tuples' keys.
    int64* keys = nullptr;
    uint64 nkeys = 0;
    const std::string read_keys = std::string("SELECT __ivm_key FROM ") + dred::deleted_relation;
    const char* text = read_keys.c_str();
    MemoryContext memory = l.memory;
    call([&] {
        if (SPI_execute(text, true, 0) != SPI_OK_SELECT) elog(ERROR, "ivm: could not read the over-deleted tuples");
        nkeys = SPI_processed;
        keys = static_cast<int64*>(MemoryContextAlloc(memory, sizeof(int64) * (nkeys + 1)));
        for (uint64 i = 0; i < nkeys; ++i) {
            bool isnull = false;
            keys[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
        }
        SPI_freetuptable(SPI_tuptable);
    });
    derivations.know_overdeleted(std::unordered_set<int64>(keys, keys + nkeys));
    const std::vector<TupleId> seeds = derivations.seeds(changed, old, before, key);
    const double setup_ms = milliseconds(std::chrono::steady_clock::now() - prepared);
    const backward_forward::Outcome outcome = run_logged(derivations, seeds, budget, setup_ms);
    std::optional<uint64> rows;
    if (outcome.finished) rows = keep_gone(view, rel, storage, derivations, outcome.gone, true);
    end_lookups(l);
    return rows;
}

BoundedOutcome backward_forward_bounded(ViewRuntime& view, const RecursiveRelation& rel, Oid storage,
                                        const std::vector<bool>& changed, Snapshot before, const std::string& key,
                                        bool keep_plan, const std::function<std::optional<backward_forward::Budget>(uint64)>& budget_for) {
    BoundedOutcome result;
    Lookups l = begin_lookups(rel, storage, true);
    const auto prepared = std::chrono::steady_clock::now();
    StoredDerivations derivations(view, rel, l.types, l.memory, l.now, &l.hasher);
    const std::vector<TupleId> seeds = derivations.seeds(changed, dred::OldTables::AsOfSnapshot, before, key);
    std::unordered_set<uint64> passed;
    for (TupleId s : seeds) passed.insert(derivations.tuple(s).passed);
    // The Q values the seeds' Q reach, as of before the statement: while
    // they are few, planned for lookups first, as DRed's recursive steps are
    // (W3's DAG: hashing the edges took three times the few lookups).
    auto generate = [&] { return dred::reach_query(rel, changed); };
    ReachedHashes reached_hashes{&l.hasher, static_cast<int>(rel.columns.size()), l.memory};
    call([&] { reached_hashes.begin(); });
    fetch_lookups_first(
        keep_plan ? kept_lookups_plan(view, "bf reach lookups " + key, generate) : nullptr,
        [&] {
            if (keep_plan) return RunPlan{kept_plan(view, "bf reach " + key, generate), false};
            const std::string reach = generate();
            const char* text = reach.c_str();
            return RunPlan{call([&] { return spi::prepare(text); }), true};
        },
        before, 0, [&](HeapTuple row) { reached_hashes.add(row); }, [&] { reached_hashes.count = 0; },
        &reached_hashes.desc);
    call([&] { reached_hashes.end(); });
    const uint64 nreached = reached_hashes.count;
    const uint64* hashes = reached_hashes.values;
    result.bound = static_cast<uint64>(passed.size()) * nreached;
    std::unordered_set<uint64> reached(hashes, hashes + nreached);
    derivations.know_bound(std::move(passed), std::move(reached));
    const std::optional<backward_forward::Budget> budget = budget_for(result.bound);
    if (budget) {
        result.tried = true;
        const double setup_ms = milliseconds(std::chrono::steady_clock::now() - prepared);
        const backward_forward::Outcome outcome = run_logged(derivations, seeds, *budget, setup_ms);
        if (outcome.finished) result.gone = keep_gone(view, rel, storage, derivations, outcome.gone, false);
    }
    end_lookups(l);
    return result;
}

}  // namespace ivm::pg
