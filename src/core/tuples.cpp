#include "core/tuples.hpp"

#include "core/sql_text.hpp"

#include <cstring>

namespace ivm::tuples {

namespace {
constexpr const char* own_prefix = "__ivm_";
constexpr const char* user_prefix = "__ivm_u_";
bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
}  // namespace

std::string stored_name(const std::string& user_name) {
    return starts_with(user_name, own_prefix) ? user_prefix + user_name : user_name;
}

std::string shown_name(const std::string& quoted) {
    const std::size_t at = !quoted.empty() && quoted[0] == '"' ? 1 : 0;
    if (quoted.compare(at, std::strlen(user_prefix), user_prefix) != 0) return quoted;
    return quoted.substr(0, at) + quoted.substr(at + std::strlen(user_prefix));
}

std::string columns(const std::vector<Column>& cols, const std::string& qualifier) {
    return sql::join_mapped<Column>(cols, ", ", [&](const Column& c) {
        return qualifier.empty() ? c.name : qualifier + "." + c.name;
    });
}

namespace {
bool (*key_hash_installed)() = nullptr;
}  // namespace

void set_key_hash_probe(bool (*installed)()) { key_hash_installed = installed; }

std::string hash(const std::string& values) {
    if (key_hash_installed != nullptr && key_hash_installed()) return "ivm.key_hash(" + values + ")";
    return "pg_catalog.hash_record_extended(ROW(" + values + "), 0::bigint)";
}

std::string key(const std::vector<Column>& cols, const std::string& qualifier) {
    std::vector<std::string> keyed;
    std::string lead;
    for (const Column& c : cols) {
        if (!c.hashable || !c.hashed) continue;
        keyed.push_back(qualifier.empty() ? c.name : qualifier + "." + c.name);
        if (lead.empty() && c.leads_key) lead = keyed.back();
    }
    if (keyed.empty()) return {};
    const std::string hashed = hash(sql::join(keyed, ", "));
    if (lead.empty()) return hashed;
    // An integer column leads (a counting view's first): a storage that
    // gets its tuples in that column's order (new ids, a serial) adds them
    // at the right end of its key index, as the base table's own key index
    // does, instead of all over it.  A value beyond 2^39 only wraps the
    // order; equal keys are told apart by the columns, as hash collisions
    // are.  DRed's relations keep the plain hash: led by their first
    // column, their changes came out slower (both measured in
    // docs/benchmarks.md, "Measurements behind design decisions").
    return "((COALESCE(" + lead + "::bigint, 0)" + sql::op("<<") + "24)" + sql::op("|") + "(" + hashed + sql::op("&") +
           "16777215))";
}

std::string key_index_ddl(const std::string& storage) {
    return "CREATE INDEX ON " + storage + " (__ivm_key) WITH (deduplicate_items = off)";
}

std::string cast(const std::string& value, const std::string& type) { return "(" + value + ")::" + type; }

std::string image(const std::string& value) {
    return "(CAST(" + value + " AS pg_catalog.text) COLLATE pg_catalog.\"C\")";
}

std::string grouped_columns(const std::vector<Column>& cols) {
    return sql::join_mapped<Column>(cols, ", ", [&](const Column& c) {
        return c.image ? cast("pg_catalog.min" + image(c.name), c.type) + " AS " + c.name : c.name;
    });
}

std::string group_by(const std::vector<Column>& cols) {
    std::vector<std::string> items;
    for (std::size_t i = 0; i < cols.size(); ++i) items.push_back(cols[i].image ? image(cols[i].name) : std::to_string(i + 1));
    return sql::join(items, ", ");
}

std::string equal(const std::vector<Column>& cols, const std::string& a, const std::string& b) {
    std::vector<std::string> conditions;
    for (const Column& c : cols) {
        if (c.image) {
            conditions.push_back(image(a + "." + c.name) + " IS NOT DISTINCT FROM " + image(b + "." + c.name));
            continue;
        }
        const std::string x = a + "." + c.name, y = b + "." + c.name;
        // A column that is never NULL gets the plain form, which indexes serve.
        if (c.not_null)
            conditions.push_back(x + " " + c.equality + " " + y);
        else
            conditions.push_back("(" + x + " " + c.equality + " " + y + " OR (" + x + " IS NULL AND " +
                                 y + " IS NULL))");
    }
    return conditions.empty() ? "true" : sql::join(conditions, " AND ");
}

namespace {

// same() and looked_up(): `each_row` writes the key equality in the form
// only a lookup per row can evaluate.
std::string matching(const std::vector<Column>& cols, const std::string& a, Key a_key, const std::string& b, Key b_key,
                     bool each_row) {
    if (key(cols, "").empty()) return equal(cols, a, b);
    auto side = [&](const std::string& q, Key k) {
        return k == Key::Stored ? q + ".__ivm_key" : k == Key::Carried ? q + ".__ivm_h" : key(cols, q);
    };
    // Looking up a computed tuple in a stored relation: the key finds the
    // row (an index scan, or a hash join on it), and the columns are only
    // rechecked, in a form no planner mistakes for a better index condition.
    // IS NOT DISTINCT FROM resolves = by name, so it is used only where
    // every column's equality is pg_catalog's.  Between two stored sets the
    // column-wise form keeps the planner's row estimates sane.
    bool builtin = (a_key == Key::Stored) != (b_key == Key::Stored);
    for (const Column& c : cols) builtin &= c.equality == "OPERATOR(pg_catalog.=)";
    const std::string recheck = builtin ? "ROW(" + columns(cols, a) + ") IS NOT DISTINCT FROM ROW(" + columns(cols, b) + ")"
                                        : equal(cols, a, b);
    const std::string keys = each_row ? side(a, a_key) + sql::op("=") + "ANY (ARRAY[" + side(b, b_key) + "])"
                                      : side(a, a_key) + sql::op("=") + side(b, b_key);
    return keys + " AND " + recheck;
}

}  // namespace

std::string same(const std::vector<Column>& cols, const std::string& a, Key a_key,
                 const std::string& b, Key b_key) {
    return matching(cols, a, a_key, b, b_key, false);
}

std::string looked_up(const std::vector<Column>& cols, const std::string& stored, const std::string& rows, Key rows_key) {
    return matching(cols, stored, Key::Stored, rows, rows_key, true);
}

std::string carry_key(const std::vector<Column>& cols, const std::string& rows, bool sorted) {
    const std::string k = key(cols, "__ivm_x");
    if (k.empty()) return rows;
    if (!sorted) return "SELECT __ivm_x.*, " + k + " AS __ivm_h FROM (" + rows + ") __ivm_x";
    // Sorted, a large delta walks the key index from left to right (its
    // lookups and the storage's index inserts touch each page once, in
    // order) instead of jumping around it (docs/benchmarks.md, "Measurements
    // behind design decisions").
    return "SELECT __ivm_x.*, " + k + " AS __ivm_h FROM (" + rows + ") __ivm_x ORDER BY __ivm_h";
}

std::string delete_stored(const std::string& table, const std::vector<Column>& cols, const std::string& rows,
                          bool one_by_one) {
    if (one_by_one)
        return "DELETE FROM " + table + " __ivm_t WHERE __ivm_t.ctid" + sql::op("=") + "ANY (ARRAY(SELECT (SELECT __ivm_k.ctid FROM " +
               table + " __ivm_k WHERE " + same(cols, "__ivm_k", Key::Stored, "__ivm_g", Key::Stored) + " LIMIT 1) FROM " +
               rows + " __ivm_g))";
    return "DELETE FROM " + table + " __ivm_t USING " + rows + " __ivm_g WHERE " +
           same(cols, "__ivm_t", Key::Stored, "__ivm_g", Key::Stored);
}

}  // namespace ivm::tuples
