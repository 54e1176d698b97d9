#include "pg/dred_backward_forward.hpp"

#include "core/backward_forward.hpp"
#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/execution.hpp"
#include "pg/spi.hpp"

#include <chrono>
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
};

// The rows of a lookup's result, (__ivm_tid, __ivm_key, R's columns), copied.
struct Found {
    StoredTuple* rows = nullptr;
    uint64 count = 0;
};

uint64 tid_number(const ItemPointerData& tid) {
    return (static_cast<uint64>(ItemPointerGetBlockNumberNoCheck(&tid)) << 16) | ItemPointerGetOffsetNumberNoCheck(&tid);
}

// The lookups of backward/forward as kept plans over R's storage and the
// base tables as they are now; tuples numbered as first met.
class StoredDerivations final : public backward_forward::Derivations {
public:
    // `now`: the snapshot the lookups read the tables with, after the change.
    StoredDerivations(ViewRuntime& view, const RecursiveRelation& rel, Oid* types, MemoryContext memory, Snapshot now)
        : view_(view), rel_(rel), columns_(static_cast<int>(rel.columns.size())), types_(types), memory_(memory), now_(now) {}

    std::vector<TupleId> seeds(const std::vector<bool>& changed, dred::OldTables old, Snapshot before,
                               const std::string& key) {
        const bool with_deleted = old == dred::OldTables::WithDeleted;
        SPIPlanPtr plan = kept_plan(view_, "bf seeds " + std::string(with_deleted ? "with deleted " : "") + key,
                                    [&] { return dred::seeds_query(rel_, changed, old); });
        return numbered(run(plan, nullptr, before != InvalidSnapshot ? before : now_));
    }

    // Of the over-deleted tuples' keys (a tuple outside them stays; one
    // sharing a key with one of them is only checked).
    void know_overdeleted(std::unordered_set<int64> keys) { overdeleted_ = std::move(keys); }

    bool unaffected(TupleId t) override { return overdeleted_.count(tuples_[t].key) == 0; }

    backward_forward::Premises premises(TupleId t) override {
        SPIPlanPtr plan = kept_plan(view_, "bf premises", [&] { return dred::premises_query(rel_); }, columns_, types_);
        const Found found = run(plan, &tuples_[t], now_);
        backward_forward::Premises out;
        for (uint64 i = 0; i < found.count; ++i) out.root |= !ItemPointerIsValid(&found.rows[i].tid);
        if (!out.root) out.tuples = numbered(found);
        return out;
    }

    std::vector<TupleId> consequences(TupleId t) override {
        SPIPlanPtr plan = kept_plan(view_, "bf consequences", [&] { return dred::consequences_query(rel_); }, columns_, types_);
        return numbered(run(plan, &tuples_[t], now_));
    }

    const ItemPointerData& tid(TupleId t) const { return tuples_[t].tid; }

private:
    // Runs a lookup (with `given`'s columns as parameters) and copies its rows.
    Found run(SPIPlanPtr plan, const StoredTuple* given, Snapshot snapshot) {
        Found found;
        const int columns = columns_;
        MemoryContext memory = memory_;
        call([&] {
            Datum* values = given != nullptr ? given->values : nullptr;
            const char* nulls = given != nullptr ? given->nulls : nullptr;
            const int rc = SPI_execute_snapshot(plan, values, nulls, snapshot, InvalidSnapshot, true, false, 0);
            if (rc != SPI_OK_SELECT) elog(ERROR, "ivm: a backward/forward lookup failed: %s", SPI_result_code_string(rc));
            TupleDesc desc = SPI_tuptable->tupdesc;
            MemoryContext caller = MemoryContextSwitchTo(memory);
            found.count = SPI_processed;
            found.rows = static_cast<StoredTuple*>(palloc(sizeof(StoredTuple) * (found.count + 1)));
            for (uint64 i = 0; i < found.count; ++i) {
                HeapTuple row = SPI_tuptable->vals[i];
                StoredTuple& out = found.rows[i];
                bool isnull = false;
                const Datum tid = SPI_getbinval(row, desc, 1, &isnull);
                if (isnull)
                    ItemPointerSetInvalid(&out.tid);  // (premises_query's row for a root)
                else
                    out.tid = *reinterpret_cast<ItemPointer>(DatumGetPointer(tid));
                const Datum key = SPI_getbinval(row, desc, 2, &isnull);
                out.key = isnull ? 0 : DatumGetInt64(key);
                out.values = static_cast<Datum*>(palloc(sizeof(Datum) * (columns + 1)));
                out.nulls = static_cast<char*>(palloc(columns + 1));
                for (int a = 0; a < columns; ++a) {
                    const Form_pg_attribute att = TupleDescAttr(desc, a + 2);
                    const Datum v = SPI_getbinval(row, desc, a + 3, &isnull);
                    out.values[a] = isnull ? static_cast<Datum>(0) : datumCopy(v, att->attbyval, att->attlen);
                    out.nulls[a] = isnull ? 'n' : ' ';
                }
            }
            MemoryContextSwitchTo(caller);
            SPI_freetuptable(SPI_tuptable);
        });
        return found;
    }

    std::vector<TupleId> numbered(const Found& found) {
        std::vector<TupleId> ids;
        ids.reserve(found.count);
        for (uint64 i = 0; i < found.count; ++i) {
            auto [it, added] = ids_.emplace(tid_number(found.rows[i].tid), static_cast<TupleId>(tuples_.size()));
            if (added) tuples_.push_back(found.rows[i]);
            ids.push_back(it->second);
        }
        return ids;
    }

    ViewRuntime& view_;
    const RecursiveRelation& rel_;
    int columns_;
    Oid* types_;
    MemoryContext memory_;
    Snapshot now_;
    std::unordered_set<int64> overdeleted_;
    std::unordered_map<uint64, TupleId> ids_;
    std::vector<StoredTuple> tuples_;
};

}  // namespace

std::optional<uint64> backward_forward_deletions(ViewRuntime& view, const RecursiveRelation& rel, Oid storage,
                                                 const std::vector<bool>& changed, dred::OldTables old, Snapshot before,
                                                 const std::string& key, const backward_forward::Budget& budget) {
    const int columns = static_cast<int>(rel.columns.size());
    // R's columns are the storage's first (dred::storage_ddl).
    Oid* types = nullptr;
    MemoryContext memory = call([&] {
        types = static_cast<Oid*>(palloc(sizeof(Oid) * (columns + 1)));
        for (int a = 0; a < columns; ++a) types[a] = get_atttype(storage, static_cast<AttrNumber>(a + 1));
        return AllocSetContextCreate(CurrentMemoryContext, "ivm backward/forward", ALLOCSET_DEFAULT_SIZES);
    });
    // One snapshot for every lookup, taken after the change (and the
    // lookups run read-only with it: no snapshot or command each).
    Snapshot now = call([] {
        CommandCounterIncrement();
        return RegisterSnapshot(GetTransactionSnapshot());
    });
    const auto prepared = std::chrono::steady_clock::now();
    StoredDerivations derivations(view, rel, types, memory, now);
    // The over-deleted tuples' keys.
    int64* keys = nullptr;
    uint64 nkeys = 0;
    const std::string read_keys = std::string("SELECT __ivm_key FROM ") + dred::deleted_relation;
    const char* text = read_keys.c_str();
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
    const auto started = std::chrono::steady_clock::now();
    const double setup_ms = milliseconds(started - prepared);
    const backward_forward::Outcome outcome = backward_forward::run(derivations, seeds, budget);
    const double ms = milliseconds(std::chrono::steady_clock::now() - started);
    {
        const uint64 nseeds = seeds.size(), checked = outcome.checked, lookups = outcome.lookups, ngone = outcome.gone.size();
        const bool finished = outcome.finished;
        call([&] {
            elog(DEBUG2, "ivm backward/forward: %lu seeds, %lu checked, %lu lookups, %lu gone%s, %.3f ms (seeds and keys %.3f ms)",
                 nseeds, checked, lookups, ngone, finished ? "" : " (stopped)", ms, setup_ms);
        });
    }
    call([&] { UnregisterSnapshot(now); });
    if (!outcome.finished) {
        call([&] { MemoryContextDelete(memory); });
        return std::nullopt;
    }
    // The tuples that go, read again whole (with their key) as the set the
    // insert and apply steps read.
    const std::size_t gone = outcome.gone.size();
    ItemPointerData* tids = call([&] { return static_cast<ItemPointerData*>(palloc(sizeof(ItemPointerData) * (gone + 1))); });
    for (std::size_t i = 0; i < gone; ++i) tids[i] = derivations.tid(outcome.gone[i]);
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
        MemoryContextDelete(memory);
    });
    if (rows != gone) throw Error(sqlstate::internal_error, "backward/forward lost a stored tuple");
    call([] { SPI_unregister_relation(dred::deleted_relation); });
    register_set(dred::deleted_relation, storage, store, static_cast<double>(rows));
    return rows;
}

}  // namespace ivm::pg
