#include "pg/bulk_fill.hpp"

#include "pg/boundary.hpp"

namespace ivm::pg {
namespace {

// The executor's destination for the query's rows (plain C data: the
// executor calls it between longjmp-protected frames).
struct FillReceiver {
    DestReceiver pub;  // first: the executor sees a DestReceiver
    Relation rel;
    BulkInsertState bulk;
    CommandId command;
    int counted_column;
    uint64 rows;
    int64 counted;
};

void fill_startup(DestReceiver*, int, TupleDesc) {}

bool fill_receive(TupleTableSlot* slot, DestReceiver* self) {
    auto* r = reinterpret_cast<FillReceiver*>(self);
    TupleDesc desc = RelationGetDescr(r->rel);
    slot_getallattrs(slot);
    for (int i = 0; i < desc->natts; ++i)
        if (TupleDescAttr(desc, i)->attnotnull && slot->tts_isnull[i])
            ereport(ERROR, (errcode(ERRCODE_NOT_NULL_VIOLATION),
                            errmsg("null value in column \"%s\" of relation \"%s\" violates not-null constraint",
                                   NameStr(TupleDescAttr(desc, i)->attname), RelationGetRelationName(r->rel))));
    table_tuple_insert(r->rel, slot, r->command, TABLE_INSERT_SKIP_FSM, r->bulk);
    ++r->rows;
    if (!slot->tts_isnull[r->counted_column]) r->counted += DatumGetInt64(slot->tts_values[r->counted_column]);
    return true;
}

void fill_shutdown(DestReceiver*) {}
void fill_destroy(DestReceiver*) {}

// Whether the query's columns are the table's, in order, name and type.
bool same_columns(TupleDesc query, TupleDesc table) {
    if (query->natts != table->natts) return false;
    for (int i = 0; i < table->natts; ++i) {
        const Form_pg_attribute q = TupleDescAttr(query, i), t = TupleDescAttr(table, i);
        if (t->attisdropped || t->attgenerated || q->atttypid != t->atttypid ||
            strcmp(NameStr(q->attname), NameStr(t->attname)) != 0)
            return false;
    }
    return true;
}

}  // namespace

std::optional<BulkFill> bulk_fill(Oid table, const std::string& query, const char* counted) {
    const char* sql = query.c_str();
    BulkFill result;
    const bool done = call([&] {
        Relation rel = table_open(table, RowExclusiveLock);
        const int counted_column = SPI_fnumber(RelationGetDescr(rel), counted) - 1;
        const bool plain = rel->rd_rel->relkind == RELKIND_RELATION && RelationGetIndexList(rel) == NIL &&
                           counted_column >= 0 && TupleDescAttr(RelationGetDescr(rel), counted_column)->atttypid == INT8OID;
        if (!plain) {
            table_close(rel, NoLock);
            return false;
        }
        List* raw = pg_parse_query(sql);
        if (list_length(raw) != 1) elog(ERROR, "ivm's fill query is not one statement");
        List* queries = pg_analyze_and_rewrite_fixedparams(linitial_node(RawStmt, raw), sql, nullptr, 0, nullptr);
        if (list_length(queries) != 1) elog(ERROR, "ivm's fill query rewrote to several");
        PlannedStmt* plan = pg_plan_query(linitial_node(Query, queries), sql, 0, nullptr);
        // A snapshot as SPI takes one for a statement: at READ COMMITTED a
        // new one, which sees what writers that maintenance waited for
        // committed since the firing statement began.
        PushActiveSnapshot(GetTransactionSnapshot());
        UpdateActiveSnapshotCommandId();
        auto* r = static_cast<FillReceiver*>(palloc0(sizeof(FillReceiver)));
        r->pub.receiveSlot = fill_receive;
        r->pub.rStartup = fill_startup;
        r->pub.rShutdown = fill_shutdown;
        r->pub.rDestroy = fill_destroy;
        r->pub.mydest = DestIntoRel;
        r->rel = rel;
        r->command = GetCurrentCommandId(true);
        r->counted_column = counted_column;
        QueryDesc* qd = CreateQueryDesc(plan, sql, GetActiveSnapshot(), InvalidSnapshot, &r->pub, nullptr, nullptr, 0);
        ExecutorStart(qd, 0);
        const bool fits = same_columns(qd->tupDesc, RelationGetDescr(rel));
        if (fits) {
            r->bulk = GetBulkInsertState();
            ExecutorRun(qd, ForwardScanDirection, 0, true);
            FreeBulkInsertState(r->bulk);
            table_finish_bulk_insert(rel, TABLE_INSERT_SKIP_FSM);
        }
        ExecutorFinish(qd);
        ExecutorEnd(qd);
        FreeQueryDesc(qd);
        PopActiveSnapshot();
        table_close(rel, NoLock);
        CommandCounterIncrement();  // what follows sees the rows
        result.rows = r->rows;
        result.counted = r->counted;
        return fits;
    });
    if (!done) return std::nullopt;
    return result;
}

}  // namespace ivm::pg
