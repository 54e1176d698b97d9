#include "pg/grouping_sets.hpp"

#include "core/sql_text.hpp"
#include "pg/analyze.hpp"
#include "pg/boundary.hpp"
#include "pg/view_parts.hpp"

extern "C" {
#include "parser/parse_agg.h"
#include "parser/parse_oper.h"
#include "rewrite/rewriteManip.h"
}

#include <vector>

namespace ivm::pg {
namespace {

// (a CUBE of 6 keys; each set becomes a part with its own storage)
constexpr int max_sets = 64;

// One arm: its grouping set (sort/group references), the group keys it
// groups by and those it shows as NULL.
struct Arm {
    List* set = NIL;
    List* kept = NIL;
    List* nulled = NIL;
};

// An expression of the query as the arm computes it.  Runs inside call().
Node* in_arm(Node* node, void* raw) {
    if (node == nullptr) return nullptr;
    const auto* arm = static_cast<Arm*>(raw);
    // (aggregates read the rows, not the keys; a subquery reads none of them)
    if (IsA(node, Aggref) || IsA(node, Query)) return node;
    if (IsA(node, GroupingFunc)) {
        // a bit per argument, the last one lowest: set where the arm does
        // not group by it
        int32 bits = 0;
        ListCell* lc;
        foreach (lc, reinterpret_cast<GroupingFunc*>(node)->refs)
            bits = (bits << 1) | (list_member_int(arm->set, lfirst_int(lc)) ? 0 : 1);
        return reinterpret_cast<Node*>(makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(bits), false, true));
    }
    ListCell* lc;
    foreach (lc, arm->kept)
        if (equal(node, lfirst(lc))) return node;
    foreach (lc, arm->nulled)
        if (equal(node, lfirst(lc)))
            return reinterpret_cast<Node*>(makeNullConst(exprType(node), exprTypmod(node), exprCollation(node)));
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(in_arm), raw);
}

// The subqueries of an expression (not those within them) into *(List**)
// raw.  Runs inside call().
bool gather_subqueries(Node* node, void* raw) {
    if (node == nullptr) return false;
    if (IsA(node, SubLink)) {
        auto* link = reinterpret_cast<SubLink*>(node);
        *static_cast<List**>(raw) = lappend(*static_cast<List**>(raw), link->subselect);
        return gather_subqueries(link->testexpr, raw);
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(gather_subqueries), raw);
}

// q grouped by one of its grouping sets.  Runs inside call().
Query* arm_query(const Query* q, List* set) {
    Query* arm = static_cast<Query*>(copyObjectImpl(q));
    Arm a;
    a.set = set;
    List* group = NIL;
    ListCell* lc;
    foreach (lc, q->groupClause) {
        auto* clause = static_cast<SortGroupClause*>(lfirst(lc));
        Node* key = get_sortgroupclause_expr(clause, q->targetList);
        if (list_member_int(set, static_cast<int>(clause->tleSortGroupRef))) {
            a.kept = lappend(a.kept, key);
            group = lappend(group, copyObjectImpl(clause));
        } else {
            a.nulled = lappend(a.nulled, key);
        }
    }
    arm->groupingSets = NIL;
    arm->groupDistinct = false;
    arm->groupClause = group;
    arm->sortClause = NIL;
    foreach (lc, arm->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        te->expr = reinterpret_cast<Expr*>(in_arm(reinterpret_cast<Node*>(te->expr), &a));
        if (te->ressortgroupref != 0 && !list_member_int(set, static_cast<int>(te->ressortgroupref)))
            te->ressortgroupref = 0;
    }
    arm->havingQual = in_arm(arm->havingQual, &a);
    // The empty set is one group, also without aggregates (GROUPING() was
    // one) and over no rows: HAVING makes the arm one.
    if (group == NIL && arm->havingQual == nullptr && !contain_aggs_of_level(reinterpret_cast<Node*>(arm->targetList), 0))
        arm->havingQual = reinterpret_cast<Node*>(makeBoolConst(true, false));
    return arm;
}

// The position of q's first output column whose type sorts, or 0.  Runs
// inside call().
int sortable_column(const Query* q) {
    int position = 0;
    ListCell* lc;
    foreach (lc, q->targetList) {
        const auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk) continue;
        ++position;
        Oid sort = InvalidOid;
        get_sort_group_operators(exprType(reinterpret_cast<Node*>(te->expr)), false, false, false, &sort, nullptr,
                                 nullptr, nullptr);
        if (OidIsValid(sort)) return position;
    }
    return 0;
}

}  // namespace

std::optional<std::string> grouping_sets_as_union(Query* q) {
    if (q->groupingSets == NIL) return std::nullopt;
    // (refused here: the rewrites after this one do not expect grouping sets)
    if (q->hasWindowFuncs || q->hasDistinctOn)
        throw unsupported("GROUPING SETS, ROLLUP and CUBE under window functions or DISTINCT ON");
    if (q->limitCount != nullptr || q->limitOffset != nullptr) throw unsupported("LIMIT and OFFSET");
    if (q->distinctClause != NIL) return std::nullopt;  // (split_distinct makes the query under it a part first)
    List* subqueries = call([&] {
        List* found = NIL;
        gather_subqueries(reinterpret_cast<Node*>(q->targetList), &found);
        gather_subqueries(q->havingQual, &found);
        return found;
    });
    ListCell* sc;
    foreach (sc, subqueries)
        if (reads_outer_columns(static_cast<Query*>(lfirst(sc))))
            throw unsupported("GROUPING SETS, ROLLUP and CUBE with correlated subqueries in the select list or HAVING");
    List* sets = call([&] { return expand_grouping_sets(q->groupingSets, q->groupDistinct, -1); });
    if (list_length(sets) > max_sets)
        throw unsupported("more than " + std::to_string(max_sets) + " grouping sets",
                          "Each grouping set is a view of its own: split the CUBE or ROLLUP.");
    List* arms = call([&] {
        List* made = NIL;
        ListCell* lc;
        foreach (lc, sets) made = lappend(made, arm_query(q, static_cast<List*>(lfirst(lc))));
        return made;
    });
    std::vector<std::string> texts;
    ListCell* lc;
    foreach (lc, arms) texts.push_back("(" + query_text(static_cast<Query*>(lfirst(lc))) + ")");
    // (ORDER BY is ignored as for any view, and said so: kept on a column
    // that sorts)
    const int sorted = q->sortClause != NIL ? call([&] { return sortable_column(q); }) : 0;
    return sql::join(texts, " UNION ALL ") + (sorted > 0 ? " ORDER BY " + std::to_string(sorted) : "");
}

}  // namespace ivm::pg
