#include "pg/full_joins.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/expand_views.hpp"
#include "pg/occurrences.hpp"

namespace ivm::pg {
namespace {

// The slot in the join tree that holds the first FULL JOIN, or null.
Node** find_full_join(Node** slot) {
    Node* node = *slot;
    if (node == nullptr) return nullptr;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            if (Node** found = find_full_join(reinterpret_cast<Node**>(&lfirst(lc)))) return found;
        return nullptr;
    }
    if (IsA(node, JoinExpr)) {
        auto* join = reinterpret_cast<JoinExpr*>(node);
        if (join->jointype == JOIN_FULL) return slot;
        if (Node** found = find_full_join(&join->larg)) return found;
        return find_full_join(&join->rarg);
    }
    return nullptr;
}

// Replaces the columns of one relation by NULLs of their types, in the
// query and its subqueries.
struct NullContext {
    int rtindex;
    int depth;
};
Node* null_columns(Node* node, void* raw) {
    if (node == nullptr) return nullptr;
    auto* ctx = static_cast<NullContext*>(raw);
    if (IsA(node, Var)) {
        auto* var = reinterpret_cast<Var*>(node);
        if (static_cast<int>(var->varno) == ctx->rtindex && static_cast<int>(var->varlevelsup) == ctx->depth)
            return reinterpret_cast<Node*>(makeNullConst(var->vartype, var->vartypmod, var->varcollid));
        return static_cast<Node*>(copyObjectImpl(node));
    }
    if (IsA(node, Query)) {
        ++ctx->depth;
        Node* done = reinterpret_cast<Node*>(query_tree_mutator(
            reinterpret_cast<Query*>(node), reinterpret_cast<Node* (*)()>(null_columns), raw, QTW_IGNORE_RANGE_TABLE));
        --ctx->depth;
        return done;
    }
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(null_columns), raw);
}

}  // namespace

std::vector<Query*> split_full_joins(Query* q) {
    Node** slot = find_full_join(reinterpret_cast<Node**>(&q->jointree));
    if (slot == nullptr) return {q};
    auto* full = reinterpret_cast<JoinExpr*>(*slot);
    if (!IsA(full->larg, RangeTblRef) || !IsA(full->rarg, RangeTblRef))
        throw unsupported("FULL JOIN of joins",
                          "Join the relations of a side in a view of their own and full-join that view.");
    if (q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr) throw unsupported("FULL JOIN under aggregation");
    // Both halves read columns by their relations, not through the join's
    // merged USING columns.
    Query* flat = call([&] {
        Query* copy = static_cast<Query*>(copyObjectImpl(q));
        flatten_join_columns(copy);
        return copy;
    });
    Query* left = call([&] { return static_cast<Query*>(copyObjectImpl(flat)); });
    auto* left_join = reinterpret_cast<JoinExpr*>(*find_full_join(reinterpret_cast<Node**>(&left->jointree)));
    left_join->jointype = JOIN_LEFT;
    rt_fetch(left_join->rtindex, left->rtable)->jointype = JOIN_LEFT;

    Query* padded = call([&] { return static_cast<Query*>(copyObjectImpl(flat)); });
    Node** padded_slot = find_full_join(reinterpret_cast<Node**>(&padded->jointree));
    auto* join = reinterpret_cast<JoinExpr*>(*padded_slot);
    const int a = reinterpret_cast<RangeTblRef*>(join->larg)->rtindex;
    SubLink* matched = exists_matching(padded, a, join->quals, nullptr);
    call([&] {
        *padded_slot = join->rarg;
        leave_out_of_from(rt_fetch(join->rtindex, padded->rtable));
        NullContext ctx{a, 0};
        padded->targetList = reinterpret_cast<List*>(null_columns(reinterpret_cast<Node*>(padded->targetList), &ctx));
        padded->jointree = reinterpret_cast<FromExpr*>(null_columns(reinterpret_cast<Node*>(padded->jointree), &ctx));
        Node* unmatched = reinterpret_cast<Node*>(makeBoolExpr(NOT_EXPR, list_make1(matched), -1));
        padded->jointree->quals = make_and_qual(padded->jointree->quals, unmatched);
        padded->hasSubLinks = true;
    });
    std::vector<Query*> blocks = split_full_joins(left);
    for (Query* b : split_full_joins(padded)) blocks.push_back(b);
    return blocks;
}

}  // namespace ivm::pg
