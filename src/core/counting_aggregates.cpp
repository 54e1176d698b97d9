// Counting, aggregate views: a group's partial state updated by a delta
// (count, sum, avg, min, max), or the groups a change touched recomputed
// (any aggregate, window partitions).
#include "core/counting.hpp"
#include "core/counting_shared.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"

namespace ivm::counting {

namespace {

using Kind = CountingView::Partial::Kind;

bool has_extreme(Kind kind) { return kind == Kind::Min || kind == Kind::Max; }

}  // namespace

bool has_argument(Kind kind) { return kind == Kind::Count || kind == Kind::Sum || kind == Kind::Avg || has_extreme(kind); }

namespace {

bool has_sum(Kind kind) { return kind == Kind::Sum || kind == Kind::Avg; }

using Partial = CountingView::Partial;

// Aggregates that keep an extreme and how many rows hold it: min and max
// of their argument, a numeric sum or avg the largest scale of its.
bool tracks(const Partial& p) { return has_extreme(p.kind) || (has_sum(p.kind) && p.numeric && p.scale < 0); }

std::string tracked_value(const Partial& p, std::size_t k) {
    const std::string arg = "__ivm_arg" + std::to_string(k + 1);
    return has_extreme(p.kind) ? arg : "pg_catalog.scale(" + arg + ")";
}

bool tracks_max(const Partial& p) { return p.kind != Kind::Min; }

// A numeric argument times its row's count, which is 1 or -1 for rows of
// tables: negated rather than multiplied there (a numeric product per row
// made the sums of a delta cost three times a plain sum; TPC-H Q01).
std::string weighted(const std::string& numeric_arg) {
    return "CASE WHEN __ivm_cnt" + sql::op("=") + "1 THEN " + numeric_arg + " WHEN __ivm_cnt" + sql::op("=") +
           "-1 THEN" + sql::op("-") + numeric_arg + " ELSE " + numeric_arg + sql::op("*") + "__ivm_cnt END";
}

std::string extreme_aggregate(const Partial& p) { return tracks_max(p) ? "pg_catalog.max" : "pg_catalog.min"; }

// The type of entry k's value: its column's, or a hidden aggregate's own.
const std::string& value_type(const CountingView& view, std::size_t k) {
    return k < view.columns.size() ? view.columns[k].type : view.partial[k].type;
}

}  // namespace

std::string tracked_type(const CountingView& view, std::size_t k) {
    return has_extreme(view.partial[k].kind) ? value_type(view, k) : "integer";
}

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

std::string partial_delta(const CountingView& view, const std::string& signed_rows, Net net, Counts counts, bool whole) {
    const bool one = counts == Counts::One;
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
            // (an update from 1.5 to 1.50 nets to nothing by =, by its text not)
            if (!view.partial[k].shows_alike) cols.push_back(tuples::image(arg) + " AS __ivm_img" + std::to_string(k + 1));
        }
        rows = "SELECT " + sql::join(cols, ", ") + ", pg_catalog.sum(__ivm_cnt)::bigint AS __ivm_cnt FROM (" + signed_rows +
               ") __ivm_r GROUP BY " + sql::ordinals(cols.size()) + " HAVING pg_catalog.sum(__ivm_cnt)" + sql::op("<>") + "0";
    }
    std::vector<std::string> sums{one ? "pg_catalog.count(*) AS __ivm_dn" : "COALESCE(pg_catalog.sum(__ivm_cnt), 0)::bigint AS __ivm_dn"};
    std::vector<std::string> nonzero{"pg_catalog.sum(__ivm_cnt)" + sql::op("<>") + "0"};
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        if (!has_argument(view.partial[k].kind)) continue;
        const std::string arg = "__ivm_arg" + std::to_string(k + 1), n = std::to_string(k + 1);
        const Parts parts = state_parts(view, k);
        if (parts.own_n) {
            sums.push_back((one ? "pg_catalog.count(" + arg + ")"
                                : "COALESCE(pg_catalog.sum(__ivm_cnt) FILTER (WHERE " + arg + " IS NOT NULL), 0)::bigint") +
                           " AS __ivm_dn" + n);
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
            const std::string came_rows = one ? "" : " FILTER (WHERE __ivm_cnt" + sql::op(">") + "0)";
            const std::string went_rows = " FILTER (WHERE __ivm_cnt" + sql::op("<") + "0)";
            const std::string came = agg + "(" + value + ")" + came_rows, went = agg + "(" + value + ")" + went_rows;
            const std::string came_n = at + value + (one ? ", 1::bigint)" : ", __ivm_cnt)") + came_rows;
            const std::string went_n = at + value + "," + sql::op("-") + "__ivm_cnt)" + went_rows;
            sums.push_back(came + " AS __ivm_dx" + n);
            sums.push_back(came_n + " AS __ivm_dxn" + n);
            sums.push_back(went + " AS __ivm_rx" + n);
            sums.push_back(went_n + " AS __ivm_rxn" + n);
            // As many rows came as went at the same extreme: it stands
            // (unless it came shown otherwise: 1.5 went, 1.50 came).
            nonzero.push_back((p.shows_alike ? came + " IS DISTINCT FROM " + went
                                     : tuples::image(came) + " IS DISTINCT FROM " + tuples::image(went)) +
                              " OR " + came_n + sql::op("<>") + went_n);
        }
        if (!parts.own_s) continue;
        if (!p.numeric) {
            const std::string product = one ? arg : p.narrow ? arg + "::bigint" + sql::op("*") + "__ivm_cnt" : weighted(arg + "::numeric");
            sums.push_back("pg_catalog.sum(" + product + ")::numeric AS __ivm_ds" + n);
            nonzero.push_back("pg_catalog.sum(" + product + ")" + sql::op("<>") + "0");
            continue;
        }
        // NaN and the infinities have no scale: the finite sum leaves them out.
        const std::string finite = "pg_catalog.sum(" + (one ? arg : weighted(arg)) +
                                   ") FILTER (WHERE pg_catalog.scale(" + arg + ") IS NOT NULL)";
        sums.push_back(finite + " AS __ivm_ds" + n);
        nonzero.push_back("COALESCE(" + finite + ", 0)" + sql::op("<>") + "0");
        for (const Special& sp : specials_of(p)) {
            const std::string count = std::string(one ? "pg_catalog.count(*)" : "COALESCE(pg_catalog.sum(__ivm_cnt)") +
                                      " FILTER (WHERE " + arg + sql::op("=") + sp.value + "::numeric)" + (one ? "" : ", 0)");
            sums.push_back(count + "::bigint AS " + sp.delta + n);
            nonzero.push_back(count + sql::op("<>") + "0");
        }
    }
    // Without GROUP BY there is one group, whose row a whole computation
    // always returns (count 0 over no rows).
    const std::string grouping = keys.empty() ? "" : " GROUP BY " + sql::ordinals(view.group_keys.size());
    const std::string changed = whole || one ? "" : " HAVING " + sql::join(nonzero, " OR ");
    return "SELECT " + (keys.empty() ? "" : keys + ", ") + sql::join(sums, ", ") + " FROM (" + rows + ") __ivm_u" + grouping +
           changed;
}

namespace {

// The outputs of a group from its state in __ivm_m: one per entry of
// view.partial (a hidden aggregate's is read by the expressions over it).
std::vector<std::string> partial_outputs(const CountingView& view) {
    std::vector<std::string> out;
    auto group_key = [](std::size_t i) { return "__ivm_m.__ivm_gk" + std::to_string(i + 1); };
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        const Parts parts = state_parts(view, k);
        const std::string n = "__ivm_m.__ivm_n" + parts.n, sum = "__ivm_m.__ivm_s" + parts.s;
        const std::string type = value_type(view, k);
        switch (view.partial[k].kind) {
            case Kind::Key: out.push_back(group_key(view.partial[k].key)); break;
            case Kind::Expression: out.emplace_back(); break;  // below, once its aggregates' are known
            case Kind::CountStar: out.push_back("__ivm_m.__ivm_n"); break;
            case Kind::Count: out.push_back(n); break;
            case Kind::Sum:
            case Kind::Avg: {
                const Partial& p = view.partial[k];
                const std::string scale = p.scale >= 0 ? std::to_string(p.scale) : "COALESCE(__ivm_m.__ivm_x" + parts.x + ", 0)";
                std::string value = p.numeric ? "pg_catalog.round(" + sum + ", " + scale + ")" : sum;
                if (p.kind == Kind::Avg) value = "(" + value + sql::op("/") + n + "::numeric)";
                const std::string c = parts.s, gt0 = sql::op(">") + "0";
                if (p.numeric && p.scale >= 0) {
                    value = "CASE WHEN __ivm_m.__ivm_nan" + c + gt0 + " THEN 'NaN'::numeric ELSE " + value + " END";
                } else if (p.numeric) {
                    // As PostgreSQL: NaN wins, and infinities of both signs make NaN.
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
    for (std::size_t k = 0; k < view.partial.size(); ++k) {
        const Partial& p = view.partial[k];
        if (p.kind != Kind::Expression) continue;
        std::string text = p.pieces.at(0);
        for (std::size_t i = 0; i < p.reads.size(); ++i) {
            const Partial::Read& r = p.reads[i];
            text += "(" + (r.key ? group_key(r.index) : out.at(r.index)) + ")" + p.pieces.at(i + 1);
        }
        out[k] = "(" + text + ")::" + value_type(view, k);
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

}  // namespace

std::string partial_merge(const CountingView& view, const std::string& delta, Into into) {
    const bool replace = into != Into::Storage;
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
            for (const Special& sp : specials_of(view.partial[k])) {
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
            // (values equal to it but shown otherwise: those gone may have
            // been the ones showing it, so none is known at it)
            const std::string unsure = view.partial[k].shows_alike ? ""
                                       : " WHEN " + gone_at_x + sql::op(">") + "0 THEN 0";
            state.push_back("CASE WHEN " + beyond + " THEN " + came + " ELSE " + x + " END AS __ivm_cx" + n);
            state.push_back("CASE WHEN " + beyond + " THEN " + came_n + unsure + " WHEN " + came + sql::op("=") + x + " THEN " + xn +
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
    const std::string merged = "SELECT " + sql::join(carried, ", ") + with_extremes + " FROM (SELECT " + key_columns +
                               "__ivm_s.ctid AS __ivm_tid, " + sql::join(state, ", ") + " FROM __ivm_d LEFT JOIN " +
                               view.storage + " __ivm_s ON " + match + ") __ivm_p";
    if (into == Into::NewRows) {
        // Every group is new (nothing is stored): its row, in the storage's
        // column order, from subqueries the planner may run in parallel.
        std::vector<std::string> row;
        for (std::size_t k = 0; k < view.columns.size(); ++k) row.push_back(outputs[k] + " AS " + view.columns[k].name);
        for (const Column& g : view.group_keys) row.push_back("__ivm_m." + g.name);
        row.push_back("__ivm_m.__ivm_n AS __ivm_count");
        for (const auto& column : partial_state_columns(view)) row.push_back("__ivm_m." + column.first);
        if (!key_target(view).empty()) row.push_back(tuples::key(keyed_columns(view), "__ivm_m") + " AS __ivm_key");
        return "WITH __ivm_d AS NOT MATERIALIZED (" + delta + "), __ivm_m AS NOT MATERIALIZED (" + merged + ") SELECT " +
               sql::join(row, ", ") + " FROM __ivm_m WHERE NOT " + empty;
    }
    return "WITH " + std::string(replace ? "__ivm_gone AS (DELETE FROM " + view.storage + " RETURNING 1), " : "") +
           "__ivm_d AS MATERIALIZED (" + delta + "), __ivm_m AS MATERIALIZED (" + merged + "), __ivm_del AS (DELETE FROM " +
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
    // The recomputation reads only the touched groups' rows where it can
    // (groups_query, by the hash of their keys: __ivm_ah); the groups are
    // then matched exactly.
    const std::string recomputed =
        view.windowed ? "SELECT " + tuples::grouped_columns(all) + ", pg_catalog.count(*) AS __ivm_count FROM (" +
                            groups_query(view) + ") __ivm_q WHERE " + in_affected("__ivm_q", Key::Computed) +
                            " GROUP BY " + tuples::group_by(all)
                      : "SELECT __ivm_q.*, 1::bigint AS __ivm_count FROM (" + groups_query(view) + ") __ivm_q WHERE " +
                            in_affected("__ivm_q", Key::Computed);
    const std::string hashed =
        view.grouped_full_template.empty()
            ? affected
            : "SELECT __ivm_g.*, " + tuples::hash(tuples::columns(view.group_keys, "__ivm_g")) + " AS __ivm_ah FROM (" +
                  affected + ") __ivm_g";
    // The stored rows of the affected groups that the recomputation does
    // not give again go, found by EXCEPT (sorted or hashed): as NOT EXISTS
    // over the recomputed rows, a row estimate of one made it a nested loop
    // comparing every stored row with every recomputed one (Q20's part:
    // 1,565 x 1,565 rows, 450 ms).
    // The stored rows are found by their key alone first: with the exact
    // match in the same EXISTS the planner cannot make the affected groups
    // unique and probe the key index with them, and reads every stored row
    // instead (a DISTINCT ON part of 200,000 rows: 95 ms for one group).
    const std::string group_key = tuples::key(view.group_keys, "__ivm_a");
    const std::string stored_keys =
        group_key.empty() ? "" : "__ivm_s.__ivm_key IN (SELECT " + group_key + " FROM __ivm_a) AND ";
    return "WITH __ivm_a AS MATERIALIZED (" + hashed + "), __ivm_n AS MATERIALIZED (" + recomputed +
           "), __ivm_kept AS (SELECT __ivm_s.ctid AS __ivm_tid FROM __ivm_n JOIN " + view.storage + " __ivm_s ON " +
           same_row("__ivm_s", Key::Stored, "__ivm_n", Key::Computed) + "), __ivm_gone AS (SELECT __ivm_s.ctid AS __ivm_tid FROM " +
           view.storage + " __ivm_s WHERE " + stored_keys + in_affected("__ivm_s", Key::Stored) +
           " EXCEPT SELECT __ivm_tid FROM __ivm_kept), __ivm_del AS (DELETE FROM " + view.storage +
           " __ivm_s USING __ivm_gone WHERE __ivm_s.ctid" + sql::op("=") + "__ivm_gone.__ivm_tid RETURNING 1), __ivm_ins AS (INSERT INTO " +
           view.storage + " (" + cols + ", __ivm_count" + key_target(view) + ") SELECT " + tuples::columns(all, "__ivm_n") +
           ", __ivm_n.__ivm_count" + key_value(view, "__ivm_n", tuples::Key::Computed) + " FROM __ivm_n WHERE NOT EXISTS (SELECT 1 FROM " + view.storage + " __ivm_s WHERE " +
           same_row("__ivm_s", Key::Stored, "__ivm_n", Key::Computed) +
           ") RETURNING 1) " +
           report_select({"(SELECT pg_catalog.count(*) FROM __ivm_ins)", "(SELECT pg_catalog.count(*) FROM __ivm_del)",
                          "(SELECT pg_catalog.count(*) FROM __ivm_ins)", "(SELECT pg_catalog.count(*) FROM __ivm_del)", "0",
                          ""});
}

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
            for (const Special& sp : specials_of(p)) state.push_back("__ivm_s." + std::string(sp.column) + n);
        if (!tracks(p)) continue;
        // (also where the state is another's; a hidden aggregate's column is an expression's, below)
        if (k < view.columns.size()) sets.push_back(view.columns[k].name + " = " + outputs[k]);
        if (!parts.own_x) continue;
        state.push_back("__ivm_s.__ivm_x" + n + " AS __ivm_cx" + n);
        state.push_back("__ivm_s.__ivm_xn" + n + " AS __ivm_cxn" + n);  // NOT NULL in the storage
        stale.push_back(without_extreme("__ivm_s", parts));
        sets.push_back("__ivm_x" + n + " = __ivm_m.__ivm_x" + n);
        sets.push_back("__ivm_xn" + n + " = __ivm_m.__ivm_xn" + n);
    }
    if (stale.empty()) return "";
    for (std::size_t k = 0; k < view.columns.size(); ++k)
        if (view.partial[k].kind == Kind::Expression) sets.push_back(view.columns[k].name + " = " + outputs[k]);
    // The partial state of those groups recomputed from their rows as they are now.
    const Block& block = view.blocks.at(0);
    const std::vector<State> now = all_now(block);
    const std::string recomputed =
        partial_delta(view,
                      "SELECT __ivm_q.* FROM (" + term_query(view, block, now) +
                          ") __ivm_q WHERE EXISTS (SELECT 1 FROM __ivm_p WHERE " +
                          tuples::same(view.group_keys, "__ivm_p", tuples::Key::Computed, "__ivm_q", tuples::Key::Computed) + ")",
                      Net::No, counts_one(block, now) ? Counts::One : Counts::Signed);
    return "WITH __ivm_p AS MATERIALIZED (SELECT " + sql::join(state, ", ") + " FROM " + view.storage + " __ivm_s WHERE " +
           sql::join(stale, " OR ") + "), __ivm_f AS MATERIALIZED (" + recomputed +
           "), __ivm_m AS MATERIALIZED (SELECT __ivm_p.*, " + sql::join(extreme_columns(view, true), ", ") +
           " FROM __ivm_p) UPDATE " + view.storage + " __ivm_s SET " + sql::join(sets, ", ") +
           " FROM __ivm_m WHERE __ivm_s.ctid" + sql::op("=") + "__ivm_m.__ivm_tid";
}

}  // namespace ivm::counting
