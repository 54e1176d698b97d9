// Deferred maintenance's change logs, as SQL text.  A deferred view's base
// tables do not maintain it: their AFTER STATEMENT triggers append the
// statement's transition rows to a log of ivm's, one per base table shared
// by every deferred view reading it, each row tagged with the writing
// transaction, the command that wrote it and +1 (inserted) or -1
// (deleted).  ivm.refresh_view applies what a view has not yet consumed.
// On a logical replication subscriber the apply worker's rows go to the
// logs too (row triggers), and every view reading them, immediate or
// deferred, takes them in when the replicated transaction commits.
#pragma once
#include "core/no_postgres.hpp"

#include <string>
#include <vector>

namespace ivm::change_log {

// The log of the base table with this oid: ivm.changes_<oid>.
std::string table_name(unsigned base_oid);
std::string relname(unsigned base_oid);  // changes_<oid>, unqualified

// The log's own columns, after the base table's.
extern const char* const xid_column;      // xid8 of the writing transaction
extern const char* const command_column;  // its command id when it wrote
extern const char* const sign_column;     // +1 inserted, -1 deleted

// The log of `base` (qualified), made with the base table's columns.
std::string create_ddl(const std::string& base, unsigned base_oid);

// The triggers that fill the log, on the base table and each descendant.
// A deferred view's base tables: statement triggers with transition tables.
std::vector<std::string> statement_trigger_ddl(const std::string& table);
std::vector<std::string> statement_trigger_drop(const std::string& table);
// The base tables of every view where a logical replication subscription
// may write them: a subscription's apply worker fires only triggers enabled
// for replicas, and no statement trigger but TRUNCATE's.  A row trigger
// logging each row, and on tables that hold rows (`holds_rows`: not a
// partitioned table) a deferred constraint trigger applying the views at
// its commit; the TRUNCATE trigger is `replica_truncate_trigger`.
std::vector<std::string> replica_trigger_ddl(const std::string& table, bool holds_rows);
std::vector<std::string> replica_trigger_drop(const std::string& table, bool holds_rows);
extern const char* const replica_truncate_trigger;

// True for a log row (alias `log`) that the view whose ivm.deferred_state
// row is `state` has not consumed: written by a transaction its last apply
// did not see, or by the apply's own transaction after it read the logs.
std::string pending_condition(const std::string& log, const std::string& state);

// In the two below, `columns` are the log's data columns (quoted), one
// named "" taken as NULL (a column the view does not read); the rows come
// netted: each distinct row (a value of the base table's row type) once,
// with the times it was inserted less the times it was deleted, where not
// 0 (column 2, bigint).  `by_value`: every column read compares equal only
// where the binary images are, and the rows are grouped by the columns;
// otherwise they are compared by their text: run with extra_float_digits
// above 0.
//
// The rows that this transaction logged in commands `from_command` to
// `to_command` less one: what an immediate view takes in when a replicated
// transaction commits.
std::string own_rows_sql(const std::string& log, const std::string& base, const std::vector<std::string>& columns,
                         bool by_value, long long from_command, long long to_command);

// The rows the view has not consumed.
std::string pending_rows_sql(const std::string& log, const std::string& base, const std::vector<std::string>& columns,
                             bool by_value, int view_id);
// How many rows the view `$1` has not consumed.
std::string pending_count_sql(const std::string& log);

// Deletes the rows every deferred view reading `base` ($1, an oid) has
// consumed.
std::string prune_sql(const std::string& log);

// Deletes the rows this transaction logged for `base` ($1, an oid) before
// command $2 where no deferred view reads it: the immediate views have
// taken them in.
std::string taken_in_sql(const std::string& log);

}  // namespace ivm::change_log
