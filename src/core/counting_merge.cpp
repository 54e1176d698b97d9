// Counting, the merges: a delta, a rebuild or a first fill written into
// the storage of a view of tuples or of a set operation, and the report
// every merge returns.
#include "core/counting.hpp"
#include "core/counting_shared.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"

namespace ivm::counting {

using Shape = CountingView::Shape;

// A merge's data-modifying WITH queries run to completion unread; the
// storage rows they insert and delete are counted from __ivm_m by the one
// aggregate that reports the merge (a plan kept for one-row changes must be
// small: its start-up is a large part of what such a change costs).
std::string written(const std::string& condition) { return "pg_catalog.count(*) FILTER (WHERE " + condition + ")"; }

std::string report_select(const MergeReport& r) {
    std::string out = "SELECT " + r.added + " AS __ivm_added, " + r.removed + " AS __ivm_removed, " + r.inserted +
                      " AS __ivm_inserted, " + r.deleted + " AS __ivm_deleted, " + r.negative + " AS __ivm_negative";
    if (!r.stale.empty()) out += ", " + r.stale + " AS __ivm_stale";
    return out;
}

// The storage's key (__ivm_key, on an aggregate view's group keys, else on
// the tuple) is written by every insert, not generated: PostgreSQL parses
// and prepares a stored generated column's expression again for every
// statement that writes the table, which a one-row change pays in full.
// The column to name in an insert, and its value for a row of `q`: the key
// carried as __ivm_h (tuples::carry_key) or computed from q's columns.
// Both empty when the storage has no key.
const std::vector<Column>& keyed_columns(const CountingView& view) {
    return view.aggregate ? view.group_keys : view.columns;
}

std::string key_target(const CountingView& view) {
    return tuples::key(keyed_columns(view), "").empty() ? "" : ", __ivm_key";
}

std::string key_value(const CountingView& view, const std::string& q, tuples::Key k) {
    if (tuples::key(keyed_columns(view), "").empty()) return "";
    return ", " + (k == tuples::Key::Carried ? q + ".__ivm_h" : tuples::key(keyed_columns(view), q));
}

namespace {

// How many times the tree shows a tuple whose count in arm i is the
// column prefix<i+1>.
std::string times_shown(const CountingView::SetNode& node, const std::string& prefix) {
    using Op = CountingView::SetNode::Op;
    if (node.op == Op::Arm) return arm_column(prefix, node.arm);
    const std::string gt0 = sql::op(">") + "0";
    const std::string l = times_shown(node.children.at(0), prefix);
    if (node.op == Op::Distinct) return "(CASE WHEN " + l + gt0 + " THEN 1 ELSE 0 END)::bigint";
    const std::string r = times_shown(node.children.at(1), prefix);
    switch (node.op) {
        case Op::UnionAll: return "(" + l + sql::op("+") + r + ")";
        case Op::Union: return "(CASE WHEN " + l + gt0 + " OR " + r + gt0 + " THEN 1 ELSE 0 END)::bigint";
        case Op::IntersectAll: return "LEAST(" + l + ", " + r + ")";
        case Op::Intersect: return "(CASE WHEN " + l + gt0 + " AND " + r + gt0 + " THEN 1 ELSE 0 END)::bigint";
        case Op::ExceptAll: return "GREATEST(" + l + sql::op("-") + r + ", 0)";
        case Op::Except:
            return "(CASE WHEN " + l + gt0 + " AND " + r + sql::op("=") + "0 THEN 1 ELSE 0 END)::bigint";
        case Op::Arm:
        case Op::Distinct: break;
    }
    throw Error(sqlstate::internal_error, "unknown set operation");
}

std::string set_op_merge(const CountingView& view, const std::string& delta) {
    const std::string cols = output_columns(view, "");
    std::vector<std::string> counts, gone, negative, set, stored, now;
    for (int a = 0; a < view.arms; ++a) {
        const std::string o = arm_column("__ivm_o", a), n = arm_column("__ivm_n", a);
        const std::string column = arm_column("__ivm_arm", a);
        counts.push_back("COALESCE(__ivm_s." + column + ", 0) AS " + o + ", COALESCE(__ivm_s." + column + ", 0)" +
                         sql::op("+") + "__ivm_d." + arm_column("__ivm_d", a) + " AS " + n);
        gone.push_back("__ivm_m." + n + sql::op("=") + "0");
        negative.push_back(n + sql::op("<") + "0");
        set.push_back(column + " = __ivm_m." + n);
        stored.push_back(column);
        now.push_back(n);
    }
    const std::string none_left = sql::join(gone, " AND ");
    const std::string inserted = "__ivm_m.__ivm_tid IS NULL AND NOT (" + none_left + ")";
    const std::string deleted = "__ivm_m.__ivm_tid IS NOT NULL AND " + none_left;
    const std::string shown_now = times_shown(view.set_tree, "__ivm_n"), shown_before = times_shown(view.set_tree, "__ivm_o");
    return "WITH __ivm_d AS MATERIALIZED (" + tuples::carry_key(view.columns, delta) +
           "), __ivm_m AS MATERIALIZED (SELECT __ivm_e.*, " + shown_now +
           " AS __ivm_now, " + shown_before + " AS __ivm_before FROM (SELECT __ivm_d.*, __ivm_s.ctid AS __ivm_tid, " +
           sql::join(counts, ", ") + " FROM __ivm_d LEFT JOIN " + view.storage + " __ivm_s ON " +
           tuples::same(view.columns, "__ivm_s", tuples::Key::Stored, "__ivm_d", tuples::Key::Carried) +
           ") __ivm_e), __ivm_del AS (DELETE FROM " + view.storage + " __ivm_s USING __ivm_m WHERE __ivm_s.ctid" +
           sql::op("=") + "__ivm_m.__ivm_tid AND " + none_left + "), __ivm_upd AS (UPDATE " +
           view.storage + " __ivm_s SET " + sql::join(set, ", ") +
           ", __ivm_count = __ivm_m.__ivm_now FROM __ivm_m WHERE __ivm_s.ctid" + sql::op("=") +
           "__ivm_m.__ivm_tid AND NOT (" + none_left + ")), __ivm_ins AS (INSERT INTO " + view.storage +
           " (" + cols + ", " + sql::join(stored, ", ") + ", __ivm_count" + key_target(view) + ") SELECT " + cols + ", " +
           sql::join(now, ", ") + ", __ivm_now" + key_value(view, "__ivm_m", tuples::Key::Carried) + " FROM __ivm_m WHERE " +
           inserted + ") " +
           report_select({"COALESCE(pg_catalog.sum(GREATEST(__ivm_now" + sql::op("-") + "__ivm_before, 0)), 0)::bigint",
                          "COALESCE(pg_catalog.sum(GREATEST(__ivm_before" + sql::op("-") + "__ivm_now, 0)), 0)::bigint",
                          written(inserted), written(deleted), written(sql::join(negative, " OR ")), ""}) +
           " FROM __ivm_m";
}

// The delta tuples of __ivm_d with the stored row of each (__ivm_tid, its
// count __ivm_old; NULL when it is not stored).
std::string stored_lookup(const CountingView& view, Lookup lookup) {
    const std::string match =
        tuples::same(view.columns, "__ivm_s", tuples::Key::Stored, "__ivm_d", tuples::Key::Carried);
    // Per tuple only where there is a key to look up (an index scan).
    if (lookup == Lookup::PerTuple && !tuples::key(view.columns, "").empty())
        return "SELECT __ivm_d.*, __ivm_s.__ivm_tid, __ivm_s.__ivm_old FROM __ivm_d LEFT JOIN LATERAL (SELECT "
               "__ivm_s.ctid AS __ivm_tid, __ivm_s.__ivm_count AS __ivm_old FROM " + view.storage +
               " __ivm_s WHERE " + match + " LIMIT 1) __ivm_s ON true";
    return "SELECT __ivm_d.*, __ivm_s.ctid AS __ivm_tid, __ivm_s.__ivm_count AS __ivm_old FROM __ivm_d LEFT JOIN " +
           view.storage + " __ivm_s ON " + match;
}

}  // namespace

std::string merge_statement(const CountingView& view, const std::string& counted_delta, Lookup lookup) {
    switch (view.shape()) {
        case Shape::PartialState: return partial_merge(view, counted_delta, Into::Storage);
        case Shape::Groups: return aggregate_merge(view, counted_delta);
        case Shape::SetOperation: return set_op_merge(view, counted_delta);
        case Shape::Tuples: break;
    }
    const std::string cols = output_columns(view, "");
    const std::string plus = sql::op("+");
    const std::string inserted = "__ivm_m.__ivm_tid IS NULL AND __ivm_m.__ivm_cnt" + sql::op(">") + "0";
    const std::string deleted = "__ivm_m.__ivm_old" + plus + "__ivm_m.__ivm_cnt" + sql::op("=") + "0";
    return "WITH __ivm_d AS MATERIALIZED (" + tuples::carry_key(view.columns, counted_delta) +
           "), __ivm_m AS MATERIALIZED (" + stored_lookup(view, lookup) +
           "), __ivm_del AS (DELETE FROM " + view.storage +
           " __ivm_s USING __ivm_m WHERE __ivm_s.ctid" + sql::op("=") + "__ivm_m.__ivm_tid AND " + deleted +
           "), __ivm_upd AS (UPDATE " + view.storage +
           " __ivm_s SET __ivm_count = __ivm_m.__ivm_old" + plus + "__ivm_m.__ivm_cnt FROM __ivm_m "
           "WHERE __ivm_s.ctid" + sql::op("=") + "__ivm_m.__ivm_tid AND __ivm_m.__ivm_old" + plus +
           "__ivm_m.__ivm_cnt" + sql::op(">") + "0"
           "), __ivm_ins AS (INSERT INTO " + view.storage + " (" + cols + ", __ivm_count" + key_target(view) +
           ") SELECT " + cols + ", __ivm_cnt" + key_value(view, "__ivm_m", tuples::Key::Carried) + " FROM __ivm_m WHERE " +
           inserted + ") " +
           report_select({"COALESCE(pg_catalog.sum(__ivm_cnt) FILTER (WHERE __ivm_cnt" + sql::op(">") + "0), 0)::bigint",
                          "COALESCE(pg_catalog.sum(" + sql::op("-") + "__ivm_cnt) FILTER (WHERE __ivm_cnt" + sql::op("<") +
                              "0), 0)::bigint",
                          written(inserted), written(deleted),
                          written("COALESCE(__ivm_old, 0)" + plus + "__ivm_cnt" + sql::op("<") + "0"), ""}) +
           " FROM __ivm_m";
}

bool parallel_writers(const CountingView& view, std::size_t base) {
    // Groups recomputed from the base tables: a writer must see what
    // another wrote to the group's rows even where the group came out the
    // same (its stored row then untouched, nothing to wait for).
    if (view.shape() == Shape::Groups) return false;
    bool read = false;
    for (const Block& block : view.blocks) {
        int in_block = 0;
        for (const Source& s : block.sources) {
            if (s.base != base) continue;
            if (s.role != Source::Role::Linear || ++in_block > 1) return false;
            read = true;
        }
    }
    return read;
}

bool has_storage_key(const CountingView& view) { return !key_target(view).empty(); }

std::string refresh_statement(const CountingView& view) {
    if (view.shape() == Shape::PartialState) return partial_merge(view, refresh_delta_query(view), Into::Emptied);
    return merge_statement(view, refresh_delta_query(view));
}

bool can_rebuild(const CountingView& view) { return view.shape() == Shape::Tuples; }

namespace {
bool keyed_rows(const CountingView& view) {
    return std::find(view.keying.begin(), view.keying.end(), true) != view.keying.end();
}

// The view's tuples as the query makes them now, each with its count: a
// keyed view's rows are its tuples already (distinct, count 1), which
// need no netting.
std::string rows_now(const CountingView& view) {
    const std::vector<std::string> now = terms_now(view);
    return keyed_rows(view) ? now.at(0) : netted(view, sql::join(now, " UNION ALL "));
}
}  // namespace

std::string rebuild_statement(const CountingView& view) {
    if (!can_rebuild(view)) throw Error(sqlstate::internal_error, "rebuild of an aggregate or set operation view");
    const std::string cols = output_columns(view, "");
    // What went is counted from the storage as the statement's snapshot
    // shows it (before the DELETE): one scan, where a RETURNING list would
    // keep every deleted tuple once more.
    return "WITH __ivm_gone AS (DELETE FROM " + view.storage + "), __ivm_new AS (INSERT INTO " + view.storage + " (" +
           cols + ", __ivm_count" + key_target(view) + ") SELECT " + cols + ", __ivm_cnt" +
           key_value(view, "__ivm_q", tuples::Key::Carried) + " FROM (" + tuples::carry_key(view.columns, rows_now(view)) +
           ") __ivm_q RETURNING __ivm_count) " +
           report_select({"__ivm_n.total", "__ivm_g.total", "__ivm_n.tuples", "__ivm_g.tuples", "0::bigint", ""}) +
           " FROM (SELECT COALESCE(pg_catalog.sum(__ivm_count), 0)::bigint AS total, pg_catalog.count(*) AS tuples FROM "
           "__ivm_new) __ivm_n, (SELECT COALESCE(pg_catalog.sum(__ivm_count), 0)::bigint AS total, pg_catalog.count(*) AS "
           "tuples FROM " + view.storage + ") __ivm_g";
}

bool can_first_fill(const CountingView& view) { return can_rebuild(view) || view.shape() == Shape::PartialState; }

std::string first_fill_query(const CountingView& view) {
    if (view.shape() == Shape::PartialState) return partial_merge(view, refresh_delta_query(view), Into::NewRows);
    if (!can_rebuild(view)) throw Error(sqlstate::internal_error, "first fill of a grouped or set operation view");
    const std::string rows = rows_now(view);
    const std::string key = key_value(view, "__ivm_q", tuples::Key::Computed);
    return "SELECT " + output_columns(view, "") + ", __ivm_cnt AS __ivm_count" + (key.empty() ? "" : key + " AS __ivm_key") +
           " FROM (" + rows + ") __ivm_q";
}

std::string first_fill_statement(const CountingView& view) {
    if (view.shape() == Shape::PartialState) return "INSERT INTO " + view.storage + " " + first_fill_query(view);
    return "INSERT INTO " + view.storage + " (" + output_columns(view, "") + ", __ivm_count" + key_target(view) + ") " +
           first_fill_query(view);
}

bool first_fill_writes_view_rows(const CountingView& view) { return keyed_rows(view) || !view.repeats_rows(); }

}  // namespace ivm::counting
