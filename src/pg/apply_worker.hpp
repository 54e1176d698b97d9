// The background worker that applies deferred views (pg/deferred.hpp)
// every ivm.apply_interval, with shared_preload_libraries = 'ivm': a
// launcher ("ivm apply launcher" in pg_stat_activity) that every interval
// starts one worker at a time ("ivm apply worker") in each database that
// allows connections; a worker leaves a database without ivm at once and
// otherwise calls ivm.refresh_view for each deferred view with pending
// changes, each in a transaction of its own (a failed apply is logged, and
// tried again the next interval).  Without the preload, a scheduler
// (pg_cron, cron and psql) calls ivm.refresh_view the same way.
#pragma once

namespace ivm::pg::apply_worker {

// ivm.apply_interval, seconds (0: off, the default).  Defined by every
// backend, so that it can be set anywhere; read by the launcher.
void define_setting();

// Registers the launcher; only while shared_preload_libraries loads ivm.
void register_launcher();

}  // namespace ivm::pg::apply_worker
