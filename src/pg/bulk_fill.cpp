#include "pg/bulk_fill.hpp"

#include "core/triggers.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "executor/nodeModifyTable.h"
}

namespace ivm::pg {
namespace {

// Rows are written in batches, as COPY writes them: one WAL record and one
// page lock per page filled instead of one per row.  A batch is at most
// this many rows or about this many bytes.
constexpr int batch_rows = 1000;
constexpr Size batch_bytes = 64 * 1024;

// The executor's destination for the query's rows (plain C data: the
// executor calls it between longjmp-protected frames).
struct FillReceiver {
    DestReceiver pub;  // first: the executor sees a DestReceiver
    Relation rel;
    BulkInsertState bulk;
    CommandId command;
    int counted_column;  // -1: none
    uint64 rows;
    int64 counted;
    int options;  // table_multi_insert's
    // Where the table has stored generated columns, what computes them (the
    // query gives the other columns); where it has indexes, their entries
    // are made for each batch written.
    EState* estate;
    ResultRelInfo* generated;
    ResultRelInfo* indexed;
    // Made as needed, in the table's slot type, in `own` (the context of
    // this receiver, which outlives the executor's: the last batch is
    // written after the query ends).
    TupleTableSlot* batch[batch_rows];
    MemoryContext own;
    int batched;
    Size batched_bytes;
    MemoryContext flush_context;  // what writing a batch allocates, reset after it
};

void flush_batch(FillReceiver* r) {
    if (r->batched == 0) return;
    MemoryContext old = MemoryContextSwitchTo(r->flush_context);
    table_multi_insert(r->rel, r->batch, r->batched, r->command, r->options, r->bulk);
    if (r->indexed != nullptr)
        for (int i = 0; i < r->batched; ++i) {
            list_free(ExecInsertIndexTuples(r->indexed, r->batch[i], r->estate, false, false, nullptr, NIL));
            ResetPerTupleExprContext(r->estate);
        }
    MemoryContextSwitchTo(old);
    for (int i = 0; i < r->batched; ++i) ExecClearTuple(r->batch[i]);
    MemoryContextReset(r->flush_context);
    r->batched = 0;
    r->batched_bytes = 0;
}

// The rows get the command id of the statement that makes them, taken
// when it starts (SPI advances it before each statement it runs).
void fill_startup(DestReceiver* self, int, TupleDesc) {
    auto* r = reinterpret_cast<FillReceiver*>(self);
    r->command = GetCurrentCommandId(true);
}

// The query's row as the table's: its columns in the table's other than
// the generated ones, which are computed.  A copy, in `kept`'s own memory.
void take_row(FillReceiver* r, TupleTableSlot* slot, TupleTableSlot* kept) {
    if (r->generated == nullptr) {
        ExecCopySlot(kept, slot);
        return;
    }
    TupleDesc desc = RelationGetDescr(r->rel);
    ExecClearTuple(kept);
    for (int i = 0, q = 0; i < desc->natts; ++i) {
        const bool generated = TupleDescAttr(desc, i)->attgenerated != '\0';
        kept->tts_values[i] = generated ? Datum(0) : slot->tts_values[q];
        kept->tts_isnull[i] = generated ? true : slot->tts_isnull[q];
        if (!generated) ++q;
    }
    ExecStoreVirtualTuple(kept);
    ExecComputeStoredGenerated(r->generated, r->estate, kept, CMD_INSERT);  // and materializes kept
    ResetPerTupleExprContext(r->estate);
}

bool fill_receive(TupleTableSlot* slot, DestReceiver* self) {
    auto* r = reinterpret_cast<FillReceiver*>(self);
    TupleDesc desc = RelationGetDescr(r->rel);
    slot_getallattrs(slot);
    TupleTableSlot*& kept = r->batch[r->batched];
    if (kept == nullptr) {
        MemoryContext old = MemoryContextSwitchTo(r->own);
        kept = table_slot_create(r->rel, nullptr);
        MemoryContextSwitchTo(old);
    }
    take_row(r, slot, kept);
    slot_getallattrs(kept);
    for (int i = 0; i < desc->natts; ++i)
        if (TupleDescAttr(desc, i)->attnotnull && kept->tts_isnull[i])
            ereport(ERROR, (errcode(ERRCODE_NOT_NULL_VIOLATION),
                            errmsg("null value in column \"%s\" of relation \"%s\" violates not-null constraint",
                                   NameStr(TupleDescAttr(desc, i)->attname), RelationGetRelationName(r->rel))));
    r->batched_bytes += ExecFetchSlotHeapTuple(kept, false, nullptr)->t_len;
    if (++r->batched == batch_rows || r->batched_bytes >= batch_bytes) flush_batch(r);
    ++r->rows;
    if (r->counted_column >= 0 && !kept->tts_isnull[r->counted_column])
        r->counted += DatumGetInt64(kept->tts_values[r->counted_column]);
    return true;
}

void fill_shutdown(DestReceiver*) {}
void fill_destroy(DestReceiver*) {}

// Whether the query's columns are the table's other than its stored
// generated ones, in order, name and type.
bool same_columns(TupleDesc query, TupleDesc table) {
    int q = 0;
    for (int i = 0; i < table->natts; ++i) {
        const Form_pg_attribute t = TupleDescAttr(table, i);
        if (t->attisdropped) return false;
        if (t->attgenerated == ATTRIBUTE_GENERATED_STORED) continue;
        if (t->attgenerated != '\0' || q == query->natts) return false;
        const Form_pg_attribute c = TupleDescAttr(query, q++);
        if (c->atttypid != t->atttypid || strcmp(NameStr(c->attname), NameStr(t->attname)) != 0) return false;
    }
    return q == query->natts;
}

// A receiver writing into `rel` (open), with the table's generated
// columns computed and, for a table in use (`live`), its free space used
// and its index entries made.
FillReceiver* start_writing(Relation rel, int counted_column, bool live) {
    auto* r = static_cast<FillReceiver*>(palloc0(sizeof(FillReceiver)));
    r->own = CurrentMemoryContext;
    r->pub.receiveSlot = fill_receive;
    r->pub.rStartup = fill_startup;
    r->pub.rShutdown = fill_shutdown;
    r->pub.rDestroy = fill_destroy;
    r->pub.mydest = DestIntoRel;
    r->rel = rel;
    r->counted_column = counted_column;
    r->options = live ? 0 : TABLE_INSERT_SKIP_FSM;
    r->bulk = GetBulkInsertState();
    r->flush_context = AllocSetContextCreate(CurrentMemoryContext, "ivm fill batch", ALLOCSET_DEFAULT_SIZES);
    TupleDesc desc = RelationGetDescr(rel);
    const bool generated = desc->constr != nullptr && desc->constr->has_generated_stored;
    if (generated || live) r->estate = CreateExecutorState();
    if (generated) {
        r->generated = makeNode(ResultRelInfo);
        InitResultRelInfo(r->generated, rel, 0, nullptr, 0);
    }
    if (live) {
        r->indexed = makeNode(ResultRelInfo);
        InitResultRelInfo(r->indexed, rel, 0, nullptr, 0);
        ExecOpenIndices(r->indexed, false);
    }
    return r;
}

void finish_writing(FillReceiver* r) {
    flush_batch(r);
    for (TupleTableSlot* kept : r->batch)
        if (kept != nullptr) ExecDropSingleTupleTableSlot(kept);
    if (r->indexed != nullptr) ExecCloseIndices(r->indexed);
    if (r->estate != nullptr) FreeExecutorState(r->estate);
    MemoryContextDelete(r->flush_context);
    FreeBulkInsertState(r->bulk);
    table_finish_bulk_insert(r->rel, r->options);
}

// Whether rows written in batches into `rel`, a table in use, are what an
// INSERT would write: no trigger fires on its inserts but ivm's own guard
// (which lets maintenance write), no CHECK constraint, and no index that
// checks its entries (unique or exclusion).
bool takes_batches(Relation rel) {
    if (rel->rd_rel->relkind != RELKIND_RELATION) return false;
    if (const TupleConstr* constr = RelationGetDescr(rel)->constr; constr != nullptr && constr->num_check > 0) return false;
    if (const TriggerDesc* t = rel->trigdesc; t != nullptr)
        for (int i = 0; i < t->numtriggers; ++i)
            if (strcmp(t->triggers[i].tgname, triggers::guard_trigger) != 0 && TRIGGER_FOR_INSERT(t->triggers[i].tgtype))
                return false;
    ListCell* lc;
    foreach (lc, RelationGetIndexList(rel)) {
        Relation index = index_open(lfirst_oid(lc), AccessShareLock);
        const bool checks = index->rd_index->indisunique || index->rd_index->indisexclusion;
        index_close(index, AccessShareLock);
        if (checks) return false;
    }
    return true;
}

}  // namespace

std::optional<BulkFill> bulk_fill(Oid table, const std::string& query, const char* counted) {
    const char* sql = query.c_str();
    BulkFill result;
    const bool done = call([&] {
        Relation rel = table_open(table, RowExclusiveLock);
        const int counted_column = counted == nullptr ? -1 : SPI_fnumber(RelationGetDescr(rel), counted) - 1;
        const bool plain = rel->rd_rel->relkind == RELKIND_RELATION && RelationGetIndexList(rel) == NIL &&
                           (counted == nullptr || (counted_column >= 0 && TupleDescAttr(RelationGetDescr(rel),
                                                                                        counted_column)->atttypid == INT8OID));
        if (!plain) {
            table_close(rel, NoLock);
            return false;
        }
        List* raw = pg_parse_query(sql);
        if (list_length(raw) != 1) elog(ERROR, "ivm's fill query is not one statement");
        List* queries = pg_analyze_and_rewrite_fixedparams(linitial_node(RawStmt, raw), sql, nullptr, 0, nullptr);
        if (list_length(queries) != 1) elog(ERROR, "ivm's fill query rewrote to several");
        // A parallel plan where the planner prices one cheaper (an
        // aggregation's partial state per worker): the workers read, only
        // this backend writes, as in CREATE TABLE AS.
        PlannedStmt* plan = pg_plan_query(linitial_node(Query, queries), sql, CURSOR_OPT_PARALLEL_OK, nullptr);
        // A snapshot as SPI takes one for a statement: at READ COMMITTED a
        // new one, which sees what writers that maintenance waited for
        // committed since the firing statement began.
        PushActiveSnapshot(GetTransactionSnapshot());
        UpdateActiveSnapshotCommandId();
        FillReceiver* r = nullptr;
        QueryDesc* qd = CreateQueryDesc(plan, sql, GetActiveSnapshot(), InvalidSnapshot, None_Receiver, nullptr, nullptr, 0);
        ExecutorStart(qd, 0);
        const bool fits = same_columns(qd->tupDesc, RelationGetDescr(rel));
        if (fits) {
            r = start_writing(rel, counted_column, false);
            qd->dest = &r->pub;
            ExecutorRun(qd, ForwardScanDirection, 0, true);
            finish_writing(r);
        }
        ExecutorFinish(qd);
        ExecutorEnd(qd);
        FreeQueryDesc(qd);
        PopActiveSnapshot();
        table_close(rel, NoLock);
        CommandCounterIncrement();  // what follows sees the rows
        if (r != nullptr) {
            result.rows = r->rows;
            result.counted = r->counted;
        }
        return fits;
    });
    if (!done) return std::nullopt;
    return result;
}

std::optional<uint64> bulk_insert(Oid table, const std::string& query) {
    const char* sql = query.c_str();
    uint64 rows = 0;
    const bool done = call([&] {
        Relation rel = table_open(table, RowExclusiveLock);
        SPIPlanPtr plan = nullptr;
        if (takes_batches(rel)) {
            plan = SPI_prepare(sql, 0, nullptr);
            if (plan == nullptr) elog(ERROR, "ivm could not prepare a bulk insert: %s", SPI_result_code_string(SPI_result));
        }
        List* sources = plan == nullptr ? NIL : SPI_plan_get_plan_sources(plan);
        const auto* source = list_length(sources) == 1 ? static_cast<CachedPlanSource*>(linitial(sources)) : nullptr;
        if (source == nullptr || source->resultDesc == nullptr || !same_columns(source->resultDesc, RelationGetDescr(rel))) {
            if (plan != nullptr) SPI_freeplan(plan);
            table_close(rel, NoLock);
            return false;
        }
        FillReceiver* r = start_writing(rel, -1, true);
        SPIExecuteOptions options{};
        options.dest = &r->pub;
        const int rc = SPI_execute_plan_extended(plan, &options);
        if (rc < 0) elog(ERROR, "ivm's bulk insert failed: %s", SPI_result_code_string(rc));
        finish_writing(r);
        SPI_freeplan(plan);
        table_close(rel, NoLock);
        CommandCounterIncrement();  // what follows sees the rows
        rows = r->rows;
        return true;
    });
    if (!done) return std::nullopt;
    return rows;
}

}  // namespace ivm::pg
