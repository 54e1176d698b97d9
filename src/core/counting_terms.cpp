// Counting, the delta terms: each occurrence read as it is now, as it was
// before the statement or as its change; a view's delta as the sum of
// terms, netted per tuple (or per tuple and arm, or marking groups).
#include "core/counting.hpp"
#include "core/counting_shared.hpp"

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
using Shape = CountingView::Shape;

// A transition table as a subquery (OFFSET 0 keeps it one) that a
// parameterized plan can rescan, which a transition table scan cannot be.
std::string rescannable(const std::string& rows) { return "(SELECT * FROM " + rows + " OFFSET 0)"; }

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
        return "SELECT " + cols + ", " + count + more + " FROM " + rescannable(deleted) + " __ivm_r" +
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
    // On an outer join's nullable side, a storage's shown tuples are taken
    // above the UNION ALL: an arm with a WHERE of its own stays a subquery,
    // which the join cannot look up through an index, where a plain one
    // becomes a member of an append.  (Under a subquery the planner then
    // misjudged TPC-H Q18's part read under IN: a 7-row unit 43 -> 387 ms
    // at scale 0.02.)
    const bool above = !source.multiplicity.empty() && source.role == Source::Role::Nullable;
    return "SELECT " + cols + ", __ivm_r.__ivm_cnt FROM (SELECT " + cols + ", " + count +
           " AS __ivm_cnt, __ivm_r.tableoid AS __ivm_rel, __ivm_r.ctid AS __ivm_tid FROM " + now + " __ivm_r" +
           (above ? "" : shown(source)) + " UNION ALL " + deleted_rows(", NULL::oid, NULL::tid") +
           ") __ivm_r WHERE (__ivm_r.__ivm_tid IS NULL OR NOT (" + removed + "))" +
           (above ? " AND __ivm_r.__ivm_cnt" + sql::op(">") + "0" : "");
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
            // (rescannable: a join can look the table as it was up through
            // its index, per row of a few changed ones, where a transition
            // table in the append had it read the whole table.)
            return counted_rows(source, now, "1") + " UNION ALL " + counted_rows(source, rescannable(inserted), "-1") +
                   " UNION ALL " + counted_rows(source, rescannable(deleted), "1");
    }
    throw Error(sqlstate::internal_error, "unknown source state");
}

}  // namespace

std::string output_columns(const CountingView& view, const std::string& qualifier) {
    return tuples::columns(view.columns, qualifier);
}

namespace {

// Rows read as they are now count 1, except through another view's
// storage, where a row stands for its multiplicity.  Subqueries only
// filter; a row padded with NULLs counts 1.
bool counts_one(const Source& source, State state) {
    return source.role == Role::Nested || (state == State::Now && source.multiplicity.empty());
}

}  // namespace

bool counts_one(const Block& block, const std::vector<State>& states) {
    for (std::size_t k = 0; k < block.sources.size(); ++k)
        if (!counts_one(block.sources[k], states[k])) return false;
    return true;
}

std::string term_query(const CountingView& view, const Block& block, const std::vector<State>& states, int side,
                       Limit limit) {
    std::vector<std::string> ctes;
    std::vector<std::string> factors;
    if (limit.sign != nullptr) factors.push_back(std::string(limit.sign) + "::bigint");
    for (std::size_t k = 0; k < block.sources.size(); ++k) {
        const Source& source = block.sources[k];
        // A table read as it is now or as it was, where the term reads it
        // twice (a subquery's rows limited to those a change concerns), is
        // read in place each time, its indexes usable, instead of copied
        // whole into a CTE (TPC-H Q20's partsupp, 40,000 rows a change; its
        // part as it was, 10,000 rows for a change of 3).
        const char* materialized = states[k] != State::Delta ? " AS NOT MATERIALIZED (" : " AS (";
        ctes.push_back(source_placeholder(k) + materialized + source_query(view, block, k, states[k], limit.large) + ")");
        if (counts_one(source, states[k])) continue;
        factors.push_back(source.role == Role::Nullable ? "COALESCE(__ivm_t." + count_column(k) + ", 1::bigint)"
                                                        : "__ivm_t." + count_column(k));
    }
    if (limit.filtered) {
        const std::size_t k = *limit.filtered;
        ctes.push_back(changed_rows(k) + " AS (" + source_query(view, block, k, State::Delta) + ")");
    }
    const std::string* spj = limit.filtered ? &block.sources.at(*limit.filtered).filtered_template : &block.spj_template;
    for (std::size_t k = 0; limit.crossing && !limit.filtered && k < block.sources.size(); ++k) {
        if (states[k] != State::Delta || block.sources[k].crossing_template.empty()) continue;
        // Whether the change is one row counted -m and one +m: then the
        // rows that take both alike derive nothing.
        ctes.push_back("__ivm_pair AS (SELECT pg_catalog.count(*)" + sql::op("=") + "2 AND pg_catalog.sum(__ivm_cnt)" +
                       sql::op("=") + "0 AND pg_catalog.min(__ivm_cnt)" + sql::op("<") + "0 AS __ivm_ok FROM " +
                       source_placeholder(k) + ")");
        spj = &block.sources[k].crossing_template;
        break;
    }
    const std::string count = factors.empty() ? "1::bigint" : sql::join(factors, sql::op("*"));
    std::string outputs;
    if (view.blocks.size() > 1) {
        // The arms of a UNION are cast to the union's column types, so that
        // equal tuples hash and group alike whichever arm they come from.
        std::vector<std::string> cast;
        for (const Column& c : view.columns) cast.push_back(tuples::cast("__ivm_t." + c.name, c.type) + " AS " + c.name);
        outputs = sql::join(cast, ", ");
    } else {
        std::vector<std::string> out{tuples::columns(keyed_columns(view), "__ivm_t")};
        if (out[0].empty()) out.clear();  // no GROUP BY
        for (std::size_t k = 0; k < view.partial.size(); ++k)
            if (has_argument(view.partial[k].kind)) out.push_back("__ivm_t.__ivm_arg" + std::to_string(k + 1));
        outputs = sql::join(out, ", ");
    }
    const std::string tag = view.arms == 0 ? "" : ", " + std::to_string(side) + " AS __ivm_side";
    return "SELECT " + outputs + (outputs.empty() ? "" : ", ") + count + " AS __ivm_cnt" + tag + " FROM (" + with_clause(ctes) +
           *spj + ") __ivm_t";
}

std::string arm_column(const std::string& prefix, int arm) { return prefix + std::to_string(arm + 1); }

namespace {

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

}  // namespace

std::vector<State> all_now(const Block& block) { return std::vector<State>(block.sources.size(), State::Now); }

// Aggregate views: the whole query over the base tables as they are now.
namespace {

std::string full_query(const CountingView& view, const std::string& full_template) {
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
        ctes.push_back(source_placeholder(k) + " AS NOT MATERIALIZED (" + rows + ")");
    }
    return with_clause(ctes) + full_template;
}

}  // namespace

std::string full_query(const CountingView& view) { return full_query(view, view.full_template); }

std::string groups_query(const CountingView& view) {
    return full_query(view, view.grouped_full_template.empty() ? view.full_template : view.grouped_full_template);
}

// Each block's term over the relations as they are now (tagged with its arm).
std::vector<std::string> terms_now(const CountingView& view) {
    std::vector<std::string> now;
    for (const Block& block : view.blocks) now.push_back(term_query(view, block, all_now(block), block.side));
    return now;
}

// Sum the counts per tuple; tuples whose changes cancel out disappear.
std::string netted(const CountingView& view, const std::string& counted_union) {
    return "SELECT " + tuples::grouped_columns(view.columns) +
           ", pg_catalog.sum(__ivm_cnt)::bigint AS __ivm_cnt FROM (" + counted_union +
           ") __ivm_u GROUP BY " + tuples::group_by(view.columns) +
           " HAVING pg_catalog.sum(__ivm_cnt)" + sql::op("<>") + "0";
}

std::string new_rows_relation(std::size_t base) { return "ivm_new_" + std::to_string(base + 1); }

std::string old_rows_relation(std::size_t base) { return "ivm_old_" + std::to_string(base + 1); }

namespace {

// The rows a change of `changed_bases` derives, each with its signed count
// (__ivm_cnt), not yet summed: the union of the delta's terms.  Counts the
// changed occurrences of base tables in *occurrences.
std::string changed_terms(const CountingView& view, const std::vector<bool>& changed_bases, bool large,
                          const std::vector<double>& base_rows, std::size_t* occurrences) {
    std::vector<std::string> terms;
    std::size_t changed_occurrences = 0;
    for (const Block& block : view.blocks) {
        const int arm = block.side;
        std::vector<std::size_t> changed;
        for (std::size_t k = 0; k < block.sources.size(); ++k)
            if (changed_bases.at(block.sources[k].base)) changed.push_back(k);
        if (!base_rows.empty())
            std::stable_sort(changed.begin(), changed.end(), [&](std::size_t a, std::size_t b) {
                return base_rows.at(block.sources[a].base) < base_rows.at(block.sources[b].base);
            });
        changed_occurrences += changed.size();
        for (std::size_t j = 0; j < changed.size(); ++j) {
            std::vector<State> states = all_now(block);
            for (std::size_t i = 0; i < j; ++i) states[changed[i]] = State::Before;
            const std::size_t k = changed[j];
            if (block.sources[k].role == Role::Linear) {
                states[k] = State::Delta;
                // (Groups are recomputed from their rows, which the template
                // does not show: a row changed there marks its group even
                // where its derivations cancel.)
                terms.push_back(term_query(view, block, states, arm,
                                           Limit{std::nullopt, nullptr, large, view.shape() != Shape::Groups}));
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
    *occurrences = changed_occurrences;
    return sql::join(terms, " UNION ALL ");
}

}  // namespace

std::string delta_query(const CountingView& view, const std::vector<bool>& changed_bases, bool large,
                        const std::vector<double>& base_rows) {
    std::size_t changed_occurrences = 0;
    const std::string all = changed_terms(view, changed_bases, large, base_rows, &changed_occurrences);
    // For an aggregate view every input row that changed marks its group,
    // even when its changes cancel (an UPDATE of an aggregated column).
    switch (view.shape()) {
        case Shape::PartialState: return partial_delta(view, all, changed_occurrences > 1 ? Net::Yes : Net::No);
        case Shape::Groups: return groups_of(view, all);
        case Shape::SetOperation: return netted_sides(view, all);
        case Shape::Tuples: break;
    }
    return netted(view, all);
}

std::string delta_keys_query(const CountingView& view, const std::string& delta_rows) {
    const std::string key = tuples::key(keyed_columns(view), "__ivm_d");
    if (key.empty()) return "";
    return "SELECT DISTINCT " + key + " AS __ivm_k FROM (" + delta_rows + ") __ivm_d ORDER BY 1";
}

std::string refresh_delta_query(const CountingView& view) {
    std::vector<std::string> now;
    switch (view.shape()) {
        case Shape::PartialState: {  // all the rows there are now, into an emptied storage
            const Block& block = view.blocks.at(0);
            const std::vector<State> now = all_now(block);
            return partial_delta(view, term_query(view, block, now), Net::No,
                                 counts_one(block, now) ? Counts::One : Counts::Signed, true);
        }
        case Shape::Groups: {  // every group there is, or was
            if (view.group_keys.empty()) return "SELECT 1 AS __ivm_any";
            const std::string keys = tuples::columns(view.group_keys, "");
            return "SELECT " + keys + " FROM (" + full_query(view) + ") __ivm_q UNION SELECT " + keys + " FROM " +
                   view.storage;
        }
        case Shape::SetOperation:
            now = terms_now(view);
            for (int a = 0; a < view.arms; ++a)
                now.push_back("SELECT " + output_columns(view, "") + ", (" + sql::op("-") + arm_column("__ivm_arm", a) +
                              ")::bigint, " + std::to_string(a) + " FROM " + view.storage);
            return netted_sides(view, sql::join(now, " UNION ALL "));
        case Shape::Tuples: now = terms_now(view); break;
    }
    const std::string stored = "SELECT " + output_columns(view, "") +
                               ", (" + sql::op("-") + "__ivm_count)::bigint FROM " + view.storage;
    return netted(view, sql::join(now, " UNION ALL ") + " UNION ALL " + stored);
}

}  // namespace ivm::counting
