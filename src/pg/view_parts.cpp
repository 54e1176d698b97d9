#include "pg/view_parts.hpp"

#include "pg/analyze.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/expand_views.hpp"
#include "pg/occurrences.hpp"

extern "C" {
#include "parser/parse_relation.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
}

#include <algorithm>

namespace ivm::pg {
namespace {

bool needs_part(Query* sub, bool among_outer_joins);

// Whether a WITH query of the subquery's own needs a part (then the
// subquery is one, and its WITH query a part of that part).
bool with_needs_part(Query* sub) {
    ListCell* lc;
    foreach (lc, sub->cteList) {
        Node* cte = static_cast<CommonTableExpr*>(lfirst(lc))->ctequery;
        if (IsA(cte, Query) && needs_part(reinterpret_cast<Query*>(cte), false)) return true;
    }
    return false;
}

// Whether a subquery needs a part: it aggregates, has window functions, is DISTINCT or a set
// operation, has subqueries in expressions, has an outer join, sits in a query with outer joins (a
// select-project-join one is expanded only among inner joins), or has a
// WITH query that needs one.  LIMIT and the like are refused either way.
bool needs_part(Query* sub, bool among_outer_joins) {
    if (sub->commandType != CMD_SELECT || sub->limitCount != nullptr || sub->limitOffset != nullptr ||
        sub->rowMarks != NIL || sub->hasRecursive)
        return false;
    return among_outer_joins || sub->hasAggs || sub->hasWindowFuncs || sub->groupClause != NIL || sub->havingQual != nullptr ||
           sub->distinctClause != NIL || sub->setOperations != nullptr || sub->hasSubLinks ||
           has_outer_join(reinterpret_cast<Node*>(sub->jointree)) || with_needs_part(sub);
}

// What a query reads of the queries above it: columns (and aggregates over
// them) or WITH queries.  `depth` counts the queries entered below the one
// asked about, so its own expressions are at depth 1.
struct OuterReads {
    int depth = 1;
    bool columns = false;
    bool with = false;
};
bool find_outer_reads(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* r = static_cast<OuterReads*>(raw);
    if (IsA(node, Query)) {
        Query* q = reinterpret_cast<Query*>(node);
        ListCell* lc;
        foreach (lc, q->rtable) {
            auto* rte = static_cast<RangeTblEntry*>(lfirst(lc));
            // (entered at depth d, a query's references d levels up reach
            // the query asked about: its own WITH queries)
            r->with |= rte->rtekind == RTE_CTE && static_cast<int>(rte->ctelevelsup) > r->depth;
        }
        ++r->depth;
        query_tree_walker(q, reinterpret_cast<bool (*)()>(find_outer_reads), raw, 0);
        --r->depth;
        return false;
    }
    int levelsup = -1;
    if (IsA(node, Var)) levelsup = static_cast<int>(reinterpret_cast<Var*>(node)->varlevelsup);
    if (IsA(node, Aggref)) levelsup = static_cast<int>(reinterpret_cast<Aggref*>(node)->agglevelsup);
    if (IsA(node, GroupingFunc)) levelsup = static_cast<int>(reinterpret_cast<GroupingFunc*>(node)->agglevelsup);
    if (IsA(node, PlaceHolderVar)) levelsup = static_cast<int>(reinterpret_cast<PlaceHolderVar*>(node)->phlevelsup);
    r->columns |= levelsup >= r->depth;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_outer_reads), raw);
}

// The WITH query of q that an entry reads, if it may become a part.
CommonTableExpr* with_query(Query* q, const RangeTblEntry* rte) {
    if (rte->rtekind != RTE_CTE || rte->ctelevelsup != 0 || q->hasRecursive) return nullptr;
    ListCell* lc;
    foreach (lc, q->cteList) {
        auto* cte = static_cast<CommonTableExpr*>(lfirst(lc));
        if (strcmp(cte->ctename, rte->ctename) == 0) return IsA(cte->ctequery, Query) ? cte : nullptr;
    }
    return nullptr;
}

// A part reads what its own query names: a subquery reading its outer
// queries' columns or WITH queries cannot stand alone.
bool part_of_its_own(Query* sub, bool among_outer_joins) {
    return needs_part(sub, among_outer_joins) && !reads_outer_query(sub);
}

struct Found {
    std::vector<RangeTblEntry*> rtes;
    Query* query;
    const char* with_name;  // a WITH query's, or null
    Oid view = InvalidOid;  // a plain view read through a part (expand_views.hpp)
};

// Visits each WITH query reference in q and the queries below it, with how
// many queries below q it sits (q's own: 0).
struct WithReferences {
    void (*visit)(RangeTblEntry* rte, int below, void* arg);
    void* arg;
    int depth;
};
bool find_with_references(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* w = static_cast<WithReferences*>(raw);
    if (IsA(node, RangeTblEntry)) {
        auto* rte = reinterpret_cast<RangeTblEntry*>(node);
        if (rte->rtekind == RTE_CTE) w->visit(rte, w->depth - 1, w->arg);
        return false;
    }
    if (IsA(node, Query)) {
        ++w->depth;
        query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(find_with_references), raw,
                          QTW_EXAMINE_RTES_BEFORE);
        --w->depth;
        return false;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_with_references), raw);
}
void each_with_reference(Query* q, void (*visit)(RangeTblEntry*, int, void*), void* arg) {
    WithReferences w{visit, arg, 0};
    find_with_references(reinterpret_cast<Node*>(q), &w);
}

// The entries reading the WITH query `name` of q, at any depth.
struct WithReads {
    const char* name;
    List* rtes;
};
List* with_reads(Query* q, const char* name) {
    WithReads w{name, NIL};
    each_with_reference(
        q,
        [](RangeTblEntry* rte, int below, void* raw) {
            auto* w = static_cast<WithReads*>(raw);
            if (static_cast<int>(rte->ctelevelsup) == below && strcmp(rte->ctename, w->name) == 0)
                w->rtes = lappend(w->rtes, rte);
        },
        &w);
    return w.rtes;
}


// The part a WITH query of q becomes: one for every reference to it,
// wherever it is.
Found with_part(Query* q, CommonTableExpr* cte) {
    Found f{{}, reinterpret_cast<Query*>(cte->ctequery), cte->ctename};
    ListCell* lc;
    foreach (lc, with_reads(q, cte->ctename)) f.rtes.push_back(static_cast<RangeTblEntry*>(lfirst(lc)));
    return f;
}

bool found_already(const std::vector<Found>& found, const Query* query) {
    return std::any_of(found.begin(), found.end(), [&](const Found& f) { return f.query == query; });
}

void from_tree(Query* q, Node* node, bool outer, std::vector<Found>& found) {
    if (node == nullptr) return;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            from_tree(q, static_cast<Node*>(lfirst(lc)), outer, found);
    } else if (IsA(node, JoinExpr)) {
        from_tree(q, reinterpret_cast<JoinExpr*>(node)->larg, outer, found);
        from_tree(q, reinterpret_cast<JoinExpr*>(node)->rarg, outer, found);
    } else if (IsA(node, RangeTblRef)) {
        RangeTblEntry* rte = rt_fetch(reinterpret_cast<RangeTblRef*>(node)->rtindex, q->rtable);
        if (rte->rtekind == RTE_SUBQUERY && !rte->lateral && rte->subquery != nullptr &&
            part_of_its_own(rte->subquery, outer)) {
            found.push_back(Found{{rte}, rte->subquery, nullptr});
        } else if (rte->rtekind == RTE_SUBQUERY && !rte->lateral && rte->subquery != nullptr &&
                   rte->subquery->setOperations == nullptr && !needs_part(rte->subquery, outer)) {
            // Expanded into q later: the subqueries in its own FROM that
            // need parts are q's to make.
            from_tree(rte->subquery, reinterpret_cast<Node*>(rte->subquery->jointree), outer, found);
        } else if (CommonTableExpr* cte = with_query(q, rte)) {
            Query* sub = reinterpret_cast<Query*>(cte->ctequery);
            if (!part_of_its_own(sub, outer)) return;
            if (!found_already(found, sub)) found.push_back(with_part(q, cte));
        } else if (Query* body = plain_view_query(rte);
                   body != nullptr && (needs_part(body, outer) || reads_separate_view(body))) {
            // One part for every reference to the view.
            auto same = std::find_if(found.begin(), found.end(), [&](const Found& f) { return f.view == rte->relid; });
            if (same != found.end())
                same->rtes.push_back(rte);
            else
                found.push_back(Found{{rte}, nullptr, nullptr, rte->relid});
        }
    }
}

// The subqueries in FROM of the subqueries of WHERE (at any depth) that
// need a part.
struct InSubqueries {
    std::vector<Found>* found;
};
bool in_subqueries(Node* node, void* raw) {
    if (node == nullptr) return false;
    if (IsA(node, SubLink)) {
        auto* sub = reinterpret_cast<Query*>(reinterpret_cast<SubLink*>(node)->subselect);
        from_tree(sub, reinterpret_cast<Node*>(sub->jointree), false, *static_cast<InSubqueries*>(raw)->found);
        if (sub->jointree != nullptr) in_subqueries(sub->jointree->quals, raw);
        return false;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(in_subqueries), raw);
}

// The slot of the first join tree to wrap, or null.
Node** tree_to_wrap(Node** slot, bool aggregated) {
    Node* node = *slot;
    if (node == nullptr) return nullptr;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            if (Node** found = tree_to_wrap(reinterpret_cast<Node**>(&lfirst(lc)), aggregated)) return found;
        return nullptr;
    }
    if (!IsA(node, JoinExpr)) return nullptr;
    auto* join = reinterpret_cast<JoinExpr*>(node);
    if (join->jointype == JOIN_FULL && aggregated) return slot;
    const bool left_nullable = join->jointype == JOIN_RIGHT || join->jointype == JOIN_FULL;
    const bool right_nullable = join->jointype == JOIN_LEFT || join->jointype == JOIN_FULL;
    if (left_nullable && IsA(join->larg, JoinExpr)) return &join->larg;
    if (right_nullable && IsA(join->rarg, JoinExpr)) return &join->rarg;
    if (Node** found = tree_to_wrap(&join->larg, aggregated)) return found;
    return tree_to_wrap(&join->rarg, aggregated);
}

// (Lists, not vectors: wrap runs inside call(), where an error would skip
// a destructor.)
void entries_of(Node* node, List*& rtis) {
    if (IsA(node, RangeTblRef)) {
        rtis = lappend_int(rtis, reinterpret_cast<RangeTblRef*>(node)->rtindex);
    } else if (IsA(node, JoinExpr)) {
        auto* join = reinterpret_cast<JoinExpr*>(node);
        rtis = lappend_int(rtis, join->rtindex);
        entries_of(join->larg, rtis);
        entries_of(join->rarg, rtis);
    }
}

// The columns of the wrapped entries that the rest of the query reads
// (at any subquery depth), and their new place in the wrapping subquery.
struct Remap {
    List* rtis = NIL;  // of int
    int wrapper = 0;
    int depth = 0;
    List* columns = NIL;  // of Var (as read at level 0)
};
int column_of(Remap* r, const Var* var) {
    int i = 0;
    ListCell* lc;
    foreach (lc, r->columns) {
        auto* v = static_cast<Var*>(lfirst(lc));
        ++i;
        if (v->varno == var->varno && v->varattno == var->varattno) return i;
    }
    Var* copy = static_cast<Var*>(copyObjectImpl(var));
    copy->varlevelsup = 0;
    r->columns = lappend(r->columns, copy);
    return list_length(r->columns);
}
Node* remap(Node* node, void* raw) {
    if (node == nullptr) return nullptr;
    auto* r = static_cast<Remap*>(raw);
    if (IsA(node, Var)) {
        auto* var = static_cast<Var*>(copyObjectImpl(node));
        if (static_cast<int>(var->varlevelsup) == r->depth &&
            list_member_int(r->rtis, static_cast<int>(var->varno))) {
            const int column = column_of(r, var);
            var->varno = var->varnosyn = static_cast<Index>(r->wrapper);
            var->varattno = var->varattnosyn = static_cast<AttrNumber>(column);
        }
        return reinterpret_cast<Node*>(var);
    }
    if (IsA(node, Query)) {
        ++r->depth;
        Node* done = reinterpret_cast<Node*>(query_tree_mutator(reinterpret_cast<Query*>(node),
                                                                reinterpret_cast<Node* (*)()>(remap), raw,
                                                                QTW_IGNORE_RANGE_TABLE));
        --r->depth;
        return done;
    }
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(remap), raw);
}

void wrap(Query* q, Node** slot) {
    Node* tree = *slot;
    Remap r;
    entries_of(tree, r.rtis);
    // The subquery takes the place of the wrapped join in the range table:
    // the deparser wants a join's inputs numbered before the join.
    r.wrapper = reinterpret_cast<JoinExpr*>(tree)->rtindex;
    RangeTblRef* ref = makeNode(RangeTblRef);
    ref->rtindex = r.wrapper;
    *slot = reinterpret_cast<Node*>(ref);
    q->targetList = reinterpret_cast<List*>(remap(reinterpret_cast<Node*>(q->targetList), &r));
    q->jointree = reinterpret_cast<FromExpr*>(remap(reinterpret_cast<Node*>(q->jointree), &r));
    q->havingQual = remap(q->havingQual, &r);

    // The subquery: the tree over the same range table, its columns named
    // after their relation and column.
    Query* sub = makeNode(Query);
    sub->commandType = CMD_SELECT;
    sub->querySource = QSRC_ORIGINAL;
    sub->canSetTag = true;
    sub->rtable = static_cast<List*>(copyObjectImpl(q->rtable));
    int index = 0;
    ListCell* lc;
    foreach (lc, sub->rtable) {
        ++index;
        auto* rte = static_cast<RangeTblEntry*>(lfirst(lc));
        if (!list_member_int(r.rtis, index)) leave_out_of_from(rte);
    }
    sub->jointree = makeFromExpr(list_make1(tree), nullptr);
    raise_with_references(sub);
    List* names = NIL;
    int resno = 0;
    foreach (lc, r.columns) {
        auto* var = static_cast<Var*>(lfirst(lc));
        RangeTblEntry* rte = rt_fetch(var->varno, q->rtable);
        char* name = psprintf("%s_%s", rte->eref->aliasname, get_rte_attribute_name(rte, var->varattno));
        for (ListCell* n = list_head(names); n != nullptr; n = lnext(names, n))
            if (strcmp(strVal(lfirst(n)), name) == 0) name = psprintf("%s_%d", name, resno + 1);
        names = lappend(names, makeString(name));
        sub->targetList = lappend(sub->targetList, makeTargetEntry(reinterpret_cast<Expr*>(var), ++resno, name, false));
    }
    if (sub->targetList == NIL) {  // nothing read: one column to count rows by
        Expr* one = reinterpret_cast<Expr*>(makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true));
        sub->targetList = list_make1(makeTargetEntry(one, 1, pstrdup("one"), false));
        names = list_make1(makeString(pstrdup("one")));
    }
    lfirst(list_nth_cell(q->rtable, r.wrapper - 1)) = subquery_entry(sub, psprintf("joined_%d", r.wrapper), names);
    // The other wrapped entries stay in the outer range table, out of its FROM.
    index = 0;
    foreach (lc, q->rtable) {
        ++index;
        if (index != r.wrapper && list_member_int(r.rtis, index))
            leave_out_of_from(static_cast<RangeTblEntry*>(lfirst(lc)));
    }
    describe_joins(q, reinterpret_cast<Node*>(q->jointree));
}

// The first item of q's FROM list that holds an outer join and reads
// nothing of the queries around q (its ON conditions), or null.
Node** outer_join_item(Query* q) {
    if (q->jointree == nullptr) return nullptr;
    ListCell* lc;
    foreach (lc, q->jointree->fromlist) {
        auto* item = static_cast<Node*>(lfirst(lc));
        if (IsA(item, JoinExpr) && has_outer_join(item) && !expression_reads_outer(item))
            return reinterpret_cast<Node**>(&lfirst(lc));
    }
    return nullptr;
}

// The subqueries of WHERE (at any depth) take outer joins apart nowhere:
// each item of their FROM that holds one becomes a subquery of its own
// (then a part, parts_needed), which their conditions read.
bool wrap_in_subqueries(Node* node, void* raw) {
    if (node == nullptr) return false;
    if (IsA(node, SubLink)) {
        auto* sub = reinterpret_cast<Query*>(reinterpret_cast<SubLink*>(node)->subselect);
        if (sub->commandType == CMD_SELECT && sub->setOperations == nullptr) {
            while (outer_join_item(sub) != nullptr) {
                flatten_join_columns(sub);  // (copies the join tree: find the item again)
                wrap(sub, outer_join_item(sub));
                *static_cast<bool*>(raw) = true;
            }
            if (sub->jointree != nullptr) wrap_in_subqueries(sub->jointree->quals, raw);
        }
        return false;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(wrap_in_subqueries), raw);
}

}  // namespace

bool wrap_join_trees(Query* q) {
    if (q->setOperations != nullptr) return false;
    const bool aggregated = q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr;
    bool in_subqueries = false;
    call([&] {
        if (q->jointree != nullptr) wrap_in_subqueries(q->jointree->quals, &in_subqueries);
    });
    bool wrapped = in_subqueries;
    for (;;) {
        const bool done = call([&] {
            Node** slot = tree_to_wrap(reinterpret_cast<Node**>(&q->jointree), aggregated);
            if (slot == nullptr) return true;
            flatten_join_columns(q);  // (copies the join tree: find the slot again)
            wrap(q, tree_to_wrap(reinterpret_cast<Node**>(&q->jointree), aggregated));
            return false;
        });
        if (done) return wrapped;
        wrapped = true;
    }
}

// Whether q's WITH query `name` is read below q itself (by a subquery in
// WHERE, say), not counting what its other WITH queries read.
bool read_from_below(Query* q, const char* name) {
    List* with = q->cteList;
    q->cteList = NIL;
    List* reads = with_reads(q, name);
    q->cteList = with;
    ListCell* lc;
    foreach (lc, reads)
        if (!list_member_ptr(q->rtable, lfirst(lc))) return true;
    return false;
}

std::vector<PartNeeded> parts_needed(Query* q) {
    std::vector<Found> found;
    auto in_query = [&](Query* query) {
        Node* tree = reinterpret_cast<Node*>(query->jointree);
        from_tree(query, tree, has_outer_join(tree), found);
        InSubqueries in{&found};
        in_subqueries(query->jointree->quals, &in);
    };
    call([&] {
        const bool arms = q->setOperations != nullptr;
        ListCell* lc;
        if (!arms) {
            in_query(q);
        } else {  // the arms of a set operation
            foreach (lc, q->rtable) {
                auto* rte = static_cast<RangeTblEntry*>(lfirst(lc));
                if (rte->rtekind == RTE_SUBQUERY && rte->subquery != nullptr && rte->subquery->setOperations == nullptr)
                    in_query(rte->subquery);
            }
        }
        // A WITH query read from below q (by a set operation's arms, or by
        // a subquery in WHERE), or one that needs a part wherever it is read
        // (by another WITH query, say), is not expanded where it is read: it
        // becomes a part, once it reads no WITH query that is not one yet.
        // (A select-project-join one that q's own FROM alone reads is
        // expanded there.)
        if (q->hasRecursive) return;
        foreach (lc, q->cteList) {
            auto* cte = static_cast<CommonTableExpr*>(lfirst(lc));
            if (!IsA(cte->ctequery, Query) || reads_outer_query(reinterpret_cast<Query*>(cte->ctequery))) continue;
            if (found_already(found, reinterpret_cast<Query*>(cte->ctequery))) continue;
            if (!arms && !read_from_below(q, cte->ctename) && !needs_part(reinterpret_cast<Query*>(cte->ctequery), false))
                continue;
            Found f = with_part(q, cte);
            if (!f.rtes.empty()) found.push_back(f);
        }
    });
    std::vector<PartNeeded> parts;
    for (const Found& f : found) {
        const std::string view = f.view != InvalidOid ? qualified_name(f.view) : "";
        parts.push_back(
            PartNeeded{f.rtes, f.query ? query_text(f.query) : "SELECT * FROM " + view, f.with_name ? f.with_name : "", view});
    }
    return parts;
}

void raise_with_references(Query* q) {
    each_with_reference(
        q,
        [](RangeTblEntry* rte, int below, void*) {
            if (static_cast<int>(rte->ctelevelsup) >= below) ++rte->ctelevelsup;
        },
        nullptr);
}

Var* read_output(List** outputs, Node* expr, const char* prefix) {
    ListCell* lc;
    foreach (lc, *outputs) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (equal(te->expr, expr)) return makeVarFromTargetEntry(1, te);
    }
    const int resno = list_length(*outputs) + 1;
    TargetEntry* te = makeTargetEntry(static_cast<Expr*>(copyObjectImpl(expr)), static_cast<AttrNumber>(resno),
                                      psprintf("%s_%d", prefix, resno), false);
    *outputs = lappend(*outputs, te);
    return makeVarFromTargetEntry(1, te);
}

Index next_sort_group_ref(const List* targets) {
    Index ref = 0;
    ListCell* lc;
    foreach (lc, targets) ref = std::max(ref, static_cast<TargetEntry*>(lfirst(lc))->ressortgroupref);
    return ref + 1;
}

Aggref* new_aggregate(Oid fn, Oid type, Oid collation) {
    Aggref* agg = makeNode(Aggref);
    agg->aggfnoid = fn;
    agg->aggtype = type;
    agg->aggcollid = collation;
    agg->inputcollid = collation;
    agg->aggkind = AGGKIND_NORMAL;
    agg->aggsplit = AGGSPLIT_SIMPLE;
    agg->aggno = -1;
    agg->aggtransno = -1;
    agg->location = -1;
    return agg;
}

Aggref* count_star() {
    Aggref* count = new_aggregate(F_COUNT_, INT8OID, InvalidOid);
    count->aggstar = true;
    return count;
}

TargetEntry* add_output(Query* q, Expr* expr, const char* name) {
    List* shown = NIL;
    List* junk = NIL;
    ListCell* lc;
    foreach (lc, q->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk)
            junk = lappend(junk, te);
        else
            shown = lappend(shown, te);
    }
    TargetEntry* added = makeTargetEntry(expr, static_cast<AttrNumber>(list_length(shown) + 1), pstrdup(name), false);
    shown = lappend(shown, added);
    AttrNumber resno = added->resno;
    foreach (lc, junk) static_cast<TargetEntry*>(lfirst(lc))->resno = ++resno;
    q->targetList = list_concat(shown, junk);
    return added;
}

RangeTblEntry* subquery_entry(Query* sub, const char* alias, List* names) {
    RangeTblEntry* rte = makeNode(RangeTblEntry);
    rte->rtekind = RTE_SUBQUERY;
    rte->subquery = sub;
    rte->alias = makeAlias(alias, NIL);
    rte->eref = makeAlias(alias, names);
    rte->inFromCl = true;
    return rte;
}

void read_from_only(Query* q, Query* sub, const char* alias, List* names) {
    RangeTblEntry* rte = subquery_entry(sub, alias, names);
    RangeTblRef* ref = makeNode(RangeTblRef);
    ref->rtindex = 1;
    q->rtable = list_make1(rte);
    q->jointree = makeFromExpr(list_make1(ref), nullptr);
}

namespace {

// The entry reads the part's view (whatever it read).
void read_instead(RangeTblEntry* rte, Oid part_view) {
    const bool with = rte->rtekind == RTE_CTE;
    const std::string name = with ? rte->ctename : "";
    rte->rtekind = RTE_RELATION;
    rte->relid = part_view;
    rte->relkind = RELKIND_VIEW;
    rte->rellockmode = AccessShareLock;
    rte->subquery = nullptr;
    rte->security_barrier = false;
    rte->ctename = nullptr;
    rte->ctelevelsup = 0;
    rte->inh = true;  // (a view has no children; printed without ONLY)
    rte->requiredPerms = ACL_SELECT;
    if (with && rte->alias == nullptr) rte->alias = call([&] { return makeAlias(name.c_str(), NIL); });
}

struct ViewsShown {
    std::vector<Oid> views;  // the plain view each part shows
    const std::vector<Oid>* parts;
};
bool read_shown_views(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* shown = static_cast<ViewsShown*>(raw);
    if (IsA(node, RangeTblEntry)) {
        auto* rte = reinterpret_cast<RangeTblEntry*>(node);
        if (rte->rtekind != RTE_RELATION) return false;
        auto it = std::find(shown->views.begin(), shown->views.end(), rte->relid);
        if (it != shown->views.end()) read_instead(rte, (*shown->parts)[it - shown->views.begin()]);
        return false;
    }
    if (IsA(node, Query))
        return query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(read_shown_views), raw,
                                 QTW_EXAMINE_RTES_BEFORE);
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(read_shown_views), raw);
}

}  // namespace

void read_views_through_parts(Query* q, const std::vector<Oid>& parts) {
    ViewsShown shown{{}, &parts};
    for (Oid part : parts) {
        const std::optional<catalog::Entry> entry = catalog::find_by_view(part);
        shown.views.push_back(entry ? shown_plain_view(view_query(entry->query_view)) : InvalidOid);
    }
    call([&] { read_shown_views(reinterpret_cast<Node*>(q), &shown); });
}

void read_part(Query* q, const PartNeeded& part, Oid part_view) {
    for (RangeTblEntry* rte : part.rtes) read_instead(rte, part_view);
    // The WITH query goes once nothing reads it.
    if (part.with_name.empty()) return;
    call([&] {
        const char* name = part.with_name.c_str();
        if (with_reads(q, name) != NIL) return;
        List* kept = NIL;
        ListCell* c;
        foreach (c, q->cteList)
            if (strcmp(name, static_cast<CommonTableExpr*>(lfirst(c))->ctename) != 0) kept = lappend(kept, lfirst(c));
        q->cteList = kept;
    });
}

void describe_joins(Query* q, Node* node) {
    if (node == nullptr) return;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist) describe_joins(q, static_cast<Node*>(lfirst(lc)));
        return;
    }
    if (!IsA(node, JoinExpr)) return;
    auto* join = reinterpret_cast<JoinExpr*>(node);
    describe_joins(q, join->larg);
    describe_joins(q, join->rarg);
    auto input = [&](Node* side, List** names, List** vars) {
        const int rti = IsA(side, RangeTblRef) ? reinterpret_cast<RangeTblRef*>(side)->rtindex
                                               : reinterpret_cast<JoinExpr*>(side)->rtindex;
        expandRTE(rt_fetch(rti, q->rtable), rti, 0, -1, false, names, vars);
    };
    List *left_names = NIL, *left_vars = NIL, *right_names = NIL, *right_vars = NIL;
    input(join->larg, &left_names, &left_vars);
    input(join->rarg, &right_names, &right_vars);
    RangeTblEntry* rte = rt_fetch(join->rtindex, q->rtable);
    rte->joinaliasvars = list_concat(list_copy(left_vars), right_vars);
    rte->joinleftcols = rte->joinrightcols = NIL;
    for (int i = 1; i <= list_length(left_vars); ++i) rte->joinleftcols = lappend_int(rte->joinleftcols, i);
    for (int i = 1; i <= list_length(right_vars); ++i) rte->joinrightcols = lappend_int(rte->joinrightcols, i);
    rte->joinmergedcols = 0;
    rte->eref = makeAlias(rte->eref->aliasname, list_concat(list_copy(left_names), right_names));
    join->usingClause = NIL;
    join->join_using_alias = nullptr;
}

namespace {
OuterReads outer_reads_of(Query* sub) {
    OuterReads r;
    r.depth = 0;  // the walk enters sub itself first
    call([&] { find_outer_reads(reinterpret_cast<Node*>(sub), &r); });
    return r;
}
}  // namespace

bool reads_outer_query(Query* sub) {
    const OuterReads r = outer_reads_of(sub);
    return r.columns || r.with;
}

bool reads_outer_columns(Query* sub) { return outer_reads_of(sub).columns; }

bool reads_outer_with(Query* sub) { return outer_reads_of(sub).with; }

bool expression_reads_outer(Node* expr) {
    OuterReads r;
    call([&] { find_outer_reads(expr, &r); });
    return r.columns;
}

namespace {
// Whether an expression of a subquery reads anything but columns of its
// outer query (one level up): its own columns, aggregates, subqueries.
bool reads_not_only_outer(Node* node, void*) {
    if (node == nullptr) return false;
    if (IsA(node, Var)) return reinterpret_cast<Var*>(node)->varlevelsup != 1;
    if (IsA(node, Aggref) || IsA(node, GroupingFunc) || IsA(node, PlaceHolderVar) || IsA(node, SubLink) ||
        IsA(node, Param))
        return true;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reads_not_only_outer), nullptr);
}
}  // namespace

bool correlation(Node* conjunct, Node** inner, Node** outer, bool* inner_left) {
    if (!IsA(conjunct, OpExpr) || list_length(reinterpret_cast<OpExpr*>(conjunct)->args) != 2) return false;
    auto* op = reinterpret_cast<OpExpr*>(conjunct);
    Node* left = static_cast<Node*>(linitial(op->args));
    Node* right = static_cast<Node*>(lsecond(op->args));
    if (!op_mergejoinable(op->opno, exprType(left))) return false;
    for (const bool l : {true, false}) {
        Node* in = l ? left : right;
        Node* out = l ? right : left;
        if (reads_not_only_outer(out, nullptr) || contain_volatile_functions(out)) continue;
        if (checkExprHasSubLink(in) || contain_volatile_functions(in) || expression_reads_outer(in)) continue;
        *inner = in;
        *outer = out;
        *inner_left = l;
        return true;
    }
    return false;
}

}  // namespace ivm::pg
