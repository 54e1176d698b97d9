#include "pg/occurrences.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/keys.hpp"
#include "pg/relations.hpp"
#include "pg/view_parts.hpp"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "rewrite/rewriteManip.h"
}

#include <algorithm>

namespace ivm::pg {
namespace {

using Role = Source::Role;

std::string relation_construct(const char* kind, Oid relid) {
    return std::string(kind) + " " + qualified_name(relid);
}

// A base relation read by the query: a table (partitioned or with
// children unless read with ONLY), or another ivm view.
void refuse_relation(RangeTblEntry* rte) {
    switch (rte->rtekind) {
        case RTE_RELATION: break;
        case RTE_SUBQUERY:
            if (rte->lateral)
                throw unsupported("LATERAL subqueries other than select-project-join ones (with ORDER BY and a "
                                  "constant LIMIT, or none) under inner joins or on the right of a LEFT JOIN and, in "
                                  "the view's own FROM, ones that aggregate or group (without DISTINCT, LIMIT or window "
                                  "functions)");
            throw unsupported("subqueries in FROM");
        case RTE_FUNCTION:
            throw unsupported("functions in FROM other than immutable ones of constants or of the columns beside them");
        case RTE_VALUES: throw unsupported("VALUES in FROM other than of constants");
        case RTE_CTE: throw unsupported("WITH");
        case RTE_TABLEFUNC: throw unsupported("table functions in FROM");
        default: throw unsupported("this kind of FROM item");
    }
    if (rte->tablesample != nullptr) throw unsupported("TABLESAMPLE");
    const Oid relid = rte->relid;
    char relkind = call([&] { return get_rel_relkind(relid); });
    if (relkind == RELKIND_VIEW) {
        // Another incrementally maintained view: read through its storage.
        std::optional<catalog::Entry> inner = catalog::find_by_view(relid);
        if (inner) {
            if (!inner->populated)
                throw unsupported(relation_construct("the unpopulated view", relid) + " as a base relation");
            return;
        }
    }
    char persistence = call([&] { return get_rel_persistence(relid); });
    switch (relkind) {
        case RELKIND_RELATION:
        case RELKIND_PARTITIONED_TABLE: break;
        case RELKIND_VIEW: throw unsupported(relation_construct("the view", relid) + " as a base table");
        case RELKIND_MATVIEW: throw unsupported(relation_construct("the materialized view", relid) + " as a base table");
        case RELKIND_FOREIGN_TABLE: throw unsupported(relation_construct("the foreign table", relid) + " as a base table");
        default: throw unsupported(relation_construct("the relation", relid) + " as a base table");
    }
    if (persistence == RELPERSISTENCE_TEMP) {
        const char* name = call([&] { return get_rel_name(relid); });
        throw unsupported(std::string("the temporary table ") + name + " as a base table");
    }
    // A statement on a parent hands over its children's rows in the
    // transition tables too, so ONLY cannot tell them apart.  (Without
    // ONLY, every descendant carries the view's triggers.)
    if (!rte->inh && (relkind == RELKIND_PARTITIONED_TABLE || call([&] { return has_subclass(relid); })))
        throw unsupported("FROM ONLY " + relation_construct("over the parent table", relid));
}

bool has_sublink(Node* node) {
    return node != nullptr && call([&] { return checkExprHasSubLink(node); });
}

}  // namespace

List* conjuncts_of(Node* quals) {
    if (quals == nullptr) return NIL;
    return call([&] { return list_copy(make_ands_implicit(reinterpret_cast<Expr*>(quals))); });
}

namespace {

// The SubLinks of an expression, outermost ones only.
bool gather_sublinks(Node* node, void* raw) {
    if (node == nullptr) return false;
    if (IsA(node, SubLink)) {
        auto* links = static_cast<List**>(raw);
        *links = lappend(*links, node);
        return false;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(gather_sublinks), raw);
}

struct Walk {
    const char* cte;
    bool linear_only;
    std::vector<Occurrence>* out;
};

bool any_var(Node* node, void*) {
    if (node == nullptr) return false;
    if (IsA(node, Var) || IsA(node, PlaceHolderVar) || IsA(node, SubLink)) return true;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(any_var), nullptr);
}

}  // namespace

bool constant_relation(const RangeTblEntry* rte) {
    Node* rows = rte->rtekind == RTE_FUNCTION ? reinterpret_cast<Node*>(rte->functions)
                 : rte->rtekind == RTE_VALUES ? reinterpret_cast<Node*>(rte->values_lists)
                                              : nullptr;
    if (rows == nullptr || rte->lateral) return false;
    return call([&] { return !any_var(rows, nullptr) && !contain_mutable_functions(rows); });
}

namespace {

// Whether an expression reads more than columns of its own query level:
// a query above, a placeholder, a subquery.
bool reads_beyond_level(Node* node, void*) {
    if (node == nullptr) return false;
    if (IsA(node, Var)) return reinterpret_cast<Var*>(node)->varlevelsup != 0;
    if (IsA(node, PlaceHolderVar) || IsA(node, SubLink) || IsA(node, Param)) return true;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reads_beyond_level), nullptr);
}

// Whether one of `vars` (of q's level) reads a LATERAL subquery's columns.
bool reads_lateral_columns(const Query* q, List* vars) {
    ListCell* vc;
    foreach (vc, vars) {
        if (!IsA(lfirst(vc), Var)) continue;
        const RangeTblEntry* read = rt_fetch(static_cast<Var*>(lfirst(vc))->varno, q->rtable);
        if (read->rtekind == RTE_SUBQUERY && read->lateral) return true;
    }
    return false;
}

// `beside_outer_join`: a LATERAL subquery beside an outer join, whose
// relations a part may replace (view_parts.hpp); else a function in FROM
// or a LATERAL subquery over a LATERAL subquery's columns, which the
// rewrite joining a LATERAL subquery that aggregates (scalar_subqueries.cpp)
// leaves behind.
bool lateral_conflict(Node* node, void* beside_outer_join) {
    if (node == nullptr) return false;
    if (!IsA(node, Query))
        return expression_tree_walker(node, reinterpret_cast<bool (*)()>(lateral_conflict), beside_outer_join);
    auto* q = reinterpret_cast<Query*>(node);
    const bool outer = *static_cast<const bool*>(beside_outer_join);
    ListCell* lc;
    foreach (lc, q->rtable) {
        const auto* rte = static_cast<const RangeTblEntry*>(lfirst(lc));
        const bool lateral = rte->rtekind == RTE_SUBQUERY && rte->lateral;
        if (outer && lateral && has_outer_join(reinterpret_cast<Node*>(q->jointree))) return true;
        if (!outer && lateral &&
            reads_lateral_columns(q, pull_vars_of_level(reinterpret_cast<Node*>(rte->subquery), 1)))
            return true;
        if (!outer && rte->rtekind == RTE_FUNCTION &&
            reads_lateral_columns(q, pull_vars_of_level(reinterpret_cast<Node*>(rte->functions), 0)))
            return true;
    }
    return query_tree_walker(q, reinterpret_cast<bool (*)()>(lateral_conflict), beside_outer_join, 0);
}

}  // namespace

bool lateral_beside_outer_join(Query* q) {
    bool beside_outer_join = true;
    return call([&] { return lateral_conflict(reinterpret_cast<Node*>(q), &beside_outer_join); });
}

bool over_lateral_columns(Query* q) {
    bool beside_outer_join = false;
    return call([&] { return lateral_conflict(reinterpret_cast<Node*>(q), &beside_outer_join); });
}

bool has_outer_join(Node* node) {
    if (node == nullptr) return false;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            if (has_outer_join(static_cast<Node*>(lfirst(lc)))) return true;
        return false;
    }
    if (!IsA(node, JoinExpr)) return false;
    const auto* join = reinterpret_cast<JoinExpr*>(node);
    return join->jointype != JOIN_INNER || has_outer_join(join->larg) || has_outer_join(join->rarg);
}

bool computed_relation(const Query* q, const RangeTblEntry* rte) {
    if (constant_relation(rte)) return true;
    if (rte->rtekind != RTE_FUNCTION) return false;
    Node* rows = reinterpret_cast<Node*>(rte->functions);
    return call([&] {
        return !reads_beyond_level(rows, nullptr) && !contain_mutable_functions(rows) &&
               !has_outer_join(reinterpret_cast<Node*>(q->jointree));
    });
}

namespace {

void add(Walk& w, Query* q, int rti, Role role, JoinExpr* join, const std::vector<SubqueryStep>& path) {
    RangeTblEntry* rte = rt_fetch(rti, q->rtable);
    // Immutable functions of constants or of the columns beside them, and
    // VALUES of constants: read in the templates as they are (not in a
    // recursive query, whose DRed steps read only tables).
    if (w.cte == nullptr && computed_relation(q, rte)) return;
    const bool recursive = rte->rtekind == RTE_CTE && w.cte != nullptr && strcmp(rte->ctename, w.cte) == 0;
    if (!recursive) refuse_relation(rte);
    Occurrence o;
    o.owner = q;
    o.rtindex = rti;
    o.role = role;
    o.join = join;
    o.path = path;
    w.out->push_back(std::move(o));
}

void from_tree(Walk& w, Query* q, Node* node, const std::vector<SubqueryStep>& path) {
    if (node == nullptr) return;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            from_tree(w, q, static_cast<Node*>(lfirst(lc)), path);
        return;
    }
    if (IsA(node, JoinExpr)) {
        auto* join = reinterpret_cast<JoinExpr*>(node);
        const char* name = join->jointype == JOIN_LEFT    ? "LEFT JOIN"
                           : join->jointype == JOIN_RIGHT ? "RIGHT JOIN"
                           : join->jointype == JOIN_FULL  ? "FULL JOIN"
                                                          : nullptr;
        if (join->jointype != JOIN_INNER && (name == nullptr || join->jointype == JOIN_FULL || w.linear_only))
            throw unsupported(name ? name : "this kind of join");
        if (has_sublink(join->quals)) throw unsupported("subqueries in JOIN conditions");
        if (join->jointype == JOIN_INNER) {
            from_tree(w, q, join->larg, path);
            from_tree(w, q, join->rarg, path);
            return;
        }
        if (!path.empty()) throw unsupported(std::string(name) + " inside a subquery");
        // The nullable side is one relation; the preserved side any tree
        // of inner and outer joins.
        Node* preserved = join->jointype == JOIN_LEFT ? join->larg : join->rarg;
        Node* nullable = join->jointype == JOIN_LEFT ? join->rarg : join->larg;
        from_tree(w, q, preserved, path);
        if (!IsA(nullable, RangeTblRef))
            throw unsupported(std::string(name) + " whose nullable side is a join",
                              "Join the relations of that side in a view of their own and outer-join that view.");
        add(w, q, reinterpret_cast<RangeTblRef*>(nullable)->rtindex, Role::Nullable, join, path);
        return;
    }
    if (!IsA(node, RangeTblRef)) throw unsupported("this kind of FROM item");
    add(w, q, reinterpret_cast<RangeTblRef*>(node)->rtindex, path.empty() ? Role::Linear : Role::Nested, nullptr, path);
}

// What a subquery of WHERE may be: a select-project-join (DISTINCT
// allowed: existence does not see it).
void check_subquery(SubLink* link) {
    switch (link->subLinkType) {
        case EXISTS_SUBLINK:
        case ANY_SUBLINK:
        case ALL_SUBLINK: break;
        case EXPR_SUBLINK: throw unsupported("scalar subqueries");
        case ARRAY_SUBLINK: throw unsupported("ARRAY(subquery)");
        default: throw unsupported("row comparisons with subqueries");
    }
    if (has_sublink(link->testexpr)) throw unsupported("subqueries compared with subqueries");
    auto* sub = reinterpret_cast<Query*>(link->subselect);
    if (sub->setOperations != nullptr) throw unsupported("set operations in subqueries");
    if (sub->hasAggs || sub->groupClause != NIL || sub->havingQual != nullptr || sub->groupingSets != NIL)
        throw unsupported("aggregation in subqueries");
    if (sub->cteList != NIL) throw unsupported("WITH in subqueries");
    if (sub->limitCount != nullptr || sub->limitOffset != nullptr) throw unsupported("LIMIT and OFFSET in subqueries");
    if (sub->hasWindowFuncs) throw unsupported("window functions");
    if (sub->hasTargetSRFs) throw unsupported("set-returning functions in the select list");
    if (sub->hasDistinctOn) throw unsupported("DISTINCT ON");
    if (has_sublink(reinterpret_cast<Node*>(sub->targetList))) throw unsupported("subqueries in the select list");
}

// The subquery's output column `param` names, where it is a plain column.
Node* subquery_column(const SubLink* link, const Node* param) {
    if (!IsA(param, Param) || reinterpret_cast<const Param*>(param)->paramkind != PARAM_SUBLINK) return nullptr;
    const auto* sub = reinterpret_cast<const Query*>(link->subselect);
    const int resno = reinterpret_cast<const Param*>(param)->paramid;
    if (resno < 1 || resno > list_length(sub->targetList)) return nullptr;
    return reinterpret_cast<Node*>(static_cast<TargetEntry*>(list_nth(sub->targetList, resno - 1))->expr);
}

// Whether `x op ANY/ALL (SELECT y ...)`, in `owner`'s WHERE, is never NULL:
// x and y are columns that cannot be NULL (as not_null_column says) and op
// a strict comparison of a btree operator family, which answers true or
// false for any two values.  Judged on the query as written (the changed
// rows and the tables' states a filter reads later keep the tables' NOT
// NULL columns).  Inside call().
bool compares_never_unknown(Query* owner, SubLink* link) {
    auto* op = reinterpret_cast<OpExpr*>(link->testexpr);
    if (op == nullptr || !IsA(op, OpExpr) || list_length(op->args) != 2 || !op_strict(op->opno) ||
        get_op_btree_interpretation(op->opno) == NIL)
        return false;
    Node* x = strip_implicit_coercions(static_cast<Node*>(linitial(op->args)));
    Node* y = subquery_column(link, strip_implicit_coercions(static_cast<Node*>(lsecond(op->args))));
    return y != nullptr && not_null_column(owner, x) &&
           not_null_column(reinterpret_cast<Query*>(link->subselect), strip_implicit_coercions(y));
}

// The occurrences of the subqueries of q's WHERE, depth first.
void where_subqueries(Walk& w, Query* q, const std::vector<SubqueryStep>& path) {
    if (q->jointree == nullptr) return;
    List* conjuncts = conjuncts_of(q->jointree->quals);
    int c = 0;
    ListCell* lc;
    foreach (lc, conjuncts) {
        Node* conjunct = static_cast<Node*>(lfirst(lc));
        List* links = NIL;
        call([&] { gather_sublinks(conjunct, &links); });
        ListCell* ll;
        foreach (ll, links) {
            if (w.linear_only) throw unsupported("subqueries in expressions");
            auto* link = static_cast<SubLink*>(lfirst(ll));
            check_subquery(link);
            auto* sub = reinterpret_cast<Query*>(link->subselect);
            std::vector<SubqueryStep> deeper = path;
            const bool known = link->subLinkType != EXISTS_SUBLINK && call([&] { return compares_never_unknown(q, link); });
            deeper.push_back(SubqueryStep{q, c, link, known});
            from_tree(w, sub, reinterpret_cast<Node*>(sub->jointree), deeper);
            where_subqueries(w, sub, deeper);
        }
        ++c;
    }
}

// x op ALL (...) as x negator-of-op ANY (...), its negation where nothing
// compares unknown; null where op has no negator.
SubLink* negated_all(SubLink* link) {
    const auto* op = reinterpret_cast<const OpExpr*>(link->testexpr);
    const Oid negator = get_negator(op->opno);
    if (!OidIsValid(negator)) return nullptr;
    auto* negated = static_cast<OpExpr*>(copyObjectImpl(op));
    negated->opno = negator;
    negated->opfuncid = get_opcode(negator);
    SubLink* any = static_cast<SubLink*>(copyObjectImpl(link));
    any->subLinkType = ANY_SUBLINK;
    any->testexpr = reinterpret_cast<Node*>(negated);
    return any;
}

// A filter holds where a subquery over the changed rows says the outer
// row may see a different answer: EXISTS finds a changed row; x op ANY
// changes only through a changed row that compares true or unknown, x op
// ALL only through one that compares false or unknown.  Where nothing
// compares unknown, x op ANY is itself the filter, and x op ALL's is x
// (not op) ANY, which the planner can start from: the changed rows first,
// the outer rows by their index (TPC-H Q20's parts renamed forest parts
// read all forest parts' lineitems, then kept those of the renamed ones).
Node* filter_of(SubLink* link, bool never_unknown) {  // (never_unknown: SubqueryStep's)
    if (link->subLinkType == EXISTS_SUBLINK) return reinterpret_cast<Node*>(link);
    if (link->subLinkType == ANY_SUBLINK && never_unknown) return reinterpret_cast<Node*>(link);
    if (link->subLinkType == ALL_SUBLINK && never_unknown)
        if (SubLink* any = negated_all(link)) return reinterpret_cast<Node*>(any);
    BooleanTest* test = makeNode(BooleanTest);
    test->arg = reinterpret_cast<Expr*>(link);
    test->booltesttype = link->subLinkType == ANY_SUBLINK ? IS_NOT_FALSE : IS_NOT_TRUE;
    test->location = -1;
    return reinterpret_cast<Node*>(test);
}

Node* replace_conjunct(Node* quals, int index, Node* replacement) {
    if (quals != nullptr && IsA(quals, BoolExpr) && reinterpret_cast<BoolExpr*>(quals)->boolop == AND_EXPR) {
        List* args = list_copy(reinterpret_cast<BoolExpr*>(quals)->args);
        lfirst(list_nth_cell(args, index)) = replacement;
        return reinterpret_cast<Node*>(makeBoolExpr(AND_EXPR, args, -1));
    }
    return replacement;
}

// Moves an outer join's condition into a subquery over the changed rows
// of its nullable side (range table index 1 there); the preserved side's
// columns become outer references.
struct MoveContext {
    int nullable;
};
Node* move_into_subquery(Node* node, void* raw) {
    if (node == nullptr) return nullptr;
    if (IsA(node, Var)) {
        Var* var = static_cast<Var*>(copyObjectImpl(node));
        const int nullable = static_cast<MoveContext*>(raw)->nullable;
        if (var->varlevelsup == 0 && static_cast<int>(var->varno) == nullable) {
            var->varno = 1;
            var->varnosyn = 1;
            var->varattnosyn = var->varattno;
        } else if (var->varlevelsup == 0) {
            var->varlevelsup = 1;
        }
        return reinterpret_cast<Node*>(var);
    }
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(move_into_subquery), raw);
}

// A change filter's subquery keeps its conditions on its own rows and its
// correlations by equality, and drops those by anything else where one by
// equality stays (`keep`, a conjunct's index or -1, stays whatever it
// is).  The filter then holds for more outer rows, which is exact: it
// only limits the rows the query is computed over, now and before, and
// the others' difference is nothing.  But the planner can take it as a
// join on the equality, from the few changed rows to the outer rows
// through an index: TPC-H Q21's `l2.l_suppkey <> l1.l_suppkey` beside
// `l2.l_orderkey = l1.l_orderkey` had it read lineitem as it was, whole,
// and probe the change for each row, four times per change.
void keep_equality_correlations(Query* sub, int keep) {
    List* kept = NIL;
    bool equality = false, dropped = false;
    int c = 0;
    ListCell* lc;
    foreach (lc, conjuncts_of(sub->jointree->quals)) {
        Node* conjunct = static_cast<Node*>(lfirst(lc));
        Node *inner, *outer;
        bool inner_left;
        if (c++ == keep || !expression_reads_outer(conjunct)) {
            kept = lappend(kept, conjunct);
        } else if (correlation(conjunct, &inner, &outer, &inner_left)) {
            kept = lappend(kept, conjunct);
            equality = true;
        } else {
            dropped = true;
        }
    }
    if (equality && dropped) sub->jointree->quals = reinterpret_cast<Node*>(make_ands_explicit(kept));
}

// The innermost subquery with the occurrence read from the changed rows;
// each enclosing one with the conjunct that held the inner subquery
// replaced by the inner filter.
Node* nested_filter(const Occurrence& o, const char* changed) {
    const std::size_t m = o.path.size();
    auto* inner = static_cast<SubLink*>(copyObjectImpl(o.path[m - 1].link));
    Query* innermost = reinterpret_cast<Query*>(inner->subselect);
    rt_fetch(o.rtindex, innermost->rtable)->ctename = pstrdup(changed);
    keep_equality_correlations(innermost, -1);
    Node* filter = filter_of(inner, o.path[m - 1].never_unknown);
    for (std::size_t j = m - 1; j-- > 0;) {
        auto* outer = static_cast<SubLink*>(copyObjectImpl(o.path[j].link));
        Query* sub = reinterpret_cast<Query*>(outer->subselect);
        sub->jointree->quals = replace_conjunct(sub->jointree->quals, o.path[j + 1].conjunct, filter);
        keep_equality_correlations(sub, o.path[j + 1].conjunct);
        filter = filter_of(outer, o.path[j].never_unknown);
    }
    return filter;
}

// The queries on the way down from the owner: a join's alias column
// reads the columns under it only where a Var names it (the join's list of
// them names every column of both sides, used or not: a LEFT JOIN whose
// nullable table had an unused json column was refused for it).
constexpr int max_used_depth = 64;
struct UsedWalk {
    int rtindex;
    int depth;
    List* attnos;
    Query* queries[max_used_depth];  // by depth below the owner
    bool whole = false;  // a whole-row or system column reference (of it, or of a join)
};
bool mark_used(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* w = static_cast<UsedWalk*>(raw);
    if (IsA(node, Var)) {
        auto* var = reinterpret_cast<Var*>(node);
        const bool own = static_cast<int>(var->varno) == w->rtindex && static_cast<int>(var->varlevelsup) == w->depth;
        if (own && var->varattno > 0) w->attnos = list_append_unique_int(w->attnos, var->varattno);
        const int level = w->depth - static_cast<int>(var->varlevelsup);
        RangeTblEntry* rte = level >= 0 ? rt_fetch(var->varno, w->queries[level]->rtable) : nullptr;
        if (var->varattno <= 0 && (own || (rte != nullptr && rte->rtekind == RTE_JOIN))) w->whole = true;
        if (rte != nullptr && rte->rtekind == RTE_JOIN && var->varattno > 0) {
            const int depth = w->depth;
            w->depth = level;  // the alias column's Vars are relative to the join's query
            const bool done = mark_used(static_cast<Node*>(list_nth(rte->joinaliasvars, var->varattno - 1)), raw);
            w->depth = depth;
            return done;
        }
        return false;
    }
    if (IsA(node, Query)) {
        if (w->depth + 1 >= max_used_depth) elog(ERROR, "ivm: subqueries nested too deeply");
        w->queries[++w->depth] = reinterpret_cast<Query*>(node);
        bool done = query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(mark_used), raw,
                                      QTW_IGNORE_JOINALIASES);
        --w->depth;
        return done;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(mark_used), raw);
}

}  // namespace

SubLink* exists_matching(Query* q, int rtindex, Node* quals, const char* renamed) {
    return call([&] {
        Node* qual = quals ? flatten_join_alias_vars(q, static_cast<Node*>(copyObjectImpl(quals))) : nullptr;
        MoveContext ctx{rtindex};
        qual = move_into_subquery(qual, &ctx);
        auto* rte = static_cast<RangeTblEntry*>(copyObjectImpl(rt_fetch(rtindex, q->rtable)));
        if (renamed != nullptr) rte->ctename = pstrdup(renamed);
        return exists_over(rte, qual);
    });
}

Query* select_over(RangeTblEntry* rte, Node* qual) {
    Query* q = makeNode(Query);
    q->commandType = CMD_SELECT;
    q->querySource = QSRC_ORIGINAL;
    q->canSetTag = true;
    q->rtable = list_make1(rte);
    RangeTblRef* ref = makeNode(RangeTblRef);
    ref->rtindex = 1;
    q->jointree = makeFromExpr(list_make1(ref), qual);
    return q;
}

namespace {

// (SELECT value FROM rte WHERE qual) as a SubLink of `type`.
SubLink* subquery_over(RangeTblEntry* rte, Node* qual, Expr* value, const char* name, SubLinkType type) {
    Query* sub = select_over(rte, qual);
    sub->targetList = list_make1(makeTargetEntry(value, 1, pstrdup(name), false));
    SubLink* link = makeNode(SubLink);
    link->subLinkType = type;
    link->subselect = reinterpret_cast<Node*>(sub);
    link->location = -1;
    return link;
}

}  // namespace

SubLink* exists_over(RangeTblEntry* rte, Node* qual) {
    Expr* one = reinterpret_cast<Expr*>(makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true));
    return subquery_over(rte, qual, one, "__ivm_one", EXISTS_SUBLINK);
}

SubLink* value_over(RangeTblEntry* rte, Node* qual, Expr* value) {
    return subquery_over(rte, qual, value, "__ivm_v", EXPR_SUBLINK);
}

namespace {

bool exists_selects_nothing(Node* node, void* context) {
    if (node == nullptr) return false;
    if (IsA(node, Query))
        return query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(exists_selects_nothing),
                                 context, 0);
    if (IsA(node, SubLink) && reinterpret_cast<SubLink*>(node)->subLinkType == EXISTS_SUBLINK) {
        auto* sub = reinterpret_cast<Query*>(reinterpret_cast<SubLink*>(node)->subselect);
        const bool filters_only = !sub->hasAggs && !sub->hasWindowFuncs && !sub->hasTargetSRFs &&
                                  sub->groupClause == NIL && sub->groupingSets == NIL && sub->havingQual == nullptr &&
                                  sub->distinctClause == NIL && sub->sortClause == NIL && sub->limitCount == nullptr &&
                                  sub->limitOffset == nullptr && sub->setOperations == nullptr &&
                                  !contain_volatile_functions(reinterpret_cast<Node*>(sub->targetList));
        if (filters_only) {
            Expr* one = reinterpret_cast<Expr*>(makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true));
            sub->targetList = list_make1(makeTargetEntry(one, 1, pstrdup("__ivm_one"), false));
        }
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(exists_selects_nothing), context);
}

}  // namespace

void select_nothing_in_exists(Query* q) {
    call([&] { query_tree_walker(q, reinterpret_cast<bool (*)()>(exists_selects_nothing), nullptr, 0); });
}

std::vector<Occurrence> find_occurrences(Query* q, const char* recursive_cte, bool linear_only) {
    if (has_sublink(reinterpret_cast<Node*>(q->targetList))) throw unsupported("subqueries in the select list");
    if (has_sublink(q->havingQual)) throw unsupported("subqueries in HAVING");
    std::vector<Occurrence> out;
    Walk w{recursive_cte, linear_only, &out};
    from_tree(w, q, reinterpret_cast<Node*>(q->jointree), {});
    where_subqueries(w, q, {});
    return out;
}

void add_change_filter(Query* q, const Occurrence& o, const char* changed) {
    Node* filter = o.role == Role::Nullable ? reinterpret_cast<Node*>(exists_matching(q, o.rtindex, o.join->quals, changed))
                                            : call([&] { return nested_filter(o, changed); });
    call([&] {
        q->jointree->quals = make_and_qual(q->jointree->quals, filter);
        q->hasSubLinks = true;
    });
}

namespace {

UsedWalk walk_used(const Occurrence& o) {
    UsedWalk w{o.rtindex, 0, NIL, {o.owner}};
    call([&] { query_tree_walker(o.owner, reinterpret_cast<bool (*)()>(mark_used), &w, QTW_IGNORE_JOINALIASES); });
    return w;
}

std::vector<AttrNumber> sorted(List* attnos) {
    std::vector<AttrNumber> out;
    ListCell* lc;
    foreach (lc, attnos) out.push_back(static_cast<AttrNumber>(lfirst_int(lc)));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

std::vector<AttrNumber> used_columns(const Occurrence& o) { return sorted(walk_used(o).attnos); }

std::optional<std::vector<AttrNumber>> columns_read(const Occurrence& o) {
    const UsedWalk w = walk_used(o);
    if (w.whole) return std::nullopt;
    return sorted(w.attnos);
}

void check_relation(RangeTblEntry* rte) { refuse_relation(rte); }

}  // namespace ivm::pg
