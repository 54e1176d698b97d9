#include "pg/window_steps.hpp"

#include "pg/analyze.hpp"
#include "pg/boundary.hpp"
#include "pg/occurrences.hpp"
#include "pg/view_parts.hpp"

extern "C" {
#include "access/stratnum.h"
#include "catalog/pg_opfamily_d.h"
#include "parser/parse_oper.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
}

#include <limits>
#include <string>

namespace ivm::pg {
namespace {

// The outputs of the grouped subquery, gathered while the outer query's
// expressions are rewritten: each part of them that holds no window
// function (an aggregate, a group key, an expression of them) is computed
// by the subquery, once, and read as a column of it.
struct Grouped {
    List* outputs = NIL;  // of TargetEntry
    bool keep_subqueries = false;  // HAVING's scalar subqueries stay outside the aggregation
};

Node* over_groups(Node* node, void* raw) {
    if (node == nullptr || IsA(node, Const)) return node;
    auto* g = static_cast<Grouped*>(raw);
    if (g->keep_subqueries && IsA(node, SubLink)) return node;
    // (a window function's argument list is mutated element by element)
    if (!IsA(node, List) && !contain_windowfuncs(node) && !(g->keep_subqueries && checkExprHasSubLink(node)))
        return reinterpret_cast<Node*>(read_output(&g->outputs, node, "w"));
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(over_groups), raw);
}

// q reads `inner`, the query it was, as its only FROM item.  Runs inside call().
void read_only(Query* q, Query* inner, const char* alias, List* names) {
    read_from_only(q, inner, alias, names);
    q->cteList = NIL;
    q->hasRecursive = false;
    q->hasAggs = false;
    q->hasSubLinks = false;
    q->groupClause = NIL;
    q->groupingSets = NIL;
    q->havingQual = nullptr;
}

// q reads `inner`, its aggregation, computing g's outputs.  The
// aggregation's GROUP BY reads its own entries (left out of its columns,
// after them).  Runs inside call().
void read_grouped(Query* q, Query* inner, const Grouped& g) {
    List* targets = list_copy(g.outputs);
    ListCell* lc;
    foreach (lc, inner->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->ressortgroupref == 0 || get_sortgroupref_clause_noerr(te->ressortgroupref, inner->groupClause) == nullptr)
            continue;
        te->resno = static_cast<AttrNumber>(list_length(targets) + 1);
        te->resjunk = true;
        targets = lappend(targets, te);
    }
    inner->targetList = targets;
    List* names = NIL;
    foreach (lc, g.outputs) names = lappend(names, makeString(pstrdup(static_cast<TargetEntry*>(lfirst(lc))->resname)));
    read_only(q, inner, "grouped", names);
}

// DISTINCT over window functions or over an aggregation: the query under
// it goes into FROM, the DISTINCT (and ORDER BY, which with DISTINCT reads
// only output columns) stays, over its columns.
void split_distinct(Query* q) {
    call([&] {
        Query* inner = static_cast<Query*>(copyObjectImpl(q));
        inner->distinctClause = NIL;
        inner->hasDistinctOn = false;
        inner->sortClause = NIL;
        // (the parser puts junk entries last: an output's resno is its column)
        List* names = NIL;
        List* targets = NIL;
        ListCell* lc;
        foreach (lc, q->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (te->resjunk) continue;
            names = lappend(names, makeString(pstrdup(te->resname)));
            te->expr = reinterpret_cast<Expr*>(makeVarFromTargetEntry(1, te));
            targets = lappend(targets, te);
        }
        q->targetList = targets;
        q->windowClause = NIL;
        q->hasWindowFuncs = false;
        read_only(q, inner, "windowed", names);
    });
}

// A name for a new output of `targets` that none of theirs is.
const char* unused_name(List* targets, const char* base) {
    std::string name = base;
    for (int n = 2;; ++n) {
        bool taken = false;
        ListCell* lc;
        foreach (lc, targets) {
            const char* other = static_cast<TargetEntry*>(lfirst(lc))->resname;
            taken |= other != nullptr && name == other;
        }
        if (!taken) return pstrdup(name.c_str());
        name = std::string(base) + "_" + std::to_string(n);
    }
}

// DISTINCT ON keeps the first row of each group by ORDER BY (the rest of
// it: the DISTINCT ON expressions lead ORDER BY).
void split_distinct_on(Query* q) {
    List* order = NIL;
    ListCell* lc;
    foreach (lc, q->sortClause) {
        auto* sort = static_cast<SortGroupClause*>(lfirst(lc));
        if (get_sortgroupref_clause_noerr(sort->tleSortGroupRef, q->distinctClause) == nullptr)
            order = lappend(order, sort);
    }
    keep_first_rows(q, q->distinctClause, order, 1, 1);
}

// The aggregation goes into FROM, computing every part of the select list
// that holds no window function: under window functions (`step` WINDOW),
// or under HAVING (`step` HAVING: HAVING's condition computed there too,
// each an expression over aggregates and group keys, kept from partial
// state), which then filters the rows of the query over it.
enum class Step { Window, Having };
void split_aggregation(Query* q, Step step) {
    call([&] {
        Query* inner = static_cast<Query*>(copyObjectImpl(q));
        if (step == Step::Window) {
            inner->windowClause = NIL;
            inner->hasWindowFuncs = false;
        } else {
            inner->havingQual = nullptr;
        }
        inner->sortClause = NIL;
        Grouped g;
        g.keep_subqueries = step == Step::Having;
        ListCell* lc;
        foreach (lc, q->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            te->expr = reinterpret_cast<Expr*>(over_groups(reinterpret_cast<Node*>(te->expr), &g));
        }
        Node* where = step == Step::Having ? over_groups(q->havingQual, &g) : nullptr;
        if (!inner->hasAggs && inner->groupClause == NIL) {
            // HAVING alone made q one group: a count(*) keeps it one
            read_output(&g.outputs, reinterpret_cast<Node*>(count_star()), "w");
            inner->hasAggs = true;
        }
        read_grouped(q, inner, g);
        if (step == Step::Having) {
            q->jointree->quals = where;
            q->hasSubLinks = checkExprHasSubLink(where);
            inner->hasSubLinks = false;  // (it had them in HAVING only)
        }
    });
}

bool not_from_partial_state(Node* node, void*) {
    if (node == nullptr || IsA(node, Query)) return false;  // (a subquery's aggregates are its own)
    if (IsA(node, Aggref) && !kept_from_partial_state(reinterpret_cast<Aggref*>(node))) return true;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(not_from_partial_state), nullptr);
}

// Whether an expression holds a subquery other than a scalar one that
// reads nothing of the query it stands in.
bool other_subquery(Node* node, void*) {
    if (node == nullptr) return false;
    if (IsA(node, SubLink)) {
        const auto* link = reinterpret_cast<SubLink*>(node);
        return link->subLinkType != EXPR_SUBLINK || contain_vars_of_level(link->subselect, 1);
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(other_subquery), nullptr);
}

// Subqueries only in HAVING, each scalar and uncorrelated (TPC-H Q11's
// `HAVING sum(..) > (SELECT sum(..) * 0.0001 ..)`): they stay in the step
// over the aggregation, where join_subqueries then joins them to its rows.
// Joined below it, the subquery's value would be a group key, and its every
// change would move every group.
bool subqueries_only_in_having(Query* q) {
    return !checkExprHasSubLink(reinterpret_cast<Node*>(q->targetList)) &&
           !checkExprHasSubLink(reinterpret_cast<Node*>(q->jointree)) && !other_subquery(q->havingQual, nullptr);
}

}  // namespace

void keep_first_rows(Query* q, List* partition, List* order, int64 first, int64 last) {
    call([&] {
        Query* inner = static_cast<Query*>(copyObjectImpl(q));
        // (one level further down: its references to the queries around
        // q, their columns and WITH queries, reach one more level up)
        IncrementVarSublevelsUp(reinterpret_cast<Node*>(inner), 1, 1);
        order = list_copy(order);
        Index ref = next_sort_group_ref(inner->targetList);
        ListCell* lc;
        foreach (lc, inner->targetList) {  // the other output columns, as tie-breakers
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (te->resjunk || (te->ressortgroupref != 0 &&
                                (get_sortgroupref_clause_noerr(te->ressortgroupref, order) != nullptr ||
                                 get_sortgroupref_clause_noerr(te->ressortgroupref, partition) != nullptr)))
                continue;
            const Oid type = exprType(reinterpret_cast<Node*>(te->expr));
            SortGroupClause* by = makeNode(SortGroupClause);
            get_sort_group_operators(type, false, false, false, &by->sortop, &by->eqop, nullptr, &by->hashable);
            if (!OidIsValid(by->sortop)) continue;
            if (te->ressortgroupref == 0) te->ressortgroupref = ref++;
            by->tleSortGroupRef = te->ressortgroupref;
            by->nulls_first = false;
            order = lappend(order, by);
        }
        WindowClause* window = makeNode(WindowClause);
        window->partitionClause = list_copy(partition);
        window->orderClause = order;
        window->frameOptions = FRAMEOPTION_DEFAULTS;
        window->winref = 1;
        inner->windowClause = list_make1(window);
        WindowFunc* number = makeNode(WindowFunc);
        number->winfnoid = F_ROW_NUMBER;
        number->wintype = INT8OID;
        number->winref = window->winref;
        number->location = -1;
        inner->hasWindowFuncs = true;
        inner->distinctClause = NIL;
        inner->hasDistinctOn = false;
        inner->sortClause = NIL;
        inner->limitCount = nullptr;
        inner->limitOffset = nullptr;
        const AttrNumber position =
            add_output(inner, reinterpret_cast<Expr*>(number), unused_name(inner->targetList, "row_number"))->resno;
        List* names = NIL;
        foreach (lc, inner->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (!te->resjunk) names = lappend(names, makeString(pstrdup(te->resname)));
        }
        // The query over it: its output columns, the rows numbered first
        // to last.
        List* targets = NIL;
        foreach (lc, q->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (te->resjunk) continue;
            te->expr = reinterpret_cast<Expr*>(makeVarFromTargetEntry(1, te));
            te->ressortgroupref = 0;
            targets = lappend(targets, te);
        }
        q->targetList = targets;
        q->distinctClause = NIL;
        q->hasDistinctOn = false;
        q->sortClause = NIL;
        q->windowClause = NIL;
        q->hasWindowFuncs = false;
        q->limitCount = nullptr;
        q->limitOffset = nullptr;
        read_only(q, inner, "first", names);
        auto bound = [&](int64 value, int16 strategy) {
            Var* n = makeVar(1, position, INT8OID, -1, InvalidOid, 0);
            Const* c = makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(value), false, FLOAT8PASSBYVAL);
            const Oid op = get_opfamily_member(INTEGER_BTREE_FAM_OID, INT8OID, INT8OID, strategy);
            return reinterpret_cast<Node*>(make_opclause(op, BOOLOID, false, reinterpret_cast<Expr*>(n),
                                                         reinterpret_cast<Expr*>(c), InvalidOid, InvalidOid));
        };
        if (first == last) {
            q->jointree->quals = bound(first, BTEqualStrategyNumber);
        } else {
            List* bounds = NIL;
            if (first > 1) bounds = lappend(bounds, bound(first, BTGreaterEqualStrategyNumber));
            if (last != std::numeric_limits<int64>::max()) bounds = lappend(bounds, bound(last, BTLessEqualStrategyNumber));
            q->jointree->quals = list_length(bounds) == 1 ? static_cast<Node*>(linitial(bounds))
                                                          : reinterpret_cast<Node*>(make_andclause(bounds));
        }
    });
}

bool having_conditions_to_where(Query* q) {
    if (q->havingQual == nullptr || q->groupClause == NIL || q->groupingSets != NIL || q->setOperations != nullptr ||
        q->jointree == nullptr)
        return false;
    return call([&] {
        List* kept = NIL;
        List* moved = NIL;
        ListCell* lc;
        foreach (lc, conjuncts_of(q->havingQual)) {
            Node* condition = static_cast<Node*>(lfirst(lc));
            if (checkExprHasSubLink(condition) && !contain_aggs_of_level(condition, 0) &&
                !contain_volatile_functions(condition))
                moved = lappend(moved, condition);
            else
                kept = lappend(kept, condition);
        }
        if (moved == NIL) return false;
        q->havingQual = kept == NIL ? nullptr : reinterpret_cast<Node*>(make_ands_explicit(kept));
        q->jointree->quals =
            reinterpret_cast<Node*>(make_ands_explicit(list_concat(conjuncts_of(q->jointree->quals), moved)));
        return true;
    });
}

bool split_having_step(Query* q) {
    if (q->havingQual == nullptr || q->setOperations != nullptr || q->groupingSets != NIL || q->hasTargetSRFs ||
        q->hasWindowFuncs || q->distinctClause != NIL || q->limitCount != nullptr || q->limitOffset != nullptr ||
        q->rowMarks != NIL || q->hasRecursive)
        return false;
    // HAVING without aggregates or GROUP BY makes the query one group,
    // which the aggregation keeps as it is (with a subquery in HAVING it is
    // split below, the step under it kept one group by a count(*)).
    if (!q->hasAggs && q->groupClause == NIL && !checkExprHasSubLink(q->havingQual)) return false;
    if (q->hasSubLinks && !call([&] { return subqueries_only_in_having(q); })) return false;
    // (the step over the aggregation reads no WITH query, which goes with
    // the aggregation: HAVING's subqueries could not read one; random
    // views, seed 1812796004, 42P01)
    if (q->cteList != NIL && q->hasSubLinks) return false;
    // Otherwise the aggregation recomputes its groups, and a HAVING on
    // their rows costs nothing more.
    if (not_from_partial_state(reinterpret_cast<Node*>(q->targetList), nullptr) ||
        not_from_partial_state(q->havingQual, nullptr))
        return false;
    // A group key read from a subquery in FROM or a view (HAVING's scalar
    // subquery is a group key since join_subqueries, then a part): every
    // change of it moves every group, which a part of its own would only
    // store once more (TPC-H Q11: 2.5x the maintenance time split).
    bool keyed_by_query = false;
    call([&] {
        ListCell* lc;
        foreach (lc, q->groupClause) {
            Node* key = get_sortgroupclause_expr(static_cast<SortGroupClause*>(lfirst(lc)), q->targetList);
            ListCell* vc;
            foreach (vc, pull_var_clause(key, PVC_RECURSE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS)) {
                const Var* v = static_cast<Var*>(lfirst(vc));
                if (v->varlevelsup != 0) continue;
                const RangeTblEntry* rte = rt_fetch(v->varno, q->rtable);
                keyed_by_query |= rte->rtekind == RTE_SUBQUERY ||
                                  (rte->rtekind == RTE_RELATION && get_rel_relkind(rte->relid) == RELKIND_VIEW);
            }
        }
    });
    if (keyed_by_query) return false;
    split_aggregation(q, Step::Having);
    return true;
}

bool split_window_steps(Query* q) {
    if (q->setOperations != nullptr || q->hasTargetSRFs) return false;
    // (grouping sets under DISTINCT: the query under it becomes a part,
    // where grouping_sets.hpp rewrites them)
    if (q->groupingSets != NIL) {
        if (q->distinctClause == NIL || q->hasDistinctOn || q->hasWindowFuncs) return false;
        split_distinct(q);
        return true;
    }
    if (q->hasDistinctOn) {
        if (q->hasWindowFuncs || q->limitCount != nullptr || q->limitOffset != nullptr) return false;  // (refused)
        notice("DISTINCT ON keeps, of the rows tied in ORDER BY, the one first by its output columns");
        split_distinct_on(q);
        return true;
    }
    const bool aggregates = q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr;
    if (q->distinctClause != NIL && (q->hasWindowFuncs || aggregates)) {
        split_distinct(q);  // (the query under it, if grouped and windowed, is split in turn as a part)
        return true;
    }
    if (!q->hasWindowFuncs || !aggregates) return false;
    split_aggregation(q, Step::Window);
    return true;
}

}  // namespace ivm::pg
