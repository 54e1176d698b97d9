#include "pg/view_locks.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/execution.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace ivm::pg::view_locks {
namespace {

// objsubid of ivm's locks in pg_locks (user advisory locks use 1 and 2)
constexpr uint16 writers_lock = 18774;  // 'IV'
constexpr uint16 key_lock = 18775;

// How this transaction has written each view so far.
struct Held {
    std::optional<std::size_t> shared_base;  // by row, as a writer of this base table
    bool alone = false;
    bool keys = false;  // holds row key locks
};
std::map<int32, Held> held;
std::size_t keys_taken = 0;  // key locks this transaction holds
// Views this session writes alone (see lock_writers).
std::set<int32> alone_from_now;

LOCKTAG tag(int32 view_id, uint32 object, uint16 kind) {
    LOCKTAG t;
    SET_LOCKTAG_ADVISORY(t, MyDatabaseId, static_cast<uint32>(view_id), object, kind);
    return t;
}

// Whether a transaction holding a lock on `t` that conflicts with `mode`
// waits for this one (pg_blocking_pids).
bool holder_waits_for_me(const LOCKTAG& t, LOCKMODE mode) {
    for (VirtualTransactionId* v = GetLockConflicts(&t, mode, nullptr); VirtualTransactionIdIsValid(*v); ++v) {
        const PGPROC* holder = BackendIdGetProc(v->backendId);
        if (holder == nullptr || holder->pid == MyProcPid) continue;
        ArrayType* blockers = DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids, Int32GetDatum(holder->pid)));
        Datum* pids = nullptr;
        int n = 0;
        deconstruct_array(blockers, INT4OID, 4, true, TYPALIGN_INT, &pids, nullptr, &n);
        for (int i = 0; i < n; ++i)
            if (DatumGetInt32(pids[i]) == MyProcPid) return true;
    }
    return false;
}

// Acquires one of ivm's locks of `view` (`t` in `mode`): `now` tries
// without waiting, `wait` waits.  Two writers that each hold some of the
// view's locks may each need one the other holds (both wrote one base
// table of a join and now write another; the same stored rows in opposite
// orders; a row an earlier statement changed).  PostgreSQL would find that
// deadlock after deadlock_timeout (a second) and fail one with 40P01.
// Instead, the writer that would close the cycle, seeing the holder wait
// for it, fails at once with 40001, retried as any serialization failure;
// where two start waiting at the same moment, the deadlock check runs
// after at most 100 ms (this wait's, found first; its 40P01 becomes the
// same 40001).
template <typename Now, typename Wait>
void acquire(Oid view, const LOCKTAG& t, LOCKMODE mode, Now now, Wait wait) {
    auto cycle = [&] {
        return Error("40001", "could not serialize access due to concurrent writers of view " + qualified_name(view),
                     "This transaction and another writing the view's base tables each wait for the other.",
                     "The transaction might succeed if retried.");
    };
    if (call(now)) return;
    if (call([&] { return holder_waits_for_me(t, mode); })) throw cycle();
    try {
        call([&] {
            const int nest = NewGUCNestLevel();
            if (DeadlockTimeout > 100)
                (void)set_config_option("deadlock_timeout", "100ms", PGC_SUSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
                                        false);
            wait();
            AtEOXact_GUC(true, nest);
        });
    } catch (const PgError& e) {
        if (e.data()->sqlerrcode != ERRCODE_T_R_DEADLOCK_DETECTED) throw;
        throw cycle();
    }
}

// Returns whether the lock was taken now (not held already).
bool acquire(Oid view, const LOCKTAG& t, LOCKMODE mode) {
    bool taken = true;
    acquire(
        view, t, mode,
        [&] {
            const LockAcquireResult r = LockAcquire(&t, mode, false, true);
            taken = r != LOCKACQUIRE_ALREADY_HELD;
            return r != LOCKACQUIRE_NOT_AVAIL;
        },
        [&] { (void)LockAcquire(&t, mode, false, false); });
    return taken;
}

// Lock object of the whole view (0) and of base table b (b + 1).
void lock(Oid view, int32 view_id, uint32 object, LOCKMODE mode) {
    (void)acquire(view, tag(view_id, object, writers_lock), mode);
}

}  // namespace

bool lock_writers(int32 view_id, Oid view, std::size_t bases, std::optional<std::size_t> shared_base) {
    Held& h = held[view_id];
    // (locks taken again where held: a subtransaction's abort released them)
    if (h.alone || alone_from_now.count(view_id) != 0) shared_base.reset();
    if (h.shared_base && h.shared_base != shared_base) alone_from_now.insert(view_id);
    if (!shared_base) {
        lock(view, view_id, 0, ExclusiveLock);
        h.alone = true;
        return true;
    }
    lock(view, view_id, 0, RowExclusiveLock);
    for (std::size_t b = 0; b < bases; ++b)
        lock(view, view_id, static_cast<uint32>(b + 1), b == *shared_base ? RowExclusiveLock : ShareLock);
    h.shared_base = shared_base;
    return false;
}

void lock_storage(Oid view, Oid storage, LOCKMODE mode) {
    LOCKTAG t;
    SET_LOCKTAG_RELATION(t, MyDatabaseId, storage);
    acquire(
        view, t, mode, [&] { return ConditionalLockRelationOid(storage, mode); },
        [&] { LockRelationOid(storage, mode); });
}

bool lock_keys(int32 view_id, Oid view, const std::vector<uint64>& keys) {
    // Half the transaction's average share of the lock table (32 keys by
    // default): the rest stays for tables, indexes and other views.
    const std::size_t budget = static_cast<std::size_t>(std::max(32, max_locks_per_xact / 2));
    if (keys_taken + keys.size() > budget) return false;
    for (uint64 key : keys) {
        const LOCKTAG t = tag(view_id, static_cast<uint32>(key ^ (key >> 32)), key_lock);
        if (acquire(view, t, ExclusiveLock)) ++keys_taken;
    }
    held[view_id].keys = true;
    return true;
}

void writing_whole(int32 view_id) {
    Held& h = held[view_id];
    if (h.keys) alone_from_now.insert(view_id);
}

void end_transaction() {
    held.clear();
    keys_taken = 0;
}

}  // namespace ivm::pg::view_locks

namespace ivm::pg {
namespace {

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

// Under REPEATABLE READ and SERIALIZABLE, a writer whose snapshot misses
// what another writer of the same base committed to the stored rows of
// `keys` (all of them now locked) would merge into rows it cannot see:
// the rows as committed now must be those its snapshot sees.  (Where it
// sees a row that another deleted or updated, writing it fails with 40001
// anyway; a row inserted since, it would not find.)
void check_keys(ViewRuntime& view, const std::vector<uint64>& keys) {
    Oid types[1] = {INT8ARRAYOID};
    SPIPlanPtr plan = kept_plan(view, "stored keys", [&] {
        return "SELECT xmin FROM " + view.analyzed.model.storage + " WHERE __ivm_key OPERATOR(pg_catalog.=) ANY ($1)";
    }, 1, types);
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
        bool unchanged = SPI_processed == seen;
        for (uint64 i = 0; unchanged && i < SPI_processed; ++i) {
            bool isnull = true;
            const TransactionId xmin =
                DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
            unchanged = TransactionIdIsCurrentTransactionId(xmin) || !XidInMVCCSnapshot(xmin, mine);
        }
        PopActiveSnapshot();
        return unchanged;
    });
    if (!same)
        throw Error("40001", "could not serialize access due to concurrent update of view " + qualified_name(view.entry.view),
                    "Another transaction changed the same rows of the view after this transaction's snapshot was taken.",
                    "The transaction might succeed if retried.");
}

// Whether a writer of view `view_id` (of a base other than `except`, -2
// for any) committed after `snapshot` was taken.
bool missed_writer(int32 view_id, int except, Snapshot snapshot) {
    for (uint64 xid : catalog::committed_writers(view_id, except))
        if (committed_after(xid, snapshot)) return true;
    return false;
}

// Under REPEATABLE READ and SERIALIZABLE: such a writer (missed_writer)
// changed what this transaction's snapshot cannot see, a 40001.
void refuse_missed_writers(const ViewRuntime& view, int except) {
    if (!IsolationUsesXactSnapshot() || !missed_writer(view.entry.view_id, except, call([] { return GetTransactionSnapshot(); })))
        return;
    throw Error("40001", "could not serialize access due to concurrent maintenance of " + qualified_name(view.entry.view),
                "Another transaction changed the view's base tables after this transaction's snapshot was taken.",
                "The transaction might succeed if retried.");
}

}  // namespace

// The one base a change touches when other writers of it may maintain the
// view at the same time (counting::parallel_writers).
std::optional<std::size_t> shared_base(const ViewRuntime& view, const std::vector<bool>& changed) {
    if (!allow_parallel_writers || view.analyzed.recursion() || std::count(changed.begin(), changed.end(), true) != 1)
        return std::nullopt;
    const std::size_t base = static_cast<std::size_t>(std::find(changed.begin(), changed.end(), true) - changed.begin());
    if (!counting::parallel_writers(view.analyzed.model, base)) return std::nullopt;
    return base;
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
bool lock_for_maintenance(const ViewRuntime& view, Oid storage, std::optional<std::size_t> shared_base,
                          Snapshot before, bool* missed) {
    const int32 id = view.entry.view_id;
    const bool alone = view_locks::lock_writers(id, view.entry.view, view.analyzed.base_oids.size(), shared_base);
    if (alone) view_locks::lock_storage(view.entry.view, storage, ExclusiveLock);
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
    if (snapshot_isolation)
        refuse_missed_writers(view, alone ? -2 : base);
    else
        *missed = missed_writer(id, alone ? -2 : base, before);
    return alone;
}

// A writer alongside others of its base (lock_for_maintenance) about to
// write its whole storage (a large change, a rebuild, a recompute).
void lock_whole_storage(ViewRuntime& view) {
    view_locks::writing_whole(view.entry.view_id);
    view_locks::lock_storage(view.entry.view, view.entry.storage, ExclusiveLock);
    // Its rows are not checked one by one (check_keys): any writer of the
    // view the snapshot misses is a 40001.
    refuse_missed_writers(view, -2);
}

// ... or to merge a small change: locks the stored rows the merge reads
// and writes by key, or the whole storage where there are no keys or too
// many (more than view_locks' budget).
void lock_rows(ViewRuntime& view, const std::string& plan_key, const std::function<std::string()>& keys_query) {
    const int32 id = view.entry.view_id;
    const Oid storage = view.entry.storage;
    if (!counting::has_storage_key(view.analyzed.model)) return lock_whole_storage(view);
    view_locks::lock_storage(view.entry.view, storage, RowExclusiveLock);  // the lock order: storage, then its rows
    const int rc = run_statement(view, "keys " + plan_key, keys_query);
    if (rc != SPI_OK_SELECT) throw Error(sqlstate::internal_error, "ivm could not find the keys of a change");
    std::vector<uint64> keys;
    for (uint64 i = 0; i < SPI_processed; ++i) keys.push_back(static_cast<uint64>(spi::result_int(i, 0)));
    if (!view_locks::lock_keys(id, view.entry.view, keys)) return lock_whole_storage(view);
    if (IsolationUsesXactSnapshot() && !keys.empty()) check_keys(view, keys);
}

}  // namespace ivm::pg
