#include "pg/crossing_filter.hpp"

#include "pg/boundary.hpp"

extern "C" {
#include "catalog/pg_operator_d.h"
#include "rewrite/rewriteManip.h"
}

namespace ivm::pg {
namespace {

struct RowOf {
    int rtindex;
    const RangeTblEntry* rte;  // the occurrence's placeholder, its count last
    bool old_row;
};

Expr* int8_const(int64 value) {
    return reinterpret_cast<Expr*>(makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(value), false, FLOAT8PASSBYVAL));
}

// (SELECT <column> FROM <placeholder> WHERE __ivm_cnt < 0 LIMIT 1), or
// 0 < __ivm_cnt for the new row.
SubLink* value_in_row(const Var* column, const RowOf& row) {
    auto* rte = static_cast<RangeTblEntry*>(copyObjectImpl(row.rte));
    rte->ctelevelsup += 1;
    rte->alias = makeAlias(row.old_row ? "__ivm_old" : "__ivm_new", rte->alias ? rte->alias->colnames : NIL);
    Expr* count = reinterpret_cast<Expr*>(
        makeVar(1, static_cast<AttrNumber>(list_length(rte->eref->colnames)), INT8OID, -1, InvalidOid, 0));
    auto* sign = reinterpret_cast<OpExpr*>(make_opclause(Int8LessOperator, BOOLOID, false, row.old_row ? count : int8_const(0),
                                                         row.old_row ? int8_const(0) : count, InvalidOid, InvalidOid));
    sign->opfuncid = get_opcode(Int8LessOperator);
    Var* value = makeVar(1, column->varattno, column->vartype, column->vartypmod, column->varcollid, 0);
    SubLink* link = value_over(rte, reinterpret_cast<Node*>(sign), reinterpret_cast<Expr*>(value));
    Query* sub = reinterpret_cast<Query*>(link->subselect);
    sub->limitCount = reinterpret_cast<Node*>(int8_const(1));
    sub->limitOption = LIMIT_OPTION_COUNT;
    return link;
}

Node* over_row(Node* node, void* raw) {
    if (node == nullptr) return nullptr;
    const auto* row = static_cast<const RowOf*>(raw);
    if (IsA(node, Var)) {
        const auto* v = reinterpret_cast<const Var*>(node);
        if (static_cast<int>(v->varno) == row->rtindex && v->varlevelsup == 0)
            return reinterpret_cast<Node*>(value_in_row(v, *row));
        return node;
    }
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(over_row), raw);
}

BooleanTest* is(Node* arg, BoolTestType test) {
    BooleanTest* t = makeNode(BooleanTest);
    t->arg = reinterpret_cast<Expr*>(arg);
    t->booltesttype = test;
    t->location = -1;
    return t;
}

// (SELECT __ivm_ok FROM __ivm_pair)
SubLink* one_row_replaced() {
    RangeTblEntry* pair = makeNode(RangeTblEntry);
    pair->rtekind = RTE_CTE;
    pair->ctename = pstrdup("__ivm_pair");
    pair->ctelevelsup = 1;  // (a WITH query of the term the template goes into)
    pair->eref = makeAlias("__ivm_pair", list_make1(makeString(pstrdup("__ivm_ok"))));
    pair->coltypes = list_make1_oid(BOOLOID);
    pair->coltypmods = list_make1_int(-1);
    pair->colcollations = list_make1_oid(InvalidOid);
    pair->inFromCl = true;
    return value_over(pair, nullptr, reinterpret_cast<Expr*>(makeVar(1, 1, BOOLOID, -1, InvalidOid, 0)));
}

// Whether a condition reads the occurrence only through plain columns of
// its own, and can be evaluated with them replaced by values.
bool evaluable(Node* conjunct, int rtindex) {
    if (checkExprHasSubLink(conjunct) || contain_volatile_functions(conjunct)) return false;
    List* vars = pull_var_clause(conjunct, PVC_RECURSE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS | PVC_RECURSE_PLACEHOLDERS);
    ListCell* lc;
    foreach (lc, vars) {
        const Var* v = static_cast<Var*>(lfirst(lc));
        if (static_cast<int>(v->varno) == rtindex && v->varattno <= 0) return false;
    }
    return true;
}

bool in_from_list(const Query* q, int rtindex) {
    ListCell* lc;
    foreach (lc, q->jointree->fromlist) {
        const Node* item = static_cast<Node*>(lfirst(lc));
        if (IsA(item, RangeTblRef) && reinterpret_cast<const RangeTblRef*>(item)->rtindex == rtindex) return true;
    }
    return false;
}

}  // namespace

bool add_crossing_filter(Query* q, const Occurrence& o) {
    if (o.owner != q || !o.path.empty() || o.role != Source::Role::Linear || q->setOperations != nullptr) return false;
    return call([&] {
        const int rtindex = o.rtindex;
        if (!in_from_list(q, rtindex)) return false;
        const RangeTblEntry* rte = rt_fetch(rtindex, q->rtable);
        const auto count_attno = static_cast<AttrNumber>(list_length(rte->eref->colnames));
        // Its conditions, and the query without them, its reference and its count.
        List* reading = NIL;
        List* rest = NIL;
        ListCell* lc;
        foreach (lc, conjuncts_of(q->jointree->quals)) {
            Node* c = static_cast<Node*>(lfirst(lc));
            if (rangeTableEntry_used(c, rtindex, 0)) {
                if (!evaluable(c, rtindex)) return false;
                reading = lappend(reading, c);
            } else {
                rest = lappend(rest, c);
            }
        }
        if (reading == NIL) return false;  // (every row changes)
        auto* without = static_cast<Query*>(copyObjectImpl(q));
        without->jointree->quals = rest == NIL ? nullptr : reinterpret_cast<Node*>(make_ands_explicit(rest));
        List* from = NIL;
        foreach (lc, without->jointree->fromlist) {
            Node* item = static_cast<Node*>(lfirst(lc));
            if (!(IsA(item, RangeTblRef) && reinterpret_cast<RangeTblRef*>(item)->rtindex == rtindex))
                from = lappend(from, item);
        }
        without->jointree->fromlist = from;
        List* targets = NIL;
        foreach (lc, without->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            const bool count = IsA(te->expr, Var) && static_cast<int>(reinterpret_cast<Var*>(te->expr)->varno) == rtindex &&
                               reinterpret_cast<Var*>(te->expr)->varattno == count_attno &&
                               reinterpret_cast<Var*>(te->expr)->varlevelsup == 0;
            if (!count) targets = lappend(targets, te);
        }
        without->targetList = targets;
        if (rangeTableEntry_used(reinterpret_cast<Node*>(without), rtindex, 0)) return false;

        Node* conditions = reinterpret_cast<Node*>(make_ands_explicit(reading));
        RowOf old_row{rtindex, rte, true};
        RowOf new_row{rtindex, rte, false};
        Node* with_old = reinterpret_cast<Node*>(is(over_row(static_cast<Node*>(copyObjectImpl(conditions)), &old_row), IS_TRUE));
        Node* with_new = reinterpret_cast<Node*>(is(over_row(static_cast<Node*>(copyObjectImpl(conditions)), &new_row), IS_TRUE));
        auto* differ = reinterpret_cast<OpExpr*>(
            make_opclause(BooleanNotEqualOperator, BOOLOID, false, reinterpret_cast<Expr*>(with_old),
                          reinterpret_cast<Expr*>(with_new), InvalidOid, InvalidOid));
        differ->opfuncid = get_opcode(BooleanNotEqualOperator);
        Node* filter = reinterpret_cast<Node*>(makeBoolExpr(
            OR_EXPR, list_make2(is(reinterpret_cast<Node*>(one_row_replaced()), IS_NOT_TRUE), differ), -1));
        q->jointree->quals = make_and_qual(q->jointree->quals, filter);
        q->hasSubLinks = true;
        return true;
    });
}

}  // namespace ivm::pg
