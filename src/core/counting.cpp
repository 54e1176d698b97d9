#include "core/counting.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"

namespace ivm::counting {
namespace {

// WITH <ctes> before a query; nothing for a block that reads no relation.
std::string with_clause(const std::vector<std::string>& ctes) {
    return ctes.empty() ? "" : "WITH " + sql::join(ctes, ", ") + " ";
}

// How one occurrence is read in a delta term.
enum class State { Now, Before, Delta };

std::string count_column(std::size_t k) { return "__ivm_c" + std::to_string(k + 1); }
std::string changed_rows(std::size_t k) { return "__ivm_chg_" + std::to_string(k + 1); }

// Another view's storage may keep a tuple its query no longer has (count 0:
// an INTERSECT or EXCEPT keeps its arms' counts); only tuples it shows are
// rows, which matters where rows are not multiplied by their count (the
// nullable side of an outer join, a subquery).
std::string shown(const Source& source) {
    return source.multiplicity.empty() ? "" : " WHERE __ivm_r." + source.multiplicity + sql::op(">") + "0";
}

// The rows of a relation with a count column: `sign` (1 or -1) times the
// source's multiplicity.
std::string counted_rows(const Source& source, const std::string& relation, const char* sign) {
    std::string columns = "__ivm_r.*";
    if (!source.columns.empty()) {
        std::vector<std::string> qualified;
        for (const std::string& c : source.columns) qualified.push_back("__ivm_r." + c);
        columns = sql::join(qualified, ", ");
    }
    const std::string count = source.multiplicity.empty()
                                  ? std::string(sign) + "::bigint"
                                  : "(" + std::string(sign) + "::bigint" + sql::op("*") + "__ivm_r." + source.multiplicity + ")";
    return "SELECT " + columns + ", " + count + " AS __ivm_cnt FROM " + relation + " __ivm_r" + shown(source);
}

using Role = Source::Role;

// A non-linear occurrence as it was before the statement, as true rows:
// the rows there are now less one for each equal row the statement
// inserted, and the rows it deleted.  Rows are matched by their unique key
// when the source has one (narrow, never NULL), else by all the columns
// the query uses, a column that may be NULL compared as a one-element
// array, whose equality is the element type's and takes NULLs as equal (a
// column without equality, by its text).
//
// A small change (`large` false; a kept plan) looks the inserted rows up
// in a hash: the filter sits above a UNION ALL whose arms read one
// relation each, so the planner can push a subquery's correlation down
// into both (an index scan per outer row).  Past the memory a hash may
// take, that lookup scans the inserted rows once per row; a large change
// (planned for its size) matches them by an anti-join instead, which the
// planner hashes (and spills) or sorts.  (OFFSET 0 keeps the deleted rows
// a subquery, which a parameterized plan can rescan; a transition table
// scan cannot be.)
std::string rows_before(const Source& source, const std::string& now, const std::string& inserted,
                        const std::string& deleted, bool large) {
    const std::vector<Column>& row = source.row;
    const std::vector<Column>& match = source.key.empty() ? row : source.key;
    const std::string count = source.multiplicity.empty() ? "1::bigint" : "__ivm_r." + source.multiplicity;
    const std::string cols = tuples::columns(row, "__ivm_r");
    auto value = [](const Column& c, const std::string& q) {
        const std::string v = c.image ? tuples::image(q + "." + c.name) : q + "." + c.name;
        return c.not_null && !c.image ? v : "ARRAY[" + v + "]";
    };
    auto values = [&](const std::string& q) {
        return sql::join_mapped<Column>(match, ", ", [&](const Column& c) { return value(c, q); });
    };
    // Of n equal rows of which k were inserted, the first k (by physical
    // position) go: a row's rank among the equal rows now.
    auto rank = [&](const std::string& position) {
        return "(SELECT pg_catalog.count(*) FROM " + now + " __ivm_e WHERE " + tuples::equal(row, "__ivm_e", "__ivm_r") +
               " AND (__ivm_e.tableoid, __ivm_e.ctid)" + sql::op("<") + position + ")";
    };
    const std::string ranked = "pg_catalog.row_number() OVER (PARTITION BY " + values("__ivm_i") + ")" + sql::op("-") + "1";
    auto deleted_rows = [&](const std::string& more) {
        return "SELECT " + cols + ", " + count + more + " FROM (SELECT * FROM " + deleted + " OFFSET 0) __ivm_r" +
               shown(source);
    };
    if (large) {
        std::vector<std::string> same;
        for (const Column& c : match) {
            const std::string op = c.not_null && !c.image ? " " + c.equality + " " : sql::op("=");
            same.push_back(value(c, "__ivm_r") + op + value(c, "__ivm_i"));
        }
        std::string inserted_rows = inserted;
        if (!source.unique) {
            inserted_rows = "(SELECT " + tuples::columns(row, "__ivm_i") + ", " + ranked + " AS __ivm_rank FROM " +
                            inserted + " __ivm_i)";
            same.push_back("__ivm_i.__ivm_rank" + sql::op("=") + rank("(__ivm_r.tableoid, __ivm_r.ctid)"));
        }
        const std::string where = source.multiplicity.empty() ? " WHERE" : shown(source) + " AND";
        return "SELECT " + cols + ", __ivm_r.__ivm_cnt FROM (SELECT " + cols + ", " + count + " AS __ivm_cnt FROM " +
               now + " __ivm_r" + where + " NOT EXISTS (SELECT 1 FROM " + inserted_rows + " __ivm_i WHERE " +
               sql::join(same, " AND ") + ") UNION ALL " + deleted_rows("") + ") __ivm_r";
    }
    auto tuple = [&](const std::string& q) { return match.size() > 1 ? "ROW(" + values(q) + ")" : values(q); };
    std::string removed = tuple("__ivm_r") + " IN (SELECT " + values("__ivm_i") + " FROM " + inserted + " __ivm_i)";
    if (!source.unique)
        removed += " AND ROW(" + values("__ivm_r") + ", " + rank("(__ivm_r.__ivm_rel, __ivm_r.__ivm_tid)") +
                   ") IN (SELECT " + values("__ivm_i") + ", " + ranked + " FROM " + inserted + " __ivm_i)";
    return "SELECT " + cols + ", __ivm_r.__ivm_cnt FROM (SELECT " + cols + ", " + count +
           " AS __ivm_cnt, __ivm_r.tableoid AS __ivm_rel, __ivm_r.ctid AS __ivm_tid FROM " + now + " __ivm_r" +
           shown(source) + " UNION ALL " + deleted_rows(", NULL::oid, NULL::tid") + ") __ivm_r WHERE __ivm_r.__ivm_tid IS NULL OR NOT (" +
           removed + ")";
}

// The counted relation an occurrence stands for in one term.  "Before" is
// the table as it was before the statement: now, minus what the statement
// inserted, plus what it deleted (signed rows where the view is linear in
// the occurrence, true rows elsewhere).
std::string source_query(const CountingView& view, const Block& block, std::size_t k, State state,
                         bool large = false) {
    const Source& source = block.sources.at(k);
    const std::string now = (source.only ? "ONLY " : "") + view.bases.at(source.base);
    const std::string inserted = new_rows_relation(source.base);
    const std::string deleted = old_rows_relation(source.base);
    if (state == State::Before && source.role != Role::Linear) return rows_before(source, now, inserted, deleted, large);
    switch (state) {
        case State::Now:
            return counted_rows(source, now, "1");
        case State::Delta:
            return counted_rows(source, inserted, "1") + " UNION ALL " + counted_rows(source, deleted, "-1");
        case State::Before:
            return counted_rows(source, now, "1") + " UNION ALL " + counted_rows(source, inserted, "-1") +
                   " UNION ALL " + counted_rows(source, deleted, "1");
    }
    throw Error(sqlstate::internal_error, "unknown source state");
}

std::string output_columns(const CountingView& view, const std::string& qualifier) {
    return tuples::columns(view.columns, qualifier);
}

// One term of the telescoped delta: the template with each occurrence bound
// to the relation its state names, and the product of the occurrences'
// counts.
// A term limited to what the change of non-linear occurrence `filtered`
// can alter reads that change as "__ivm_chg_<k+1>" and counts `sign` times;
// `large`: the change is planned for its size (rows_before).
struct Limit {
    std::optional<std::size_t> filtered;
    const char* sign = nullptr;
    bool large = false;
};

std::string term_query(const CountingView& view, const Block& block, const std::vector<State>& states,
                       int side = 0, Limit limit = {}) {
    std::vector<std::string> ctes;
    std::vector<std::string> factors;
    if (limit.sign != nullptr) factors.push_back(std::string(limit.sign) + "::bigint");
    for (std::size_t k = 0; k < block.sources.size(); ++k) {
        const Source& source = block.sources[k];
        ctes.push_back(source_placeholder(k) + " AS (" + source_query(view, block, k, states[k], limit.large) + ")");
        // Rows read as they are now count 1, except through another view's
        // storage, where a row stands for its multiplicity.  Subqueries
        // only filter; a row padded with NULLs counts 1.
        if (source.role == Role::Nested || (states[k] == State::Now && source.multiplicity.empty())) continue;
        factors.push_back(source.role == Role::Nullable ? "COALESCE(__ivm_t." + count_column(k) + ", 1::bigint)"
                                                        : "__ivm_t." + count_column(k));
    }
    if (limit.filtered) {
        const std::size_t k = *limit.filtered;
        ctes.push_back(changed_rows(k) + " AS (" + source_query(view, block, k, State::Delta) + ")");
    }
    const std::string& spj = limit.filtered ? block.sources.at(*limit.filtered).filtered_template : block.spj_template;
    const std::string count = factors.empty() ? "1::bigint" : sql::join(factors, sql::op("*"));
    std::string outputs;
    if (view.blocks.size() > 1) {
        // The arms of a UNION are cast to the union's column types, so that
        // equal tuples hash and group alike whichever arm they come from.
        std::vector<std::string> cast;
        for (const Column& c : view.columns) cast.push_back("CAST(__ivm_t." + c.name + " AS " + c.type + ") AS " + c.name);
        outputs = sql::join(cast, ", ");
    } else {
        std::vector<std::string> out{tuples::columns(view.aggregate ? view.group_keys : view.columns, "__ivm_t")};
        if (out[0].empty()) out.clear();  // no GROUP BY
        for (std::size_t k = 0; k < view.partial.size(); ++k)
            if (view.partial[k].kind != CountingView::Partial::Kind::Key &&
                view.partial[k].kind != CountingView::Partial::Kind::CountStar)
                out.push_back("__ivm_t.__ivm_arg" + std::to_string(k + 1));
        outputs = sql::join(out, ", ");
    }
    const std::string tag = view.arms == 0 ? "" : ", " + std::to_string(side) + " AS __ivm_side";
    return "SELECT " + outputs + (outputs.empty() ? "" : ", ") + count + " AS __ivm_cnt" + tag + " FROM (" + with_clause(ctes) +
           spj + ") __ivm_t";
}

std::string arm_column(const std::string& prefix, int arm) { return prefix + std::to_string(arm + 1); }

// Set operation trees: sum the counts per tuple and arm.
std::string netted_sides(const CountingView& view, const std::string& tagged_union) {
    std::vector<std::string> sums, nonzero;
    for (int a = 0; a < view.arms; ++a) {
        const std::string sum = "COALESCE(pg_catalog.sum(__ivm_cnt) FILTER (WHERE __ivm_side" + sql::op("=") +
                                std::to_string(a) + "), 0)::bigint";
        sums.push_back(sum + " AS " + arm_column("__ivm_d", a));
        nonzero.push_back(sum + sql::op("<>") + "0");
    }
    return "SELECT " + tuples::grouped_columns(view.columns) + ", " + sql::join(sums, ", ") + " FROM (" + tagged_union +
           ") __ivm_u GROUP BY " + tuples::group_by(view.columns) + " HAVING " + sql::join(nonzero, " OR ");
}

// How many times the tree shows a tuple whose count in arm i is the
// column prefix<i+1>.
std::string shown(const CountingView::SetNode& node, const std::string& prefix) {
    using Op = CountingView::SetNode::Op;
    if (node.op == Op::Arm) return arm_column(prefix, node.arm);
    const std::string gt0 = sql::op(">") + "0";
    const std::string l = shown(node.children.at(0), prefix);
    if (node.op == Op::Distinct) return "(CASE WHEN " + l + gt0 + " THEN 1 ELSE 0 END)::bigint";
    const std::string r = shown(node.children.at(1), prefix);
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

// A merge's data-modifying WITH queries run to completion unread; the
// storage rows they insert and delete are counted from __ivm_m by the one
// aggregate that reports the merge (a plan kept for one-row changes must be
// small: its start-up is a large part of what such a change costs).
std::string written(const std::string& condition) { return "pg_catalog.count(*) FILTER (WHERE " + condition + ")"; }

}  // namespace

std::string report_select(const MergeReport& r) {
    std::string out = "SELECT " + r.added + " AS __ivm_added, " + r.removed + " AS __ivm_removed, " + r.inserted +
                      " AS __ivm_inserted, " + r.deleted + " AS __ivm_deleted, " + r.negative + " AS __ivm_negative";
    if (!r.stale.empty()) out += ", " + r.stale + " AS __ivm_stale";
    return out;
}

namespace {

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
    const std::string shown_now = shown(view.set_tree, "__ivm_n"), shown_before = shown(view.set_tree, "__ivm_o");
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

std::vector<State> all_now(const Block& block) { return std::vector<State>(block.sources.size(), State::Now); }

// Aggregate views: the whole query over the base tables as they are now.
std::string full_query(const CountingView& view) {
    const Block& block = view.blocks.at(0);
    std::vector<std::string> ctes;
    for (std::size_t k = 0; k < block.sources.size(); ++k) {
        const Source& source = block.sources[k];
        std::string rows = source_query(view, block, k, State::Now);
        if (!source.multiplicity.empty()) {
            // The aggregates see another view's rows as many times as it shows them.
            std::vector<std::string> cols;
            for (const std::string& c : source.columns) cols.push_back("__ivm_v." + c);
            rows = "SELECT " + sql::join(cols, ", ") + ", 1::bigint AS __ivm_cnt FROM " + view.bases.at(source.base) +
                   " __ivm_v CROSS JOIN LATERAL ivm.copies(__ivm_v." + source.multiplicity + ") __ivm_n";
        }
        ctes.push_back(source_placeholder(k) + " AS (" + rows + ")");
    }
    return with_clause(ctes) + view.full_template;
}

// Each block's term over the relations as they are now (tagged with its arm).
std::vector<std::string> terms_now(const CountingView& view) {
    std::vector<std::string> now;
    for (const Block& block : view.blocks) now.push_back(term_query(view, block, all_now(block), block.side));
    return now;
}

using Kind = CountingView::Partial::Kind;

bool has_extreme(Kind kind) { return kind == Kind::Min || kind == Kind::Max; }
bool has_argument(Kind kind) { return kind == Kind::Count || kind == Kind::Sum || kind == Kind::Avg || has_extreme(kind); }
bool has_sum(Kind kind) { return kind == Kind::Sum || kind == Kind::Avg; }
using Partial = CountingView::Partial;

// Aggregates that keep an extreme and how many rows hold it: min and max
// of their argument, a numeric sum or avg the largest scale of its.
bool tracks(const Partial& p) { return has_extreme(p.kind) || (has_sum(p.kind) && p.numeric); }
std::string tracked_value(const Partial& p, std::size_t k) {
    const std::string arg = "__ivm_arg" + std::to_string(k + 1);
    return has_extreme(p.kind) ? arg : "pg_catalog.scale(" + arg + ")";
}
bool tracks_max(const Partial& p) { return p.kind != Kind::Min; }
std::string extreme_aggregate(const Partial& p) { return tracks_max(p) ? "pg_catalog.max" : "pg_catalog.min"; }
std::string tracked_type(const CountingView& view, std::size_t k) {
    return has_extreme(view.partial[k].kind) ? view.columns[k].type : "integer";
}

// Aggregates over one argument share its partial state: W2's count, sum,
// avg and max of abalance keep one count of non-NULL values and one sum.
// Each part is kept by the first aggregate that has it, under its number:
// __ivm_n<n>; __ivm_s<s> with a numeric sum's specials; __ivm_x<x> and
// __ivm_xn<x> (a min, a max, a numeric sum's largest scale).  An
// aggregate owns a part only if it has that part at all.
struct Parts {
    std::string n, s, x;
    bool own_n = false, own_s = false, own_x = false;
};
Parts state_parts(const CountingView& view, std::size_t k) {
    const Partial& p = view.partial[k];
    auto argument = [&](std::size_t j) {
        return view.partial[j].same_argument == Partial::own ? j : view.partial[j].same_argument;
    };
    // What a tracked part keeps: the least value, the greatest, or the largest scale.
    auto tracked = [](const Partial& q) { return q.kind == Kind::Min ? 0 : q.kind == Kind::Max ? 1 : 2; };
    auto first = [&](const auto& has) {
        std::size_t j = 0;
        while (j < k && !(argument(j) == argument(k) && has(view.partial[j]))) ++j;
        return j;
    };
    const std::size_t n = first([](const Partial& q) { return has_argument(q.kind); });
    const std::size_t s = first([](const Partial& q) { return has_sum(q.kind); });
    const std::size_t x = first([&](const Partial& q) { return tracks(q) && tracked(q) == tracked(p); });
    return {std::to_string(n + 1), std::to_string(s + 1), std::to_string(x + 1),
            n == k && has_argument(p.kind), s == k && has_sum(p.kind), x == k && tracks(p)};
}

// Numeric sums count NaN and the infinities apart from the finite sum.
struct Special {
    const char* column;  // in the storage
    const char* delta;   // its change, in the delta
    const char* value;
};
constexpr Special specials[] = {{"__ivm_nan", "__ivm_dnan", "'NaN'"},
                                {"__ivm_pinf", "__ivm_dpinf", "'Infinity'"},
                                {"__ivm_ninf", "__ivm_dninf", "'-Infinity'"}};

// Partial state: per group, the change of the row count and of each
// aggregate's non-NULL count and sum.
// Rows are netted first where several terms add up (see below); `whole`:
// every group, changed or not.
enum class Net { Yes, No };

std::string partial_delta(const CountingView& view, const std::string& signed_rows, Net net, bool whole = false) {
    const std::string keys = tuples::columns(view.group_keys, "");
    std::string rows = signed_rows;
    if (net == Net::Yes &&
        std::any_of(view.partial.begin(), view.partial.end(), [](const auto& p) { return tracks(p); })) {
        // The extremes of what came and went need rows netted first: the
        // terms of a two-table change can derive a row once and take it back
        // (a row that never was, beyond the stored extreme).  One changed
        // occurrence takes back only rows that were, at or below it, and
        // what came and went at the same value cancels in the counts below.
        std::vector<std::string> cols;
        for (const Column& g : view.group_keys) cols.push_back(g.name);
        for (std::size_t k = 0; k < view.partial.size(); ++k) {
            if (!has_argument(view.partial[k].kind)) continue;
            const std::string arg = "__ivm_arg" + std::to_string(k + 1);
            cols.push_back(view.partial[k].kind == Kind::Count ? "CASE WHEN " + arg + " IS NOT NULL THEN true END AS " + arg
                                                               : arg);
        }
        rows = "SELECT " + sql::join(cols, ", ") + ", pg_catalog.sum(__ivm_cnt)::bigint AS __ivm_cnt FROM (" + signed_rows +
               ") __ivm_r GROUP BY " + sql::ordinals(cols.size()) + " HAVING pg_catalog.sum(__ivm_cnt)" + sql::op("<>") + "0";
    }
    std::vector<std::string> sums{"COALESCE(pg_catalog.sum(__ivm_cnt), 0)::bigint AS __ivm_dn"};
    std::vector<std::string> nonzero{"pg_catalog.sum(__ivm_cnt)" + sql::op("<>") + "0"};
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        if (!has_argument(view.partial[k].kind)) continue;
        const std::string arg = "__ivm_arg" + std::to_string(k + 1), n = std::to_string(k + 1);
        const Parts parts = state_parts(view, k);
        if (parts.own_n) {
            sums.push_back("COALESCE(pg_catalog.sum(__ivm_cnt) FILTER (WHERE " + arg + " IS NOT NULL), 0)::bigint AS __ivm_dn" + n);
            nonzero.push_back("pg_catalog.sum(__ivm_cnt) FILTER (WHERE " + arg + " IS NOT NULL)" + sql::op("<>") + "0");
        }
        const Partial& p = view.partial[k];
        if (parts.own_x) {
            // The extremes of what came and of what went, and how many
            // derivations came and went at each (ties matter: the extreme goes
            // only with its last row); an update that changes a value leaves
            // the counts as they were.  A row that came and went at the same
            // value is one of each.
            const std::string agg = extreme_aggregate(p), value = tracked_value(p, k);
            const std::string at = tracks_max(p) ? "ivm.count_at_max(" : "ivm.count_at_min(";
            const std::string came_rows = " FILTER (WHERE __ivm_cnt" + sql::op(">") + "0)";
            const std::string went_rows = " FILTER (WHERE __ivm_cnt" + sql::op("<") + "0)";
            const std::string came = agg + "(" + value + ")" + came_rows, went = agg + "(" + value + ")" + went_rows;
            const std::string came_n = at + value + ", __ivm_cnt)" + came_rows;
            const std::string went_n = at + value + "," + sql::op("-") + "__ivm_cnt)" + went_rows;
            sums.push_back(came + " AS __ivm_dx" + n);
            sums.push_back(came_n + " AS __ivm_dxn" + n);
            sums.push_back(went + " AS __ivm_rx" + n);
            sums.push_back(went_n + " AS __ivm_rxn" + n);
            // As many rows came as went at the same extreme: it stands.
            nonzero.push_back(came + " IS DISTINCT FROM " + went + " OR " + came_n + sql::op("<>") + went_n);
        }
        if (!parts.own_s) continue;
        if (!p.numeric) {
            const std::string product = arg + (p.narrow ? "::bigint" : "::numeric") + sql::op("*") + "__ivm_cnt";
            sums.push_back("pg_catalog.sum(" + product + ")::numeric AS __ivm_ds" + n);
            nonzero.push_back("pg_catalog.sum(" + product + ")" + sql::op("<>") + "0");
            continue;
        }
        // NaN and the infinities have no scale: the finite sum leaves them out.
        const std::string finite = "pg_catalog.sum(" + arg + sql::op("*") + "__ivm_cnt) FILTER (WHERE pg_catalog.scale(" +
                                   arg + ") IS NOT NULL)";
        sums.push_back(finite + " AS __ivm_ds" + n);
        nonzero.push_back("COALESCE(" + finite + ", 0)" + sql::op("<>") + "0");
        for (const Special& sp : specials) {
            const std::string count = "COALESCE(pg_catalog.sum(__ivm_cnt) FILTER (WHERE " + arg + sql::op("=") + sp.value +
                                      "::numeric), 0)";
            sums.push_back(count + "::bigint AS " + sp.delta + n);
            nonzero.push_back(count + sql::op("<>") + "0");
        }
    }
    // Without GROUP BY there is one group, whose row a whole computation
    // always returns (count 0 over no rows).
    const std::string grouping = keys.empty() ? "" : " GROUP BY " + sql::ordinals(view.group_keys.size());
    const std::string changed = whole ? "" : " HAVING " + sql::join(nonzero, " OR ");
    return "SELECT " + (keys.empty() ? "" : keys + ", ") + sql::join(sums, ", ") + " FROM (" + rows + ") __ivm_u" + grouping +
           changed;
}

// The outputs of a group from its state in __ivm_m.
std::vector<std::string> partial_outputs(const CountingView& view) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        const Parts parts = state_parts(view, k);
        const std::string n = "__ivm_m.__ivm_n" + parts.n, sum = "__ivm_m.__ivm_s" + parts.s;
        const std::string type = view.columns[k].type;
        switch (view.partial[k].kind) {
            case Kind::Key: out.push_back("__ivm_m.__ivm_gk" + std::to_string(view.partial[k].key + 1)); break;
            case Kind::CountStar: out.push_back("__ivm_m.__ivm_n"); break;
            case Kind::Count: out.push_back(n); break;
            case Kind::Sum:
            case Kind::Avg: {
                std::string value = view.partial[k].numeric
                                        ? "pg_catalog.round(" + sum + ", COALESCE(__ivm_m.__ivm_x" + parts.x + ", 0))"
                                        : sum;
                if (view.partial[k].kind == Kind::Avg) value = "(" + value + sql::op("/") + n + "::numeric)";
                if (view.partial[k].numeric) {
                    // As PostgreSQL: NaN wins, and infinities of both signs make NaN.
                    const std::string c = parts.s, gt0 = sql::op(">") + "0";
                    value = "CASE WHEN __ivm_m.__ivm_nan" + c + gt0 + " OR (__ivm_m.__ivm_pinf" + c + gt0 +
                            " AND __ivm_m.__ivm_ninf" + c + gt0 + ") THEN 'NaN'::numeric WHEN __ivm_m.__ivm_pinf" + c + gt0 +
                            " THEN 'Infinity'::numeric WHEN __ivm_m.__ivm_ninf" + c + gt0 + " THEN '-Infinity'::numeric ELSE " +
                            value + " END";
                }
                out.push_back("CASE WHEN " + n + sql::op(">") + "0 THEN (" + value + ")::" + type + " END");
                break;
            }
            case Kind::Min:
            case Kind::Max: out.push_back("__ivm_m.__ivm_x" + parts.x); break;
        }
    }
    return out;
}

// A group of `q` left without the extreme of aggregate k: it has values,
// but no row known at it.  The merge writes such groups so, and
// extremes_statement finds them by it in the storage.
std::string without_extreme(const std::string& q, const Parts& parts) {
    return "(" + q + ".__ivm_n" + parts.n + sql::op(">") + "0 AND " + q + ".__ivm_xn" + parts.x + sql::op("<=") + "0)";
}

// The extreme of each tracked aggregate, and how many rows hold it, from
// __ivm_p: its candidate (__ivm_cx<k>, __ivm_cxn<k>), unless the group has
// no values left (NULL) or no rows known at it: then NULL and 0, or with
// `recompute`, the group's recomputed state in __ivm_f.
std::vector<std::string> extreme_columns(const CountingView& view, bool recompute) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        const Parts parts = state_parts(view, k);
        if (!parts.own_x) continue;
        const std::string n = parts.x, none_left = "__ivm_p.__ivm_n" + parts.n + sql::op("=") + "0";
        const std::string lost = "__ivm_p.__ivm_cxn" + n + sql::op("<=") + "0";
        auto recomputed = [&](const std::string& column, const char* none) {
            if (!recompute) return std::string(none);
            return "(SELECT __ivm_f." + column + " FROM __ivm_f WHERE " +
                   tuples::same(view.group_keys, "__ivm_f", tuples::Key::Computed, "__ivm_p", tuples::Key::Computed) + ")";
        };
        out.push_back("CASE WHEN " + none_left + " THEN NULL WHEN " + lost + " THEN " +
                      recomputed("__ivm_dx" + n, "NULL") + " ELSE __ivm_p.__ivm_cx" + n + " END AS __ivm_x" + n);
        out.push_back("CASE WHEN " + none_left + " THEN 0 WHEN " + lost + " THEN " +
                      recomputed("__ivm_dxn" + n, "0") + " ELSE __ivm_p.__ivm_cxn" + n + " END AS __ivm_xn" + n);
    }
    return out;
}

std::string partial_merge(const CountingView& view, const std::string& delta, bool replace) {
    std::vector<std::string> state{"COALESCE(__ivm_s.__ivm_count, 0)" + sql::op("+") + "__ivm_d.__ivm_dn AS __ivm_n"};
    // Each state column of the storage and its name in __ivm_m.
    std::vector<std::string> state_columns{"__ivm_count"}, state_names{"__ivm_n"}, sets{"__ivm_count = __ivm_m.__ivm_n"};
    std::vector<std::string> stale;  // a group left without its extreme
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        const Kind kind = view.partial[k].kind;
        if (!has_argument(kind)) continue;
        const std::string n = std::to_string(k + 1);
        const Parts parts = state_parts(view, k);
        const bool sum = parts.own_s, tracked = parts.own_x;
        if (parts.own_n)
            state.push_back("COALESCE(__ivm_s.__ivm_n" + n + ", 0)" + sql::op("+") + "__ivm_d.__ivm_dn" + n + " AS __ivm_n" + n);
        if (sum)
            state.push_back("COALESCE(__ivm_s.__ivm_s" + n + ", 0)" + sql::op("+") + "COALESCE(__ivm_d.__ivm_ds" + n +
                            ", 0) AS __ivm_s" + n);
        const bool special = sum && view.partial[k].numeric;
        if (special)
            for (const Special& sp : specials) {
                const std::string c = sp.column + n;
                state.push_back("COALESCE(__ivm_s." + c + ", 0)" + sql::op("+") + "__ivm_d." + sp.delta + n + " AS " + c);
                state_columns.push_back(c);
                state_names.push_back(c);
                sets.push_back(c + " = __ivm_m." + c);
            }
        if (tracked) {
            // The stored extreme and how many rows hold it: a value beyond
            // it replaces it, one equal to it adds to its rows, rows at it
            // that go take from them.
            const std::string x = "__ivm_s.__ivm_x" + n, xn = "COALESCE(__ivm_s.__ivm_xn" + n + ", 0)";
            const std::string came = "__ivm_d.__ivm_dx" + n, came_n = "__ivm_d.__ivm_dxn" + n;
            const std::string gone_at_x = "CASE WHEN __ivm_d.__ivm_rx" + n + sql::op("=") + x + " THEN __ivm_d.__ivm_rxn" + n +
                                          " ELSE 0 END";
            const std::string beyond = came + " IS NOT NULL AND (" + x + " IS NULL OR " + came +
                                       sql::op(tracks_max(view.partial[k]) ? ">" : "<") + x + ")";
            state.push_back("CASE WHEN " + beyond + " THEN " + came + " ELSE " + x + " END AS __ivm_cx" + n);
            state.push_back("CASE WHEN " + beyond + " THEN " + came_n + " WHEN " + came + sql::op("=") + x + " THEN " + xn +
                            sql::op("+") + came_n + sql::op("-") + gone_at_x + " ELSE " + xn + sql::op("-") + gone_at_x +
                            " END AS __ivm_cxn" + n);
            stale.push_back(without_extreme("__ivm_m", parts));
        }
        for (const char* c : {"__ivm_n", "__ivm_s", "__ivm_x", "__ivm_xn"}) {
            if (!parts.own_n && std::string(c) == "__ivm_n") continue;
            if (!sum && std::string(c) == "__ivm_s") continue;
            if (!tracked && (std::string(c) == "__ivm_x" || std::string(c) == "__ivm_xn")) continue;
            state_columns.push_back(c + n);
            state_names.push_back(c + n);
            sets.push_back(c + n + " = __ivm_m." + c + n);
        }
    }
    // A group left with values but none known at its extreme is written
    // without it (no rows at it): extremes_statement recomputes it.
    const std::vector<std::string> extremes = extreme_columns(view, false);
    const std::string with_extremes = extremes.empty() ? "" : ", " + sql::join(extremes, ", ");
    const std::vector<std::string> outputs = partial_outputs(view);
    std::vector<std::string> all_columns, all_values;
    for (std::size_t k = 0; k < view.columns.size(); ++k) {
        all_columns.push_back(view.columns[k].name);
        all_values.push_back(outputs[k]);
        sets.push_back(view.columns[k].name + " = " + outputs[k]);
    }
    for (const Column& g : view.group_keys) {
        all_columns.push_back(g.name);
        all_values.push_back("__ivm_m." + g.name);
    }
    for (std::size_t i = 0; i < state_columns.size(); ++i) {
        all_columns.push_back(state_columns[i]);
        all_values.push_back("__ivm_m." + state_names[i]);
    }
    if (!key_target(view).empty()) {
        all_columns.push_back("__ivm_key");
        all_values.push_back(tuples::key(keyed_columns(view), "__ivm_m"));
    }
    // A refresh starts from an empty storage (the old rows go in the same statement).
    const std::string match = replace ? "false" : tuples::same(view.group_keys, "__ivm_s", tuples::Key::Stored, "__ivm_d",
                                                               tuples::Key::Computed);
    // A group goes with its last row; the one row of a view without GROUP BY stays.
    const std::string empty = view.group_keys.empty() ? "false" : "__ivm_m.__ivm_n" + sql::op("=") + "0";
    const std::string inserted = "__ivm_m.__ivm_tid IS NULL AND NOT " + empty;
    const std::string deleted = "__ivm_m.__ivm_tid IS NOT NULL AND " + empty;
    // __ivm_m carries only what the writes read: each column of each of its
    // scans costs at every statement's executor start-up.
    std::vector<std::string> carried;
    for (const Column& g : view.group_keys) carried.push_back("__ivm_p." + g.name);
    carried.push_back("__ivm_p.__ivm_tid");
    for (const std::string& name : state_names)
        if (name.rfind("__ivm_x", 0) != 0) carried.push_back("__ivm_p." + name);  // the extremes are computed here
    const std::string key_columns = view.group_keys.empty() ? "" : tuples::columns(view.group_keys, "__ivm_d") + ", ";
    return "WITH " + std::string(replace ? "__ivm_gone AS (DELETE FROM " + view.storage + " RETURNING 1), " : "") +
           "__ivm_d AS MATERIALIZED (" + delta + "), __ivm_m AS MATERIALIZED (SELECT " + sql::join(carried, ", ") +
           with_extremes + " FROM (SELECT " + key_columns + "__ivm_s.ctid AS __ivm_tid, " + sql::join(state, ", ") +
           " FROM __ivm_d LEFT JOIN " + view.storage + " __ivm_s ON " + match + ") __ivm_p), __ivm_del AS (DELETE FROM " +
           view.storage + " __ivm_s USING __ivm_m WHERE __ivm_s.ctid" + sql::op("=") +
           "__ivm_m.__ivm_tid AND " + empty + "), __ivm_upd AS (UPDATE " + view.storage + " __ivm_s SET " +
           sql::join(sets, ", ") + " FROM __ivm_m WHERE __ivm_s.ctid" + sql::op("=") + "__ivm_m.__ivm_tid AND NOT " + empty +
           "), __ivm_ins AS (INSERT INTO " + view.storage + " (" + sql::join(all_columns, ", ") + ") SELECT " +
           sql::join(all_values, ", ") + " FROM __ivm_m WHERE " + inserted + ") " +
           // (a group is a view row; a refresh reports the rows it emptied the storage of as removed)
           report_select({written(inserted), replace ? "(SELECT pg_catalog.count(*) FROM __ivm_gone)" : written(deleted),
                          written(inserted), written(deleted), written("__ivm_m.__ivm_n" + sql::op("<") + "0"),
                          stale.empty() ? "" : written(sql::join(stale, " OR "))}) +
           " FROM __ivm_m";
}

// Aggregate views: the groups a set of input rows falls into.
std::string groups_of(const CountingView& view, const std::string& rows) {
    if (view.group_keys.empty()) return "SELECT 1 AS __ivm_any FROM (" + rows + ") __ivm_u LIMIT 1";
    return "SELECT DISTINCT " + tuples::columns(view.group_keys, "") + " FROM (" + rows + ") __ivm_u";
}

// Aggregate views: recompute the affected groups, then delete the stored
// rows that changed and insert the new ones (a group that comes out the
// same is left alone).  A window partition's rows may repeat: they are
// counted, and a row whose count changed is replaced.
std::string aggregate_merge(const CountingView& view, const std::string& affected) {
    using tuples::Key;
    std::vector<Column> all = view.columns;
    all.insert(all.end(), view.group_keys.begin(), view.group_keys.end());
    const std::string cols = tuples::columns(all, "");
    auto in_affected = [&](const std::string& q, Key k) {
        return "EXISTS (SELECT 1 FROM __ivm_a WHERE " + tuples::same(view.group_keys, "__ivm_a", Key::Computed, q, k) + ")";
    };
    auto same_row = [&](const std::string& a, Key ka, const std::string& b, Key kb) {
        return tuples::same(view.group_keys, a, ka, b, kb) + " AND " + tuples::equal(view.columns, a, b) +
               (view.windowed ? " AND " + a + ".__ivm_count" + sql::op("=") + b + ".__ivm_count" : "");
    };
    const std::string recomputed =
        view.windowed ? "SELECT " + tuples::grouped_columns(all) + ", pg_catalog.count(*) AS __ivm_count FROM (" +
                            full_query(view) + ") __ivm_q WHERE " + in_affected("__ivm_q", Key::Computed) +
                            " GROUP BY " + tuples::group_by(all)
                      : "SELECT __ivm_q.*, 1::bigint AS __ivm_count FROM (" + full_query(view) + ") __ivm_q WHERE " +
                            in_affected("__ivm_q", Key::Computed);
    return "WITH __ivm_a AS MATERIALIZED (" + affected + "), __ivm_n AS MATERIALIZED (" + recomputed +
           "), __ivm_del AS (DELETE FROM " + view.storage + " __ivm_s WHERE " +
           in_affected("__ivm_s", Key::Stored) + " AND NOT EXISTS (SELECT 1 FROM __ivm_n WHERE " +
           same_row("__ivm_s", Key::Stored, "__ivm_n", Key::Computed) + ") RETURNING 1), __ivm_ins AS (INSERT INTO " +
           view.storage + " (" + cols + ", __ivm_count" + key_target(view) + ") SELECT " + tuples::columns(all, "__ivm_n") +
           ", __ivm_n.__ivm_count" + key_value(view, "__ivm_n", tuples::Key::Computed) + " FROM __ivm_n WHERE NOT EXISTS (SELECT 1 FROM " + view.storage + " __ivm_s WHERE " +
           same_row("__ivm_s", Key::Stored, "__ivm_n", Key::Computed) +
           ") RETURNING 1) " +
           report_select({"(SELECT pg_catalog.count(*) FROM __ivm_ins)", "(SELECT pg_catalog.count(*) FROM __ivm_del)",
                          "(SELECT pg_catalog.count(*) FROM __ivm_ins)", "(SELECT pg_catalog.count(*) FROM __ivm_del)", "0",
                          ""});
}

// Sum the counts per tuple; tuples whose changes cancel out disappear.
std::string netted(const CountingView& view, const std::string& counted_union) {
    return "SELECT " + tuples::grouped_columns(view.columns) +
           ", pg_catalog.sum(__ivm_cnt)::bigint AS __ivm_cnt FROM (" + counted_union +
           ") __ivm_u GROUP BY " + tuples::group_by(view.columns) +
           " HAVING pg_catalog.sum(__ivm_cnt)" + sql::op("<>") + "0";
}

}  // namespace

std::string new_rows_relation(std::size_t base) { return "ivm_new_" + std::to_string(base + 1); }
std::string old_rows_relation(std::size_t base) { return "ivm_old_" + std::to_string(base + 1); }

std::string delta_query(const CountingView& view, const std::vector<bool>& changed_bases, bool large) {
    std::vector<std::string> terms;
    std::size_t changed_occurrences = 0;
    for (const Block& block : view.blocks) {
        const int arm = block.side;
        std::vector<std::size_t> changed;
        for (std::size_t k = 0; k < block.sources.size(); ++k)
            if (changed_bases.at(block.sources[k].base)) changed.push_back(k);
        changed_occurrences += changed.size();
        for (std::size_t j = 0; j < changed.size(); ++j) {
            std::vector<State> states = all_now(block);
            for (std::size_t i = 0; i < j; ++i) states[changed[i]] = State::Before;
            const std::size_t k = changed[j];
            if (block.sources[k].role == Role::Linear) {
                states[k] = State::Delta;
                terms.push_back(term_query(view, block, states, arm, Limit{std::nullopt, nullptr, large}));
                continue;
            }
            // Not linear: the rows the change can alter, as they are now
            // minus as they were.
            terms.push_back(term_query(view, block, states, arm, Limit{k, "1", large}));
            states[k] = State::Before;
            terms.push_back(term_query(view, block, states, arm, Limit{k, "-1", large}));
        }
    }
    if (terms.empty()) throw Error(sqlstate::internal_error, "delta of an unchanged view");
    // For an aggregate view every input row that changed marks its group,
    // even when its changes cancel (an UPDATE of an aggregated column).
    if (!view.partial.empty())
        return partial_delta(view, sql::join(terms, " UNION ALL "), changed_occurrences > 1 ? Net::Yes : Net::No);
    if (view.aggregate) return groups_of(view, sql::join(terms, " UNION ALL "));
    if (view.arms > 0) return netted_sides(view, sql::join(terms, " UNION ALL "));
    return netted(view, sql::join(terms, " UNION ALL "));
}

std::string refresh_delta_query(const CountingView& view) {
    if (!view.partial.empty()) {  // all the rows there are now, into an emptied storage
        const Block& block = view.blocks.at(0);
        return partial_delta(view, term_query(view, block, all_now(block)), Net::No, true);
    }
    if (view.aggregate) {  // every group there is, or was
        if (view.group_keys.empty()) return "SELECT 1 AS __ivm_any";
        const std::string keys = tuples::columns(view.group_keys, "");
        return "SELECT " + keys + " FROM (" + full_query(view) + ") __ivm_q UNION SELECT " + keys + " FROM " +
               view.storage;
    }
    std::vector<std::string> now = terms_now(view);
    if (view.arms > 0) {
        for (int a = 0; a < view.arms; ++a)
            now.push_back("SELECT " + output_columns(view, "") + ", (" + sql::op("-") + arm_column("__ivm_arm", a) +
                          ")::bigint, " + std::to_string(a) + " FROM " + view.storage);
        return netted_sides(view, sql::join(now, " UNION ALL "));
    }
    const std::string stored = "SELECT " + output_columns(view, "") +
                               ", (" + sql::op("-") + "__ivm_count)::bigint FROM " + view.storage;
    return netted(view, sql::join(now, " UNION ALL ") + " UNION ALL " + stored);
}

namespace {

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

std::string extremes_statement(const CountingView& view) {
    std::vector<std::string> state{"__ivm_s.ctid AS __ivm_tid", "__ivm_s.__ivm_count AS __ivm_n"}, stale, sets;
    for (const Column& g : view.group_keys) state.push_back("__ivm_s." + g.name);
    const std::vector<std::string> outputs = partial_outputs(view);
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        const Partial& p = view.partial[k];
        if (!has_argument(p.kind)) continue;
        const std::string n = std::to_string(k + 1);
        const Parts parts = state_parts(view, k);
        if (parts.own_n) state.push_back("__ivm_s.__ivm_n" + n);
        if (parts.own_s) state.push_back("__ivm_s.__ivm_s" + n);
        if (parts.own_s && p.numeric)
            for (const Special& sp : specials) state.push_back("__ivm_s." + std::string(sp.column) + n);
        if (!tracks(p)) continue;
        sets.push_back(view.columns[k].name + " = " + outputs[k]);  // also where the state is another's
        if (!parts.own_x) continue;
        state.push_back("__ivm_s.__ivm_x" + n + " AS __ivm_cx" + n);
        state.push_back("__ivm_s.__ivm_xn" + n + " AS __ivm_cxn" + n);  // NOT NULL in the storage
        stale.push_back(without_extreme("__ivm_s", parts));
        sets.push_back("__ivm_x" + n + " = __ivm_m.__ivm_x" + n);
        sets.push_back("__ivm_xn" + n + " = __ivm_m.__ivm_xn" + n);
    }
    if (stale.empty()) return "";
    // The partial state of those groups recomputed from their rows as they are now.
    const Block& block = view.blocks.at(0);
    const std::string recomputed =
        partial_delta(view,
                      "SELECT __ivm_q.* FROM (" + term_query(view, block, all_now(block)) +
                          ") __ivm_q WHERE EXISTS (SELECT 1 FROM __ivm_p WHERE " +
                          tuples::same(view.group_keys, "__ivm_p", tuples::Key::Computed, "__ivm_q", tuples::Key::Computed) + ")",
                      Net::No);
    return "WITH __ivm_p AS MATERIALIZED (SELECT " + sql::join(state, ", ") + " FROM " + view.storage + " __ivm_s WHERE " +
           sql::join(stale, " OR ") + "), __ivm_f AS MATERIALIZED (" + recomputed +
           "), __ivm_m AS MATERIALIZED (SELECT __ivm_p.*, " + sql::join(extreme_columns(view, true), ", ") +
           " FROM __ivm_p) UPDATE " + view.storage + " __ivm_s SET " + sql::join(sets, ", ") +
           " FROM __ivm_m WHERE __ivm_s.ctid" + sql::op("=") + "__ivm_m.__ivm_tid";
}

std::string merge_statement(const CountingView& view, const std::string& counted_delta, Lookup lookup) {
    if (!view.partial.empty()) return partial_merge(view, counted_delta, false);
    if (view.aggregate) return aggregate_merge(view, counted_delta);
    if (view.arms > 0) return set_op_merge(view, counted_delta);
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
    if (view.aggregate && view.partial.empty()) return false;
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

std::string delta_keys_query(const CountingView& view, const std::string& counted_delta) {
    if (!has_storage_key(view)) return "";
    return "SELECT DISTINCT " + tuples::key(keyed_columns(view), "__ivm_d") + " AS __ivm_k FROM (" + counted_delta +
           ") __ivm_d ORDER BY 1";
}

bool keyed_change(const CountingView& view, std::size_t base) {
    if (view.blocks.size() != 1 || std::none_of(view.keying.begin(), view.keying.end(), [](bool k) { return k; }))
        return false;
    const std::vector<Source>& sources = view.blocks.front().sources;
    return std::count_if(sources.begin(), sources.end(), [&](const Source& s) { return s.base == base; }) == 1;
}

std::string keyed_delta_query(const CountingView& view, std::size_t base) {
    if (!keyed_change(view, base)) throw Error(sqlstate::internal_error, "keyed delta of a view not keyed");
    const Block& block = view.blocks.front();
    std::vector<State> states = all_now(block);
    for (std::size_t k = 0; k < block.sources.size(); ++k)
        if (block.sources[k].base == base) states[k] = State::Delta;
    return term_query(view, block, states);
}

std::string keyed_merge_statement(const CountingView& view, const std::string& delta, KeyedRows rows) {
    const std::string cols = output_columns(view, "");
    const std::string gt0 = sql::op(">") + "0";
    // Inserted tuples each count 1 (a product of 1s: a keyed view reads
    // tables), straight from the delta into the storage, in the key
    // index's order (which pays for the sort).
    if (rows == KeyedRows::Inserted) {
        const std::string key = key_value(view, "__ivm_d", tuples::Key::Carried);
        return "INSERT INTO " + view.storage + " (" + cols + ", __ivm_count" + key_target(view) + ") SELECT " + cols +
               ", 1::bigint" + key + " FROM (" + tuples::carry_key(view.columns, delta) + ") __ivm_d WHERE __ivm_d.__ivm_cnt" +
               gt0 + (key.empty() ? "" : " ORDER BY __ivm_d.__ivm_h");
    }
    // Each deleted tuple is stored once with count 1, and is deleted where
    // it is found, one key index lookup each, in the key index's order; a
    // tuple not found so (or found twice, or stored with another count) is
    // a storage out of step with its base tables.  The count is checked on
    // what was deleted, not in the join: an unanalyzed storage's guess that
    // few tuples have count 1 made the join a nested loop over all of them
    // (a 10,000-row delete from a view created empty, then loaded: 43 s).
    // Inserted tuples need no lookup: the key a deleted tuple leaves free
    // is the only stored one an inserted tuple can show.
    const bool inserts = rows == KeyedRows::Both;
    const std::string count = "pg_catalog.count(*) FILTER (WHERE __ivm_d.__ivm_cnt";
    return "WITH __ivm_d AS MATERIALIZED (" + tuples::carry_key(view.columns, delta) + "), __ivm_del AS (DELETE FROM " +
           view.storage + " __ivm_s USING __ivm_d WHERE __ivm_d.__ivm_cnt" + sql::op("<") + "0 AND " +
           tuples::looked_up(view.columns, "__ivm_s", "__ivm_d", tuples::Key::Carried) +
           " RETURNING __ivm_s.__ivm_count)" +
           (inserts ? ", __ivm_ins AS (INSERT INTO " + view.storage + " (" + cols + ", __ivm_count" + key_target(view) +
                          ") SELECT " + cols + ", 1::bigint" + key_value(view, "__ivm_d", tuples::Key::Carried) +
                          " FROM __ivm_d WHERE __ivm_d.__ivm_cnt" + gt0 + ")"
                    : "") +
           " " +
           report_select({"__ivm_n.came", "__ivm_n.went", "__ivm_n.came", "__ivm_n.deleted",
                          "pg_catalog.abs(__ivm_n.went" + sql::op("-") + "__ivm_n.deleted)" + sql::op("+") +
                              "__ivm_n.miscounted",
                          ""}) +
           " FROM (SELECT " +
           (inserts ? count + gt0 + ")" : std::string("0::bigint")) + " AS came, " + count + sql::op("<") +
           "0) AS went, (SELECT pg_catalog.count(*) FROM __ivm_del) AS deleted, (SELECT pg_catalog.count(*) FROM "
           "__ivm_del WHERE __ivm_del.__ivm_count" + sql::op("<>") + "1) AS miscounted "
           "FROM __ivm_d OFFSET 0) __ivm_n";  // each counted once
}

namespace {

using LookupBase = CountingView::Lookup;

// Whether the lookup base shows every column the key hashes: its rows then
// tell the key of the tuples they derive.
bool shows_whole_key(const CountingView& view, const LookupBase& lookup) {
    for (std::size_t i = 0; i < view.columns.size(); ++i) {
        const Column& c = view.columns[i];
        if (!c.hashable || !c.hashed) continue;
        if (std::none_of(lookup.shown.begin(), lookup.shown.end(), [&](const LookupBase::Shown& s) { return s.column == i; }))
            return false;
    }
    return true;
}

// The view column that leads the key: the one showing a lookup base's key
// where its rows do not tell the key (W1's bid, for branches: its tuples are
// then one range of the key index, and stored together), else the first
// integer one.  None (npos) without an integer column.
std::size_t chosen_lead(const CountingView& view) {
    for (const std::optional<LookupBase>& lookup : view.lookups) {
        if (!lookup || lookup->key.size() != 1 || shows_whole_key(view, *lookup)) continue;
        const Column& c = view.columns.at(lookup->key[0].shown);
        if (c.integer && c.hashable && c.hashed) return lookup->key[0].shown;
    }
    for (std::size_t i = 0; i < view.columns.size(); ++i)
        if (view.columns[i].integer && view.columns[i].hashable && view.columns[i].hashed) return i;
    return std::string::npos;
}

void mark_lead(CountingView& view, std::size_t lead) {
    for (std::size_t i = 0; i < view.columns.size(); ++i) view.columns[i].leads_key = i == lead;
}

}  // namespace

std::vector<std::string> key_columns(const CountingView& view) {
    if (view.aggregate) return {};
    CountingView probe = view;
    std::vector<bool> shown(view.columns.size(), false), keys(view.columns.size(), false);
    for (const std::optional<LookupBase>& lookup : view.lookups) {
        if (!lookup) continue;
        for (const LookupBase::Shown& s : lookup->shown) shown.at(s.column) = true;
        for (const LookupBase::KeyPart& k : lookup->key) keys.at(k.shown) = true;
    }
    for (std::size_t i = 0; i < view.columns.size(); ++i) probe.columns[i].hashed = !shown[i] || keys[i];
    const std::size_t lead = chosen_lead(probe);
    CountingView usual = view;
    use_key_columns(usual, {});
    bool same = true;
    for (std::size_t i = 0; i < view.columns.size(); ++i)
        same &= usual.columns[i].hashed == probe.columns[i].hashed && usual.columns[i].leads_key == (i == lead);
    if (same) return {};
    std::vector<std::string> names;
    if (lead != std::string::npos) names.push_back(view.columns[lead].name);
    for (std::size_t i = 0; i < view.columns.size(); ++i)
        if (i != lead && probe.columns[i].hashable && probe.columns[i].hashed) names.push_back(view.columns[i].name);
    return names;
}

void use_key_columns(CountingView& view, const std::vector<std::string>& names) {
    if (view.aggregate) return;
    std::size_t lead = std::string::npos;
    for (std::size_t i = 0; i < view.columns.size(); ++i) {
        Column& c = view.columns[i];
        c.hashed = names.empty() || std::find(names.begin(), names.end(), c.name) != names.end();
        if (!names.empty() && c.name == names.front() && c.integer && c.hashable) lead = i;
    }
    if (names.empty()) {
        for (std::size_t i = 0; i < view.columns.size() && lead == std::string::npos; ++i)
            if (view.columns[i].integer && view.columns[i].hashable) lead = i;
    }
    mark_lead(view, lead);
}

LookupFind lookup_find(const CountingView& view, std::size_t base) {
    const LookupBase& lookup = view.lookups.at(base).value();
    if (tuples::key(view.columns, "").empty()) return LookupFind::Scan;
    if (shows_whole_key(view, lookup)) return LookupFind::ExactKey;
    if (lookup.key.size() == 1 && view.columns.at(lookup.key[0].shown).leads_key) return LookupFind::KeyLead;
    return LookupFind::Scan;
}

bool lookup_change(const CountingView& view, std::size_t base) {
    return view.blocks.size() == 1 && view.partial.empty() && !view.aggregate && view.arms == 0 &&
           base < view.lookups.size() && view.lookups[base].has_value();
}

std::string lookup_update_statement(const CountingView& view, std::size_t base) {
    if (!lookup_change(view, base)) throw Error(sqlstate::internal_error, "lookup update of a base that is no lookup");
    const CountingView::Lookup& lookup = *view.lookups[base];
    const std::string inserted = new_rows_relation(base), deleted = old_rows_relation(base);
    // Rows compared as their images: a pair whose values are equal but
    // shown otherwise (1.0 and 1.00) still moves, and one whose guarded
    // columns change so keeps nothing it may not.
    auto image_equal = [](const std::vector<std::string>& cols) {
        if (cols.empty()) return std::string("true");
        auto row = [&](const char* q) {
            return "ROW(" + sql::join_mapped<std::string>(cols, ", ", [&](const std::string& c) { return std::string(q) + "." + c; }) + ")";
        };
        return "pg_catalog.record_image_eq(" + row("__ivm_o") + ", " + row("__ivm_n") + ")";
    };
    std::vector<std::string> pair_cols, pairing, sets, match, shown_sources;
    std::vector<bool> kept(view.columns.size(), false);  // a view column that keeps its value in a pair
    for (std::size_t i = 0; i < lookup.key.size(); ++i) {
        const CountingView::Lookup::KeyPart& k = lookup.key[i];
        const std::string name = "__ivm_k" + std::to_string(i + 1);
        pair_cols.push_back("__ivm_n." + k.column + " AS " + name);
        pairing.push_back("__ivm_n." + k.column + " " + k.equality + " __ivm_o." + k.column);
        const std::string stored = "__ivm_s." + view.columns.at(k.shown).name;
        match.push_back(stored + " " + k.match + " __ivm_p." + name);
        kept.at(k.shown) = true;  // equal, so hashed alike
    }
    // A moved tuple's key, from its shown columns anew (and as they were).
    std::vector<Column> moved_key = view.columns, old_key = view.columns;
    for (Column& c : moved_key) c.name = "__ivm_s." + c.name;
    bool key_moves = false;
    for (std::size_t j = 0; j < lookup.shown.size(); ++j) {
        const CountingView::Lookup::Shown& shown = lookup.shown[j];
        const std::string name = "__ivm_v" + std::to_string(j + 1);
        const Column& column = view.columns.at(shown.column);
        pair_cols.push_back("__ivm_n." + shown.source + " AS " + name);
        sets.push_back(column.name + " = __ivm_p." + name);
        moved_key.at(shown.column).name = "__ivm_p." + name;
        old_key.at(shown.column).name = "__ivm_o." + shown.source;
        const bool guarded = std::find(lookup.guarded.begin(), lookup.guarded.end(), shown.source) != lookup.guarded.end();
        key_moves |= column.hashable && column.hashed && !kept.at(shown.column) && !guarded;
        shown_sources.push_back(shown.source);
    }
    switch (lookup_find(view, base)) {
        case LookupFind::ExactKey:  // the row tells its tuple's key
            pair_cols.push_back(tuples::key(old_key, "") + " AS __ivm_h");
            match.push_back("__ivm_s.__ivm_key" + sql::op("=") + "__ivm_p.__ivm_h");
            break;
        case LookupFind::KeyLead: {  // its tuples are the key's range for the value
            const std::string lead = "(__ivm_p.__ivm_k1::bigint" + sql::op("<<") + "24)";
            match.push_back("__ivm_s.__ivm_key" + sql::op(">=") + lead + " AND __ivm_s.__ivm_key" + sql::op("<=") + "(" +
                            lead + sql::op("|") + "16777215)");
            break;
        }
        case LookupFind::Scan: break;  // through an index of the storage on the columns, if any
    }
    const std::string key = tuples::key(moved_key, "");
    if (key_moves && !key.empty()) sets.push_back("__ivm_key = " + key);
    const std::string moved = lookup.shown.empty() ? "false" : "NOT " + image_equal(shown_sources);
    // Paired up: every inserted row with a deleted one (the caller makes
    // sure there are as many of each; each side holds a key once, a
    // table's unique key before and after the statement), each pair
    // keeping the guarded columns.
    const std::string paired = "(SELECT pg_catalog.count(*) FROM __ivm_p WHERE __ivm_p.__ivm_same)" + sql::op("=") +
                               "(SELECT pg_catalog.count(*) FROM " + inserted + ")";
    return "WITH __ivm_p AS MATERIALIZED (SELECT " + sql::join(pair_cols, ", ") + ", " + image_equal(lookup.guarded) +
           " AS __ivm_same, " + moved + " AS __ivm_moved FROM " + inserted + " __ivm_n JOIN " + deleted + " __ivm_o ON " +
           sql::join(pairing, " AND ") + "), __ivm_ok AS MATERIALIZED (SELECT " + paired +
           " AS ok), __ivm_u AS (UPDATE " + view.storage + " __ivm_s SET " + sql::join(sets, ", ") +
           " FROM __ivm_p WHERE __ivm_p.__ivm_moved AND (SELECT __ivm_ok.ok FROM __ivm_ok) AND " +
           sql::join(match, " AND ") + " RETURNING __ivm_s.__ivm_count) SELECT (SELECT pg_catalog.count(*) FROM __ivm_ok "
           "WHERE __ivm_ok.ok), COALESCE(pg_catalog.sum(__ivm_u.__ivm_count), 0)::bigint, pg_catalog.count(*) FROM __ivm_u";
}

std::string refresh_statement(const CountingView& view) {
    if (!view.partial.empty()) return partial_merge(view, refresh_delta_query(view), true);
    return merge_statement(view, refresh_delta_query(view));
}

bool can_rebuild(const CountingView& view) { return view.partial.empty() && !view.aggregate && view.arms == 0; }

std::string rebuild_statement(const CountingView& view) {
    if (!can_rebuild(view)) throw Error(sqlstate::internal_error, "rebuild of an aggregate or set operation view");
    const std::vector<std::string> now = terms_now(view);
    const std::string cols = output_columns(view, "");
    return "WITH __ivm_gone AS (DELETE FROM " + view.storage + " RETURNING __ivm_count), __ivm_new AS (INSERT INTO " +
           view.storage + " (" + cols + ", __ivm_count" + key_target(view) + ") SELECT " + cols + ", __ivm_cnt" +
           key_value(view, "__ivm_q", tuples::Key::Carried) + " FROM (" +
           tuples::carry_key(view.columns, netted(view, sql::join(now, " UNION ALL "))) +
           ") __ivm_q RETURNING __ivm_count) " +
           report_select({"(SELECT COALESCE(pg_catalog.sum(__ivm_count), 0)::bigint FROM __ivm_new)",
                          "(SELECT COALESCE(pg_catalog.sum(__ivm_count), 0)::bigint FROM __ivm_gone)",
                          "(SELECT pg_catalog.count(*) FROM __ivm_new)", "(SELECT pg_catalog.count(*) FROM __ivm_gone)",
                          "0::bigint", ""});
}

std::string first_fill_statement(const CountingView& view) {
    if (!can_rebuild(view)) throw Error(sqlstate::internal_error, "first fill of an aggregate or set operation view");
    const std::vector<std::string> now = terms_now(view);
    const bool keyed = std::find(view.keying.begin(), view.keying.end(), true) != view.keying.end();
    const std::string rows = keyed ? now.at(0) : netted(view, sql::join(now, " UNION ALL "));
    const std::string cols = output_columns(view, "");
    return "WITH __ivm_new AS (INSERT INTO " + view.storage + " (" + cols + ", __ivm_count" + key_target(view) +
           ") SELECT " + cols + ", __ivm_cnt" + key_value(view, "__ivm_q", tuples::Key::Computed) + " FROM (" + rows +
           ") __ivm_q RETURNING __ivm_count) " +
           report_select({"(SELECT COALESCE(pg_catalog.sum(__ivm_count), 0)::bigint FROM __ivm_new)", "0::bigint",
                          "(SELECT pg_catalog.count(*) FROM __ivm_new)", "0::bigint", "0::bigint", ""});
}

std::string row_count_query(const CountingView& view) {
    if (!view.repeats_rows()) return "SELECT pg_catalog.count(*) FROM " + view.storage;
    return "SELECT COALESCE(pg_catalog.sum(__ivm_count), 0)::bigint FROM " + view.storage;
}

std::vector<std::string> storage_index_ddl(const CountingView& view) {
    if (tuples::key(keyed_columns(view), "").empty()) return {};
    return {"CREATE INDEX ON " + view.storage + " (__ivm_key)"};
}

std::vector<std::string> storage_ddl(const CountingView& view, const std::string& query_view, bool index_later) {
    std::string columns = "LIKE " + query_view;
    for (const Column& k : view.group_keys) columns += ", " + k.name + " " + k.type;
    columns += ", __ivm_count bigint NOT NULL";
    for (int a = 0; a < view.arms; ++a) columns += ", " + arm_column("__ivm_arm", a) + " bigint NOT NULL";
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        if (!has_argument(view.partial[k].kind)) continue;
        const Parts parts = state_parts(view, k);
        const std::string n = std::to_string(k + 1);
        if (parts.own_n) columns += ", __ivm_n" + n + " bigint NOT NULL";
        if (parts.own_s) columns += ", __ivm_s" + n + " numeric";
        if (parts.own_x) columns += ", __ivm_x" + n + " " + tracked_type(view, k) + ", __ivm_xn" + n + " bigint NOT NULL";
        if (parts.own_s && view.partial[k].numeric)
            for (const Special& sp : specials) columns += std::string(", ") + sp.column + n + " bigint NOT NULL";
    }
    // An aggregate view's rows are found by their group.
    const std::string key = tuples::key(keyed_columns(view), "");
    if (!key.empty()) columns += ", __ivm_key bigint NOT NULL";
    std::vector<std::string> ddl{"CREATE TABLE " + view.storage + " (" + columns + ")"};
    if (key.empty()) return ddl;
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

std::string user_view_ddl(const CountingView& view, const std::string& user_view, bool populated,
                          ViewDdl how) {
    const std::string create = how == ViewDdl::Create ? "CREATE VIEW " : "CREATE OR REPLACE VIEW ";
    if (!populated) {
        std::vector<std::string> nulls;
        for (const Column& c : view.columns) nulls.push_back("NULL::" + c.type + " AS " + c.name);
        return create + user_view + " AS SELECT " + sql::join(nulls, ", ") +
               " FROM ivm.unpopulated(" + sql::literal(user_view) + ")";
    }
    std::string from = view.storage + " __ivm_s";
    if (view.repeats_rows()) from += " CROSS JOIN LATERAL ivm.copies(__ivm_s.__ivm_count) __ivm_n";
    return create + user_view + " AS SELECT " + output_columns(view, "__ivm_s") + " FROM " + from;
}

}  // namespace ivm::counting
