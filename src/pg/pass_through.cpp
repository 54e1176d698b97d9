#include "pg/pass_through.hpp"

namespace ivm::pg {
namespace {

// Counts the references to the recursive reference's columns, at any depth
// of subqueries, through the aliases of joins.  Plain C structures only:
// the walk runs inside call() and may raise.
struct References {
    Query* rule;
    int recursive;
    int depth;       // of the query being walked, below the rule
    int* per_column; // [attno]: how often the column is read
    int columns;
};

bool count_references(Node* node, void* raw);

void count_all(References* r) {
    for (int a = 1; a <= r->columns; ++a) r->per_column[a] += 2;  // (a whole row reads every column)
}

bool count_var(Var* var, References* r) {
    if (static_cast<int>(var->varlevelsup) != r->depth) return false;
    if (var->varno == r->recursive) {
        if (var->varattno <= 0 || var->varattno > r->columns) count_all(r);
        else r->per_column[var->varattno] += 1;
        return false;
    }
    RangeTblEntry* rte = rt_fetch(var->varno, r->rule->rtable);
    if (rte->rtekind != RTE_JOIN) return false;
    if (var->varattno <= 0) {
        count_all(r);
        return false;
    }
    // A join's column (USING): what it aliases, read at the rule's level.
    References alias = *r;
    alias.depth = 0;
    return count_references(static_cast<Node*>(list_nth(rte->joinaliasvars, var->varattno - 1)), &alias);
}

bool count_references(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* r = static_cast<References*>(raw);
    if (IsA(node, Var)) return count_var(reinterpret_cast<Var*>(node), r);
    if (IsA(node, Query)) {
        r->depth += 1;
        const bool stop = query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(count_references),
                                            raw, QTW_IGNORE_JOINALIASES);
        r->depth -= 1;
        return stop;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(count_references), raw);
}

}  // namespace

bool* pass_through_columns(Query* rule, int recursive) {
    const RangeTblEntry* rte = rt_fetch(recursive, rule->rtable);
    const int columns = list_length(rte->eref->colnames);
    int* per_column = static_cast<int*>(palloc0(sizeof(int) * (columns + 1)));
    References refs{rule, recursive, 0, per_column, columns};
    query_tree_walker(rule, reinterpret_cast<bool (*)()>(count_references), &refs, QTW_IGNORE_JOINALIASES);
    bool* passes = static_cast<bool*>(palloc0(sizeof(bool) * (list_length(rule->targetList) + 1)));
    int i = 0;
    ListCell* lc;
    foreach (lc, rule->targetList) {
        const auto* tle = static_cast<const TargetEntry*>(lfirst(lc));
        if (tle->resjunk) continue;
        ++i;
        const auto* var = reinterpret_cast<const Var*>(tle->expr);
        passes[i - 1] = IsA(tle->expr, Var) && var->varlevelsup == 0 && var->varno == recursive && var->varattno == i &&
                        i <= columns && per_column[i] == 1;
    }
    pfree(per_column);
    return passes;
}

}  // namespace ivm::pg
