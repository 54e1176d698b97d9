#include "pg/view_parts.hpp"

#include "pg/analyze.hpp"
#include "pg/boundary.hpp"

namespace ivm::pg {
namespace {

bool has_outer_join(Node* node) {
    if (node == nullptr) return false;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            if (has_outer_join(static_cast<Node*>(lfirst(lc)))) return true;
        return false;
    }
    if (!IsA(node, JoinExpr)) return false;
    auto* join = reinterpret_cast<JoinExpr*>(node);
    return join->jointype != JOIN_INNER || has_outer_join(join->larg) || has_outer_join(join->rarg);
}

// Whether a subquery needs a part: it aggregates, is DISTINCT or a set
// operation, has an outer join, or sits in a query with outer joins (a
// select-project-join one is expanded only among inner joins).  LIMIT and
// the like are refused either way.
bool needs_part(Query* sub, bool among_outer_joins) {
    if (sub->commandType != CMD_SELECT || sub->limitCount != nullptr || sub->limitOffset != nullptr ||
        sub->hasWindowFuncs || sub->rowMarks != NIL || sub->hasRecursive)
        return false;
    return among_outer_joins || sub->hasAggs || sub->groupClause != NIL || sub->havingQual != nullptr ||
           sub->distinctClause != NIL || sub->setOperations != nullptr ||
           has_outer_join(reinterpret_cast<Node*>(sub->jointree));
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

bool part_of_its_own(Query* sub, bool among_outer_joins) {
    int depth = 0;
    return needs_part(sub, among_outer_joins) && !reads_outer_with(reinterpret_cast<Node*>(sub), &depth);
}

struct Found {
    std::vector<RangeTblEntry*> rtes;
    Query* query;
};

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
            found.push_back(Found{{rte}, rte->subquery});
        } else if (CommonTableExpr* cte = with_query(q, rte)) {
            Query* sub = reinterpret_cast<Query*>(cte->ctequery);
            if (!part_of_its_own(sub, outer)) return;
            for (Found& f : found)  // one part for every reference to a WITH query
                if (f.query == sub) {
                    f.rtes.push_back(rte);
                    return;
                }
            found.push_back(Found{{rte}, sub});
        }
    }
}

}  // namespace

std::vector<PartNeeded> parts_needed(Query* q) {
    std::vector<Found> found;
    if (q->setOperations == nullptr)
        call([&] {
            Node* tree = reinterpret_cast<Node*>(q->jointree);
            from_tree(q, tree, has_outer_join(tree), found);
        });
    std::vector<PartNeeded> parts;
    for (const Found& f : found) parts.push_back(PartNeeded{f.rtes, query_text(f.query)});
    return parts;
}

void read_part(Query* q, const PartNeeded& part, Oid part_view) {
    for (RangeTblEntry* rte : part.rtes) {
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
        if (!with) continue;
        if (rte->alias == nullptr) rte->alias = call([&] { return makeAlias(name.c_str(), NIL); });
        // The WITH query goes once nothing at this level reads it.
        bool read = false;
        ListCell* lc;
        foreach (lc, q->rtable) {
            auto* other = static_cast<RangeTblEntry*>(lfirst(lc));
            read |= other->rtekind == RTE_CTE && other->ctelevelsup == 0 && name == other->ctename;
        }
        if (read || q->hasSubLinks) continue;
        call([&] {
            List* kept = NIL;
            ListCell* c;
            foreach (c, q->cteList)
                if (name != static_cast<CommonTableExpr*>(lfirst(c))->ctename) kept = lappend(kept, lfirst(c));
            q->cteList = kept;
        });
    }
}

}  // namespace ivm::pg
