#include "pg/shared.hpp"

#include "pg/boundary.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/timestamp.h"
}

namespace ivm::pg::shared {
namespace {

struct Key {
    Oid database;
    int32 view_id;
};

struct Entry {
    Key key;  // hash key, first
    slock_t mutex;
    int64 runs;
    int64 inserted;
    int64 deleted;
    double total_ms;
    double last_ms;
    TimestampTz last;
    // deletions in the recursive relation (record_overdeletion)
    int64 overdeletions;
    int64 overdeleted;
    int64 backward_forward;
    int64 recomputed;
};

struct Shared {
    LWLock* lock;  // shared to find or update an entry, exclusive to add or remove
};

int max_entries = 1000;
Shared* shared = nullptr;
HTAB* entries = nullptr;
shmem_request_hook_type previous_request_hook = nullptr;
shmem_startup_hook_type previous_startup_hook = nullptr;

void request_memory() {
    if (previous_request_hook) previous_request_hook();
    RequestAddinShmemSpace(MAXALIGN(sizeof(Shared)) + hash_estimate_size(max_entries, sizeof(Entry)));
    RequestNamedLWLockTranche("ivm", 1);
}

void start_up() {
    if (previous_startup_hook) previous_startup_hook();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    shared = static_cast<Shared*>(ShmemInitStruct("ivm", sizeof(Shared), &found));
    if (!found) shared->lock = &(GetNamedLWLockTranche("ivm"))->lock;
    HASHCTL info;
    memset(&info, 0, sizeof info);
    info.keysize = sizeof(Key);
    info.entrysize = sizeof(Entry);
    entries = ShmemInitHash("ivm statistics", max_entries, max_entries, &info, HASH_ELEM | HASH_BLOBS);
    LWLockRelease(AddinShmemInitLock);
}

void require_shared_memory() {
    if (shared != nullptr) return;
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("ivm statistics need ivm in shared_preload_libraries"),
                    errhint("Add ivm to shared_preload_libraries and restart the server.")));
}

}  // namespace

void install_hooks() {
    DefineCustomIntVariable("ivm.max_stats_entries", "Number of views whose maintenance ivm counts.",
                            nullptr, &max_entries, 1000, 10, INT_MAX / 2, PGC_POSTMASTER, 0,
                            nullptr, nullptr, nullptr);
    previous_request_hook = shmem_request_hook;
    shmem_request_hook = request_memory;
    previous_startup_hook = shmem_startup_hook;
    shmem_startup_hook = start_up;
}

namespace {

// The view's entry, created if need be, with the lock held as shared;
// null when the table is full (that view goes uncounted and unchecked).
Entry* entry_for(int32 view_id) {
    Key key{MyDatabaseId, view_id};
    LWLockAcquire(shared->lock, LW_SHARED);
    auto* e = static_cast<Entry*>(hash_search(entries, &key, HASH_FIND, nullptr));
    if (e != nullptr) return e;
    LWLockRelease(shared->lock);
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    bool found = false;
    e = static_cast<Entry*>(hash_search(entries, &key, HASH_ENTER_NULL, &found));
    if (e != nullptr && !found) {
        SpinLockInit(&e->mutex);
        e->runs = e->inserted = e->deleted = 0;
        e->total_ms = e->last_ms = 0;
        e->last = 0;
        e->overdeletions = e->overdeleted = e->backward_forward = e->recomputed = 0;
    }
    return e;
}

// Runs `update` on the view's entry under its mutex (nothing when the
// table is full or there is no shared memory).
template <typename Update>
void update_entry(int32 view_id, const Update& update) {
    if (shared == nullptr) return;
    call([&] {
        Entry* e = entry_for(view_id);
        if (e != nullptr) {
            SpinLockAcquire(&e->mutex);
            update(*e);
            SpinLockRelease(&e->mutex);
        }
        LWLockRelease(shared->lock);
    });
}

}  // namespace

void record(int32 view_id, int64 tuples_inserted, int64 tuples_deleted, double milliseconds) {
    const TimestampTz now = shared == nullptr ? 0 : GetCurrentTimestamp();
    update_entry(view_id, [&](Entry& e) {
        e.runs += 1;
        e.inserted += tuples_inserted;
        e.deleted += tuples_deleted;
        e.total_ms += milliseconds;
        e.last_ms = milliseconds;
        e.last = now;
    });
}

void record_overdeletion(int32 view_id, Overdeletion how, int64 overdeleted) {
    update_entry(view_id, [&](Entry& e) {
        e.overdeletions += 1;
        e.overdeleted += overdeleted;
        e.backward_forward += how == Overdeletion::BackwardForward ? 1 : 0;
        e.recomputed += how == Overdeletion::Recomputed ? 1 : 0;
    });
}

}  // namespace ivm::pg::shared

using namespace ivm::pg::shared;

// Plain C over PostgreSQL's APIs: no C++ object lives in these functions.
extern "C" {
PG_FUNCTION_INFO_V1(ivm_stats_entries);
PG_FUNCTION_INFO_V1(ivm_reset_stats);

Datum ivm_stats_entries(PG_FUNCTION_ARGS) {
    require_shared_memory();
    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    LWLockAcquire(shared->lock, LW_SHARED);
    HASH_SEQ_STATUS scan;
    hash_seq_init(&scan, entries);
    Entry* e;
    while ((e = static_cast<Entry*>(hash_seq_search(&scan))) != nullptr) {
        if (e->key.database != MyDatabaseId) continue;
        // (a result type of an older version's script takes the first
        // columns only)
        Datum values[11];
        bool nulls[11] = {false};
        SpinLockAcquire(&e->mutex);
        values[0] = Int32GetDatum(e->key.view_id);
        values[1] = Int64GetDatum(e->runs);
        values[2] = Int64GetDatum(e->inserted);
        values[3] = Int64GetDatum(e->deleted);
        values[4] = Float8GetDatum(e->total_ms);
        values[5] = Float8GetDatum(e->last_ms);
        values[6] = TimestampTzGetDatum(e->last);
        values[7] = Int64GetDatum(e->overdeletions);
        values[8] = Int64GetDatum(e->overdeleted);
        values[9] = Int64GetDatum(e->backward_forward);
        values[10] = Int64GetDatum(e->recomputed);
        SpinLockRelease(&e->mutex);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    LWLockRelease(shared->lock);
    return (Datum)0;
}

Datum ivm_reset_stats(PG_FUNCTION_ARGS) {
    require_shared_memory();
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    HASH_SEQ_STATUS scan;
    hash_seq_init(&scan, entries);
    Entry* e;
    while ((e = static_cast<Entry*>(hash_seq_search(&scan))) != nullptr)
        if (e->key.database == MyDatabaseId) hash_search(entries, &e->key, HASH_REMOVE, nullptr);
    LWLockRelease(shared->lock);
    PG_RETURN_VOID();
}
}
