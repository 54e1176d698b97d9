#include "pg/expand_views.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/relations.hpp"

extern "C" {
#include "rewrite/rewriteManip.h"
}

namespace ivm::pg {

Query* copy_view_query(Oid relid) {
    Relation rel = table_open(relid, AccessShareLock);
    Query* copy = static_cast<Query*>(copyObjectImpl(get_view_query(rel)));
    table_close(rel, AccessShareLock);
    return copy;
}

Query* view_query(Oid relid) {
    return call([&] {
        Query* copy = copy_view_query(relid);
        AcquireRewriteLocks(copy, true, false);
        return copy;
    });
}

namespace {

constexpr int max_depth = 32;  // views of views of ...

bool is_plain_view(const RangeTblEntry* rte) {
    if (rte->rtekind != RTE_RELATION) return false;
    const Oid relid = rte->relid;
    if (call([&] { return get_rel_relkind(relid); }) != RELKIND_VIEW) return false;
    return !catalog::find_by_view(relid).has_value();  // an ivm view is read through its storage
}

// A WITH query of q that a FROM item reads.
CommonTableExpr* cte_of(Query* q, const RangeTblEntry* rte) {
    if (rte->rtekind != RTE_CTE || rte->ctelevelsup != 0 || q->hasRecursive) return nullptr;
    ListCell* lc;
    foreach (lc, q->cteList) {
        auto* cte = static_cast<CommonTableExpr*>(lfirst(lc));
        if (strcmp(cte->ctename, rte->ctename) == 0) return cte;
    }
    return nullptr;
}

// What a FROM item expands into: a plain view's query, a subquery's, a
// WITH query's (a copy), or nothing.
Query* expansion_of(Query* q, const RangeTblEntry* rte, std::string& what) {
    if (is_plain_view(rte)) {
        const Oid relid = rte->relid;
        what = "the view " + qualified_name(relid);
        return view_query(relid);
    }
    if (rte->rtekind == RTE_SUBQUERY && rte->subquery != nullptr) {
        what = rte->lateral ? "the LATERAL subquery" : "the subquery in FROM";
        return call([&] { return static_cast<Query*>(copyObjectImpl(rte->subquery)); });
    }
    if (CommonTableExpr* cte = cte_of(q, rte)) {
        what = std::string("the WITH query ") + cte->ctename;
        if (cte->cterecursive || !IsA(cte->ctequery, Query)) return nullptr;
        return call([&] { return static_cast<Query*>(copyObjectImpl(cte->ctequery)); });
    }
    return nullptr;
}

// The range table indexes of the FROM tree; false if it has a join other
// than an inner one (left to the analysis to refuse).
bool collect_refs(Node* node, std::vector<int>& refs) {
    if (node == nullptr) return true;
    if (IsA(node, RangeTblRef)) {
        refs.push_back(reinterpret_cast<RangeTblRef*>(node)->rtindex);
        return true;
    }
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            if (!collect_refs(static_cast<Node*>(lfirst(lc)), refs)) return false;
        return true;
    }
    if (IsA(node, JoinExpr)) {
        auto* j = reinterpret_cast<JoinExpr*>(node);
        return j->jointype == JOIN_INNER && collect_refs(j->larg, refs) && collect_refs(j->rarg, refs);
    }
    return false;
}

void collect_quals(Node* node, List*& quals) {
    if (node == nullptr) return;
    if (IsA(node, FromExpr)) {
        auto* f = reinterpret_cast<FromExpr*>(node);
        ListCell* lc;
        foreach (lc, f->fromlist) collect_quals(static_cast<Node*>(lfirst(lc)), quals);
        if (f->quals != nullptr) quals = lappend(quals, f->quals);
    } else if (IsA(node, JoinExpr)) {
        auto* j = reinterpret_cast<JoinExpr*>(node);
        collect_quals(j->larg, quals);
        collect_quals(j->rarg, quals);
        if (j->quals != nullptr) quals = lappend(quals, j->quals);
    }
}

// Inner joins only: the FROM tree becomes a list of relations, and the join
// conditions and WHERE one conjunction; references to join columns (USING)
// become references to the joined relations' columns.
void flatten_inner_joins(Query* q, const std::vector<int>& refs) {
    List* quals = NIL;
    collect_quals(reinterpret_cast<Node*>(q->jointree), quals);
    List* items = NIL;
    for (int rti : refs) {
        RangeTblRef* ref = makeNode(RangeTblRef);
        ref->rtindex = rti;
        items = lappend(items, ref);
    }
    Node* where = quals == NIL ? nullptr : reinterpret_cast<Node*>(make_ands_explicit(quals));
    q->targetList = reinterpret_cast<List*>(flatten_join_alias_vars(q, reinterpret_cast<Node*>(q->targetList)));
    where = flatten_join_alias_vars(q, where);
    q->havingQual = flatten_join_alias_vars(q, q->havingQual);
    q->jointree = makeFromExpr(items, where);
    // The join entries are no longer in the FROM tree; the deparser would
    // still look for their inputs there.
    ListCell* lc;
    foreach (lc, q->rtable) {
        auto* rte = static_cast<RangeTblEntry*>(lfirst(lc));
        if (rte->rtekind == RTE_JOIN) leave_out_of_from(rte);
    }
}

// `with_queries`: whether WITH queries of its own may remain (they are
// checked again once expanded into it).
bool select_project_join(const Query* v, bool with_queries) {
    return v->commandType == CMD_SELECT && v->setOperations == nullptr && !v->hasAggs && v->groupClause == NIL &&
           v->havingQual == nullptr && v->distinctClause == NIL && v->limitCount == nullptr &&
           v->limitOffset == nullptr && !v->hasWindowFuncs && !v->hasTargetSRFs &&
           (with_queries || v->cteList == NIL) && !v->hasSubLinks && v->rowMarks == NIL && v->groupingSets == NIL &&
           !(with_queries && v->hasRecursive);
}

void refuse_unless_spj(const Query* v, const std::string& what, bool with_queries = false) {
    if (!select_project_join(v, with_queries))
        throw unsupported(what + " as a base relation",
                          "A view, subquery or WITH query is expanded into the query; it must be a "
                          "select-project-join query itself (no aggregates, DISTINCT, set operations, LIMIT "
                          "or subqueries in expressions).");
}

bool expand_once(Query* q, int depth, std::vector<Oid>& expanded);


// Until nothing is left to expand: pulled-up WITH queries can read others.
void expand(Query* q, int depth, std::vector<Oid>& expanded) {
    while (expand_once(q, depth, expanded)) {
    }
    // WITH queries that were expanded wherever they were read go.
    if (!q->hasRecursive) {
        bool still_read = false;
        ListCell* lc;
        foreach (lc, q->rtable)
            still_read |= static_cast<RangeTblEntry*>(lfirst(lc))->rtekind == RTE_CTE;
        if (!still_read) q->cteList = NIL;
    }
}

bool expand_once(Query* q, int depth, std::vector<Oid>& expanded) {
    std::vector<int> refs;
    if (!collect_refs(reinterpret_cast<Node*>(q->jointree), refs)) return false;
    std::vector<int> items;
    for (int rti : refs) {
        const RangeTblEntry* rte = rt_fetch(rti, q->rtable);
        // A LATERAL subquery reads the FROM items before it, which it can
        // be joined to once pulled up: where it is select-project-join
        // (others are left to the analysis, which refuses them).
        const bool subquery = rte->rtekind == RTE_SUBQUERY &&
                              (!rte->lateral || (rte->subquery != nullptr && select_project_join(rte->subquery, false)));
        if (is_plain_view(rte) || subquery || cte_of(q, rte) != nullptr) items.push_back(rti);
    }
    if (items.empty()) return false;
    if (depth > max_depth) throw unsupported("views nested more than 32 deep");
    call([&] { flatten_inner_joins(q, refs); });
    for (int rti : items) {
        RangeTblEntry* rte = rt_fetch(rti, q->rtable);
        std::string what;
        Query* v = expansion_of(q, rte, what);
        if (v == nullptr) throw unsupported(what + " as a base relation");
        // A WITH query of its own (a WITH nested in a WITH, a view's WITH)
        // is expanded into it first, and must be gone then.
        refuse_unless_spj(v, what, true);
        expand(v, depth + 1, expanded);
        refuse_unless_spj(v, what);
        // WITH queries it reads from the level above are this level's
        // once it is pulled up (a WITH query reading an earlier one).
        ListCell* lc;
        foreach (lc, v->rtable) {
            auto* inner = static_cast<RangeTblEntry*>(lfirst(lc));
            if (inner->rtekind != RTE_CTE) continue;
            if (inner->ctelevelsup == 0) throw unsupported(what + ", which reads a WITH query of its own,");
            inner->ctelevelsup -= 1;
        }
        std::vector<int> inner_refs;
        if (!collect_refs(reinterpret_cast<Node*>(v->jointree), inner_refs))
            throw unsupported(what + ", which has an outer join, as a base relation");
        if (is_plain_view(rte)) expanded.push_back(rte->relid);
        call([&] {
            flatten_inner_joins(v, inner_refs);
            const int offset = list_length(q->rtable);
            OffsetVarNodes(reinterpret_cast<Node*>(v), offset, 0);
            // A LATERAL subquery's references to the items before it are
            // the query's own once it is in the query.
            if (rte->lateral) IncrementVarSublevelsUp(reinterpret_cast<Node*>(v), -1, 1);
            q->rtable = list_concat(q->rtable, v->rtable);
            // The item's columns become its output expressions.
            auto replace = [&](Node* node) {
                return ReplaceVarsFromTargetList(node, rti, 0, rte, v->targetList, REPLACEVARS_REPORT_ERROR, 0, nullptr);
            };
            q->targetList = reinterpret_cast<List*>(replace(reinterpret_cast<Node*>(q->targetList)));
            q->jointree->quals = replace(q->jointree->quals);
            q->havingQual = replace(q->havingQual);
            // So do the arguments of the functions in FROM that read them,
            // and the LATERAL subqueries after it (one level up in those).
            ListCell* fc;
            foreach (fc, q->rtable) {
                auto* item = static_cast<RangeTblEntry*>(lfirst(fc));
                if (item->rtekind == RTE_FUNCTION)
                    item->functions = reinterpret_cast<List*>(replace(reinterpret_cast<Node*>(item->functions)));
                if (item->rtekind == RTE_SUBQUERY && item->lateral && item->subquery != nullptr)
                    item->subquery = reinterpret_cast<Query*>(ReplaceVarsFromTargetList(
                        reinterpret_cast<Node*>(item->subquery), rti, 1, rte, v->targetList, REPLACEVARS_REPORT_ERROR, 0,
                        nullptr));
            }
            // Its FROM items take its place, its condition joins the WHERE.
            List* from = NIL;
            ListCell* lc;
            foreach (lc, q->jointree->fromlist) {
                auto* ref = static_cast<RangeTblRef*>(lfirst(lc));
                if (ref->rtindex == rti)
                    from = list_concat(from, v->jointree->fromlist);
                else
                    from = lappend(from, ref);
            }
            q->jointree->fromlist = from;
            if (v->jointree->quals != nullptr)
                q->jointree->quals = q->jointree->quals == nullptr ? v->jointree->quals
                                                                   : make_and_qual(q->jointree->quals, v->jointree->quals);
            // The entry stays in the range table, out of the FROM tree.
            if (rte->rtekind == RTE_CTE || rte->rtekind == RTE_SUBQUERY) leave_out_of_from(rte);
        });
    }
    return true;
}

}  // namespace

Query* plain_view_query(const RangeTblEntry* rte) {
    if (!is_plain_view(rte)) return nullptr;
    Query* v = view_query(rte->relid);
    return v->hasRecursive ? nullptr : v;
}

bool reads_separate_view(const Query* q) {
    ListCell* lc;
    foreach (lc, q->rtable) {
        const auto* rte = static_cast<const RangeTblEntry*>(lfirst(lc));
        if (!rte->inFromCl) continue;  // (a view's own OLD and NEW entries)
        if (rte->rtekind == RTE_SUBQUERY && rte->subquery != nullptr && reads_separate_view(rte->subquery)) return true;
        if (separate_view_query(rte) != nullptr) return true;
    }
    return false;
}

Query* separate_view_query(const RangeTblEntry* rte) {
    Query* v = plain_view_query(rte);
    if (v == nullptr) return nullptr;
    const bool has_outer_join = [&] {
        std::vector<int> refs;
        return !collect_refs(reinterpret_cast<Node*>(v->jointree), refs);
    }();
    // (a select-project-join view over one is one too: its query reads it
    // through a part of its own)
    return select_project_join(v, true) && !has_outer_join && !reads_separate_view(v) ? nullptr : v;
}

Oid shown_plain_view(const Query* q) {
    if (q->commandType != CMD_SELECT || q->setOperations != nullptr || q->hasAggs || q->groupClause != NIL ||
        q->havingQual != nullptr || q->distinctClause != NIL || q->sortClause != NIL || q->limitCount != nullptr ||
        q->limitOffset != nullptr || q->hasWindowFuncs || q->hasTargetSRFs || q->hasSubLinks || q->cteList != NIL ||
        q->rowMarks != NIL || q->jointree == nullptr || q->jointree->quals != nullptr ||
        list_length(q->jointree->fromlist) != 1 || !IsA(linitial(q->jointree->fromlist), RangeTblRef))
        return InvalidOid;
    const int rti = linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex;
    const RangeTblEntry* rte = rt_fetch(rti, q->rtable);
    if (!is_plain_view(rte)) return InvalidOid;
    const Query* v = view_query(rte->relid);
    // Every column of the view, in order, as it is.
    int columns = 0;
    ListCell* lc;
    foreach (lc, v->targetList) columns += static_cast<TargetEntry*>(lfirst(lc))->resjunk ? 0 : 1;
    int resno = 0;
    foreach (lc, q->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        auto* var = reinterpret_cast<Var*>(te->expr);
        if (te->resjunk || !IsA(var, Var) || static_cast<int>(var->varno) != rti || var->varlevelsup != 0 ||
            var->varattno != ++resno)
            return InvalidOid;
    }
    // (A redefinition may have added columns after those it shows: they
    // are left out, where that leaves the rows as they were.)
    const bool columns_droppable = v->distinctClause == NIL && v->setOperations == nullptr;
    return resno == columns || (resno > 0 && resno < columns && columns_droppable) ? rte->relid : InvalidOid;
}

Oid shown_view(const Query* q) {
    const Oid view = shown_plain_view(q);
    if (view == InvalidOid) return InvalidOid;
    const int rti = linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex;
    return separate_view_query(rt_fetch(rti, q->rtable)) != nullptr ? view : InvalidOid;
}

Query* shown_view_query(const Query* q, Oid view) {
    Query* v = view_query(view);
    call([&] {
        // Under the names q shows (a view's columns can be renamed); the
        // columns it does not show go, or stay as junk where a clause
        // refers to them (a group key).
        ListCell* shown = list_head(q->targetList);
        List* kept = NIL;
        List* junk = NIL;
        ListCell* lc;
        foreach (lc, v->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (!te->resjunk && shown != nullptr) {
                te->resname = pstrdup(static_cast<TargetEntry*>(lfirst(shown))->resname);
                shown = lnext(q->targetList, shown);
                kept = lappend(kept, te);
            } else if (te->resjunk || te->ressortgroupref != 0) {
                te->resjunk = true;
                junk = lappend(junk, te);
            }
        }
        v->targetList = list_concat(kept, junk);
        AttrNumber resno = 0;
        foreach (lc, v->targetList) static_cast<TargetEntry*>(lfirst(lc))->resno = ++resno;
    });
    return v;
}

void flatten_join_columns(Query* q) {
    q->targetList = reinterpret_cast<List*>(flatten_join_alias_vars(q, reinterpret_cast<Node*>(q->targetList)));
    q->jointree = reinterpret_cast<FromExpr*>(flatten_join_alias_vars(q, reinterpret_cast<Node*>(q->jointree)));
    q->havingQual = flatten_join_alias_vars(q, q->havingQual);
}

void leave_out_of_from(RangeTblEntry* rte) {
    rte->rtekind = RTE_RESULT;
    rte->subquery = nullptr;
    rte->joinaliasvars = rte->joinleftcols = rte->joinrightcols = NIL;
    rte->eref = makeAlias(rte->eref->aliasname, NIL);
    rte->alias = nullptr;
}

std::vector<Oid> expand_plain_views(Query* q) {
    std::vector<Oid> expanded;
    expand(q, 0, expanded);
    return expanded;
}

}  // namespace ivm::pg
