// The SQL interface: ivm.create_view, ivm.drop_view, ivm.refresh_view.
#include "core/counting.hpp"
#include "core/dred.hpp"
#include "core/fixpoint.hpp"
#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/triggers.hpp"
#include "core/tuples.hpp"
#include "pg/analyze.hpp"
#include "pg/base_triggers.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/faults.hpp"
#include "pg/fixpoint_maintenance.hpp"
#include "pg/heap_swap.hpp"
#include "pg/keys.hpp"
#include "pg/window_steps.hpp"
#include "pg/ddl_events.hpp"
#include "pg/deferred.hpp"
#include "pg/dependencies.hpp"
#include "pg/execution.hpp"
#include "pg/expand_views.hpp"
#include "pg/grouping_sets.hpp"
#include "pg/maintain.hpp"
#include "pg/program.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"
#include "pg/views.hpp"
#include "pg/outer_join_conditions.hpp"
#include "pg/scalar_subqueries.hpp"
#include "pg/view_parts.hpp"

#include <algorithm>
#include <cstring>

namespace ivm::pg {
namespace {

constexpr const char* storage_suffix = "__ivm_data";
constexpr const char* query_suffix = "__ivm_query";
constexpr const char* recursive_suffix = "__ivm_rec";

std::string quoted(Oid nsp, const std::string& relname) {
    const char* name = relname.c_str();
    return call([&] { return quote_qualified_identifier(get_namespace_name(nsp), name); });
}

Oid relation_in(Oid nsp, const std::string& relname) {
    const char* name = relname.c_str();
    return call([&] { return get_relname_relid(name, nsp); });
}


void require_owner(Oid view) {
    Oid relid = view;
    bool owner = call([&] { return pg_class_ownercheck(relid, GetUserId()); });
    if (!owner)
        throw Error("42501", "must be owner of view " + qualified_name(view));
}


}  // namespace
}  // namespace ivm::pg

using namespace ivm;
using namespace ivm::pg;

namespace ivm::pg {
namespace {

// The objects of a view, all in the view's schema and named after it.
struct Names {
    Oid nsp = InvalidOid;
    std::string relname;
    std::string view, storage, query, recursive;  // quoted and qualified
};

Names names_for(Oid nsp, const std::string& relname) {
    Names n;
    n.nsp = nsp;
    n.relname = relname;
    n.view = quoted(nsp, relname);
    n.storage = quoted(nsp, relname + storage_suffix);
    n.query = quoted(nsp, relname + query_suffix);
    n.recursive = quoted(nsp, relname + recursive_suffix);
    return n;
}

Names names_of(const catalog::Entry& e) {
    const char* rel = call([&] { return get_rel_name(e.view); });
    Oid nsp = call([&] { return get_rel_namespace(e.view); });
    return names_for(nsp, rel);
}

// The table of a recursive program's items, named after the view (a name
// not in use: the old definition's table may still exist).
struct ProgramStorage {
    std::string name;  // quoted and qualified
    Oid oid = InvalidOid;
    std::string stand_in;  // the query PostgreSQL keeps for the program
};

ProgramStorage make_program_storage(const Names& n, const char* query) {
    ProgramStorage p;
    std::string relname = n.relname + recursive_suffix;
    for (int k = 2; relation_in(n.nsp, relname) != InvalidOid; ++k) relname = n.relname + recursive_suffix + std::to_string(k);
    p.name = quoted(n.nsp, relname);
    p.stand_in = make_program(query, p.name);
    p.oid = relation_in(n.nsp, relname);
    spi::execute(triggers::storage_guard_ddl(p.name));
    return p;
}

// The defining query as a plain view (PostgreSQL then tracks its
// dependencies, follows renames and dumps it), its columns named as the
// storage's (`columns`: the query's, under tuples::stored_name), and for WITH
// RECURSIVE the table of the recursive relation, empty (or, with
// `keep_recursive_storage`, the one `recursive_storage` names, as it is).
// Returns the analysis.
AnalyzedView create_definition(const Names& n, const char* query, const std::vector<std::string>& columns,
                               bool recursive, Oid& query_view, Oid& recursive_storage,
                               const ProgramStorage* program = nullptr, bool keep_recursive_storage = false,
                               const std::vector<Oid>& parts = {}) {
    std::vector<std::string> quoted;
    bool renamed = false;
    for (const std::string& c : columns) {
        quoted.push_back(call([&] { return std::string(quote_identifier(c.c_str())); }));
        renamed |= tuples::shown_name(c) != c;
    }
    spi::execute("CREATE VIEW " + n.query + (renamed ? " (" + sql::join(quoted, ", ") + ")" : "") + " AS " + query);
    query_view = relation_in(n.nsp, n.relname + query_suffix);
    if (!keep_recursive_storage) recursive_storage = InvalidOid;
    if (program != nullptr) {  // its storage exists: the query reads it
        recursive_storage = program->oid;
        spi::execute("COMMENT ON TABLE " + program->name + " IS " +
                     sql::literal("items of the recursive query of incrementally maintained view " + n.view));
        return analyze_view(query_view, n.storage, program->name, recursive_storage);
    }
    if (!recursive) return analyze_view(query_view, n.storage, std::string(), InvalidOid, parts);
    if (keep_recursive_storage) return analyze_view(query_view, n.storage, n.recursive, recursive_storage);
    AnalyzedView shape = analyze_view(query_view, n.storage, n.recursive, InvalidOid);
    spi::execute(dred::storage_ddl(*shape.recursive));  // its indexes after the first fill
    spi::execute(triggers::storage_guard_ddl(n.recursive));
    spi::execute("COMMENT ON TABLE " + n.recursive + " IS " +
                 sql::literal("recursive relation of incrementally maintained view " + n.view));
    recursive_storage = relation_in(n.nsp, n.relname + recursive_suffix);
    return analyze_view(query_view, n.storage, n.recursive, recursive_storage);
}

// The storage (for a view kept as one count per tuple or from partial
// state, without its key index: fill builds it after the first fill, one
// sort instead of an index insert per tuple) and the view over it.
void create_storage_and_view(const Names& n, const AnalyzedView& a) {
    const bool index_later = counting::can_first_fill(a.model);
    for (const std::string& ddl : counting::storage_ddl(a.model, n.query, index_later)) spi::execute(ddl);
    spi::execute(triggers::storage_guard_ddl(n.storage));
    spi::execute(counting::user_view_ddl(a.model, n.view, true, counting::ViewDdl::Create, catalog::have_snapshot_check()));
    for (const std::string& ddl : triggers::view_guard_ddl(n.view)) spi::execute(ddl);
    spi::execute("COMMENT ON TABLE " + n.storage + " IS " +
                 sql::literal("storage of incrementally maintained view " + n.view));
}

// The base tables a user would name: the query's and the recursive
// relation's, without the table that stores the recursive relation.
std::vector<Oid> user_bases(const AnalyzedView& a, Oid recursive_storage) {
    std::vector<Oid> out;
    for (Oid b : a.base_oids)
        if (b != recursive_storage) out.push_back(b);
    for (Oid b : a.recursive_base_oids)
        if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    return out;
}

void install_recursive_triggers(int32 view_id, const AnalyzedView& a) {
    TriggerChanges ignored;
    sync_part_triggers(view_id, triggers::Part::Recursive, a.recursive_base_oids, false, ignored);
}

void install_counting_triggers(int32 view_id, const AnalyzedView& a) {
    TriggerChanges ignored;
    sync_part_triggers(view_id, triggers::Part::Counting, a.base_oids, false, ignored);
}

// Statistics for a table just filled, so that the first changes are
// planned from them and not from guesses, long before autovacuum gets to
// it: guessing that few stored tuples have a count of 1, the planner made
// the key-index probes of a delete a nested loop over the whole storage.
// An empty table is left unanalyzed: the planner assumes that a table
// never counted may hold some pages, and plans one analyzed empty as if it
// stayed so, which made the first large load read the table again for
// every row it wrote (both in docs/benchmarks.md, "Measurements
// behind design decisions").
void analyze_table(Oid relation) {
    const std::string name = qualified_name(relation);
    if (spi::query_int("SELECT pg_catalog.count(*) FROM (SELECT FROM " + name + " LIMIT 1) __ivm_any") > 0)
        spi::execute("ANALYZE " + name);
}

// Fills a new (or redefined) view: the recursive relation first (made
// anew, or `recursive_kept` and recomputed), before the triggers that
// maintain the view from it exist, then the view with one merge.  Returns
// the view rows inserted and deleted.
MaintenanceResult fill(int32 view_id, const AnalyzedView& a, bool new_storage, bool recursive_kept = false) {
    if (a.recursion()) {
        std::shared_ptr<ViewRuntime> view = runtime_for(view_id);
        if (recursive_kept)
            refresh_recursive(*view);
        else
            first_fill_recursive(*view);
        // Its size, for DRed's choice between rederiving and recomputing.
        analyze_table(view->entry.recursive_storage);
    }
    install_counting_triggers(view_id, a);
    forget_runtime(view_id);
    std::shared_ptr<ViewRuntime> view = runtime_for(view_id);
    const bool first = new_storage && counting::can_first_fill(a.model);
    MaintenanceResult result = first ? first_fill(*view) : refresh(*view);
    // A first fill builds the key index after it, which tells the planner
    // how many rows there are; the columns' statistics come with
    // autovacuum's next round, as a materialized view's do.
    if (!first) analyze_table(view->entry.storage);
    return result;
}

// What a redefined view keeps of its old definition with its recursive
// relation's storage (and the rows stored from it).
struct Redefined {
    std::optional<RecursiveRelation> relation;  // a WITH RECURSIVE's R
    std::optional<Program> program;             // or a program's, its items' table renamed as the new one's
    std::string view_fill;  // the old query over it, as counting::refresh_delta_query (naming the table so)
};

// A redefined view that kept its recursive relation.  Where its query over
// R is the same and R's rules alone changed (in WITH RECURSIVE, rules
// without R), the triggers that maintain the view from R come first, then
// R is redefined by DRed over the rules removed and added; otherwise R is
// recomputed and the view merged, as fill does.  Returns the view rows
// inserted and deleted.
MaintenanceResult redefine(int32 view_id, const AnalyzedView& a, const Redefined& old) {
    std::optional<RuleDifference> linear;
    std::optional<RuleDifference> general;
    if (old.relation && a.recursive) linear = dred::rule_difference(*old.relation, *a.recursive);
    if (old.program && a.program) general = fixpoint::rule_difference(*old.program, *a.program);
    if ((!linear && !general) || counting::refresh_delta_query(a.model) != old.view_fill) return fill(view_id, a, false, true);
    install_counting_triggers(view_id, a);
    forget_runtime(view_id);
    std::shared_ptr<ViewRuntime> view = runtime_for(view_id);
    const MaintenanceResult before = view->maintained;
    const double held = estimated_rows(view->entry.recursive_storage);
    const MaintenanceResult r = linear ? redefine_recursive(*view, *old.relation, *linear)
                                       : redefine_program(*view, *old.program, *general);
    // Statistics as autovacuum would renew them (a tenth changed), now.
    if (static_cast<double>(r.rows_added + r.rows_removed) > 0.1 * held) {
        analyze_table(view->entry.recursive_storage);
        analyze_table(view->entry.storage);
    }
    MaintenanceResult result;
    result.rows_added = view->maintained.rows_added - before.rows_added;
    result.rows_removed = view->maintained.rows_removed - before.rows_removed;
    return result;
}

// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// What the view's owner (the current user) needs of every base table,
// checked before anything is made: the TRIGGER privilege on the tables
// that get triggers (partitions and children too), and no row-level
// security (the changes would reach the view unfiltered).
void check_bases(const AnalyzedView& a) {
    for (const std::vector<Oid>* oids : {&a.base_oids, &a.recursive_base_oids})
        for (Oid b : *oids) {
            if (b == InvalidOid) continue;
            for (Oid t : with_descendants(b)) require_trigger_privilege(t, GetUserId());
            pg::refuse_row_security(b, GetUserId());
        }
}

std::string algorithm_of(const AnalyzedView& a) { return a.recursion() ? "dred" : "counting"; }

void announce(const Names& n, const AnalyzedView& a, bool new_storage) {
    if (a.program)
        notice("view " + n.view + " is maintained by DRed (delete and rederive) over ivm's own fixpoint "
               "evaluation, as its query is recursive in a way PostgreSQL does not evaluate; its WITH items (" +
               std::to_string(a.program->items.size()) + ", in " + std::to_string(a.program->strata.size()) +
               (a.program->strata.size() == 1 ? " stratum" : " strata") + ") are stored in " + a.program->storage);
    else if (a.recursive)
        notice("view " + n.view + " is maintained by DRed (delete and rederive), as its query is recursive; "
               "its recursive relation is stored in " + n.recursive);
    else
        notice("view " + n.view + " is maintained by counting, as its query is not recursive" +
               (a.model.shape() == CountingView::Shape::PartialState ? "; its aggregates are kept from partial state per group"
                : a.model.shape() != CountingView::Shape::Groups     ? ""
                : a.model.windowed ? "; the window partitions a change touches are recomputed"
                                   : "; the groups a change touches are recomputed"));
    if (a.model.bases.empty() && !a.recursion())
        notice("view " + n.view + " reads no table: its rows are computed once and never change (a function in "
               "FROM is immutable, so ivm takes it to return the same rows every time)");
    const CountingView& m = a.model;
    const bool keyed = !tuples::key(m.aggregate ? m.group_keys : m.columns, "").empty();
    if (new_storage)
        notice("created storage table " + n.storage + (keyed ? ", indexed on its tuples' hash key" : ""));
}

// The views that read this one (through its storage).
std::vector<catalog::Entry> readers_of(const catalog::Entry& e) {
    std::vector<catalog::Entry> readers;
    for (const spi::Row& row : spi::query("SELECT view_id FROM ivm.view_catalog WHERE $1::oid::regclass = ANY (base_relations) "
                                          "ORDER BY view_id", {std::to_string(e.storage)}))
        readers.push_back(*catalog::find_by_id(std::stoi(*row[0])));
    return readers;
}

bool exists(Oid relid) {
    return relid != InvalidOid && call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)); });
}

}  // namespace

void drop_view(const catalog::Entry& entry, bool cascade, bool check_owner) {
    if (check_owner) require_owner(entry.view);
    const std::vector<catalog::Entry> readers = readers_of(entry);
    if (!readers.empty() && !cascade) {
        std::string names;
        for (const catalog::Entry& r : readers) names += (names.empty() ? "" : ", ") + qualified_name(r.view);
        throw Error("2BP01", "cannot drop incrementally maintained view " + qualified_name(entry.view) +
                                 " because other views read it",
                    "Incrementally maintained views that read it: " + names + ".",
                    "Use ivm.drop_view(name, cascade => true) to drop them too.");
    }
    for (const catalog::Entry& r : readers) {
        if (!catalog::find_by_id(r.view_id)) continue;  // already gone with another reader
        if (exists(r.view)) notice("drop cascades to incrementally maintained view " + qualified_name(r.view));
        drop_view(r, true, check_owner);
    }
    if (!catalog::find_by_id(entry.view_id)) return;  // a part, dropped with the view it was made for
    sync_base_triggers(entry.view_id, nullptr);
    // What a DROP ... CASCADE left of it is dropped too.  (The query view
    // of a recursive program reads the table of its items.)
    if (exists(entry.query_view)) forget_definition_dependencies(entry);
    if (exists(entry.view)) spi::execute("DROP VIEW " + qualified_name(entry.view));
    if (exists(entry.storage)) spi::execute("DROP TABLE " + qualified_name(entry.storage));
    if (exists(entry.query_view)) spi::execute("DROP VIEW " + qualified_name(entry.query_view));
    if (exists(entry.recursive_storage)) spi::execute("DROP TABLE " + qualified_name(entry.recursive_storage));
    catalog::remove(entry.view_id);
    forget_runtime(entry.view_id);
    deferred::sync_logs();  // its logs go, unless another view still needs them
    // The views made for its subqueries go with it, the last made first (a
    // part may read an earlier one).
    const std::vector<int32> parts = catalog::parts_of(entry.view_id);
    for (auto part = parts.rbegin(); part != parts.rend(); ++part)
        if (std::optional<catalog::Entry> p = catalog::find_by_id(*part)) drop_view(*p, false, false);
}

namespace {

}  // namespace
}  // namespace ivm::pg

namespace ivm::pg {
namespace {

// Parts are named after the view the user named, however deep they nest:
// root__ivm_part<k>, the root's name cut short (at a character) where the
// name would not fit.  (A part's name is taken before its own parts are
// made, and its relation made after: the count, not the catalog, keeps
// them apart.)
struct PartNames {
    std::string root;
    int last = 0;

    std::string next(Oid nsp) {
        std::string name;
        do {
            const std::string suffix = "__ivm_part" + std::to_string(++last);
            const int room = NAMEDATALEN - 1 - static_cast<int>(suffix.size() + std::strlen(query_suffix));
            const int kept = call([&] { return pg_mbcliplen(root.c_str(), static_cast<int>(root.size()), room); });
            name = root.substr(0, static_cast<std::size_t>(kept)) + suffix;
        } while (relation_in(nsp, name) != InvalidOid);
        return name;
    }
};

int64 create_view(const char* name, const char* query, PartNames* part_names = nullptr, bool deferred = false);

// A part that groups is read by the query over it through its group keys
// (a correlated scalar subquery's, an aggregating subquery joined on them):
// an index on them in its storage, so that a change of the query's other
// tables looks its groups up instead of reading the whole part (a one-row
// UPDATE of the outer table of a correlated lookup, 200,000 rows over
// 10,000 keys: 2.4 -> 0.23 ms).  Only where every key is ordered (a
// btree) and a column of the storage by its name.
void index_group_keys(Query* q, Oid storage) {
    if (q->groupClause == NIL || q->groupingSets != NIL || q->setOperations != nullptr) return;
    List* names = call([&] {
        List* found = NIL;
        ListCell* lc;
        foreach (lc, q->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (te->resjunk || te->ressortgroupref == 0) continue;
            SortGroupClause* g = get_sortgroupref_clause_noerr(te->ressortgroupref, q->groupClause);
            if (g == nullptr) continue;
            if (!OidIsValid(g->sortop) || get_attnum(storage, te->resname) == InvalidAttrNumber) return static_cast<List*>(NIL);
            found = lappend(found, pstrdup(quote_identifier(te->resname)));
        }
        return found;
    });
    if (names == NIL || list_length(names) != list_length(q->groupClause)) return;
    std::vector<std::string> keys;
    ListCell* lc;
    foreach (lc, names) keys.emplace_back(static_cast<const char*>(lfirst(lc)));
    spi::execute("CREATE INDEX ON " + qualified_name(storage) + " (" + sql::join(keys, ", ") + ")");
}

// A part that filters one table (a subquery over it; an outer join's
// nullable side filtered by its ON's subqueries) is read by the query over
// it as the table would be: the leading column of each of the table's
// indexes that the part shows as it is gets an index in its storage, so
// that a change of the query's other tables looks its rows up instead of
// reading the whole part (a one-row UPDATE of orders under 10,000
// customers LEFT JOINed to their orders filtered by an IN: 25 -> 0.4 ms).
void index_table_leads(Query* q, Oid storage) {
    if (q->setOperations != nullptr || q->groupClause != NIL || q->hasAggs || q->distinctClause != NIL ||
        q->hasWindowFuncs || q->jointree == nullptr || list_length(q->jointree->fromlist) != 1 ||
        !IsA(linitial(q->jointree->fromlist), RangeTblRef))
        return;
    const int rti = linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex;
    const RangeTblEntry* table = rt_fetch(rti, q->rtable);
    if (table->rtekind != RTE_RELATION) return;
    const std::vector<AttrNumber> leads = index_leads(table->relid);
    std::vector<std::string> columns = call([&] {
        std::vector<std::string> found;
        ListCell* lc;
        foreach (lc, q->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            auto* v = reinterpret_cast<Var*>(te->expr);
            if (te->resjunk || !IsA(v, Var) || v->varno != rti || v->varlevelsup != 0 ||
                std::find(leads.begin(), leads.end(), v->varattno) == leads.end() ||
                get_attnum(storage, te->resname) == InvalidAttrNumber)
                continue;
            found.emplace_back(quote_identifier(te->resname));
        }
        return found;
    });
    for (const std::string& column : columns)
        spi::execute("CREATE INDEX ON " + qualified_name(storage) + " (" + column + ")");
}

// The indexes a part's storage gets for the query over it (a counting
// part's; a recursive one keeps its own).
void index_part(Oid part, const std::string& part_query) {
    const std::optional<catalog::Entry> entry = catalog::find_by_view(part);
    if (!entry || entry->recursive_storage != InvalidOid) return;
    Query* q = validate_query(part_query.c_str(), false);
    if (const Oid shown = shown_view(q); shown != InvalidOid) q = shown_view_query(q, shown);
    index_group_keys(q, entry->storage);
    index_table_leads(q, entry->storage);
}

// The part `part` needs, made: a view of its own, indexed for the query
// over it.  Returns its view.
Oid make_part(const PartNeeded& part, Oid nsp, const std::string& relname, PartNames& names) {
    const char* nspname = call([&] { return get_namespace_name(nsp); });
    const std::string part_name = names.next(nsp);
    const std::string qualified = call([&] { return quote_qualified_identifier(nspname, part_name.c_str()); });
    const std::string root = call([&] { return quote_qualified_identifier(nspname, relname.c_str()); });
    if (part.view.empty())
        notice("a subquery or a WITH query becomes incrementally maintained view " + qualified + ", a part of " + root);
    else
        notice("view " + part.view + " is read through incrementally maintained view " + qualified + ", a part of " + root);
    create_view(qualified.c_str(), part.query.c_str(), &names);
    const Oid made = relation_in(nsp, part_name);
    index_part(made, part.query);
    return made;
}

// A query that shows a plain view is analyzed as the view's query, which
// gets parts only for the plain views it reads (analyze_query reads them
// in place of those): others could not follow its redefinition.
std::vector<Oid> make_view_parts(Query* parsed, Oid shown, Oid nsp, const std::string& relname, PartNames& names) {
    Query* body = shown_view_query(parsed, shown);
    // (HAVING is split only to keep its aggregates from partial state: the
    // view's own query keeps its groups without.)
    bool rewritten = push_join_subqueries(body);
    rewritten |= split_window_steps(body);
    rewritten |= join_subqueries(body);
    rewritten |= wrap_join_trees(body);
    const std::vector<PartNeeded> needed = parts_needed(body);
    if (rewritten || std::any_of(needed.begin(), needed.end(), [](const PartNeeded& p) { return p.view.empty(); }))
        throw unsupported("the view " + qualified_name(shown) + " as a base relation",
                          "Its query would need parts of its own (a subquery that aggregates, a scalar subquery, "
                          "window functions over aggregates): write it into the query of the view that reads it.");
    std::vector<Oid> parts;
    for (const PartNeeded& part : needed) parts.push_back(make_part(part, nsp, relname, names));
    return parts;
}

// Creates the parts the query needs (views of their own for subqueries and
// join trees) and makes the query read them; the definition becomes the
// query's text.  A part's query may read a WITH query that becomes a part
// too: the rounds repeat until none is needed.  Returns the parts' views.
std::vector<Oid> make_parts(Query*& parsed, std::string& definition, Oid nsp, const std::string& relname,
                            PartNames& names) {
    if (const Oid shown = shown_view(parsed); shown != InvalidOid)
        return make_view_parts(parsed, shown, nsp, relname, names);
    if (std::optional<std::string> sets = grouping_sets_as_union(parsed)) {
        definition = *sets;
        parsed = validate_query(definition.c_str(), false);
    }
    std::vector<Oid> parts;
    for (;;) {
        bool rewritten = having_conditions_to_where(parsed);
        rewritten |= push_join_subqueries(parsed);
        rewritten |= split_window_steps(parsed);
        // (HAVING first, so that its scalar subqueries are joined after the
        // aggregation, not below it; again once WHERE's are joined)
        rewritten |= split_having_step(parsed);
        rewritten |= join_subqueries(parsed);
        rewritten |= split_having_step(parsed);
        rewritten |= wrap_join_trees(parsed);
        const std::vector<PartNeeded> needed = parts_needed(parsed);
        if (!rewritten && needed.empty()) return parts;
        for (const PartNeeded& part : needed) {
            parts.push_back(make_part(part, nsp, relname, names));
            read_part(parsed, part, parts.back());
        }
        definition = query_text(parsed);
        parsed = validate_query(definition.c_str(), false);
    }
}

// What the definition needs before it is analyzed: a program's items'
// table and the stand-in query over it (which `parsed` then is), or the
// parts of other queries (which `definition` then reads).  Returns the parts.
std::vector<Oid> prepare_definition(const Names& n, bool program, Query*& parsed, std::string& definition,
                                    std::optional<ProgramStorage>& items, PartNames* part_names) {
    PartNames own{n.relname};
    if (!program) return make_parts(parsed, definition, n.nsp, n.relname, part_names ? *part_names : own);
    items = make_program_storage(n, definition.c_str());
    parsed = validate_query(items->stand_in.c_str());
    return {};
}

// A definition as create_view and alter_view take it: its parts made (or a
// program's items' table), then analyzed and checked before anything else
// is made (a refused definition leaves nothing behind but what the
// statement's rollback removes).
struct Definition {
    std::string text;  // the query, reading its parts
    Query* parsed = nullptr;
    std::vector<std::string> columns;  // its output columns, named as stored (tuples::stored_name)
    std::optional<ProgramStorage> items;
    std::vector<Oid> parts;
    AnalyzedView proposed;
};

Definition prepare(const Names& n, const char* query, bool program, Query* parsed, PartNames* part_names) {
    Definition d;
    d.text = query;
    d.parsed = parsed;
    d.parts = prepare_definition(n, program, d.parsed, d.text, d.items, part_names);
    // Output columns the user named __ivm_... are analyzed, and stored,
    // under tuples::stored_name.
    std::vector<TargetEntry*> outputs;
    ListCell* lc;
    foreach (lc, d.parsed->targetList)
        if (!static_cast<TargetEntry*>(lfirst(lc))->resjunk) outputs.push_back(static_cast<TargetEntry*>(lfirst(lc)));
    for (TargetEntry* te : outputs) {
        const std::string name = tuples::stored_name(te->resname);
        if (name.size() >= NAMEDATALEN)
            throw Error(sqlstate::name_too_long, std::string("column name \"") + te->resname + "\" is too long for ivm",
                        "ivm stores a column whose name begins with __ivm_ under a name 8 bytes longer.");
        if (name != te->resname) te->resname = call([&] { return pstrdup(name.c_str()); });
        d.columns.push_back(name);
    }
    d.proposed = analyze_query(d.parsed, n.storage, d.items ? d.items->name : n.recursive,
                               d.items ? d.items->oid : InvalidOid, d.parts);
    check_bases(d.proposed);
    return d;
}

// The definition's query view (and recursive storage), analyzed as stored.
AnalyzedView create_query(const Names& n, const Definition& d, catalog::Entry& entry, bool keep_recursive_storage = false) {
    return create_definition(n, d.items ? d.items->stand_in.c_str() : d.text.c_str(), d.columns, d.parsed->hasRecursive,
                             entry.query_view, entry.recursive_storage, d.items ? &*d.items : nullptr,
                             keep_recursive_storage, d.parts);
}

// The view's catalog entry with its dependencies, triggers and comments, and
// a word on what was made; the parts made for it become its parts.
void record(const Names& n, catalog::Entry& entry, const AnalyzedView& analyzed, const Definition& d,
            bool new_storage) {
    entry.algorithm = algorithm_of(analyzed);
    entry.definition = d.text;
    entry.bases = user_bases(analyzed, entry.recursive_storage);
    catalog::insert(entry);
    for (Oid part : d.parts) catalog::set_part_of(catalog::find_by_view(part)->view_id, entry.view_id);
    record_dependencies(entry);
    install_recursive_triggers(entry.view_id, analyzed);
    spi::execute("COMMENT ON VIEW " + n.view + " IS " +
                 sql::literal("incrementally maintained view (" + entry.algorithm + "): " + d.text));
    spi::execute("COMMENT ON VIEW " + n.query + " IS " +
                 sql::literal("defining query of incrementally maintained view " + n.view));
    announce(n, analyzed, new_storage);
}

// A logical replication apply worker fires no statement trigger: where
// ivm's objects are older than 0.4, no row trigger logs the changes it
// writes into a subscribed base table either (replicated.hpp).
void warn_subscribed(const AnalyzedView& a) {
    if (catalog::have_deferred()) return;
    std::vector<Oid> bases = a.base_oids;
    bases.insert(bases.end(), a.recursive_base_oids.begin(), a.recursive_base_oids.end());
    for (const spi::Row& row : spi::query(
             "SELECT DISTINCT r.srrelid::regclass::text FROM pg_catalog.pg_subscription_rel r "
             "WHERE r.srrelid = ANY ($1::oid[]) ORDER BY 1",
             {spi::oid_array(bases)}))
        call([&] {
            ereport(WARNING,
                    (errmsg("table %s is written by a logical replication subscription, whose changes do not "
                            "maintain this view", row[0]->c_str()),
                     errhint("Run ALTER EXTENSION ivm UPDATE: from version 0.4 on they do.")));
        });
}

// Creates the view; returns its number of rows.  Subqueries in FROM that
// need a view of their own get one first, which the definition then reads
// (`part_names`: this view is a part, its parts are named as it was).
int64 create_view(const char* name, const char* query, PartNames* part_names, bool deferred) {
    spi::connect();
    const bool program = is_program(query);
    Query* parsed = program ? nullptr : validate_query(query, part_names == nullptr);

    Oid nsp = InvalidOid;
    char* relname_c = nullptr;
    call([&] {
        RangeVar* rv = makeRangeVarFromNameList(textToQualifiedNameList(cstring_to_text(name)));
        nsp = RangeVarGetAndCheckCreationNamespace(rv, NoLock, nullptr);
        relname_c = rv->relname;
    });
    const std::string relname = relname_c;
    if (call([&] { return isAnyTempNamespace(nsp); }))
        throw unsupported("temporary schemas");
    if (relname.size() + std::strlen(query_suffix) >= NAMEDATALEN)
        throw Error(sqlstate::name_too_long, "view name \"" + relname + "\" is too long for ivm",
                    "ivm names the view's storage after it; names of at most " +
                        std::to_string(NAMEDATALEN - 1 - std::strlen(query_suffix)) + " bytes fit.");
    if (relation_in(nsp, relname) != InvalidOid)
        throw Error("42P07", "relation \"" + relname + "\" already exists");

    const Names n = names_for(nsp, relname);
    const Definition d = prepare(n, query, program, parsed, part_names);
    if (deferred) deferred::refuse_unless_deferrable(d.proposed);
    catalog::Entry entry;
    AnalyzedView analyzed = create_query(n, d, entry);
    if (analyzed.ignored_order_by)
        notice("ORDER BY is ignored: an incrementally maintained view is a multiset, read it with ORDER BY");
    warn_subscribed(analyzed);
    entry.key_columns = counting::key_columns(analyzed.model);
    counting::use_key_columns(analyzed.model, entry.key_columns);
    create_storage_and_view(n, analyzed);

    entry.view_id = catalog::next_view_id();
    entry.view = relation_in(nsp, relname);
    entry.storage = relation_in(nsp, relname + storage_suffix);
    record(n, entry, analyzed, d, true);

    faults::point("create.made");
    const MaintenanceResult filled = fill(entry.view_id, analyzed, true);
    faults::point("create.filled");
    std::shared_ptr<ViewRuntime> view = runtime_for(entry.view_id);
    // A first fill counted the view's rows as it wrote them.
    const int64 rows = counting::can_first_fill(analyzed.model) ? filled.rows_added : row_count(*view);
    view.reset();
    if (deferred)
        deferred::make_deferred(entry, analyzed);
    else
        deferred::sync_logs(true);  // a subscriber's apply worker's rows logged for it
    spi::finish();
    return rows;
}

}  // namespace
}  // namespace ivm::pg

namespace {

// The functions that write refuse where PostgreSQL's own commands do: on a
// standby and in a read-only transaction (25006), before taking any lock.
void refuse_read_only(const char* function) {
    call([&] {
        PreventCommandDuringRecovery(function);
        PreventCommandIfReadOnly(function);
    });
}

}  // namespace

IVM_SQL_FUNCTION(ivm_create_view) {
    refuse_read_only("ivm.create_view()");
    OwnDdl own_ddl;
    // (ivm's objects older than 0.4 pass no third argument.)
    const bool deferred = PG_NARGS() > 2 && PG_GETARG_BOOL(2);
    PG_RETURN_INT64(create_view(text_argument(fcinfo, 0), text_argument(fcinfo, 1), nullptr, deferred));
}

IVM_SQL_FUNCTION(ivm_set_deferred) {
    refuse_read_only("ivm.set_deferred()");
    OwnDdl own_ddl;
    const char* name = text_argument(fcinfo, 0);
    const bool make_deferred = PG_GETARG_BOOL(1);
    spi::connect();
    catalog::Entry entry = catalog::lookup(name);
    require_owner(entry.view);
    if (entry.deferred != make_deferred) {
        std::shared_ptr<ViewRuntime> view = runtime_for(entry.view_id);
        if (make_deferred)
            deferred::make_deferred(entry, view->analyzed);
        else
            deferred::make_immediate(*view);
    }
    spi::finish();
    PG_RETURN_VOID();
}

IVM_SQL_FUNCTION(ivm_alter_view) {
    refuse_read_only("ivm.alter_view()");
    OwnDdl own_ddl;
    const char* name = text_argument(fcinfo, 0);
    const char* query = text_argument(fcinfo, 1);
    spi::connect();
    const bool program = is_program(query);
    Query* parsed = program ? nullptr : validate_query(query);
    catalog::Entry entry = catalog::lookup(name);
    require_owner(entry.view);
    if (!entry.populated)
        throw Error(sqlstate::object_not_in_prerequisite_state,
                    "cannot redefine unpopulated view " + qualified_name(entry.view),
                    {}, "Populate it first with ivm.refresh_view().");
    const Names n = names_of(entry);
    Definition d = prepare(n, query, program, parsed, nullptr);
    std::shared_ptr<ViewRuntime> old_view = runtime_for(entry.view_id);
    // The storage's shape (columns, counts, partial state, per-arm counts)
    // and the view over it, as their DDL says.
    auto shape = [&](const CountingView& m) {
        std::vector<std::string> ddl = counting::storage_ddl(m, n.query);
        ddl.push_back(counting::user_view_ddl(m, n.view, true, counting::ViewDdl::Create, catalog::have_snapshot_check()));
        return ddl;
    };
    const std::vector<std::string> old_shape = shape(old_view->analyzed.model);
    const int64 old_rows = row_count(*old_view);

    // The stored tuples stay when the storage keeps its shape and its key:
    // the first merge then changes only what the definitions disagree on.
    // (An aggregate's storage is keyed by its groups.)
    const std::vector<std::string> key_columns = counting::key_columns(d.proposed.model);
    counting::use_key_columns(d.proposed.model, key_columns);
    const bool same_columns = shape(d.proposed.model) == old_shape && key_columns == entry.key_columns;
    // So does a recursive relation that keeps its columns, or a program's
    // items' table whose items and strata stay (redefine, above).
    std::optional<Redefined> kept;
    const AnalyzedView& was = old_view->analyzed;
    if (same_columns && !entry.deferred) {
        if (was.recursive && d.proposed.recursive && dred::rule_difference(*was.recursive, *d.proposed.recursive))
            kept = Redefined{was.recursive, std::nullopt, counting::refresh_delta_query(was.model)};
        else if (was.program && d.proposed.program && d.items &&
                 fixpoint::rule_difference(*was.program, *d.proposed.program))
            kept = Redefined{std::nullopt, was.program,
                             replaced(counting::refresh_delta_query(was.model), was.program->storage, d.items->name)};
    }
    old_view.reset();

    // Out with the old rules: triggers, recursive relation, query view.
    sync_base_triggers(entry.view_id, nullptr);
    forget_runtime(entry.view_id);
    forget_definition_dependencies(entry);
    spi::execute("DROP VIEW " + n.query);  // (a program's reads the table of its items)
    if (entry.recursive_storage != InvalidOid && !kept)
        spi::execute("DROP TABLE " + qualified_name(entry.recursive_storage));
    if (kept && kept->program) {
        // The new program's items' table, made empty, gives way to the
        // old one under its name.
        const Oid made = d.items->oid;
        const std::string relname = call([&] { return std::string(get_rel_name(made)); });
        spi::execute("DROP TABLE " + d.items->name);
        spi::execute("ALTER TABLE " + qualified_name(entry.recursive_storage) + " RENAME TO " +
                     call([&] { return std::string(quote_identifier(relname.c_str())); }));
        d.items->oid = entry.recursive_storage;
    }

    // In with the new ones.
    AnalyzedView analyzed = create_query(n, d, entry, kept.has_value());
    counting::use_key_columns(analyzed.model, key_columns);
    entry.key_columns = key_columns;
    int64 changed = 0;
    if (!same_columns) {
        spi::execute("DROP VIEW " + n.view);
        spi::execute("DROP TABLE " + n.storage);
        create_storage_and_view(n, analyzed);
        entry.view = relation_in(n.nsp, n.relname);
        entry.storage = relation_in(n.nsp, n.relname + storage_suffix);
        changed = old_rows;
    }
    catalog::remove(entry.view_id);
    record(n, entry, analyzed, d, !same_columns);
    faults::point("alter.replaced");
    MaintenanceResult result = kept ? redefine(entry.view_id, analyzed, *kept) : fill(entry.view_id, analyzed, !same_columns);
    if (entry.deferred)
        deferred::make_deferred(entry, analyzed);  // holds the new contents, consumed all
    else
        deferred::sync_logs(true);
    // Parts made for the old definition's subqueries go, unless still read.
    const std::vector<int32> old_parts = catalog::parts_of(entry.view_id);
    for (auto part = old_parts.rbegin(); part != old_parts.rend(); ++part) {
        std::optional<catalog::Entry> p = catalog::find_by_id(*part);
        if (p && readers_of(*p).empty()) drop_view(*p, false, false);
    }
    spi::finish();
    PG_RETURN_INT64(changed + result.rows_added + result.rows_removed);
}

IVM_SQL_FUNCTION(ivm_drop_view) {
    refuse_read_only("ivm.drop_view()");
    OwnDdl own_ddl;
    const char* name = text_argument(fcinfo, 0);
    const bool cascade = PG_GETARG_BOOL(1);
    spi::connect();
    drop_view(catalog::lookup(name), cascade, true);
    spi::finish();
    PG_RETURN_VOID();
}

IVM_SQL_FUNCTION(ivm_refresh_view) {
    refuse_read_only("ivm.refresh_view()");
    OwnDdl own_ddl;
    const char* name = text_argument(fcinfo, 0);
    const bool with_data = PG_GETARG_BOOL(1);
    spi::connect();
    catalog::Entry entry = catalog::lookup(name);
    require_owner(entry.view);
    std::shared_ptr<ViewRuntime> view = runtime_for(entry.view_id);
    int64 rows = 0;
    const bool populating = with_data && !entry.populated;
    // A view made before ivm 0.5 of the objects gets the check of its
    // readers' snapshots (and with it rebuilds by swap) once refreshed.
    const bool unchecked = with_data && entry.populated && catalog::have_snapshot_check() && !checks_snapshots(entry.view);
    if (entry.populated != with_data || unchecked) {
        // Like REFRESH MATERIALIZED VIEW ... WITH NO DATA: no rows, reads
        // refused, base-table changes no longer maintain it; and back.
        spi::execute(counting::user_view_ddl(view->analyzed.model, qualified_name(entry.view), with_data,
                                             counting::ViewDdl::Replace, catalog::have_snapshot_check()));
        catalog::set_populated(entry.view_id, with_data);
        forget_runtime(entry.view_id);
        view = runtime_for(entry.view_id);
        if (!with_data) empty_storage(*view);
    }
    if (with_data && entry.deferred) {
        // The logged changes applied (recomputed when it was unpopulated).
        const MaintenanceResult applied = deferred::apply(*view, populating);
        rows = applied.rows_added + applied.rows_removed;
    } else if (with_data) {
        refresh_all(*view);
        faults::point("refresh.done");
        if (view->entry.recursive_storage != InvalidOid) analyze_table(view->entry.recursive_storage);
        analyze_table(view->entry.storage);
        rows = row_count(*view);
    }
    spi::finish();
    PG_RETURN_INT64(rows);
}

extern "C" {
PG_FUNCTION_INFO_V1(ivm_unpopulated);

// What an unpopulated view reads from: refuses as an unpopulated
// materialized view does.  It names the view as text: a regclass would make
// the view refer to itself, which a dump cannot restore.  Plain C, no C++
// object here.
Datum ivm_unpopulated(PG_FUNCTION_ARGS) {
    char* name = text_to_cstring(PG_GETARG_TEXT_PP(0));
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("incrementally maintained view %s has not been populated", name),
                    errhint("Use ivm.refresh_view(%s) to populate it.", quote_literal_cstr(name))));
    PG_RETURN_NULL();
}
}
