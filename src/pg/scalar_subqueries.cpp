#include "pg/scalar_subqueries.hpp"

#include "core/error.hpp"
#include "pg/analyze.hpp"
#include "pg/boundary.hpp"
#include "pg/expand_views.hpp"
#include "pg/occurrences.hpp"
#include "pg/view_parts.hpp"
#include "pg/window_steps.hpp"

extern "C" {
#include "catalog/pg_operator_d.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "rewrite/rewriteManip.h"
#include "optimizer/tlist.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace ivm::pg {
namespace {

// One query being rewritten.  The rewrite runs inside call(): PostgreSQL
// lists only.
struct Level {
    Query* q;
    bool top = false;          // the view's own query (outer joins are taken apart there only)
    int in_aggregate = 0;      // inside an aggregate's arguments
    Node* conjunct = nullptr;  // the condition of WHERE being rewritten, or null outside WHERE
    bool select_list = false;  // rewriting the select list
    bool changed = false;
    List* joins = NIL;         // correlation conditions to add to WHERE
    List* group_by = NIL;      // values read by the select list or HAVING of a grouped query
};

bool rewrite_query(Query* q, bool top);

// Whether expr is NULL whenever `link` is: `link` reached through strict
// operators and functions (and NOT) only.
bool null_with(Node* expr, const SubLink* link) {
    if (expr == reinterpret_cast<const Node*>(link)) return true;
    List* args = NIL;
    if (IsA(expr, OpExpr)) {
        if (!func_strict(get_opcode(reinterpret_cast<OpExpr*>(expr)->opno))) return false;
        args = reinterpret_cast<OpExpr*>(expr)->args;
    } else if (IsA(expr, FuncExpr)) {
        if (!func_strict(reinterpret_cast<FuncExpr*>(expr)->funcid)) return false;
        args = reinterpret_cast<FuncExpr*>(expr)->args;
    } else if (IsA(expr, BoolExpr) && reinterpret_cast<BoolExpr*>(expr)->boolop == NOT_EXPR) {
        args = reinterpret_cast<BoolExpr*>(expr)->args;
    } else if (IsA(expr, RelabelType)) {
        return null_with(reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(expr)->arg), link);
    } else if (IsA(expr, CoerceViaIO)) {
        return null_with(reinterpret_cast<Node*>(reinterpret_cast<CoerceViaIO*>(expr)->arg), link);
    }
    ListCell* lc;
    foreach (lc, args)
        if (null_with(static_cast<Node*>(lfirst(lc)), link)) return true;
    return false;
}

// Grouping by an expression of type `type`, tleSortGroupRef `ref`.
SortGroupClause* grouping(Oid type, Index ref) {
    SortGroupClause* g = makeNode(SortGroupClause);
    get_sort_group_operators(type, false, true, false, &g->sortop, &g->eqop, nullptr, &g->hashable);
    g->tleSortGroupRef = ref;
    g->nulls_first = false;
    return g;
}

Node* and_of(List* conditions) {
    if (conditions == NIL) return nullptr;
    return reinterpret_cast<Node*>(make_ands_explicit(conditions));
}

// The value of a subquery's target over no rows (its aggregates over none),
// run now: SELECT <value> FROM ... WHERE false.
// Runs sub with the one target `target` over no rows (WHERE false);
// returns how many rows it yields (SPI_tuptable holds them).
uint64 run_over_no_rows(const Query* sub, TargetEntry* target) {
    auto* probe = static_cast<Query*>(copyObjectImpl(sub));
    probe->targetList = list_make1(target);
    probe->sortClause = NIL;
    probe->jointree->quals = makeBoolConst(false, false);
    if (SPI_execute(pg_get_querydef(probe, false), true, 0) != SPI_OK_SELECT)
        elog(ERROR, "ivm: could not evaluate a subquery over no rows");
    return SPI_processed;
}

Const* value_over_no_rows(const Query* sub, const TargetEntry* value) {
    if (run_over_no_rows(sub, static_cast<TargetEntry*>(copyObjectImpl(value))) != 1)
        elog(ERROR, "ivm: could not evaluate a scalar subquery over no rows");
    bool isnull = false;
    Datum datum = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    const Node* v = reinterpret_cast<const Node*>(value->expr);
    int16 length = 0;
    bool by_value = false;
    get_typlenbyval(exprType(v), &length, &by_value);
    if (!isnull) datum = datumCopy(datum, by_value, length);
    return makeConst(exprType(v), exprTypmod(v), exprCollation(v), length, datum, isnull, by_value);
}

// A join of two trees of q's FROM, with its range table entry (its
// columns described once the tree is whole).
JoinExpr* new_join(Query* q, JoinType type, Node* left, Node* right, Node* quals) {
    RangeTblEntry* rte = makeNode(RangeTblEntry);
    rte->rtekind = RTE_JOIN;
    rte->jointype = type;
    rte->eref = makeAlias("unnamed_join", NIL);
    rte->inFromCl = true;
    q->rtable = lappend(q->rtable, rte);
    JoinExpr* join = makeNode(JoinExpr);
    join->jointype = type;
    join->larg = left;
    join->rarg = right;
    join->quals = quals;
    join->rtindex = list_length(q->rtable);
    return join;
}

// FROM <q's FROM items, cross-joined> LEFT JOIN <entry rti> ON <on>.
void join_left(Query* q, int rti, Node* on) {
    List* items = q->jointree->fromlist;
    Node* left = static_cast<Node*>(linitial(items));
    for (int i = 1; i < list_length(items); ++i)
        left = reinterpret_cast<Node*>(new_join(q, JOIN_INNER, left, static_cast<Node*>(list_nth(items, i)), nullptr));
    RangeTblRef* ref = makeNode(RangeTblRef);
    ref->rtindex = rti;
    q->jointree->fromlist = list_make1(new_join(q, JOIN_LEFT, left, reinterpret_cast<Node*>(ref), on));
    describe_joins(q, reinterpret_cast<Node*>(q->jointree));
}

const char* hint_correlated =
    "A correlated subquery is maintained where it aggregates and reads the outer query only in equalities of "
    "its WHERE (inner = outer).";

// The conditions of a subquery's WHERE split: those reading only its own
// rows, and its correlations with the outer query, `inner = outer` (the
// outer side moved up a level when the equality will stand in the outer
// query).
struct Correlations {
    List* kept = NIL;
    List* inner = NIL;       // the inner sides: the grouping keys
    List* equalities = NIL;  // of OpExpr, only the outer side in args yet
    List* inner_left = NIL;  // of int: whether the inner side is the left one
};
Correlations correlations_of(Query* sub, const char* construct, bool move_up) {
    Correlations c;
    ListCell* lc;
    foreach (lc, conjuncts_of(sub->jointree->quals)) {
        Node* condition = static_cast<Node*>(lfirst(lc));
        if (!expression_reads_outer(condition)) {
            c.kept = lappend(c.kept, condition);
            continue;
        }
        Node *in = nullptr, *out = nullptr;
        bool left = false;
        if (!correlation(condition, &in, &out, &left))
            throw unsupported(std::string(construct) + " correlated other than by equalities of their WHERE",
                              hint_correlated);
        out = static_cast<Node*>(copyObjectImpl(out));
        if (move_up) IncrementVarSublevelsUp(out, -1, 0);
        auto* eq = static_cast<OpExpr*>(copyObjectImpl(condition));
        eq->args = list_make1(out);
        c.inner = lappend(c.inner, in);
        c.equalities = lappend(c.equalities, eq);
        c.inner_left = lappend_int(c.inner_left, left ? 1 : 0);
    }
    return c;
}

// Completes the equalities: their inner sides read from entry rti's
// columns from `first` on.  Returns the first such column.
Var* read_keys(const Correlations& c, int rti, int first) {
    Var* first_key = nullptr;
    int k = 0;
    ListCell* lc;
    foreach (lc, c.equalities) {
        auto* eq = static_cast<OpExpr*>(lfirst(lc));
        Node* key = static_cast<Node*>(list_nth(c.inner, k));
        Var* read = makeVar(rti, static_cast<AttrNumber>(first + k), exprType(key), exprTypmod(key),
                            exprCollation(key), 0);
        if (first_key == nullptr) first_key = read;
        Node* out = static_cast<Node*>(linitial(eq->args));
        eq->args = list_nth_int(c.inner_left, k) ? list_make2(read, out) : list_make2(out, read);
        ++k;
    }
    return first_key;
}

// Makes sub (its WHERE the kept conditions) `SELECT <inner keys>, <value>
// ... GROUP BY <inner keys>` and adds it to q's range table (not yet to
// its FROM); returns its index.
int add_grouped(Query* q, Query* sub, const Correlations& c, List* values) {
    List* targets = NIL;
    List* names = NIL;
    AttrNumber resno = 0;
    sub->groupClause = NIL;
    ListCell* lc;
    foreach (lc, c.inner) {
        auto* key = static_cast<Expr*>(lfirst(lc));
        ++resno;
        TargetEntry* te = makeTargetEntry(key, resno, psprintf("key_%d", resno), false);
        te->ressortgroupref = static_cast<Index>(resno);
        targets = lappend(targets, te);
        names = lappend(names, makeString(te->resname));
        sub->groupClause = lappend(sub->groupClause, grouping(exprType(reinterpret_cast<Node*>(key)), te->ressortgroupref));
    }
    foreach (lc, values) {
        const char* name = list_length(values) == 1 ? "value" : psprintf("value_%d", resno - list_length(c.inner) + 1);
        targets = lappend(targets, makeTargetEntry(static_cast<TargetEntry*>(lfirst(lc))->expr, ++resno, pstrdup(name), false));
        names = lappend(names, makeString(pstrdup(name)));
    }
    sub->targetList = targets;
    sub->sortClause = NIL;
    q->rtable = lappend(q->rtable, subquery_entry(sub, psprintf("scalar_%d", list_length(q->rtable) + 1), names));
    return list_length(q->rtable);
}

NullTest* null_test(Expr* arg, NullTestType type) {
    NullTest* test = makeNode(NullTest);
    test->arg = arg;
    test->nulltesttype = type;
    test->location = -1;
    return test;
}

// CASE WHEN <key> IS NULL THEN <empty> ELSE <value> END: a joined key is
// never NULL (it equals the outer one).
Node* or_when_missing(Var* key, Var* value, Const* empty) {
    CaseWhen* when = makeNode(CaseWhen);
    when->expr = reinterpret_cast<Expr*>(null_test(reinterpret_cast<Expr*>(key), IS_NULL));
    when->result = reinterpret_cast<Expr*>(empty);
    when->location = -1;
    CaseExpr* choice = makeNode(CaseExpr);
    choice->casetype = value->vartype;
    choice->casecollid = value->varcollid;
    choice->args = list_make1(when);
    choice->defresult = reinterpret_cast<Expr*>(value);
    choice->location = -1;
    return reinterpret_cast<Node*>(choice);
}

// Whether sub selects, projects and joins only: no set operation,
// grouping, window, set-returning function, LIMIT, locking or recursion,
// and no aggregate unless `aggregates`.  (DISTINCT and ORDER BY are the
// callers' to judge.)
bool plain_select(const Query* sub, bool aggregates = false) {
    return sub->commandType == CMD_SELECT && sub->setOperations == nullptr && sub->groupClause == NIL &&
           sub->groupingSets == NIL && sub->havingQual == nullptr && (aggregates || !sub->hasAggs) &&
           !sub->hasWindowFuncs && !sub->hasTargetSRFs && sub->limitCount == nullptr && sub->limitOffset == nullptr &&
           sub->rowMarks == NIL && !sub->hasRecursive;
}

// Whether a query reads a column or aggregate of a query above it (any
// level), walked with `depth` its own nesting below where the walk began.
bool reads_outer_levels(Node* node, void* raw) {
    if (node == nullptr) return false;
    const int depth = *static_cast<int*>(raw);
    if (IsA(node, Var)) return static_cast<int>(reinterpret_cast<Var*>(node)->varlevelsup) > depth;
    if (IsA(node, Aggref)) return static_cast<int>(reinterpret_cast<Aggref*>(node)->agglevelsup) > depth;
    if (IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc)) return true;
    if (IsA(node, Query)) {
        int below = depth + 1;
        return query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(reads_outer_levels),
                                 &below, 0);
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reads_outer_levels), raw);
}

// A subquery a restricting condition may keep (IN or EXISTS): one that
// selects, projects and joins tables, reading nothing of the queries above.
bool uncorrelated_table_subquery(const SubLink* link) {
    if (link->subLinkType != EXISTS_SUBLINK && link->subLinkType != ANY_SUBLINK) return false;
    const auto* sub = reinterpret_cast<const Query*>(link->subselect);
    if (!plain_select(sub) || sub->cteList != NIL || sub->hasSubLinks) return false;
    ListCell* lc;
    foreach (lc, sub->rtable) {
        const auto* rte = static_cast<const RangeTblEntry*>(lfirst(lc));
        if (rte->rtekind != RTE_RELATION && rte->rtekind != RTE_JOIN) return false;
    }
    int depth = 0;
    return !query_tree_walker(const_cast<Query*>(sub), reinterpret_cast<bool (*)()>(reads_outer_levels), &depth, 0);
}

// Whether a condition of a WHERE reads columns of its query's entry rti
// only (no other entry, no query above, nothing volatile; no subquery but
// an uncorrelated IN or EXISTS over tables).
bool reads_only_entry(Node* node, void* raw) {
    if (node == nullptr) return false;
    if (IsA(node, Var)) {
        const Var* v = reinterpret_cast<Var*>(node);
        return v->varlevelsup != 0 || v->varno != *static_cast<int*>(raw);
    }
    if (IsA(node, SubLink)) {
        const auto* link = reinterpret_cast<SubLink*>(node);
        return !uncorrelated_table_subquery(link) || reads_only_entry(link->testexpr, raw);
    }
    // (an IN's test compares with its subquery's columns as PARAM_SUBLINKs)
    if (IsA(node, Param)) return reinterpret_cast<Param*>(node)->paramkind != PARAM_SUBLINK;
    if (IsA(node, Aggref) || IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc) || IsA(node, WindowFunc))
        return true;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reads_only_entry), raw);
}

// The outer query's table entry `rte` as the only FROM item of a query
// under the subquery (named __ivm_o there).
RangeTblEntry* outer_table_entry(const RangeTblEntry* rte) {
    auto* entry = static_cast<RangeTblEntry*>(copyObjectImpl(rte));
    entry->alias = makeAlias("__ivm_o", NIL);
    entry->eref = makeAlias("__ivm_o", static_cast<List*>(copyObjectImpl(rte->eref->colnames)));
    entry->lateral = false;
    return entry;
}

// A correlated scalar subquery becomes a part holding its value for every
// key, where the outer query reads only the keys of its rows.  When its
// correlations read one table of the outer FROM (not under an outer join)
// and the outer WHERE has conditions on that table alone (an uncorrelated
// IN or EXISTS over tables among them), the part keeps only the keys of
// rows that meet them: EXISTS (SELECT 1 FROM <table> o WHERE o.<outer
// column> = <inner key> ... AND <the conditions on o>).  Exact, as an
// outer row that reads the value meets those conditions.  TPC-H Q2's
// minimum cost per part, kept for the 2,000 parts of the whole table,
// changed in full when a region is renamed; restricted to the parts of its
// size and type, for a few dozen.  Q20's sum per part and supplier, to the
// parts `IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')`.
void restrict_to_outer_rows(Query* q, Query* sub, const Correlations& c) {
    int outer = 0;
    ListCell* lc;
    foreach (lc, c.equalities) {
        Node* out = static_cast<Node*>(linitial(static_cast<OpExpr*>(lfirst(lc))->args));
        if (!IsA(out, Var) || reinterpret_cast<Var*>(out)->varlevelsup != 0) return;
        const int varno = reinterpret_cast<Var*>(out)->varno;
        if (outer != 0 && varno != outer) return;
        outer = varno;
    }
    RangeTblEntry* rte = rt_fetch(outer, q->rtable);
    if (rte->rtekind != RTE_RELATION) return;
    bool in_from = false;
    foreach (lc, q->jointree->fromlist) {
        Node* item = static_cast<Node*>(lfirst(lc));
        in_from |= IsA(item, RangeTblRef) && reinterpret_cast<RangeTblRef*>(item)->rtindex == outer;
    }
    if (!in_from) return;
    List* conditions = NIL;
    foreach (lc, conjuncts_of(q->jointree->quals)) {
        Node* condition = static_cast<Node*>(lfirst(lc));
        if (reads_only_entry(condition, &outer) || contain_volatile_functions(condition)) continue;
        condition = static_cast<Node*>(copyObjectImpl(condition));
        ChangeVarNodes(condition, outer, 1, 0);
        conditions = lappend(conditions, condition);
    }
    if (conditions == NIL) return;
    // o.<outer column> = <inner key>, the key one level further down.
    int k = 0;
    foreach (lc, c.equalities) {
        auto* eq = static_cast<OpExpr*>(copyObjectImpl(lfirst(lc)));
        auto* out = static_cast<Var*>(copyObjectImpl(linitial(eq->args)));
        out->varno = 1;
        out->varnosyn = 1;
        Node* key = static_cast<Node*>(copyObjectImpl(list_nth(c.inner, k)));
        IncrementVarSublevelsUp(key, 1, 0);
        eq->args = list_nth_int(c.inner_left, k) ? list_make2(key, out) : list_make2(out, key);
        conditions = lappend(conditions, eq);
        ++k;
    }
    Node* restriction = and_of(conditions);
    SubLink* exists = exists_over(outer_table_entry(rte), restriction);
    reinterpret_cast<Query*>(exists->subselect)->hasSubLinks = checkExprHasSubLink(restriction);
    sub->jointree->quals = and_of(lappend(conjuncts_of(sub->jointree->quals), exists));
    sub->hasSubLinks = true;
}

TargetEntry* value_of(const Query* sub) {
    ListCell* lc;
    foreach (lc, sub->targetList)
        if (!static_cast<TargetEntry*>(lfirst(lc))->resjunk) return static_cast<TargetEntry*>(lfirst(lc));
    return nullptr;
}

// A scalar subquery that does not aggregate yields its one row's value,
// NULL without a row, and an error with two: ivm.single_value over its rows
// does the same, and makes it one that aggregates.  False where
// ivm.single_value is not installed (the extension's SQL older than 0.9).
bool aggregate_single_value(Query* sub, TargetEntry* value) {
    Oid argument = ANYELEMENTOID;
    const Oid fn = LookupFuncName(list_make2(makeString(pstrdup("ivm")), makeString(pstrdup("single_value"))), 1,
                                  &argument, true);
    if (!OidIsValid(fn)) return false;
    Node* v = reinterpret_cast<Node*>(value->expr);
    Aggref* agg = new_aggregate(fn, exprType(v), exprCollation(v));
    agg->aggargtypes = list_make1_oid(exprType(v));
    agg->args = list_make1(makeTargetEntry(value->expr, 1, nullptr, false));
    value->expr = reinterpret_cast<Expr*>(agg);
    sub->hasAggs = true;
    return true;
}

// The value column `position` (after the keys) of the grouped FROM item
// `joined` (add_grouped), of `value`'s type, as its readers read it:
// where an outer row may find no item row and the value over no rows
// (`empty`) is not NULL, that value standing in.
Node* read_value(const Correlations& c, int joined, int position, Node* value, Var* first_key, Const* empty) {
    Var* read = makeVar(joined, static_cast<AttrNumber>(list_length(c.inner) + position), exprType(value),
                        exprTypmod(value), exprCollation(value), 0);
    if (empty == nullptr || empty->constisnull) return reinterpret_cast<Node*>(read);
    return or_when_missing(static_cast<Var*>(copyObjectImpl(first_key)), read, empty);
}

// q's FROM list gains the entry rti (a cross join, or an inner join whose
// conditions go to WHERE).
void cross_join(Query* q, int rti) {
    RangeTblRef* ref = makeNode(RangeTblRef);
    ref->rtindex = rti;
    q->jointree->fromlist = lappend(q->jointree->fromlist, ref);
}

// Whether `expr` is NULL whenever the outer column `var` is: it is that
// column, or a strict operator or function with an argument that is.
bool nulls_with_outer(Node* expr, const Var* var) {
    if (IsA(expr, RelabelType)) return nulls_with_outer(reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(expr)->arg), var);
    if (IsA(expr, Var)) return equal(expr, var);
    List* args = NIL;
    Oid function = InvalidOid;
    if (IsA(expr, OpExpr)) {
        args = reinterpret_cast<OpExpr*>(expr)->args;
        function = get_opcode(reinterpret_cast<OpExpr*>(expr)->opno);
    } else if (IsA(expr, FuncExpr)) {
        args = reinterpret_cast<FuncExpr*>(expr)->args;
        function = reinterpret_cast<FuncExpr*>(expr)->funcid;
    }
    if (!OidIsValid(function) || !func_strict(function)) return false;
    ListCell* lc;
    foreach (lc, args)
        if (nulls_with_outer(static_cast<Node*>(lfirst(lc)), var)) return true;
    return false;
}

// `expr` with the outer column `var` (one level up) read as `column`.
struct OuterColumn {
    const Var* var;
    Var* column;
};
Node* with_column(Node* node, void* raw) {
    if (node == nullptr) return nullptr;
    const auto* c = static_cast<OuterColumn*>(raw);
    if (IsA(node, Var) && equal(node, c->var)) return static_cast<Node*>(copyObjectImpl(c->column));
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(with_column), raw);
}
Node* replace_outer_column(Node* expr, const Var* var, Var* column) {
    OuterColumn c{var, column};
    return with_column(expr, &c);
}

// A correlated scalar subquery whose WHERE compares columns of one outer
// table otherwise than by equality, in conditions that are NULL when those
// columns are (`x.t < r.a`, TPC-H-style running totals), is correlated by
// equalities over the domain of those columns:
//   (SELECT count(*) FROM t x WHERE x.t < r.a)
// becomes
//   (SELECT count(*) FROM t x, (SELECT DISTINCT a FROM r) d
//    WHERE x.t < d.a AND d.a = r.a)
// which is grouped by d.a and joined as any other.  An outer row whose a is
// NULL finds no group, as it finds no row without: its value is the one
// over no rows either way.  The domain is a part of its own.
void correlate_over_domain(Query* q, Query* sub) {
    List* kept = NIL;
    List* theta = NIL;
    List* columns = NIL;  // the outer columns they read (Vars as the outer query reads them), each once
    int outer = 0;
    ListCell* lc;
    foreach (lc, conjuncts_of(sub->jointree->quals)) {
        Node* condition = static_cast<Node*>(lfirst(lc));
        Node *in = nullptr, *out = nullptr;
        bool left = false;
        if (!expression_reads_outer(condition) || correlation(condition, &in, &out, &left)) {
            kept = lappend(kept, condition);
            continue;
        }
        if (checkExprHasSubLink(condition) || contain_volatile_functions(condition)) return;
        List* vars = pull_vars_of_level(condition, 1);
        ListCell* vc;
        foreach (vc, vars) {
            if (!IsA(lfirst(vc), Var)) return;
            const Var* v = static_cast<const Var*>(lfirst(vc));
            if (v->varattno <= 0 || (outer != 0 && static_cast<int>(v->varno) != outer) ||
                !nulls_with_outer(condition, v))
                return;
            outer = static_cast<int>(v->varno);
            bool seen = false;
            ListCell* cc;
            foreach (cc, columns) seen |= static_cast<const Var*>(lfirst(cc))->varattno == v->varattno;
            if (!seen) columns = lappend(columns, lfirst(vc));
        }
        if (vars == NIL) return;  // (outer columns deeper down)
        theta = lappend(theta, condition);
    }
    if (theta == NIL) return;
    RangeTblEntry* table = rt_fetch(outer, q->rtable);
    if (table->rtekind != RTE_RELATION) return;
    // The domain: SELECT DISTINCT <the outer columns> FROM <the table>.
    Query* domain = select_over(outer_table_entry(table), nullptr);
    List* names = NIL;
    Index sortref = 0;
    foreach (lc, columns) {
        const Var* v = static_cast<const Var*>(lfirst(lc));
        Var* read = makeVar(1, v->varattno, v->vartype, v->vartypmod, v->varcollid, 0);
        char* name = psprintf("__ivm_domain_%d", list_length(names) + 1);
        TargetEntry* te = makeTargetEntry(reinterpret_cast<Expr*>(read), static_cast<AttrNumber>(list_length(names) + 1), name, false);
        te->ressortgroupref = ++sortref;
        domain->targetList = lappend(domain->targetList, te);
        SortGroupClause* distinct = grouping(v->vartype, te->ressortgroupref);
        if (!OidIsValid(distinct->eqop) || !op_mergejoinable(distinct->eqop, v->vartype)) return;
        domain->distinctClause = lappend(domain->distinctClause, distinct);
        names = lappend(names, makeString(name));
    }
    sub->rtable = lappend(sub->rtable, subquery_entry(domain, "__ivm_domain", names));
    const int d = list_length(sub->rtable);
    RangeTblRef* dref = makeNode(RangeTblRef);
    dref->rtindex = d;
    sub->jointree->fromlist = lappend(sub->jointree->fromlist, dref);
    // The conditions read the domain's columns; each equals the outer one.
    int k = 0;
    foreach (lc, columns) {
        const Var* v = static_cast<const Var*>(lfirst(lc));
        ++k;
        Var* column = makeVar(d, static_cast<AttrNumber>(k), v->vartype, v->vartypmod, v->varcollid, 0);
        ListCell* tc;
        foreach (tc, theta) {
            Node* before = static_cast<Node*>(lfirst(tc));
            lfirst(tc) = replace_outer_column(before, v, column);
        }
        const Oid equals = lookup_type_cache(v->vartype, TYPECACHE_EQ_OPR)->eq_opr;
        auto* same = reinterpret_cast<OpExpr*>(make_opclause(equals, BOOLOID, false, reinterpret_cast<Expr*>(copyObjectImpl(column)),
                                                             reinterpret_cast<Expr*>(copyObjectImpl(v)), InvalidOid, v->varcollid));
        same->opfuncid = get_opcode(equals);
        kept = lappend(kept, same);
    }
    sub->jointree->quals = and_of(list_concat(kept, theta));
}

// The scalar subquery `link` of lv->q as a FROM item; returns what reads
// its value.
Node* join_scalar(Level* lv, SubLink* link) {
    Query* q = lv->q;
    auto* sub = static_cast<Query*>(copyObjectImpl(link->subselect));
    TargetEntry* value = value_of(sub);
    if (!plain_select(sub, true) || sub->distinctClause != NIL || value == nullptr ||
        (!sub->hasAggs && !aggregate_single_value(sub, value)))
        throw unsupported("scalar subqueries with LIMIT, or correlated ones with DISTINCT, set operations or window "
                          "functions",
                          "A correlated scalar subquery is maintained when it aggregates its rows (such as max(...) or "
                          "sum(...)), also by groups, or yields at most one row for each outer row (as WHERE "
                          "inner.key = outer.key does).");
    correlate_over_domain(q, sub);
    const Correlations c = correlations_of(sub, "scalar subqueries", true);
    sub->jointree->quals = and_of(c.kept);
    if (reads_outer_columns(sub))
        throw unsupported("scalar subqueries that read the outer query outside equalities of their WHERE",
                          hint_correlated);
    // Correlated, an outer row whose keys have no inner rows finds no row
    // of the FROM item: where the value over no rows is NULL and a NULL
    // rejects the row anyway, an inner join is exact; elsewhere a LEFT
    // JOIN, that value standing in for the missing row's.
    Const* empty = nullptr;
    bool left_join = false;
    if (c.inner != NIL) {
        if (reads_outer_query(sub))
            throw unsupported("correlated scalar subqueries over WITH queries of the outer query", hint_correlated);
        empty = value_over_no_rows(sub, value);
        left_join = !empty->constisnull || lv->conjunct == nullptr || !null_with(lv->conjunct, link);
        if (left_join && !lv->top)
            throw unsupported("correlated scalar subqueries inside subqueries, unless compared in WHERE and NULL over no rows",
                              hint_correlated);
    }
    if (c.inner != NIL) restrict_to_outer_rows(q, sub, c);
    Node* v = reinterpret_cast<Node*>(value->expr);
    const int rti = add_grouped(q, sub, c, list_make1(value));
    Var* first_key = read_keys(c, rti, 1);
    if (!left_join) {
        cross_join(q, rti);
        lv->joins = list_concat(lv->joins, c.equalities);
        return read_value(c, rti, 1, v, first_key, nullptr);
    }
    join_left(q, rti, and_of(c.equalities));
    return read_value(c, rti, 1, v, first_key, empty);
}

// An IN/EXISTS subquery that aggregates or is a set operation, as
// SELECT <its columns> FROM (<it>): a subquery in FROM gets a part.  sub
// goes one level down, so what it reads of the queries above it (their
// WITH queries, as a set operation's arm does) is one level further up.
Query* read_as_from(Query* sub) {
    IncrementVarSublevelsUp(reinterpret_cast<Node*>(sub), 1, 1);
    Query* outer = makeNode(Query);
    outer->commandType = CMD_SELECT;
    outer->querySource = QSRC_ORIGINAL;
    outer->canSetTag = true;
    List* names = NIL;
    ListCell* lc;
    foreach (lc, sub->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk) continue;
        Node* e = reinterpret_cast<Node*>(te->expr);
        Var* var = makeVar(1, te->resno, exprType(e), exprTypmod(e), exprCollation(e), 0);
        outer->targetList = lappend(outer->targetList, makeTargetEntry(reinterpret_cast<Expr*>(var), te->resno,
                                                                       pstrdup(te->resname ? te->resname : "?column?"), false));
        names = lappend(names, makeString(pstrdup(te->resname ? te->resname : "?column?")));
    }
    read_from_only(outer, sub, "grouped", names);
    return outer;
}

bool aggregates(const Query* sub) {
    return sub->hasAggs || sub->groupClause != NIL || sub->havingQual != nullptr || sub->groupingSets != NIL ||
           sub->setOperations != nullptr;
}

// Whether an aggregating query without GROUP BY yields its row over no
// rows (no HAVING, or one that holds there), run now.
bool row_over_no_rows(const Query* sub) {
    Expr* one = reinterpret_cast<Expr*>(makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true));
    return run_over_no_rows(sub, makeTargetEntry(one, 1, pstrdup("one"), false)) > 0;
}

// sub grouped by its correlations' inner sides too, shown after its own
// columns as <prefix>_1, ...: returns the first one's column.
int group_by_inner_sides(Query* sub, const Correlations& c, const char* prefix) {
    int first = 1;
    ListCell* lc;
    foreach (lc, sub->targetList) first += static_cast<TargetEntry*>(lfirst(lc))->resjunk ? 0 : 1;
    Index ref = next_sort_group_ref(sub->targetList);
    int k = 0;
    foreach (lc, c.inner) {
        auto* key = static_cast<Expr*>(lfirst(lc));
        TargetEntry* te = add_output(sub, key, psprintf("%s_%d", prefix, ++k));
        te->ressortgroupref = ref++;
        sub->groupClause = lappend(sub->groupClause, grouping(exprType(reinterpret_cast<Node*>(key)), te->ressortgroupref));
    }
    return first;
}

// A correlated IN/EXISTS subquery that aggregates, correlated by
// equalities of its WHERE only: grouped by their inner sides too, it reads
// nothing of the outer query and becomes a subquery in FROM (a part), the
// equalities comparing its keys with the outer columns.  Exact where the
// subquery yields no row over no rows (GROUP BY, or a HAVING that fails).
Query* decorrelated(Query* sub) {
    if (sub->setOperations != nullptr || sub->groupingSets != NIL)
        throw unsupported("correlated subqueries in WHERE that are set operations");
    const Correlations c = correlations_of(sub, "subqueries that aggregate", false);
    sub->jointree->quals = and_of(c.kept);
    if (reads_outer_query(sub))
        throw unsupported("correlated subqueries that aggregate and read the outer query outside equalities of their WHERE",
                          hint_correlated);
    if (sub->groupClause == NIL && row_over_no_rows(sub))
        throw unsupported("correlated subqueries that aggregate without GROUP BY and yield a row over no rows",
                          "Give the subquery a GROUP BY (of its correlated columns) or a HAVING that fails over no rows.");
    // The keys: shown after the columns (the outer query reads those by place).
    const int first = group_by_inner_sides(sub, c, "key");
    sub->sortClause = NIL;
    Query* outer = read_as_from(sub);
    outer->targetList = list_truncate(outer->targetList, first - 1);
    read_keys(c, 1, first);
    outer->jointree->quals = and_of(c.equalities);
    return outer;
}

// The scalar subquery over sub's FROM and WHERE whose one value is `value`
// (an expression over aggregates).
SubLink* aggregating(const Query* sub, Expr* value, const char* name, int location) {
    auto* aggregated = static_cast<Query*>(copyObjectImpl(sub));
    aggregated->targetList = list_make1(makeTargetEntry(value, 1, pstrdup(name), false));
    aggregated->distinctClause = NIL;
    aggregated->sortClause = NIL;
    aggregated->limitCount = nullptr;
    aggregated->limitOffset = nullptr;
    aggregated->hasAggs = true;
    SubLink* scalar = makeNode(SubLink);
    scalar->subLinkType = EXPR_SUBLINK;
    scalar->subselect = reinterpret_cast<Node*>(aggregated);
    scalar->location = location;
    return scalar;
}

// EXISTS (sub) in the select list, a value and not a filter, as the
// scalar subquery (SELECT 0 < count(*) FROM <sub's FROM> WHERE <sub's
// WHERE>): true where sub has rows, false where it has none, as EXISTS.
// Null where sub is not a plain select-project-join (left to what refuses
// it).
SubLink* exists_as_count(const SubLink* link) {
    const auto* sub = reinterpret_cast<const Query*>(link->subselect);
    if (!plain_select(sub)) return nullptr;
    Aggref* count = count_star();
    Expr* some = make_opclause(Int8LessOperator, BOOLOID, false,
                               reinterpret_cast<Expr*>(makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(0),
                                                                 false, FLOAT8PASSBYVAL)),
                               reinterpret_cast<Expr*>(count), InvalidOid, InvalidOid);
    return aggregating(sub, some, "exists", link->location);
}

// array_agg(value ORDER BY <sub's ORDER BY>), where that ORDER BY ends with
// the value, so that the order is the same whichever plan reads the rows
// (ties are equal values); `construct` names what is refused otherwise.
Aggref* ordered_array(const Query* sub, const TargetEntry* value, const char* construct, const char* hint) {
    SortGroupClause* last = sub->sortClause == NIL ? nullptr : llast_node(SortGroupClause, sub->sortClause);
    if (last == nullptr || !equal(get_sortgroupclause_expr(last, sub->targetList), value->expr))
        throw unsupported(construct, hint);
    const Oid type = exprType(reinterpret_cast<Node*>(value->expr));
    const bool of_arrays = OidIsValid(get_element_type(type));
    const Oid array_type = of_arrays ? type : get_array_type(type);
    if (!OidIsValid(array_type)) throw unsupported(construct, hint);
    Aggref* agg = new_aggregate(of_arrays ? F_ARRAY_AGG_ANYARRAY : F_ARRAY_AGG_ANYNONARRAY, array_type,
                                exprCollation(reinterpret_cast<Node*>(value->expr)));
    agg->aggargtypes = list_make1_oid(type);
    agg->args = list_make1(makeTargetEntry(static_cast<Expr*>(copyObjectImpl(value->expr)), 1, nullptr, false));
    Index ref = 0;
    ListCell* lc;
    foreach (lc, sub->sortClause) {
        auto* order = static_cast<SortGroupClause*>(copyObjectImpl(lfirst(lc)));
        order->tleSortGroupRef = ++ref;
        Expr* key = static_cast<Expr*>(copyObjectImpl(
            get_sortgroupclause_expr(static_cast<SortGroupClause*>(lfirst(lc)), sub->targetList)));
        TargetEntry* te = makeTargetEntry(key, static_cast<AttrNumber>(list_length(agg->args) + 1), nullptr, true);
        te->ressortgroupref = ref;
        agg->args = lappend(agg->args, te);
        agg->aggorder = lappend(agg->aggorder, order);
    }
    return agg;
}

const char* hint_ordered = "Order it by ..., x, ending with the value x it yields: then the row or the order does not "
                           "depend on the plan.";

// ARRAY(sub) as the scalar subquery (SELECT COALESCE(array_agg(<value>
// ORDER BY ...), '{}') FROM ... WHERE ...): the same array, empty over no
// rows.  Null where sub is not a plain select-project-join.
SubLink* array_as_aggregate(const SubLink* link) {
    const auto* sub = reinterpret_cast<const Query*>(link->subselect);
    const TargetEntry* value = value_of(sub);
    if (!plain_select(sub) || sub->distinctClause != NIL || value == nullptr) return nullptr;
    Aggref* agg = ordered_array(sub, value, "ARRAY(subquery) without an ORDER BY that ends with its value", hint_ordered);
    CoalesceExpr* or_empty = makeNode(CoalesceExpr);
    or_empty->coalescetype = agg->aggtype;
    or_empty->coalescecollid = agg->aggcollid;
    int16 length;
    bool by_value;
    get_typlenbyval(agg->aggtype, &length, &by_value);
    const Oid element = get_element_type(agg->aggtype);
    Const* empty = makeConst(agg->aggtype, -1, agg->aggcollid, length, PointerGetDatum(construct_empty_array(element)),
                             false, by_value);
    or_empty->args = list_make2(agg, empty);
    or_empty->location = -1;
    return aggregating(sub, reinterpret_cast<Expr*>(or_empty), value->resname ? value->resname : "array", link->location);
}

// A constant of a LIMIT or OFFSET, -1 where there is none that is one.
int64 constant_count(Node* node) {
    if (node != nullptr) node = eval_const_expressions(nullptr, node);  // (a cast to bigint; node left as it is)
    if (node == nullptr || !IsA(node, Const) || reinterpret_cast<Const*>(node)->constisnull) return -1;
    return DatumGetInt64(reinterpret_cast<Const*>(node)->constvalue);
}

// A scalar subquery `... ORDER BY ..., x LIMIT 1 [OFFSET k]` as (SELECT
// (array_agg(x ORDER BY ...))[k + 1] FROM ... WHERE ...): the same row's
// value, NULL past the rows.  Null where sub is no such query.
SubLink* first_as_aggregate(const SubLink* link) {
    const auto* sub = reinterpret_cast<const Query*>(link->subselect);
    const TargetEntry* value = value_of(sub);
    if (value == nullptr || constant_count(sub->limitCount) != 1 || sub->distinctClause != NIL) return nullptr;
    const int64 offset = sub->limitOffset == nullptr ? 0 : constant_count(sub->limitOffset);
    Query unlimited = *sub;  // (a shallow copy, to ask whether all but its LIMIT is plain)
    unlimited.limitCount = nullptr;
    unlimited.limitOffset = nullptr;
    const bool plain = plain_select(&unlimited);
    const Oid type = exprType(reinterpret_cast<Node*>(value->expr));
    if (!plain || offset < 0 || offset >= PG_INT32_MAX || OidIsValid(get_element_type(type))) return nullptr;
    Aggref* agg = ordered_array(sub, value, "scalar subqueries with LIMIT, unless ordered by ..., their value", hint_ordered);
    SubscriptingRef* at = makeNode(SubscriptingRef);
    at->refcontainertype = agg->aggtype;
    at->refelemtype = type;
    at->refrestype = type;
    at->reftypmod = -1;
    at->refcollid = agg->aggcollid;
    at->refupperindexpr = list_make1(makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
                                               Int32GetDatum(static_cast<int32>(offset + 1)), false, true));
    at->refexpr = reinterpret_cast<Expr*>(agg);
    return aggregating(sub, reinterpret_cast<Expr*>(at), value->resname ? value->resname : "value", link->location);
}

// Whether a query reads only tables, without subqueries in expressions,
// its set operation's arms as well, aggregating nowhere but at its top: one
// maintenance step keeps its part.  (Where several parts fed it, the part
// over it would see one of them changed before the other, within one
// statement: ivm.single_value could see two rows that the statement's end
// does not have.)
bool read_in_one_step(const Query* q, bool top) {
    if (q->hasSubLinks || (!top && (q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr || q->hasWindowFuncs)))
        return false;
    ListCell* lc;
    foreach (lc, q->rtable) {
        const auto* rte = static_cast<const RangeTblEntry*>(lfirst(lc));
        const bool arm = q->setOperations != nullptr && rte->rtekind == RTE_SUBQUERY;
        if (arm && !read_in_one_step(rte->subquery, false)) return false;
        if (!arm && rte->rtekind != RTE_JOIN && rte->rtekind != RTE_RESULT &&
            !(rte->rtekind == RTE_RELATION && (rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_PARTITIONED_TABLE)))
            return false;
    }
    return true;
}

// A scalar subquery that groups, has HAVING, is DISTINCT or a set
// operation or has window functions, as (SELECT <its value> FROM (<it>)):
// a subquery in FROM, which gets a part, under one that does not aggregate
// (join_scalar keeps it as ivm.single_value: its one row's value, NULL
// without one, 21000 with two, as the query's).  Correlated, only one that
// groups or has HAVING: grouped by its correlations' inner sides too
// (decorrelated), their equalities left to the query over it.  Null where
// sub is no such query.
SubLink* grouped_read_as_from(const SubLink* link) {
    const auto* sub = reinterpret_cast<const Query*>(link->subselect);
    const bool grouped = sub->groupClause != NIL || sub->havingQual != nullptr;
    if (sub->commandType != CMD_SELECT || value_of(sub) == nullptr || sub->limitCount != nullptr ||
        sub->limitOffset != nullptr || sub->rowMarks != NIL || sub->hasRecursive || sub->hasTargetSRFs ||
        sub->groupingSets != NIL ||
        (!grouped && sub->distinctClause == NIL && sub->setOperations == nullptr && !sub->hasWindowFuncs))
        return nullptr;
    auto* copy = static_cast<Query*>(copyObjectImpl(sub));
    const bool correlated = reads_outer_columns(copy);
    if (correlated && (sub->distinctClause != NIL || sub->setOperations != nullptr || sub->hasWindowFuncs))
        return nullptr;  // (join_scalar refuses it)
    if (!read_in_one_step(sub, true))
        throw unsupported("scalar subqueries that group, are DISTINCT or set operations over subqueries, views or "
                          "arms that aggregate",
                          "Such a scalar subquery is maintained where it reads tables only.");
    Query* over = correlated ? decorrelated(copy) : read_as_from(copy);
    auto* scalar = static_cast<SubLink*>(copyObjectImpl(link));
    scalar->subselect = reinterpret_cast<Node*>(over);
    return scalar;
}

Node* rewrite_expression(Node* node, void* raw) {
    if (node == nullptr) return nullptr;
    auto* lv = static_cast<Level*>(raw);
    if (IsA(node, Aggref)) {
        ++lv->in_aggregate;
        Node* done = expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(rewrite_expression), raw);
        --lv->in_aggregate;
        return done;
    }
    if (!IsA(node, SubLink)) return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(rewrite_expression), raw);
    auto* link = reinterpret_cast<SubLink*>(node);
    if (link->subLinkType == EXISTS_SUBLINK && lv->select_list)
        if (SubLink* scalar = exists_as_count(link)) link = scalar;
    if (link->subLinkType == ARRAY_SUBLINK)
        if (SubLink* scalar = array_as_aggregate(link)) link = scalar;
    if (link->subLinkType == EXPR_SUBLINK)
        if (SubLink* scalar = first_as_aggregate(link)) link = scalar;
    if (link->subLinkType == EXPR_SUBLINK)
        if (SubLink* scalar = grouped_read_as_from(link)) link = scalar;
    if (link->subLinkType == EXPR_SUBLINK) {
        // Correlated over a WITH query of the query around it: left as it
        // is until that WITH query is a part (view_parts.cpp makes one read
        // by a subquery a part), which the subquery then reads as a table.
        auto* sub = reinterpret_cast<Query*>(link->subselect);
        if (reads_outer_columns(sub) && reads_outer_with(sub)) return reinterpret_cast<Node*>(link);
        lv->changed = true;
        Node* read = join_scalar(lv, link);
        // Read outside an aggregate by the select list or HAVING of an
        // aggregating query: one more grouping key (one value per group).
        if (lv->conjunct == nullptr && lv->in_aggregate == 0 &&
            (lv->q->groupClause != NIL || lv->q->hasAggs || lv->q->havingQual != nullptr)) {
            if (lv->q->groupClause == NIL)
                throw unsupported("scalar subqueries outside aggregates in the select list or HAVING of an aggregate "
                                  "without GROUP BY");
            lv->group_by = lappend(lv->group_by, read);
        }
        return read;
    }
    if (link->subLinkType != EXISTS_SUBLINK && link->subLinkType != ANY_SUBLINK && link->subLinkType != ALL_SUBLINK)
        return node;
    auto* copy = static_cast<SubLink*>(copyObjectImpl(link));
    auto* sub = reinterpret_cast<Query*>(copy->subselect);
    if (sub->commandType == CMD_SELECT && aggregates(sub) && sub->limitCount == nullptr &&
        sub->limitOffset == nullptr) {
        copy->subselect =
            reinterpret_cast<Node*>(reads_outer_columns(sub) ? decorrelated(sub) : read_as_from(sub));
        lv->changed = true;
    } else {
        lv->changed |= rewrite_query(sub, false);
    }
    return reinterpret_cast<Node*>(copy);
}

// The conditions with subqueries of the inner joins not under an outer
// join's nullable side, moved into WHERE (where they mean the same).
bool lift_join_conditions(Node* node, List** where) {
    if (node == nullptr) return false;
    bool moved = false;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist)
            moved |= lift_join_conditions(static_cast<Node*>(lfirst(lc)), where);
        return moved;
    }
    if (!IsA(node, JoinExpr)) return false;
    auto* join = reinterpret_cast<JoinExpr*>(node);
    if (join->jointype == JOIN_LEFT || join->jointype == JOIN_INNER) moved |= lift_join_conditions(join->larg, where);
    if (join->jointype == JOIN_RIGHT || join->jointype == JOIN_INNER) moved |= lift_join_conditions(join->rarg, where);
    if (join->jointype == JOIN_INNER && join->quals != nullptr && checkExprHasSubLink(join->quals)) {
        *where = list_concat(*where, conjuncts_of(join->quals));
        join->quals = nullptr;
        moved = true;
    }
    return moved;
}

bool rewrite_query(Query* q, bool top) {
    if (q->commandType != CMD_SELECT || q->jointree == nullptr || !q->hasSubLinks) return false;
    Level lv{q, top};
    List* lifted = NIL;
    if (lift_join_conditions(reinterpret_cast<Node*>(q->jointree), &lifted)) {
        q->jointree->quals = and_of(list_concat(conjuncts_of(q->jointree->quals), lifted));
        lv.changed = true;
    }
    List* where = NIL;
    ListCell* lc;
    foreach (lc, conjuncts_of(q->jointree->quals)) {
        lv.conjunct = static_cast<Node*>(lfirst(lc));
        where = lappend(where, rewrite_expression(lv.conjunct, &lv));
    }
    lv.conjunct = nullptr;
    lv.select_list = true;
    q->targetList = reinterpret_cast<List*>(rewrite_expression(reinterpret_cast<Node*>(q->targetList), &lv));
    lv.select_list = false;
    q->havingQual = rewrite_expression(q->havingQual, &lv);
    if (!lv.changed) return false;
    q->jointree->quals = and_of(list_concat(where, lv.joins));
    foreach (lc, lv.group_by) {
        Node* read = static_cast<Node*>(lfirst(lc));
        const Index ref = next_sort_group_ref(q->targetList);
        TargetEntry* te = makeTargetEntry(reinterpret_cast<Expr*>(read), list_length(q->targetList) + 1, nullptr, true);
        te->ressortgroupref = ref;
        q->targetList = lappend(q->targetList, te);
        q->groupClause = lappend(q->groupClause, grouping(exprType(read), ref));
    }
    q->hasSubLinks = checkExprHasSubLink(reinterpret_cast<Node*>(q->targetList)) ||
                     checkExprHasSubLink(q->jointree->quals) || checkExprHasSubLink(q->havingQual);
    return true;
}

// An aggregate without GROUP BY (or a query that HAVING alone makes one
// group) whose select list or HAVING reads a scalar
// subquery outside its aggregates.  `outside` counts those subqueries;
// `unsplittable` is set by one that is correlated (reads the aggregate's
// own aggregates), or by another kind of subquery there.
struct ScalarsOverAggregate {
    int in_aggregate = 0;
    int outside = 0;
    bool unsplittable = false;
};
bool find_scalars_outside(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* s = static_cast<ScalarsOverAggregate*>(raw);
    if (IsA(node, Aggref)) {
        ++s->in_aggregate;
        expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_scalars_outside), raw);
        --s->in_aggregate;
        return false;
    }
    if (IsA(node, SubLink)) {
        if (s->in_aggregate > 0) return false;
        auto* link = reinterpret_cast<SubLink*>(node);
        if (link->subLinkType != EXPR_SUBLINK || reads_outer_columns(reinterpret_cast<Query*>(link->subselect)))
            s->unsplittable = true;
        ++s->outside;
        return false;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_scalars_outside), raw);
}

// The parts of an expression over the aggregate that hold no subquery,
// each read as a column of the aggregation (computed there once).
struct Aggregation {
    List* outputs = NIL;  // of TargetEntry
};
Node* over_aggregation(Node* node, void* raw) {
    if (node == nullptr || IsA(node, Const)) return node;
    if (IsA(node, SubLink)) return node;  // (uncorrelated: read by the query over the aggregation as it is)
    auto* a = static_cast<Aggregation*>(raw);
    if (!IsA(node, List) && !checkExprHasSubLink(node)) return reinterpret_cast<Node*>(read_output(&a->outputs, node, "a"));
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(over_aggregation), raw);
}

// Such an aggregate (one row, over no rows too) goes into FROM, computing
// every part of its select list and HAVING that holds no subquery; the
// query over it reads the subqueries, as any query without aggregates
// does (a GROUP BY query takes such a value as one more group key
// instead, which here would lose the row over no rows).  Runs inside call().
bool split_aggregate_from_scalars(Query* q) {
    if ((!q->hasAggs && q->havingQual == nullptr) || q->groupClause != NIL || q->groupingSets != NIL ||
        q->setOperations != nullptr || q->hasWindowFuncs || q->hasTargetSRFs || q->distinctClause != NIL ||
        q->hasRecursive || !q->hasSubLinks || q->limitCount != nullptr || q->limitOffset != nullptr)
        return false;
    ScalarsOverAggregate found;
    find_scalars_outside(reinterpret_cast<Node*>(q->targetList), &found);
    find_scalars_outside(q->havingQual, &found);
    if (found.outside == 0 || found.unsplittable) return false;
    Aggregation a;
    auto* targets = static_cast<List*>(copyObjectImpl(q->targetList));
    ListCell* lc;
    foreach (lc, targets) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        te->expr = reinterpret_cast<Expr*>(over_aggregation(reinterpret_cast<Node*>(te->expr), &a));
    }
    const bool having_reads = checkExprHasSubLink(q->havingQual);
    Node* where = having_reads ? over_aggregation(q->havingQual, &a) : nullptr;
    if (a.outputs == NIL) {
        // (an aggregation without columns is no view: a count(*) keeps it one
        // row, which HAVING alone made it)
        read_output(&a.outputs, reinterpret_cast<Node*>(count_star()), "a");
    }
    Query* inner = static_cast<Query*>(copyObjectImpl(q));
    inner->hasAggs = true;
    inner->sortClause = NIL;
    if (having_reads) inner->havingQual = nullptr;
    inner->targetList = a.outputs;
    q->targetList = targets;
    // The WITH queries stay with the query over it, which its subqueries
    // may read too: the aggregation reads them one level further up.
    inner->cteList = NIL;
    raise_with_references(inner);
    inner->hasSubLinks = checkExprHasSubLink(reinterpret_cast<Node*>(inner->targetList)) ||
                         checkExprHasSubLink(inner->jointree->quals) || checkExprHasSubLink(inner->havingQual);
    List* names = NIL;
    foreach (lc, a.outputs) names = lappend(names, makeString(pstrdup(static_cast<TargetEntry*>(lfirst(lc))->resname)));
    read_from_only(q, inner, "aggregated", names);
    q->jointree->quals = where;
    q->hasAggs = false;
    q->havingQual = nullptr;
    return true;
}

// Whether rte is a LATERAL subquery that aggregates without GROUP BY:
// exactly one row for every row before it.
bool lateral_aggregate(const RangeTblEntry* rte) {
    return rte->rtekind == RTE_SUBQUERY && rte->lateral && rte->subquery != nullptr && rte->subquery->hasAggs &&
           plain_select(rte->subquery, true) && rte->subquery->distinctClause == NIL && rte->subquery->cteList == NIL;
}

// A LATERAL subquery's correlations with the items before it (of q),
// taken out of its WHERE (their outer sides moved up; others made
// equalities over a domain as a scalar subquery's are); refuses one that
// reads those items otherwise.
Correlations lateral_correlations(Query* q, Query* sub) {
    correlate_over_domain(q, sub);
    Correlations c = correlations_of(sub, "LATERAL subqueries", true);
    sub->jointree->quals = and_of(c.kept);
    if (reads_outer_columns(sub))
        throw unsupported("LATERAL subqueries that read the items before them outside equalities of their WHERE",
                          hint_correlated);
    if (c.inner != NIL && reads_outer_query(sub))
        throw unsupported("correlated LATERAL subqueries over WITH queries of the outer query", hint_correlated);
    return c;
}

// The FROM item of the top-level list `item` without references to such
// subqueries: a reference itself goes (nullptr), and an inner join whose
// right side one is becomes its left side (itself without them), its
// condition added to `where`.  `found`: the subqueries' range table
// indexes.
Node* without_lateral_aggregates(Query* q, Node* item, List** where, List** found) {
    auto lateral = [&](Node* node) {
        return IsA(node, RangeTblRef) && lateral_aggregate(rt_fetch(reinterpret_cast<RangeTblRef*>(node)->rtindex, q->rtable));
    };
    if (lateral(item)) {
        *found = lappend_int(*found, reinterpret_cast<RangeTblRef*>(item)->rtindex);
        return nullptr;
    }
    if (!IsA(item, JoinExpr)) return item;
    auto* j = reinterpret_cast<JoinExpr*>(item);
    if (j->jointype != JOIN_INNER || j->alias != nullptr || j->usingClause != NIL || !lateral(j->rarg)) return item;
    *found = lappend_int(*found, reinterpret_cast<RangeTblRef*>(j->rarg)->rtindex);
    if (j->quals != nullptr) *where = lappend(*where, j->quals);
    leave_out_of_from(rt_fetch(j->rtindex, q->rtable));
    return without_lateral_aggregates(q, j->larg, where, found);
}

// The LATERAL subquery `rti` (lateral_aggregate, out of FROM already)
// joined as a scalar subquery is (join_scalar), with all its values: one
// FROM item grouped by the inner sides of its correlations and LEFT JOINed
// on them, each value over no rows (count's 0) standing in where an outer
// row has no inner rows; uncorrelated, one row cross-joined.  Its columns'
// readers read those.
void join_lateral_aggregate(Query* q, int rti) {
    RangeTblEntry* rte = rt_fetch(rti, q->rtable);
    auto* sub = static_cast<Query*>(copyObjectImpl(rte->subquery));
    List* values = NIL;
    ListCell* lc;
    foreach (lc, sub->targetList)
        if (!static_cast<TargetEntry*>(lfirst(lc))->resjunk) values = lappend(values, lfirst(lc));
    const Correlations c = lateral_correlations(q, sub);
    List* empties = NIL;
    if (c.inner != NIL)
        foreach (lc, values) empties = lappend(empties, value_over_no_rows(sub, static_cast<TargetEntry*>(lfirst(lc))));
    if (c.inner != NIL) restrict_to_outer_rows(q, sub, c);
    const int joined = add_grouped(q, sub, c, values);
    Var* first_key = read_keys(c, joined, 1);
    List* reads = NIL;
    int i = 0;
    foreach (lc, values) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        Const* empty = empties == NIL ? nullptr : static_cast<Const*>(list_nth(empties, i));
        Node* value = read_value(c, joined, ++i, reinterpret_cast<Node*>(te->expr), first_key, empty);
        reads = lappend(reads, makeTargetEntry(reinterpret_cast<Expr*>(value), te->resno, te->resname, false));
    }
    if (c.inner == NIL)
        cross_join(q, joined);
    else
        join_left(q, joined, and_of(c.equalities));
    bool sublinks = false;
    auto replace = [&](Node* node) {
        return ReplaceVarsFromTargetList(node, rti, 0, rte, reads, REPLACEVARS_REPORT_ERROR, 0, &sublinks);
    };
    q->targetList = reinterpret_cast<List*>(replace(reinterpret_cast<Node*>(q->targetList)));
    q->jointree->quals = replace(q->jointree->quals);
    q->havingQual = replace(q->havingQual);
    leave_out_of_from(rte);
}

// Whether rte is a LATERAL subquery that groups (GROUP BY; no grouping
// sets, windows, DISTINCT, LIMIT or WITH of its own).
bool lateral_grouping(const RangeTblEntry* rte) {
    if (rte->rtekind != RTE_SUBQUERY || !rte->lateral || rte->subquery == nullptr) return false;
    const Query* s = rte->subquery;
    return s->commandType == CMD_SELECT && s->setOperations == nullptr && s->groupClause != NIL &&
           s->groupingSets == NIL && !s->hasWindowFuncs && !s->hasTargetSRFs && s->limitCount == nullptr &&
           s->limitOffset == nullptr && s->distinctClause == NIL && s->cteList == NIL && s->rowMarks == NIL &&
           !s->hasRecursive;
}

// Whether FROM item `node` holds entry rti under inner joins alone, where
// a condition on it may stand in WHERE.
bool under_inner_joins(Node* node, int rti) {
    if (IsA(node, RangeTblRef)) return reinterpret_cast<RangeTblRef*>(node)->rtindex == rti;
    if (!IsA(node, JoinExpr)) return false;
    auto* j = reinterpret_cast<JoinExpr*>(node);
    return j->jointype == JOIN_INNER && (under_inner_joins(j->larg, rti) || under_inner_joins(j->rarg, rti));
}

// The LATERAL subquery `rti`, its correlations' inner sides shown from
// column `first` on, no longer LATERAL: joined on them, in WHERE or in
// `left_join`'s condition.
void join_on_keys(Query* q, int rti, const Correlations& c, int first, JoinExpr* left_join) {
    RangeTblEntry* rte = rt_fetch(rti, q->rtable);
    for (int k = 0; k < list_length(c.inner); ++k)
        rte->eref->colnames = lappend(
            rte->eref->colnames, makeString(list_nth_node(TargetEntry, rte->subquery->targetList, first - 1 + k)->resname));
    read_keys(c, rti, first);
    Node*& quals = left_join != nullptr ? left_join->quals : q->jointree->quals;
    quals = and_of(list_concat(conjuncts_of(quals), c.equalities));
    rte->lateral = false;
}

// A LATERAL subquery that groups, correlated by equalities of its WHERE
// (inner = outer), is the same subquery grouped by their inner sides too
// (output columns after its own) and joined on them in WHERE: each row
// before it meets the groups of the inner rows it equals, as the subquery
// run for that row would make them.  Then it is an aggregating subquery in
// FROM as any other.
void decorrelate_lateral_grouping(Query* q, int rti) {
    RangeTblEntry* rte = rt_fetch(rti, q->rtable);
    Query* sub = rte->subquery;
    const Correlations c = lateral_correlations(q, sub);
    join_on_keys(q, rti, c, group_by_inner_sides(sub, c, "__ivm_lateral"), nullptr);
}

// Each LATERAL subquery of the view's own FROM that groups, under inner
// joins alone, decorrelated.
bool lateral_groupings_decorrelated(Query* q) {
    if (q->setOperations != nullptr || q->jointree == nullptr) return false;
    bool changed = false;
    for (int rti = 1; rti <= list_length(q->rtable); ++rti) {
        if (!lateral_grouping(rt_fetch(rti, q->rtable))) continue;
        bool inner = false;
        ListCell* lc;
        foreach (lc, q->jointree->fromlist) inner |= under_inner_joins(static_cast<Node*>(lfirst(lc)), rti);
        if (!inner) continue;
        decorrelate_lateral_grouping(q, rti);
        changed = true;
    }
    return changed;
}

// The rows a LATERAL subquery keeps of each outer row's, where it selects,
// projects and joins only (no DISTINCT, WITH, subqueries or windows): all,
// or by LIMIT and OFFSET constants under ORDER BY (`first` to `last`, from
// 1; not WITH TIES).  None: another kind of subquery.
struct KeptRows {
    int64 first = 1;
    int64 last = std::numeric_limits<int64>::max();
    bool all() const { return first == 1 && last == std::numeric_limits<int64>::max(); }
};
std::optional<KeptRows> lateral_rows(const RangeTblEntry* rte) {
    if (rte->rtekind != RTE_SUBQUERY || !rte->lateral || rte->subquery == nullptr) return std::nullopt;
    const Query* s = rte->subquery;
    Query unlimited = *s;  // (plain_select refuses a LIMIT)
    unlimited.limitCount = unlimited.limitOffset = nullptr;
    if (!plain_select(&unlimited) || s->distinctClause != NIL || s->cteList != NIL || s->hasSubLinks)
        return std::nullopt;
    KeptRows kept;
    if (s->limitCount == nullptr && s->limitOffset == nullptr) return kept;
    if (s->sortClause == NIL || s->limitOption != LIMIT_OPTION_COUNT) return std::nullopt;
    // (LIMIT NULL is LIMIT ALL; OFFSET NULL, none: nullopt)
    auto constant = [](Node* n, std::optional<int64>* value) {
        if (n == nullptr) return true;
        n = eval_const_expressions(nullptr, static_cast<Node*>(copyObjectImpl(n)));
        if (!IsA(n, Const) || exprType(n) != INT8OID) return false;
        auto* c = reinterpret_cast<Const*>(n);
        if (!c->constisnull) *value = DatumGetInt64(c->constvalue);
        return true;
    };
    std::optional<int64> count, offset;
    const int64 most = std::numeric_limits<int64>::max();
    if (!constant(s->limitCount, &count) || !constant(s->limitOffset, &offset) || count.value_or(0) < 0 ||
        offset.value_or(0) < 0 || offset.value_or(0) == most)
        return std::nullopt;
    kept.first = offset.value_or(0) + 1;
    if (count && *count <= most - kept.first) kept.last = kept.first - 1 + *count;
    return kept;
}

// The entries of FROM item `node` (its tables, subqueries and joins).
Relids entries_under(Node* node) {
    if (IsA(node, RangeTblRef)) return bms_make_singleton(reinterpret_cast<RangeTblRef*>(node)->rtindex);
    auto* j = reinterpret_cast<JoinExpr*>(node);
    return bms_add_member(bms_union(entries_under(j->larg), entries_under(j->rarg)), j->rtindex);
}

// A LATERAL subquery of kept rows (lateral_rows), correlated by equalities
// of its WHERE (inner = outer), is the same subquery with their inner
// sides as output columns after its own, joined on them: in WHERE, or in
// `left_join`'s condition where it is the right side of that LEFT JOIN.
// Its first rows by ORDER BY are numbered in each correlation's partition
// (keep_first_rows, window_steps.hpp), a window part kept by partitions:
//   FROM cust c LEFT JOIN LATERAL (SELECT o.amount FROM ord o
//   WHERE o.cid = c.id ORDER BY o.amount DESC LIMIT 2) s ON true
// becomes
//   FROM cust c LEFT JOIN (SELECT amount, __ivm_lateral_1 FROM (SELECT
//   o.amount, o.cid AS __ivm_lateral_1, row_number() OVER (PARTITION BY
//   o.cid ORDER BY o.amount DESC) FROM ord o) first WHERE row_number <= 2)
//   s ON true AND s.__ivm_lateral_1 = c.id
void decorrelate_lateral_rows(Query* q, int rti, const KeptRows& kept, JoinExpr* left_join) {
    RangeTblEntry* rte = rt_fetch(rti, q->rtable);
    Query* sub = rte->subquery;
    const Correlations c = lateral_correlations(q, sub);
    // (a row whose key is NULL meets no outer row; left out, the key is
    // never NULL, and a recompute of its partitions finds their rows
    // through an index on it)
    ListCell* lc;
    foreach (lc, c.inner) {
        NullTest* test = null_test(static_cast<Expr*>(copyObjectImpl(lfirst(lc))), IS_NOT_NULL);
        sub->jointree->quals = and_of(lappend(conjuncts_of(sub->jointree->quals), test));
    }
    const int first = group_by_inner_sides(sub, c, "__ivm_lateral");
    List* partition = sub->groupClause;
    sub->groupClause = NIL;
    if (kept.all()) {
        sub->sortClause = NIL;
    } else {
        keep_first_rows(sub, partition, sub->sortClause, kept.first, kept.last);
    }
    join_on_keys(q, rti, c, first, left_join);
}

bool always_true(Node* quals) {
    return quals == nullptr || (IsA(quals, Const) && !reinterpret_cast<Const*>(quals)->constisnull &&
                                DatumGetBool(reinterpret_cast<Const*>(quals)->constvalue));
}

// Decorrelates (decorrelate_lateral_rows) the LATERAL subqueries of FROM
// item `node` that keep their first rows, under inner joins from the
// view's FROM (`inner`) or on the right of a LEFT JOIN whose left side has
// every item they read, and the select-project-join ones there too (under
// inner joins only where the query has an outer join).  A
// LEFT JOIN LATERAL of an aggregate without GROUP BY ON true, which yields
// one row for every row before it, is an inner join.
bool lateral_rows_in(Query* q, Node* node, bool inner) {
    if (IsA(node, RangeTblRef)) {
        const int rti = reinterpret_cast<RangeTblRef*>(node)->rtindex;
        const std::optional<KeptRows> kept = lateral_rows(rt_fetch(rti, q->rtable));
        // (all rows, under inner joins of a query without outer joins:
        // expanded as they are)
        if (!inner || !kept || (kept->all() && !has_outer_join(reinterpret_cast<Node*>(q->jointree)))) return false;
        decorrelate_lateral_rows(q, rti, *kept, nullptr);
        return true;
    }
    if (!IsA(node, JoinExpr)) return false;
    auto* j = reinterpret_cast<JoinExpr*>(node);
    if (j->jointype == JOIN_INNER) {
        const bool left = lateral_rows_in(q, j->larg, inner);
        return lateral_rows_in(q, j->rarg, inner) || left;
    }
    if (j->jointype != JOIN_LEFT) return false;
    bool changed = lateral_rows_in(q, j->larg, inner);
    if (!IsA(j->rarg, RangeTblRef)) return changed;
    const int rti = reinterpret_cast<RangeTblRef*>(j->rarg)->rtindex;
    RangeTblEntry* rte = rt_fetch(rti, q->rtable);
    if (lateral_aggregate(rte) && always_true(j->quals)) {
        j->jointype = JOIN_INNER;
        rt_fetch(j->rtindex, q->rtable)->jointype = JOIN_INNER;
        return true;
    }
    const std::optional<KeptRows> kept = lateral_rows(rte);
    if (!kept || !bms_is_subset(pull_varnos_of_level(nullptr, reinterpret_cast<Node*>(rte->subquery), 1),
                                entries_under(j->larg)))
        return changed;
    decorrelate_lateral_rows(q, rti, *kept, j);
    return true;
}

// A LATERAL subquery that aggregates without GROUP BY yields one row for
// each row before it, as a scalar subquery does, with more than one value:
// each such subquery of the top-level FROM is joined so.
bool lateral_aggregates_joined(Query* q) {
    if (q->setOperations != nullptr || q->jointree == nullptr) return false;
    List* where = NIL;
    List* from = NIL;
    List* laterals = NIL;
    ListCell* lc;
    foreach (lc, q->jointree->fromlist)
        if (Node* item = without_lateral_aggregates(q, static_cast<Node*>(lfirst(lc)), &where, &laterals))
            from = lappend(from, item);
    if (laterals == NIL) return false;
    q->jointree->fromlist = from;
    q->jointree->quals = and_of(list_concat(conjuncts_of(q->jointree->quals), where));
    foreach (lc, laterals) join_lateral_aggregate(q, lfirst_int(lc));
    return true;
}

}  // namespace

namespace {

// A LEFT JOIN LATERAL that is an item of the view's FROM and reads items
// before it there (FROM a, b LEFT JOIN LATERAL (... a.x ...) s ON ...):
// those items join its left side first (FROM (a CROSS JOIN b) LEFT JOIN
// ...), the same rows, where its ON may read them.
bool earlier_items_joined(Query* q) {
    List* items = q->jointree->fromlist;
    for (int i = 1; i < list_length(items); ++i) {
        auto* j = static_cast<JoinExpr*>(list_nth(items, i));
        if (!IsA(j, JoinExpr) || j->jointype != JOIN_LEFT || !IsA(j->rarg, RangeTblRef)) continue;
        const RangeTblEntry* rte = rt_fetch(reinterpret_cast<RangeTblRef*>(j->rarg)->rtindex, q->rtable);
        if (rte->rtekind != RTE_SUBQUERY || !rte->lateral) continue;
        const Relids read = pull_varnos_of_level(nullptr, reinterpret_cast<Node*>(rte->subquery), 1);
        if (bms_is_subset(read, entries_under(j->larg))) continue;
        // (a new LEFT JOIN over the new inner ones: PostgreSQL's deparser
        // wants a join's entry after its inputs'; the old one's columns
        // read as what they stand for)
        flatten_join_columns(q);  // (a copy of the tree)
        items = q->jointree->fromlist;
        j = static_cast<JoinExpr*>(list_nth(items, i));
        Node* left = static_cast<Node*>(linitial(items));
        for (int k = 1; k <= i; ++k) {
            Node* next = k < i ? static_cast<Node*>(list_nth(items, k)) : j->larg;
            left = reinterpret_cast<Node*>(new_join(q, JOIN_INNER, left, next, nullptr));
        }
        JoinExpr* joined = new_join(q, JOIN_LEFT, left, j->rarg, j->quals);
        leave_out_of_from(rt_fetch(j->rtindex, q->rtable));
        q->jointree->fromlist = lcons(joined, list_copy_tail(items, i + 1));
        describe_joins(q, reinterpret_cast<Node*>(q->jointree));
        return true;
    }
    return false;
}

}  // namespace

bool lateral_rows_decorrelated(Query* q) {
    if (q->setOperations != nullptr || q->jointree == nullptr) return false;
    bool changed = earlier_items_joined(q);
    ListCell* lc;
    foreach (lc, q->jointree->fromlist) changed |= lateral_rows_in(q, static_cast<Node*>(lfirst(lc)), true);
    return changed;
}

void lateral_subqueries_as_joined(Query* q) {
    while (lateral_rows_decorrelated(q) || lateral_groupings_decorrelated(q)) {
    }
    if (q->setOperations != nullptr || q->jointree == nullptr) return;
    List* where = NIL;
    List* found = NIL;
    ListCell* lc;
    foreach (lc, q->jointree->fromlist) without_lateral_aggregates(q, static_cast<Node*>(lfirst(lc)), &where, &found);
    foreach (lc, found) rt_fetch(lfirst_int(lc), q->rtable)->lateral = false;
}

bool join_subqueries(Query* q) {
    return call([&] {
        if (lateral_rows_decorrelated(q)) return true;
        if (lateral_groupings_decorrelated(q)) return true;
        if (lateral_aggregates_joined(q)) return true;
        if (split_aggregate_from_scalars(q)) return true;
        if (q->setOperations == nullptr) return rewrite_query(q, true);
        // The arms of a set operation: one that aggregates, has windows or
        // is a set operation of its own reads its query as a subquery in
        // FROM; the others are rewritten as queries of their own.
        bool changed = false;
        ListCell* lc;
        foreach (lc, q->rtable) {
            auto* rte = static_cast<RangeTblEntry*>(lfirst(lc));
            if (rte->rtekind != RTE_SUBQUERY || rte->subquery == nullptr) continue;
            Query* arm = rte->subquery;
            if (arm->commandType == CMD_SELECT && (aggregates(arm) || arm->hasWindowFuncs) &&
                arm->limitCount == nullptr && arm->limitOffset == nullptr) {
                rte->subquery = read_as_from(arm);
                changed = true;
            } else {
                changed |= rewrite_query(arm, true);
            }
        }
        return changed;
    });
}

namespace {
bool plain_if_uncorrelated(Node* node, void* context) {
    if (node == nullptr) return false;
    if (IsA(node, RangeTblEntry)) {
        auto* rte = reinterpret_cast<RangeTblEntry*>(node);
        if (rte->rtekind == RTE_SUBQUERY && rte->lateral && !reads_outer_query(rte->subquery)) rte->lateral = false;
        return false;
    }
    if (IsA(node, Query))
        return query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(plain_if_uncorrelated),
                                 context, QTW_EXAMINE_RTES_BEFORE);
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(plain_if_uncorrelated), context);
}
}  // namespace

void plain_uncorrelated_laterals(Query* q) {
    call([&] { plain_if_uncorrelated(reinterpret_cast<Node*>(q), nullptr); });
}

}  // namespace ivm::pg
