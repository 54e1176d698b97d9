#include "pg/outer_join_conditions.hpp"

#include "pg/boundary.hpp"
#include "pg/occurrences.hpp"
#include "pg/view_parts.hpp"

extern "C" {
#include "rewrite/rewriteManip.h"
}

namespace ivm::pg {
namespace {

// Whether a condition of an ON has a subquery and reads no entry of the
// query's FROM but rti (at its own level, or from inside the subquery).
bool filters_only(Node* condition, int rti) {
    if (!checkExprHasSubLink(condition)) return false;
    ListCell* lc;
    foreach (lc, pull_vars_of_level(condition, 0)) {
        auto* v = static_cast<Node*>(lfirst(lc));
        if (!IsA(v, Var) || reinterpret_cast<Var*>(v)->varno != rti) return false;
    }
    return true;
}

// An outer join whose nullable side is table `rti`, with conditions that
// filter it alone.
struct Filtered {
    JoinExpr* join = nullptr;
    int rti = 0;
};

Filtered find_filtered(Query* q, Node* node) {
    if (node == nullptr) return {};
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            if (Filtered f = find_filtered(q, static_cast<Node*>(lfirst(lc))); f.join != nullptr) return f;
        return {};
    }
    if (!IsA(node, JoinExpr)) return {};
    auto* j = reinterpret_cast<JoinExpr*>(node);
    Node* nullable = j->jointype == JOIN_LEFT ? j->rarg : j->jointype == JOIN_RIGHT ? j->larg : nullptr;
    if (nullable != nullptr && IsA(nullable, RangeTblRef)) {
        const int rti = reinterpret_cast<RangeTblRef*>(nullable)->rtindex;
        if (rt_fetch(rti, q->rtable)->rtekind == RTE_RELATION) {
            ListCell* lc;
            foreach (lc, conjuncts_of(j->quals))
                if (filters_only(static_cast<Node*>(lfirst(lc)), rti)) return {j, rti};
        }
    }
    if (Filtered f = find_filtered(q, j->larg); f.join != nullptr) return f;
    return find_filtered(q, j->rarg);
}

// Table `rti` of q becomes `(SELECT <its columns> FROM <it> WHERE
// <conditions>)` under its name, q's references to its columns renumbered
// to the subquery's (a dropped column has none).
void filter_table(Query* q, int rti, List* conditions) {
    RangeTblEntry* table = rt_fetch(rti, q->rtable);
    Node* where = reinterpret_cast<Node*>(make_ands_explicit(conditions));
    ChangeVarNodes(where, rti, 1, 0);
    Query* sub = select_over(static_cast<RangeTblEntry*>(copyObjectImpl(table)), where);
    sub->hasSubLinks = true;
    raise_with_references(sub);  // (its subqueries may read q's WITH queries)
    List* reads = NIL;  // by the table's attribute numbers: the subquery's columns
    List* names = NIL;
    AttrNumber attno = 0, position = 0;
    ListCell* lc;
    foreach (lc, table->eref->colnames) {
        ++attno;
        const char* name = strVal(lfirst(lc));
        if (name[0] == '\0') continue;  // dropped
        Oid type = InvalidOid, collation = InvalidOid;
        int32 typmod = -1;
        get_atttypetypmodcoll(table->relid, attno, &type, &typmod, &collation);
        ++position;
        sub->targetList = lappend(sub->targetList, makeTargetEntry(reinterpret_cast<Expr*>(makeVar(1, attno, type, typmod, collation, 0)),
                                                                   position, pstrdup(name), false));
        reads = lappend(reads, makeTargetEntry(reinterpret_cast<Expr*>(makeVar(rti, position, type, typmod, collation, 0)),
                                               attno, nullptr, false));
        names = lappend(names, makeString(pstrdup(name)));
    }
    const char* alias = table->eref->aliasname;
    bool sublinks = false;
    // (a Query comes back copied)
    *q = *reinterpret_cast<Query*>(ReplaceVarsFromTargetList(reinterpret_cast<Node*>(q), rti, 0, table, reads,
                                                             REPLACEVARS_REPORT_ERROR, 0, &sublinks));
    list_nth_cell(q->rtable, rti - 1)->ptr_value = subquery_entry(sub, alias, names);
}

}  // namespace

bool push_join_subqueries(Query* q) {
    if (q->jointree == nullptr) return false;
    return call([&] {
        bool changed = false;
        for (;;) {
            const Filtered f = find_filtered(q, reinterpret_cast<Node*>(q->jointree));
            if (f.join == nullptr) return changed;
            List* kept = NIL;
            List* moved = NIL;
            ListCell* lc;
            foreach (lc, conjuncts_of(f.join->quals)) {
                Node* c = static_cast<Node*>(lfirst(lc));
                if (filters_only(c, f.rti))
                    moved = lappend(moved, c);
                else
                    kept = lappend(kept, c);
            }
            f.join->quals = kept == NIL ? makeBoolConst(true, false) : reinterpret_cast<Node*>(make_ands_explicit(kept));
            filter_table(q, f.rti, moved);
            changed = true;
        }
    });
}

}  // namespace ivm::pg
