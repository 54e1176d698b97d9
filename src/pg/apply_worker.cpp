#include "pg/apply_worker.hpp"

#include "pg/pg.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/wait_event.h"

PGDLLEXPORT void ivm_apply_launcher(Datum);
PGDLLEXPORT void ivm_apply_worker(Datum database);
}

// Both entry points are plain C over PostgreSQL's API, as a background
// worker's main is: an error outside an apply ends the process (FATAL),
// and no C++ object lives across an ereport.

namespace ivm::pg::apply_worker {

namespace {

int interval_seconds = 0;

// The databases a worker may visit: those that allow connections, but
// templates.
List* databases() {
    List* found = NIL;
    StartTransactionCommand();
    MemoryContext outer = MemoryContextSwitchTo(TopMemoryContext);
    Relation rel = table_open(DatabaseRelationId, AccessShareLock);
    TableScanDesc scan = table_beginscan_catalog(rel, 0, nullptr);
    HeapTuple tuple;
    while ((tuple = heap_getnext(scan, ForwardScanDirection)) != nullptr) {
        const Form_pg_database db = reinterpret_cast<Form_pg_database>(GETSTRUCT(tuple));
        if (db->datallowconn && !db->datistemplate) found = lappend_oid(found, db->oid);
    }
    table_endscan(scan);
    table_close(rel, AccessShareLock);
    MemoryContextSwitchTo(outer);
    CommitTransactionCommand();
    return found;
}

// A background worker of ivm's running `function`, shown as `type`.
BackgroundWorker worker_running(const char* function, const char* type) {
    BackgroundWorker worker;
    memset(&worker, 0, sizeof worker);
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "ivm");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "%s", function);
    snprintf(worker.bgw_name, BGW_MAXLEN, "%s", type);
    snprintf(worker.bgw_type, BGW_MAXLEN, "%s", type);
    return worker;
}

// Runs a worker in `database` and waits until it is done; false where
// none could start (no free background worker slot).
bool visit(Oid database) {
    BackgroundWorker worker = worker_running("ivm_apply_worker", "ivm apply worker");
    worker.bgw_restart_time = BGW_NEVER_RESTART;
    snprintf(worker.bgw_name, BGW_MAXLEN, "ivm apply worker for database %u", database);
    worker.bgw_main_arg = ObjectIdGetDatum(database);
    worker.bgw_notify_pid = MyProcPid;
    BackgroundWorkerHandle* handle = nullptr;
    if (!RegisterDynamicBackgroundWorker(&worker, &handle)) return false;
    pid_t pid;
    if (WaitForBackgroundWorkerStartup(handle, &pid) == BGWH_STARTED) WaitForBackgroundWorkerShutdown(handle);
    pfree(handle);
    return true;
}

void reload_if_asked() {
    if (!ConfigReloadPending) return;
    ConfigReloadPending = false;
    ProcessConfigFile(PGC_SIGHUP);
}

// Applies one deferred view in a transaction of its own; a failure is
// logged with the view's name, and the next interval tries again.
void apply_one(const char* name) {
    StringInfoData sql;
    initStringInfo(&sql);
    appendStringInfo(&sql, "SELECT ivm.refresh_view(%s)", quote_literal_cstr(name));
    MemoryContext outer = CurrentMemoryContext;
    SetCurrentStatementStartTimestamp();
    StartTransactionCommand();
    pgstat_report_activity(STATE_RUNNING, sql.data);
    PG_TRY();
    {
        SPI_connect();
        PushActiveSnapshot(GetTransactionSnapshot());
        SPI_execute(sql.data, false, 0);
        SPI_finish();
        PopActiveSnapshot();
        CommitTransactionCommand();
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(outer);
        ErrorData* error = CopyErrorData();
        FlushErrorState();
        AbortCurrentTransaction();
        ereport(LOG, (errcode(error->sqlerrcode), errmsg("ivm could not apply deferred view %s: %s", name, error->message)));
        FreeErrorData(error);
    }
    PG_END_TRY();
    pfree(sql.data);
}

// Applies each deferred view of this database that has pending changes,
// each in a transaction of its own.
void apply_views() {
    StartTransactionCommand();
    SPI_connect();
    PushActiveSnapshot(GetTransactionSnapshot());
    pgstat_report_activity(STATE_RUNNING, "ivm: looking for deferred views with pending changes");
    List* views = NIL;
    const bool installed =
        SPI_execute("SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'ivm'", true, 0) == SPI_OK_SELECT &&
        SPI_processed == 1;
    // (before ivm 0.4 of the objects there are no deferred views)
    if (installed && SPI_execute("SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = 'ivm.view_catalog'::pg_catalog.regclass "
                                 "AND attname = 'deferred'", true, 0) == SPI_OK_SELECT && SPI_processed == 1 &&
        SPI_execute("SELECT name::pg_catalog.text FROM ivm.views WHERE deferred AND populated AND part_of IS NULL "
                    "AND pending_changes > 0 ORDER BY 1", true, 0) == SPI_OK_SELECT) {
        MemoryContext outer = MemoryContextSwitchTo(TopMemoryContext);
        for (uint64 i = 0; i < SPI_processed; ++i)
            views = lappend(views, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
        MemoryContextSwitchTo(outer);
    }
    SPI_finish();
    PopActiveSnapshot();
    CommitTransactionCommand();
    ListCell* cell;
    foreach (cell, views) {
        CHECK_FOR_INTERRUPTS();
        apply_one(static_cast<const char*>(lfirst(cell)));
    }
    pgstat_report_activity(STATE_IDLE, nullptr);
}

}  // namespace

void define_setting() {
    DefineCustomIntVariable("ivm.apply_interval",
                            "Seconds between applies of deferred views by ivm's background worker (0: off).",
                            "Needs shared_preload_libraries = 'ivm'; without it, schedule ivm.refresh_view.",
                            &interval_seconds, 0, 0, INT_MAX / 1000, PGC_SIGHUP, GUC_UNIT_S, nullptr, nullptr, nullptr);
}

void register_launcher() {
    BackgroundWorker worker = worker_running("ivm_apply_launcher", "ivm apply launcher");
    worker.bgw_restart_time = 10;
    RegisterBackgroundWorker(&worker);
}

}  // namespace ivm::pg::apply_worker

using ivm::pg::apply_worker::interval_seconds;

void ivm_apply_launcher(Datum) {
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);  // the shared catalogs only
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        ivm::pg::apply_worker::reload_if_asked();
        long wait_ms = 60000L;  // off: until a reload sets the interval
        if (interval_seconds > 0) {
            const TimestampTz started = GetCurrentTimestamp();
            List* all = ivm::pg::apply_worker::databases();
            ListCell* cell;
            foreach (cell, all) {
                CHECK_FOR_INTERRUPTS();
                ivm::pg::apply_worker::reload_if_asked();
                if (interval_seconds == 0) break;
                if (!ivm::pg::apply_worker::visit(lfirst_oid(cell)))
                    ereport(LOG, (errmsg("ivm apply launcher found no free background worker slot"),
                                  errhint("Raise max_worker_processes.")));
            }
            list_free(all);
            const long spent_ms = (GetCurrentTimestamp() - started) / 1000;
            wait_ms = Max(static_cast<long>(interval_seconds) * 1000L - spent_ms, 1L);
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
}

void ivm_apply_worker(Datum database) {
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    BackgroundWorkerInitializeConnectionByOid(DatumGetObjectId(database), InvalidOid, 0);
    ivm::pg::apply_worker::apply_views();
    proc_exit(0);
}
