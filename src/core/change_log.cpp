#include "core/change_log.hpp"

namespace ivm::change_log {

const char* const xid_column = "\"ivm$xid\"";
const char* const command_column = "\"ivm$command\"";
const char* const sign_column = "\"ivm$sign\"";
const char* const replica_truncate_trigger = "ivm_log_truncate_replicated";

namespace {

struct LogTrigger {
    const char* name;
    const char* event;
    const char* referencing;
};

constexpr LogTrigger log_triggers[] = {
    {"ivm_log_insert", "INSERT", " REFERENCING NEW TABLE AS ivm_new"},
    {"ivm_log_update", "UPDATE", " REFERENCING OLD TABLE AS ivm_old NEW TABLE AS ivm_new"},
    {"ivm_log_delete", "DELETE", " REFERENCING OLD TABLE AS ivm_old"},
    {"ivm_log_truncate", "TRUNCATE", ""},
};

// A log's rows (alias l) that `condition` keeps, netted: each distinct row
// (a value of the base table's row type, a column named "" NULL) once, with
// the times it was inserted less the times it was deleted, where not 0.
// `by_value`: the columns are grouped by themselves (every type equal only
// where the images are).  Otherwise rows are told apart by their text,
// which tells apart what equality may not (1.0 and 1.00, -0 and 0) and
// needs no equality of the column types (json); the row is read back
// through the first log row of its text (a tid, where an aggregate of the
// whole row would keep a state per row).  `joined` adds relations to FROM.
std::string netted_sql(const std::string& log, const std::string& base, const std::vector<std::string>& columns,
                       bool by_value, const std::string& joined, const std::string& condition) {
    std::string values, grouped;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        values += (i ? ", " : "") + (columns[i].empty() ? std::string("NULL") : "l." + columns[i]);
        if (!columns[i].empty()) grouped += (grouped.empty() ? "" : ", ") + ("l." + columns[i]);
    }
    const std::string row = "ROW(" + values + ")::" + base;
    const std::string copies = std::string("pg_catalog.sum(l.") + sign_column + ")";
    const std::string from = " FROM " + log + " l" + joined + " WHERE " + condition;
    const std::string netted = " HAVING " + copies + " OPERATOR(pg_catalog.<>) 0";
    if (by_value)
        return "SELECT " + row + ", " + copies + "::bigint" + from + (grouped.empty() ? "" : " GROUP BY " + grouped) +
               netted;
    return "SELECT " + row + ", __ivm_n.copies FROM (SELECT pg_catalog.min(l.ctid) AS tid, " + copies + "::bigint AS copies" +
           from + " GROUP BY ((" + row + ")::pg_catalog.text COLLATE pg_catalog.\"C\")" + netted + ") __ivm_n JOIN " + log +
           " l ON l.ctid OPERATOR(pg_catalog.=) __ivm_n.tid";
}

}  // namespace

std::string relname(unsigned base_oid) { return "changes_" + std::to_string(base_oid); }

std::string table_name(unsigned base_oid) { return "ivm." + relname(base_oid); }

std::string create_ddl(const std::string& base, unsigned base_oid) {
    // LIKE copies the columns and their NOT NULL only: no defaults, no
    // identity, no generated expressions (the transition rows carry values).
    return "CREATE TABLE " + table_name(base_oid) + " (LIKE " + base + ", " + xid_column + " pg_catalog.xid8 NOT NULL, " +
           command_column + " bigint NOT NULL, " + sign_column + " smallint NOT NULL)";
}

std::vector<std::string> statement_trigger_ddl(const std::string& table) {
    std::vector<std::string> ddl;
    for (const LogTrigger& t : log_triggers)
        ddl.push_back(std::string("CREATE TRIGGER ") + t.name + " AFTER " + t.event + " ON " + table + t.referencing +
                      " FOR EACH STATEMENT EXECUTE FUNCTION ivm.log_change()");
    return ddl;
}

std::vector<std::string> statement_trigger_drop(const std::string& table) {
    std::vector<std::string> ddl;
    for (const LogTrigger& t : log_triggers)
        ddl.push_back(std::string("DROP TRIGGER IF EXISTS ") + t.name + " ON " + table);
    return ddl;
}

// (Row triggers go on tables that hold rows: a partitioned table's would be
// cloned onto its partitions.)
namespace {
std::vector<std::string> replica_triggers(bool holds_rows) {
    if (!holds_rows) return {replica_truncate_trigger};
    return {replica_truncate_trigger, "ivm_log_row", "ivm_apply_replicated"};
}
}  // namespace

std::vector<std::string> replica_trigger_ddl(const std::string& table, bool holds_rows) {
    std::vector<std::string> ddl;
    ddl.push_back(std::string("CREATE TRIGGER ") + replica_truncate_trigger + " AFTER TRUNCATE ON " + table +
                  " FOR EACH STATEMENT EXECUTE FUNCTION ivm.log_change()");
    if (holds_rows) {
        ddl.push_back("CREATE TRIGGER ivm_log_row AFTER INSERT OR UPDATE OR DELETE ON " + table +
                      " FOR EACH ROW EXECUTE FUNCTION ivm.log_row_change()");
        ddl.push_back("CREATE CONSTRAINT TRIGGER ivm_apply_replicated AFTER INSERT OR UPDATE OR DELETE ON " + table +
                      " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ivm.apply_replicated()");
    }
    for (const std::string& name : replica_triggers(holds_rows))
        ddl.push_back("ALTER TABLE " + table + " ENABLE REPLICA TRIGGER " + name);
    return ddl;
}

std::vector<std::string> replica_trigger_drop(const std::string& table, bool holds_rows) {
    std::vector<std::string> ddl;
    for (const std::string& name : replica_triggers(holds_rows))
        ddl.push_back("DROP TRIGGER IF EXISTS " + name + " ON " + table);
    return ddl;
}

std::string pending_condition(const std::string& log, const std::string& state) {
    const std::string xid = log + "." + xid_column;
    return "NOT CASE WHEN " + xid + " OPERATOR(pg_catalog.=) " + state + ".own_xid THEN " + log + "." + command_column +
           " OPERATOR(pg_catalog.<) " + state + ".own_command ELSE pg_catalog.pg_visible_in_snapshot(" + xid + ", " +
           state + ".applied) END";
}

std::string pending_rows_sql(const std::string& log, const std::string& base, const std::vector<std::string>& columns,
                             bool by_value, int view_id) {
    return netted_sql(log, base, columns, by_value, ", ivm.deferred_state s",
                      "s.view_id OPERATOR(pg_catalog.=) " + std::to_string(view_id) + " AND " +
                          pending_condition("l", "s"));
}

std::string own_rows_sql(const std::string& log, const std::string& base, const std::vector<std::string>& columns,
                         bool by_value, long long from_command, long long to_command) {
    const std::string command = std::string("l.") + command_column;
    return netted_sql(log, base, columns, by_value, "",
                      std::string("l.") + xid_column + " OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id() AND " +
                          command + " OPERATOR(pg_catalog.>=) " + std::to_string(from_command) + " AND " + command +
                          " OPERATOR(pg_catalog.<) " + std::to_string(to_command));
}

std::string pending_count_sql(const std::string& log) {
    return "SELECT pg_catalog.count(*) FROM " + log + " l, ivm.deferred_state s WHERE s.view_id = $1::integer AND " +
           pending_condition("l", "s");
}

std::string prune_sql(const std::string& log) {
    return "DELETE FROM " + log + " l WHERE NOT EXISTS (SELECT FROM ivm.deferred_state s JOIN ivm.view_catalog c "
           "USING (view_id) WHERE c.deferred AND $1::oid::regclass = ANY (c.base_relations) AND " +
           pending_condition("l", "s") + ")";
}

std::string taken_in_sql(const std::string& log) {
    return "DELETE FROM " + log + " l WHERE l." + xid_column +
           " OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id() AND l." + command_column +
           " OPERATOR(pg_catalog.<) $2::bigint AND NOT EXISTS (SELECT FROM ivm.view_catalog c "
           "WHERE c.deferred AND $1::oid::regclass OPERATOR(pg_catalog.=) ANY (c.base_relations))";
}

}  // namespace ivm::change_log
