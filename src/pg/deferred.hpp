// Deferred maintenance: a deferred view's base tables carry no trigger of
// the view; their writes are appended to ivm's change log of each base
// table (core/change_log.hpp, shared by every deferred view reading it), and
// ivm.refresh_view applies what the view has not consumed: the logged rows
// netted per base table, merged by the same counting maintenance a
// statement's transition tables go through (the old state of each base
// table is its current state less the netted rows, as for a statement that
// changed several tables).  TRUNCATE and DDL of a base table make the next
// apply recompute.
#pragma once
#include "pg/maintain.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ivm::pg::deferred {

// Refuses (0A000, 55000) a view that cannot be deferred: a recursive one
// (DRed needs the state before each statement), or where ivm's objects are
// older than 0.4.
void refuse_unless_deferrable(const AnalyzedView& analyzed);
// Makes a view deferred: its triggers go, its base tables get logs, and it
// has consumed every change committed so far (it was maintained by them).
// Needs SPI.
void make_deferred(const catalog::Entry& entry, const AnalyzedView& analyzed);
// Makes a deferred view immediate again: its triggers back, then what it
// has not consumed applied.  Needs SPI.
void make_immediate(ViewRuntime& view);
// Applies the view's pending changes (or recomputes it: `recompute`, after
// TRUNCATE or DDL of a base table, or where it never applied, as after a
// restore).  Needs SPI.
MaintenanceResult apply(ViewRuntime& view, bool recompute);
// The SQL selecting a log's rows that an apply takes in, netted (as
// change_log::pending_rows_sql): (the log, the base table's row type, the
// log's data columns, whether they are netted by value).
using LoggedRows =
    std::function<std::string(const std::string&, const std::string&, const std::vector<std::string>&, bool)>;
using Merge = std::function<MaintenanceResult(const std::vector<BaseChange>&)>;
// The rows `rows` selects from the logs of `bases` (a base without a log,
// or whose rows net to nothing: unchanged), handed to `merge` as one
// change of all of them (indexed like `bases`); nothing merged where
// nothing changed.
// `read` (indexed like `bases`, AnalyzedView::columns_read): the columns
// the view reads of each, the others taken as NULL.  Needs SPI.
MaintenanceResult apply_logged(const std::vector<Oid>& bases, const LoggedRows& rows, const Merge& merge,
                               const std::vector<std::vector<AttrNumber>>* read = nullptr);
// Makes the logs and their triggers match the views: a log for each base
// table a deferred view reads, its statement triggers on the table and its
// descendants, and the row triggers of a logical replication apply worker
// (replicated.hpp) there and, where this database has a subscription, on
// every view's base tables; none elsewhere.  A base table without the triggers gets
// them only when `install` (making a view deferred): pg_restore creates
// them itself, after other DDL.  Needs SPI.
void sync_logs(bool install = false);
// After DDL of `tables` (with their ancestors): a base table whose columns
// changed gets a new log, and the deferred views reading it recompute at
// their next apply.  Needs SPI.
void follow_ddl(const std::vector<Oid>& tables);
// After a table carrying log triggers was dropped (a partition of a base
// table): its rows left without a logged row, so the deferred views
// recompute at their next apply.  Needs SPI.
void follow_drop();
// How many logged change rows a deferred view has yet to apply (nullopt:
// not deferred).  Needs SPI.
std::optional<int64> pending_changes(int32 view_id);
// Applies the populated deferred views reading `base`, skipping those in
// `done` and adding the others to it (when given): what a logical
// replication apply worker's commit (or TRUNCATE) runs.  Opens its own SPI
// connections.
void apply_views_reading(Oid base, std::vector<int32>* done);
// Marks the log triggers' kept plans that involve the relation stale
// (InvalidOid: all); no PostgreSQL call (a relcache callback).
void forget_log_writers(Oid relid);
// Whether the next apply of a deferred view recomputes it.  Needs SPI.
bool will_recompute(int32 view_id);

}  // namespace ivm::pg::deferred
