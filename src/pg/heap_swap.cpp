#include "pg/heap_swap.hpp"

#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/pending.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "access/multixact.h"
#include "catalog/dependency.h"
#include "catalog/pg_publication.h"
#include "commands/cluster.h"
#include "utils/snapmgr.h"
}

namespace ivm::pg {

bool rebuild_by_swap = true;
int swap_min_tuples = 1000;

bool checks_snapshots(Oid view) {
    const Oid check = catalog::snapshot_check_function();
    if (check == InvalidOid) return false;
    return spi::query_int("SELECT pg_catalog.count(*) FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON "
                          "d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid "
                          "WHERE r.ev_class = " + std::to_string(view) +
                          " AND d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.refobjid = " +
                          std::to_string(check)) > 0;
}

bool may_swap(Oid storage, Oid view) {
    if (!rebuild_by_swap || !checks_snapshots(view)) return false;
    return call([&] {
        Relation rel = table_open(storage, NoLock);  // locked EXCLUSIVE by maintenance already
        bool quiet = rel->rd_rel->relkind == RELKIND_RELATION && !rel->rd_rel->relhasrules;
        // (the refusal of direct writes leaves nothing unfired; the views
        // that read the storage are told by announce_rewritten)
        if (!only_ivm_triggers(rel)) quiet = false;
        // One reference is ours; more are queries of this transaction
        // reading it (a cursor, the statement that fired maintenance).
        const int expected = rel->rd_isnailed ? 2 : 1;
        if (rel->rd_refcnt != expected || AfterTriggerPendingOnRel(storage)) quiet = false;
        table_close(rel, NoLock);
        if (!quiet || GetRelationPublications(storage) != NIL) return false;
        // (autovacuum holds none: maintenance locked the storage EXCLUSIVE
        // already, waiting as any lock request does for one to be cancelled)
        return ConditionalLockRelationOid(storage, AccessExclusiveLock);
    });
}

std::optional<BulkFill> swap_storage(Oid storage, const std::string& query, const char* counted) {
    const char persistence = call([&] { return get_rel_persistence(storage); });
    const Oid fresh = call([&] {
        Relation rel = table_open(storage, AccessExclusiveLock);
        const Oid space = rel->rd_rel->reltablespace, method = rel->rd_rel->relam;
        table_close(rel, NoLock);
        return make_new_heap(storage, space, method, persistence, AccessExclusiveLock);
    });
    const std::optional<BulkFill> filled = bulk_fill(fresh, query, counted);
    call([&] {
        if (!filled) {  // the transient heap goes; the storage is as it was
            ObjectAddress heap;
            ObjectAddressSet(heap, RelationRelationId, fresh);
            performDeletion(&heap, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
            return;
        }
        finish_heap_swap(storage, fresh, false, false, true, true, RecentXmin, ReadNextMultiXactId(), persistence);
        CommandCounterIncrement();
    });
    if (filled) {
        Relation rel = call([&] { return table_open(storage, NoLock); });
        announce_rewritten(rel);
        call([&] { table_close(rel, NoLock); });
    }
    return filled;
}

}  // namespace ivm::pg

extern "C" {
PG_FUNCTION_INFO_V1(ivm_snapshot_sees_storage);

// ivm.snapshot_sees_storage(storage): true, or 40001 where the storage's
// heap was swapped (or its table otherwise changed) by a transaction the
// query's snapshot does not see: that snapshot would read the new heap's
// rows as not yet there.  Plain C over the syscache: no C++ runs here.
Datum ivm_snapshot_sees_storage(PG_FUNCTION_ARGS) {
    const Oid storage = PG_GETARG_OID(0);
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(storage));
    if (!HeapTupleIsValid(tuple)) PG_RETURN_BOOL(true);
    const TransactionId changer = HeapTupleHeaderGetXmin(tuple->t_data);
    ReleaseSysCache(tuple);
    const Snapshot snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : nullptr;
    if (snapshot != nullptr && IsMVCCSnapshot(snapshot) && TransactionIdIsNormal(changer) &&
        !TransactionIdIsCurrentTransactionId(changer) && XidInMVCCSnapshot(changer, snapshot))
        ereport(ERROR, (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
                        errmsg("could not serialize access due to a concurrent rebuild of view storage \"%s\"",
                               get_rel_name(storage)),
                        errdetail("A transaction that committed after this one's snapshot was taken "
                                  "replaced the view's storage."),
                        errhint("The transaction might succeed if retried.")));
    PG_RETURN_BOOL(true);
}
}
