// Module load: the callbacks that keep backend-local state honest.
#include "pg/apply_worker.hpp"
#include "pg/deferred.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/change_estimates.hpp"
#include "pg/ddl_events.hpp"
#include "pg/dred_backward_forward.hpp"
#include "pg/faults.hpp"
#include "pg/key_hash.hpp"
#include "pg/large_statements.hpp"
#include "pg/maintain.hpp"
#include "pg/pending.hpp"
#include "pg/replicated.hpp"
#include "pg/shared.hpp"
#include "pg/view_locks.hpp"

extern "C" {
PG_MODULE_MAGIC;
PGDLLEXPORT void _PG_init(void);
}

namespace {

// Nothing here may throw or ereport but before a commit: these run during
// commit and abort.
void on_xact(XactEvent event, void*) {
    switch (event) {
        case XACT_EVENT_PRE_COMMIT:
        case XACT_EVENT_PRE_PREPARE:
            ivm::pg::replicated::check_taken_in();
            break;
        case XACT_EVENT_COMMIT:
        case XACT_EVENT_PARALLEL_COMMIT:
        case XACT_EVENT_PREPARE:
        case XACT_EVENT_ABORT:
        case XACT_EVENT_PARALLEL_ABORT:
            ivm::pg::reset_pending(InvalidSubTransactionId);
            ivm::pg::reset_maintenance_state(InvalidSubTransactionId);
            ivm::pg::reset_own_ddl();
            ivm::pg::view_locks::end_transaction();
            ivm::pg::catalog::forget_marks();
            ivm::pg::replicated::end_transaction();
            break;
        default:
            break;
    }
}

void on_subxact(SubXactEvent event, SubTransactionId mine, SubTransactionId, void*) {
    if (event != SUBXACT_EVENT_ABORT_SUB) return;
    ivm::pg::reset_pending(mine);
    ivm::pg::reset_maintenance_state(mine);
    ivm::pg::catalog::forget_marks();
    ivm::pg::replicated::forget_subtransaction(mine);
}

void on_relcache(Datum, Oid relid) {
    ivm::pg::invalidate_runtimes(relid);
    ivm::pg::deferred::forget_log_writers(relid);
}

}  // namespace

void _PG_init(void) {
    RegisterXactCallback(on_xact, nullptr);
    RegisterSubXactCallback(on_subxact, nullptr);
    CacheRegisterRelcacheCallback(on_relcache, 0);
    ivm::pg::use_installed_key_hash();
    ivm::pg::install_large_statement_hook();
    ivm::pg::install_change_estimates_hook();
    ivm::pg::define_settings();
    ivm::pg::faults::define_setting();
    ivm::pg::define_backward_forward_setting();
    ivm::pg::apply_worker::define_setting();
    if (process_shared_preload_libraries_in_progress) {
        ivm::pg::shared::install_hooks();
        ivm::pg::apply_worker::register_launcher();
    }
}
