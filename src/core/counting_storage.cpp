// Counting, the storage: its table, its key index and the view users read.
#include "core/counting.hpp"
#include "core/counting_shared.hpp"

#include <algorithm>
#include <functional>
#include <utility>
#include <optional>

#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"

namespace ivm::counting {

std::string row_count_query(const CountingView& view) {
    // (a keyed view's tuples have count 1: counted without reading the column)
    if (first_fill_writes_view_rows(view)) return "SELECT pg_catalog.count(*) FROM " + view.storage;
    return "SELECT COALESCE(pg_catalog.sum(__ivm_count), 0)::bigint FROM " + view.storage;
}

std::vector<std::string> storage_index_ddl(const CountingView& view) {
    if (tuples::key(keyed_columns(view), "").empty()) return {};
    return {tuples::key_index_ddl(view.storage)};
}

std::vector<std::pair<std::string, std::string>> partial_state_columns(const CountingView& view) {
    std::vector<std::pair<std::string, std::string>> columns;
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        if (!has_argument(view.partial[k].kind)) continue;
        const Parts parts = state_parts(view, k);
        const std::string n = std::to_string(k + 1);
        if (parts.own_n) columns.emplace_back("__ivm_n" + n, "bigint NOT NULL");
        if (parts.own_s) columns.emplace_back("__ivm_s" + n, "numeric");
        if (parts.own_x) {
            columns.emplace_back("__ivm_x" + n, tracked_type(view, k));
            columns.emplace_back("__ivm_xn" + n, "bigint NOT NULL");
        }
        if (parts.own_s && view.partial[k].numeric)
            for (const Special& sp : specials_of(view.partial[k])) columns.emplace_back(sp.column + n, "bigint NOT NULL");
    }
    return columns;
}

void use_storage_shape(CountingView& view, const std::function<bool(const std::string&)>& storage_has) {
    if (view.shape() != CountingView::Shape::PartialState) return;
    // A storage made before numeric sums of a fixed scale were kept without
    // their largest scale and infinities (0.9) has those columns: kept so.
    CountingView tracked = view;
    for (CountingView::Partial& p : tracked.partial) p.scale = -1;
    const auto tracked_columns = partial_state_columns(tracked);
    if (tracked_columns != partial_state_columns(view) &&
        std::all_of(tracked_columns.begin(), tracked_columns.end(), [&](const auto& c) { return storage_has(c.first); }))
        view.partial = tracked.partial;
    for (const auto& column : partial_state_columns(view))
        if (!storage_has(column.first)) {
            view.partial.clear();
            return;
        }
}

std::vector<std::string> storage_ddl(const CountingView& view, const std::string& query_view, bool index_later) {
    std::string columns = "LIKE " + query_view;
    for (const Column& k : view.group_keys) columns += ", " + k.name + " " + k.type;
    columns += ", __ivm_count bigint NOT NULL";
    for (int a = 0; a < view.arms; ++a) columns += ", " + arm_column("__ivm_arm", a) + " bigint NOT NULL";
    for (const auto& [name, type] : partial_state_columns(view)) columns += ", " + name + " " + type;
    // An aggregate view's rows are found by their group.
    const std::string key = tuples::key(keyed_columns(view), "");
    if (!key.empty()) columns += ", __ivm_key bigint NOT NULL";
    if (key.empty()) return {"CREATE TABLE " + view.storage + " (" + columns + ")"};
    // Maintenance updates stored rows in place (a count, a group's state, a
    // keyed tuple's new values) without changing their key: with room left
    // on each page the new version stays there, a HOT update that writes no
    // index entry (W1's view, 100,000 of 1,000,000 accounts updated: 17%
    // faster; 10% more pages).
    std::vector<std::string> ddl{"CREATE TABLE " + view.storage + " (" + columns + ") WITH (fillfactor = 90)"};
    if (!index_later)
        for (const std::string& index : storage_index_ddl(view)) ddl.push_back(index);
    // What the key is made of, for \d+ (and alter_view's comparison of storages).
    std::vector<std::string> hashed;
    std::string lead;
    for (const Column& c : keyed_columns(view)) {
        if (!c.hashable || !c.hashed) continue;
        hashed.push_back(c.name);
        if (c.leads_key) lead = c.name;
    }
    ddl.push_back("COMMENT ON COLUMN " + view.storage + ".__ivm_key IS " +
                  sql::literal("the key by which maintenance finds a stored row: a hash of (" + sql::join(hashed, ", ") +
                               ")" + (lead.empty() ? "" : ", led by the value of " + lead)));
    return ddl;
}

std::string user_view_ddl(const CountingView& view, const std::string& user_view, bool populated, ViewDdl how,
                          bool check_snapshots) {
    const std::string create = how == ViewDdl::Create ? "CREATE VIEW " : "CREATE OR REPLACE VIEW ";
    if (!populated) {
        std::vector<std::string> nulls;
        for (const Column& c : view.columns) nulls.push_back("NULL::" + c.type + " AS " + tuples::shown_name(c.name));
        return create + user_view + " AS SELECT " + sql::join(nulls, ", ") +
               " FROM ivm.unpopulated(" + sql::literal(user_view) + ")";
    }
    std::string from = view.storage + " __ivm_s";
    if (view.repeats_rows()) from += " CROSS JOIN LATERAL ivm.copies(__ivm_s.__ivm_count) __ivm_n";
    std::vector<std::string> shown;
    for (const Column& c : view.columns) {
        const std::string name = tuples::shown_name(c.name);
        shown.push_back("__ivm_s." + c.name + (name == c.name ? "" : " AS " + name));
    }
    // (a condition without columns: checked once per query, not per row)
    const std::string check =
        check_snapshots ? " WHERE ivm.snapshot_sees_storage(" + sql::literal(view.storage) + "::pg_catalog.regclass)" : "";
    return create + user_view + " AS SELECT " + sql::join(shown, ", ") + " FROM " + from + check;
}

}  // namespace ivm::counting
