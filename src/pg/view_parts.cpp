#include "pg/view_parts.hpp"

#include "pg/analyze.hpp"
#include "pg/boundary.hpp"

namespace ivm::pg {
namespace {

// Whether a subquery would be expanded into the query (or refused there
// for what a part would not help with either).
bool needs_part(const Query* sub) {
    if (sub->commandType != CMD_SELECT || sub->limitCount != nullptr || sub->limitOffset != nullptr ||
        sub->hasWindowFuncs || sub->rowMarks != NIL || sub->hasRecursive)
        return false;
    return sub->hasAggs || sub->groupClause != NIL || sub->havingQual != nullptr || sub->distinctClause != NIL ||
           sub->setOperations != nullptr;
}

// A part reads what its own query names; a subquery reading its outer
// query's WITH queries cannot stand alone.
bool reads_outer_with(Node* node, void* raw) {
    if (node == nullptr) return false;
    if (IsA(node, Query)) {
        auto* depth = static_cast<int*>(raw);
        Query* q = reinterpret_cast<Query*>(node);
        ListCell* lc;
        foreach (lc, q->rtable) {
            auto* rte = static_cast<RangeTblEntry*>(lfirst(lc));
            if (rte->rtekind == RTE_CTE && static_cast<int>(rte->ctelevelsup) > *depth) return true;
        }
        ++*depth;
        const bool found = query_tree_walker(q, reinterpret_cast<bool (*)()>(reads_outer_with), raw, 0);
        --*depth;
        return found;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reads_outer_with), raw);
}

void from_tree(Query* q, Node* node, std::vector<RangeTblEntry*>& found) {
    if (node == nullptr) return;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist) from_tree(q, static_cast<Node*>(lfirst(lc)), found);
    } else if (IsA(node, JoinExpr)) {
        from_tree(q, reinterpret_cast<JoinExpr*>(node)->larg, found);
        from_tree(q, reinterpret_cast<JoinExpr*>(node)->rarg, found);
    } else if (IsA(node, RangeTblRef)) {
        RangeTblEntry* rte = rt_fetch(reinterpret_cast<RangeTblRef*>(node)->rtindex, q->rtable);
        int depth = 0;
        if (rte->rtekind == RTE_SUBQUERY && !rte->lateral && rte->subquery != nullptr && needs_part(rte->subquery) &&
            !reads_outer_with(reinterpret_cast<Node*>(rte->subquery), &depth))
            found.push_back(rte);
    }
}

}  // namespace

std::vector<PartNeeded> parts_needed(Query* q) {
    std::vector<RangeTblEntry*> found;
    if (q->setOperations == nullptr) call([&] { from_tree(q, reinterpret_cast<Node*>(q->jointree), found); });
    std::vector<PartNeeded> parts;
    for (RangeTblEntry* rte : found) parts.push_back(PartNeeded{rte, query_text(rte->subquery)});
    return parts;
}

void read_part(RangeTblEntry* rte, Oid part_view) {
    rte->rtekind = RTE_RELATION;
    rte->relid = part_view;
    rte->relkind = RELKIND_VIEW;
    rte->rellockmode = AccessShareLock;
    rte->subquery = nullptr;
    rte->security_barrier = false;
    rte->inh = true;  // (a view has no children; printed without ONLY)
    rte->requiredPerms = ACL_SELECT;
}

}  // namespace ivm::pg
