#include "pg/nondeterministic_collations.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/expand_views.hpp"

extern "C" {
#include "optimizer/tlist.h"
#include "utils/syscache.h"
}

#include <string>

namespace ivm::pg {
namespace {

// What merges values under a nondeterministic collation: a construct's
// name (static text) and the collation.  (Plain data: it crosses call().)
struct Merging {
    const char* construct = nullptr;
    Oid collation = InvalidOid;
    Oid view = InvalidOid;  // the plain view whose query is walked
};

// Runs inside call().
bool nondeterministic(Oid collation) { return OidIsValid(collation) && !get_collation_isdeterministic(collation); }

bool found(Merging* m, const char* construct, Oid collation) {
    if (!nondeterministic(collation)) return false;
    m->construct = construct;
    m->collation = collation;
    return true;
}

bool in_clauses(List* clauses, List* target_list, const char* construct, Merging* m) {
    ListCell* lc;
    foreach (lc, clauses) {
        auto* clause = lfirst_node(SortGroupClause, lc);
        const TargetEntry* te = get_sortgroupclause_tle(clause, target_list);
        if (found(m, construct, exprCollation(reinterpret_cast<Node*>(te->expr)))) return true;
    }
    return false;
}

bool in_set_operations(Node* node, Merging* m) {
    if (node == nullptr || !IsA(node, SetOperationStmt)) return false;
    auto* op = reinterpret_cast<SetOperationStmt*>(node);
    if (op->op != SETOP_UNION || !op->all) {
        const char* construct = op->op == SETOP_UNION ? "UNION" : op->op == SETOP_INTERSECT ? "INTERSECT" : "EXCEPT";
        ListCell* lc;
        foreach (lc, op->colCollations)
            if (found(m, construct, lfirst_oid(lc))) return true;
    }
    return in_set_operations(op->larg, m) || in_set_operations(op->rarg, m);
}

// min, max and the like: an aggregate with a sort operator.
bool compares_values(Oid aggregate) {
    HeapTuple tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggregate));
    if (!HeapTupleIsValid(tup)) return false;
    const bool sorts = OidIsValid(reinterpret_cast<Form_pg_aggregate>(GETSTRUCT(tup))->aggsortop);
    ReleaseSysCache(tup);
    return sorts;
}

// Runs inside call().
bool find_merging(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* m = static_cast<Merging*>(raw);
    if (IsA(node, Query)) {
        auto* q = reinterpret_cast<Query*>(node);
        if (in_clauses(q->groupClause, q->targetList, "GROUP BY", m) ||
            in_clauses(q->distinctClause, q->targetList, "DISTINCT", m) || in_set_operations(q->setOperations, m))
            return true;
        ListCell* lc;
        foreach (lc, q->windowClause)
            if (in_clauses(lfirst_node(WindowClause, lc)->partitionClause, q->targetList, "PARTITION BY", m))
                return true;
        // (a plain view read is expanded into the query later; a view's
        // own query lists the view itself, as OLD and NEW)
        foreach (lc, q->rtable) {
            const auto* rte = lfirst_node(RangeTblEntry, lc);
            if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_VIEW || rte->relid == m->view) continue;
            check_stack_depth();
            Query* view_query = copy_view_query(rte->relid);
            const Oid outer = m->view;
            m->view = rte->relid;
            const bool merges = find_merging(reinterpret_cast<Node*>(view_query), raw);
            m->view = outer;
            if (merges) return true;
        }
        return query_tree_walker(q, reinterpret_cast<bool (*)()>(find_merging), raw, 0);
    }
    if (IsA(node, Aggref)) {
        auto* agg = reinterpret_cast<Aggref*>(node);
        if ((agg->aggdistinct != NIL || agg->aggorder != NIL || compares_values(agg->aggfnoid)) &&
            found(m, "min, max, DISTINCT and ordered aggregates", agg->inputcollid))
            return true;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_merging), raw);
}

}  // namespace

bool nondeterministic_collation(Oid collation) {
    return call([&] { return nondeterministic(collation); });
}

void refuse_merging_by_nondeterministic_collation(Query* q) {
    Merging m;
    if (!call([&] { return find_merging(reinterpret_cast<Node*>(q), &m); })) return;
    const char* name = call([&] { return get_collation_name(m.collation); });
    throw unsupported(std::string(m.construct) + " over values of the nondeterministic collation \"" +
                          (name ? name : "?") + "\"",
                      "Which of the values it makes equal PostgreSQL shows is not fixed. Apply a deterministic "
                      "collation there, such as COLLATE \"C\".");
}

}  // namespace ivm::pg
