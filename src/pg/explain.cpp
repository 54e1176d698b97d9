// ivm.explain_view: what a view is, and the SQL run when each of its base
// relations changes.
#include "core/counting.hpp"
#include "core/dred.hpp"
#include "core/fixpoint.hpp"
#include "core/recursion_policy.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"
#include "core/change_log.hpp"
#include "pg/boundary.hpp"
#include "pg/deferred.hpp"
#include "pg/catalog.hpp"
#include "pg/execution.hpp"
#include "pg/maintain.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"

#include <algorithm>

namespace ivm::pg {
namespace {

// A recursive program: its strata, items and terms, the first queries of
// its fixpoint loop, and when a stratum is recomputed.
std::vector<std::string> explain_program(const Program& p, Oid storage, std::vector<std::string>& lines) {
    lines.push_back("items of the recursive query: " + p.storage + ", one row per tuple of an item (__ivm_item " +
                    "says which); base relations of the items: " + (p.bases.empty() ? "none" : sql::join(p.bases, ", ")));
    lines.push_back(recursion::describe(recursion::Engine::Fixpoint, estimated_rows(storage)));
    for (std::size_t s = 0; s < p.strata.size(); ++s) {
        std::vector<std::string> names;
        for (std::size_t i : p.strata[s])
            names.push_back(p.items[i].reference + " (" + tuples::columns(p.items[i].columns, "") + ")");
        lines.push_back("stratum " + std::to_string(s + 1) + ": " + sql::join(names, ", "));
        for (const ProgramRule& rule : p.rules)
            if (p.stratum_of(rule.item) == s)
                lines.push_back("  term of " + p.items[rule.item].reference + " (" + std::to_string(rule.sources.size()) +
                                " sources" + (rule.other_bases.empty() && rule.other_items.empty()
                                                  ? ""
                                                  : "; reads more through negation, aggregation or subqueries") +
                                "): " + rule.sql_template);
        lines.push_back("  evaluated from: " + fixpoint::initial_query(p, s));
        const std::string step = fixpoint::step_query(p, s, "<delta>", p.storage, {p.storage});
        if (!step.empty()) lines.push_back("  one semi-naive step: " + step);
    }
    return lines;
}

// The lines of ivm.explain_view: what a view is and what runs when each of
// its base tables changes.
std::vector<std::string> explain(const ViewRuntime& view) {
    const CountingView& model = view.analyzed.model;
    std::vector<std::string> lines;
    lines.push_back("view " + qualified_name(view.entry.view) + (view.entry.populated ? "" : " (unpopulated)"));
    if (view.analyzed.program)
        lines.push_back("algorithm: dred: the query is recursive in a way PostgreSQL does not evaluate (several "
                        "WITH items, non-linear or mutual recursion, negation or aggregation over lower strata), so "
                        "ivm evaluates its items itself, semi-naively, stratum by stratum, keeps them as sets and "
                        "maintains each stratum by delete and rederive (a stratum reading a change through negation "
                        "or aggregation is recomputed); the query over them is maintained by counting");
    else if (view.analyzed.recursive)
        lines.push_back("algorithm: dred: the query is recursive (WITH RECURSIVE ... UNION), so its recursive "
                        "relation is kept as a set and maintained by delete and rederive; the query over it "
                        "is maintained by counting from the relation's changes");
    else
        switch (model.shape()) {
            case CountingView::Shape::PartialState:
                lines.push_back("algorithm: counting: the query is not recursive; its aggregates are count, sum and avg "
                                "over integers or numeric, min and max (or expressions over those and the group keys), "
                                "so each group keeps its row count and per aggregate the count and the sum or the "
                                "extreme of its arguments (__ivm_n<k>, __ivm_s<k>, __ivm_x<k>; k past the output "
                                "columns: an aggregate inside an expression), which a change updates; a group whose "
                                "min or max value goes is recomputed");
                break;
            case CountingView::Shape::Groups:
                lines.push_back(model.windowed
                                    ? "algorithm: counting: the query is not recursive; it has window functions, so the "
                                      "view keeps its rows with their partition keys and a change recomputes the "
                                      "partitions whose input rows it touched"
                                    : "algorithm: counting: the query is not recursive; it aggregates, so the view keeps "
                                      "one row per group and a change recomputes the groups whose input rows it touched");
                break;
            case CountingView::Shape::SetOperation:
            case CountingView::Shape::Tuples:
                lines.push_back("algorithm: counting: the query is not recursive, so each stored tuple carries "
                                "the number of its derivations and leaves the view when it reaches zero");
                break;
        }
    lines.push_back("definition: " + view.entry.definition);
    lines.push_back("base relations: " + sql::join(model.bases, ", "));
    if (view.entry.deferred) {
        std::vector<std::string> logs;
        for (Oid base : view.analyzed.base_oids) logs.push_back(change_log::table_name(base));
        const std::optional<int64> pending = deferred::pending_changes(view.entry.view_id);
        lines.push_back("deferred: writes of the base tables append their rows to " + sql::join(logs, ", ") + " (" +
                        std::to_string(pending.value_or(0)) + " change rows pending); ivm.refresh_view " +
                        (deferred::will_recompute(view.entry.view_id)
                             ? "recomputes the view next (a base table was truncated or altered, or it never applied)"
                             : "merges them, netted per base table, as one change of all its base tables, as below"));
    }
    for (const std::vector<Oid>* bases : {&view.analyzed.base_oids, &view.analyzed.recursive_base_oids})
        for (Oid base : *bases) {
            std::vector<std::string> parts;
            for (Oid t : with_descendants(base))
                if (t != base) parts.push_back(qualified_name(t));
            if (!parts.empty())
                lines.push_back("  " + qualified_name(base) + " with its partitions or children, each with the view's "
                                "triggers: " + sql::join(parts, ", "));
        }
    std::vector<std::string> columns;
    for (const Column& c : model.columns) columns.push_back(c.name + " " + c.type);
    for (const Column& c : model.group_keys) columns.push_back(c.name + " " + c.type);
    const char* shown = model.windowed  ? ", each tuple shown __ivm_count times (partition keys in __ivm_gk<i>)"
                        : model.aggregate ? ", one row per group (group keys in __ivm_gk<i>)"
                        : model.distinct ? ", shown once per tuple (DISTINCT)"
                                         : ", each tuple shown __ivm_count times";
    lines.push_back("storage: " + model.storage + " (" + sql::join(columns, ", ") +
                    ", __ivm_count bigint, __ivm_key bigint)" + shown);
    Oid storage = view.entry.storage;
    std::vector<spi::Row> indexes = spi::query(
        "SELECT pg_catalog.pg_get_indexdef(indexrelid) FROM pg_catalog.pg_index WHERE indrelid = $1::oid "
        "ORDER BY indexrelid", {std::to_string(storage)});
    for (const spi::Row& r : indexes) lines.push_back("index: " + r[0].value_or(""));
    std::vector<std::string> keying;
    for (std::size_t b = 0; b < model.keying.size(); ++b)
        if (model.keying[b]) keying.push_back(model.bases[b]);
    if (!keying.empty())
        lines.push_back("keyed by " + sql::join(keying, ", ") +
                        ": each row makes at most one tuple, one that shows the row's unique key, so every stored "
                        "tuple has count 1");
    for (std::size_t b = 0; b < model.bases.size(); ++b) {
        std::vector<bool> changed(model.bases.size(), false);
        changed[b] = true;
        lines.push_back("on INSERT, UPDATE or DELETE of " + model.bases[b] + " (transition tables " +
                        counting::new_rows_relation(b) + " and " + counting::old_rows_relation(b) + "):");
        // Where the view is not linear in the table, say how its changes go.
        bool nullable = false, nested = false;
        for (const Block& block : model.blocks)
            for (const Source& source : block.sources) {
                if (source.base != b) continue;
                nullable |= source.role == Source::Role::Nullable;
                nested |= source.role == Source::Role::Nested;
            }
        if (nullable || nested)
            lines.push_back(std::string("  read ") + (nullable ? "on the nullable side of an outer join" : "") +
                            (nullable && nested ? " and " : "") + (nested ? "inside a subquery" : "") +
                            ": a change is the view's query over the rows it can concern, now minus before");
        lines.push_back("  delta: " + counting::delta_query(model, changed));
        lines.push_back("  merge: " + counting::merge_statement(model, "<delta>"));
        if (const std::string extremes = counting::extremes_statement(model); !extremes.empty())
            lines.push_back("  then, for groups left without their min or max: " + extremes);
        if (counting::lookup_change(model, b)) {
            const CountingView::Lookup& lookup = *model.lookups[b];
            std::vector<std::string> shown_by;
            for (const CountingView::Lookup::KeyPart& k : lookup.key)
                shown_by.push_back(k.column + " by " + model.columns.at(k.shown).name);
            const counting::LookupFind find = counting::lookup_find(model, b);
            const char* found = find == counting::LookupFind::ExactKey ? "found by their key, which its rows tell,"
                                : find == counting::LookupFind::KeyLead
                                    ? "found in the key index range of the key, whose column leads the storage key,"
                                    : "found through an index of the storage on the columns showing it (without "
                                      "one, the usual merge runs),";
            lines.push_back("  a lookup table: its key is shown (" + sql::join(shown_by, ", ") +
                            "); when it is the only table changed and its rows keep their keys and what the view reads "
                            "otherwise (" + (lookup.guarded.empty() ? "nothing" : sql::join(lookup.guarded, ", ")) +
                            "), the tuples showing each key, " + found + " take the new values in place:");
            lines.push_back("  lookup update: " + counting::lookup_update_statement(model, b));
        }
        if (!counting::keyed_change(model, b)) continue;
        lines.push_back("  when it is the only table changed: the tuples its deleted rows took away are deleted (each "
                        "is stored once), those its inserted rows make are inserted without a lookup (none is stored "
                        "but for those), neither summed:");
        lines.push_back("  keyed delta: " + counting::keyed_delta_query(model, b));
        using counting::KeyedRows;
        lines.push_back("  inserted rows only: " +
                        counting::keyed_merge_statement(model, "<keyed delta>", KeyedRows::Inserted));
        lines.push_back("  deleted rows too: " + counting::keyed_merge_statement(model, "<keyed delta>", KeyedRows::Both));
    }
    const bool rebuilds = counting::can_rebuild(model);
    lines.push_back("large changes (more than " + std::to_string(large_delta_rows) +
                    " transition rows): the delta planned for the change's size, or where the planner prices it "
                    "at most half the delta " + (rebuilds ? "the rebuild below" : "the recompute below") +
                    (model.shape() == CountingView::Shape::PartialState
                         ? "; its groups hashed, not sorted, while the storage fits in hash memory (work_mem times "
                           "hash_mem_multiplier)"
                         : ""));
    if (rebuilds)
        lines.push_back("rebuild the storage (also for a large change of more than ivm.rebuild_fraction, now " +
                        spi::query("SELECT pg_catalog.current_setting('ivm.rebuild_fraction')").at(0).at(0).value_or("") +
                        ", of the tuples the view holds after it: the rows of its largest base relation or its stored tuples, "
                        "whichever is more, plus the rows inserted less those deleted): its rows filled into a new "
                        "heap swapped in, as REFRESH does, where no one reads the view then (ivm.rebuild_by_swap, now " +
                        spi::query("SELECT pg_catalog.current_setting('ivm.rebuild_by_swap')").at(0).at(0).value_or("") +
                        ") and the storage holds at least ivm.swap_min_tuples (now " +
                        spi::query("SELECT pg_catalog.current_setting('ivm.swap_min_tuples')").at(0).at(0).value_or("") +
                        ") tuples, else rewritten in place: " + counting::rebuild_statement(model));
    if (rebuilds)
        lines.push_back("on TRUNCATE of a base relation, and for a statement the planner expects to change that many "
                        "rows (which then keeps no transition rows where no other trigger reads them): the rebuild above");
    lines.push_back(rebuilds ? "by ivm.refresh_view: recompute, merging the difference:"
                             : "on TRUNCATE of a base relation and by ivm.refresh_view: recompute, merging the difference:");
    lines.push_back("  delta: " + counting::refresh_delta_query(model));
    if (view.analyzed.program) return explain_program(*view.analyzed.program, view.entry.recursive_storage, lines);
    if (!view.analyzed.recursive) return lines;
    const RecursiveRelation& r = *view.analyzed.recursive;
    std::size_t recursive_rules = 0;
    for (const Rule& rule : r.rules) recursive_rules += rule.recursive() ? 1 : 0;
    lines.push_back("recursive relation: " + r.storage + " (" + tuples::columns(r.columns, "") + "), a set of " +
                    std::to_string(r.rules.size()) + " rules (" + std::to_string(recursive_rules) +
                    " recursive), maintained by DRed; the view reads it as a base table, by counting");
    lines.push_back("recursive relation's base relations: " + sql::join(r.bases, ", "));
    // (a deferred view's apply, and a subscriber's commit, keep no snapshot
    // from before the changes)
    const dred::OldTables old = view.entry.deferred ? dred::OldTables::WithDeleted : dred::OldTables::AsOfSnapshot;
    for (std::size_t b = 0; b < r.bases.size(); ++b) {
        std::vector<bool> changed(r.bases.size(), false);
        changed[b] = true;
        lines.push_back("on INSERT, UPDATE or DELETE of " + r.bases[b] + ":");
        if (old == dred::OldTables::WithDeleted)
            lines.push_back("  1. over-delete, an apply keeping no snapshot from before the changes: against the "
                            "tables as they are with their deleted rows, kept to R's tuples: " +
                            dred::overdelete_query(r, changed, old));
        else
            lines.push_back("  1. over-delete, as of before the statement: " + dred::overdelete_query(r, changed));
        lines.push_back("  2. rederive: " + dred::rederive_query(r));
        if (dred::backward_forward_possible(r))
            lines.push_back("  2. or backward/forward, from the over-deleted tuples a deleted row derives: " +
                            dred::seeds_query(r, changed, old));
        if (dred::backward_forward_possible(r) && dred::deletions_factor(r) && old == dred::OldTables::AsOfSnapshot)
            lines.push_back("  1. and 2. or backward/forward without an over-deletion, checking against what the seeds' "
                            "values reach: " + dred::reach_query(r, changed));
        lines.push_back("  3. insert: " + dred::insert_query(r, changed));
        lines.push_back("  4. apply: " + dred::apply_statement(r));
        lines.push_back("  3 and 4 for a statement that inserted no rows, R can only shrink:");
        lines.push_back("     insert: " + dred::insert_query(r, changed, true));
        lines.push_back("     apply: " + dred::apply_statement(r, false, false, true));
    }
    lines.push_back(recursion::describe(recursion::Engine::Linear, estimated_rows(view.entry.recursive_storage)));
    const std::string mode = spi::query("SELECT pg_catalog.current_setting('ivm.backward_forward')").at(0).at(0).value_or("");
    if (dred::backward_forward_possible(r))
        lines.push_back("backward/forward (ivm.backward_forward, now " + mode + "): " + recursion::describe_backward_forward() +
                        "; a tuple's premises: " + dred::premises_query(r) + "; its consequences: " + dred::consequences_query(r));
    if (dred::backward_forward_possible(r) && dred::deletions_factor(r)) {
        std::vector<std::string> passed, rest;
        const std::vector<std::size_t> p = dred::passed_columns(r);
        for (std::size_t i = 0; i < r.columns.size(); ++i)
            (std::find(p.begin(), p.end(), i) != p.end() ? passed : rest).push_back(r.columns[i].name);
        lines.push_back("deletions factor: the recursive rule passes " + sql::join(passed, ", ") +
                        " through and reads it nowhere else, so a deletion can only take tuples with a seed's " +
                        sql::join(passed, ", ") + " and a " + sql::join(rest, ", ") + " that a seed's " +
                        sql::join(rest, ", ") + " reaches; " + recursion::describe_bounded_backward_forward());
    }
    else
        lines.push_back("backward/forward: not for this relation (it needs a recursive rule, a storage key and columns "
                        "with an equality); DRed rederives every over-deleted tuple");
    lines.push_back("recompute R (past that over-deletion, on TRUNCATE of one of them, by ivm.refresh_view, and when "
                    "maintenance waited for another's at READ COMMITTED):");
    lines.push_back("  1. evaluate R in full, kept as " + std::string(dred::full_relation) + ": " + dred::full_query(r));
    lines.push_back("  2. make the stored R equal to it (planned without merge joins): " + dred::replace_statement(r));
    return lines;
}

void return_lines(FunctionCallInfo fcinfo, const std::vector<std::string>& lines) {
    call([&] { InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC); });
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    std::vector<std::string> rows;  // one row per line of text, for psql's sake
    for (const std::string& line : lines) {
        std::size_t start = 0, end;
        const std::string indent = line.substr(0, line.find_first_not_of(' '));
        while ((end = line.find('\n', start)) != std::string::npos) {
            rows.push_back((start ? indent + "  " : "") + line.substr(start, end - start));
            start = end + 1;
        }
        rows.push_back((start ? indent + "  " : "") + line.substr(start));
    }
    for (const std::string& row : rows) {
        const char* text = row.c_str();
        call([&] {
            Datum value = CStringGetTextDatum(text);
            bool isnull = false;
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
        });
    }
}

}  // namespace
}  // namespace ivm::pg

using namespace ivm;
using namespace ivm::pg;

IVM_SQL_FUNCTION(ivm_explain_view) {
    const char* name = text_argument(fcinfo, 0);
    spi::connect();
    catalog::Entry entry = catalog::lookup(name);
    std::shared_ptr<ViewRuntime> view = runtime_for(entry.view_id);
    std::vector<std::string> lines = explain(*view);
    spi::finish();
    return_lines(fcinfo, lines);
    return Datum(0);
}

