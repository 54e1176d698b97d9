#include "pg/expand_views.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/relations.hpp"

extern "C" {
#include "rewrite/rewriteManip.h"
}

namespace ivm::pg {
namespace {

constexpr int max_depth = 32;  // views of views of ...

bool is_plain_view(const RangeTblEntry* rte) {
    if (rte->rtekind != RTE_RELATION) return false;
    const Oid relid = rte->relid;
    if (call([&] { return get_rel_relkind(relid); }) != RELKIND_VIEW) return false;
    return !catalog::find_by_view(relid).has_value();  // an ivm view is read through its storage
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
        if (rte->rtekind != RTE_JOIN) continue;
        rte->rtekind = RTE_RESULT;
        rte->joinaliasvars = rte->joinleftcols = rte->joinrightcols = NIL;
        rte->eref = makeAlias(rte->eref->aliasname, NIL);
        rte->alias = nullptr;
    }
}

std::string view_name(Oid relid) { return qualified_name(relid); }

void refuse_unless_spj(const Query* v, Oid relid) {
    const bool spj = v->commandType == CMD_SELECT && v->setOperations == nullptr && !v->hasAggs &&
                     v->groupClause == NIL && v->havingQual == nullptr && v->distinctClause == NIL &&
                     v->limitCount == nullptr && v->limitOffset == nullptr && !v->hasWindowFuncs &&
                     !v->hasTargetSRFs && v->cteList == NIL && !v->hasSubLinks && v->rowMarks == NIL &&
                     v->groupingSets == NIL;
    if (!spj)
        throw unsupported("the view " + view_name(relid) + " as a base relation",
                          "A plain view is expanded into the query; it must be a select-project-join query itself "
                          "(no aggregates, DISTINCT, set operations, LIMIT or subqueries).");
}

void expand(Query* q, int depth, std::vector<Oid>& expanded) {
    std::vector<int> refs;
    if (!collect_refs(reinterpret_cast<Node*>(q->jointree), refs)) return;
    std::vector<int> views;
    for (int rti : refs)
        if (is_plain_view(rt_fetch(rti, q->rtable))) views.push_back(rti);
    if (views.empty()) return;
    if (depth > max_depth) throw unsupported("views nested more than 32 deep");
    call([&] { flatten_inner_joins(q, refs); });
    for (int rti : views) {
        RangeTblEntry* rte = rt_fetch(rti, q->rtable);
        const Oid relid = rte->relid;
        Query* v = call([&] {
            Relation rel = table_open(relid, AccessShareLock);
            Query* copy = static_cast<Query*>(copyObjectImpl(get_view_query(rel)));
            table_close(rel, AccessShareLock);
            AcquireRewriteLocks(copy, true, false);
            return copy;
        });
        refuse_unless_spj(v, relid);
        expand(v, depth + 1, expanded);
        std::vector<int> inner_refs;
        if (!collect_refs(reinterpret_cast<Node*>(v->jointree), inner_refs))
            throw unsupported("the view " + view_name(relid) + ", which has an outer join, as a base relation");
        expanded.push_back(relid);
        call([&] {
            flatten_inner_joins(v, inner_refs);
            const int offset = list_length(q->rtable);
            OffsetVarNodes(reinterpret_cast<Node*>(v), offset, 0);
            q->rtable = list_concat(q->rtable, v->rtable);
            // The view's columns become its output expressions.
            auto replace = [&](Node* node) {
                return ReplaceVarsFromTargetList(node, rti, 0, rte, v->targetList, REPLACEVARS_REPORT_ERROR, 0, nullptr);
            };
            q->targetList = reinterpret_cast<List*>(replace(reinterpret_cast<Node*>(q->targetList)));
            q->jointree->quals = replace(q->jointree->quals);
            q->havingQual = replace(q->havingQual);
            // Its FROM items take its place, its condition joins the WHERE.
            List* items = NIL;
            ListCell* lc;
            foreach (lc, q->jointree->fromlist) {
                auto* ref = static_cast<RangeTblRef*>(lfirst(lc));
                if (ref->rtindex == rti)
                    items = list_concat(items, v->jointree->fromlist);
                else
                    items = lappend(items, ref);
            }
            q->jointree->fromlist = items;
            if (v->jointree->quals != nullptr)
                q->jointree->quals = q->jointree->quals == nullptr
                                         ? v->jointree->quals
                                         : make_and_qual(q->jointree->quals, v->jointree->quals);
        });
    }
}

}  // namespace

std::vector<Oid> expand_plain_views(Query* q) {
    std::vector<Oid> expanded;
    expand(q, 0, expanded);
    return expanded;
}

}  // namespace ivm::pg
