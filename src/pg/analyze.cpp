#include "pg/analyze.hpp"

#include "pg/aggregate_expressions.hpp"

#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"
#include "pg/boundary.hpp"
#include "pg/crossing_filter.hpp"
#include "pg/catalog.hpp"
#include "pg/expand_views.hpp"
#include "pg/view_parts.hpp"
#include "pg/full_joins.hpp"
#include "pg/keys.hpp"
#include "pg/maintain.hpp"
#include "pg/nondeterministic_collations.hpp"
#include "pg/numeric_scale.hpp"
#include "pg/occurrences.hpp"
#include "pg/pass_through.hpp"
#include "pg/program.hpp"
#include "pg/scalar_subqueries.hpp"
#include "pg/views_not_null.hpp"

extern "C" {
#include "catalog/pg_collation.h"
#include "rewrite/rewriteManip.h"
}

#include <algorithm>

namespace ivm::pg {
namespace {

// What the expression walker found first; plain data, filled inside PG code.
struct Finding {
    const char* construct = nullptr;  // set when something is unsupported
    Oid function = InvalidOid;        // the non-immutable function, if that
    Oid relation = InvalidOid;        // the relation of a system column
    AttrNumber attribute = 0;
};

bool is_mutable_function(Oid func, void* context) {
    if (func_volatile(func) == PROVOLATILE_IMMUTABLE) return false;
    static_cast<Finding*>(context)->function = func;
    return true;
}

struct WalkContext {
    Finding* finding;
    Query* query;
};

bool find_unsupported(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* ctx = static_cast<WalkContext*>(raw);
    Finding* f = ctx->finding;
    if (IsA(node, Var)) {
        Var* var = reinterpret_cast<Var*>(node);
        if (var->varlevelsup == 0 && var->varattno <= 0) {
            RangeTblEntry* rte = rt_fetch(var->varno, ctx->query->rtable);
            if (var->varattno == 0) {
                f->construct = "whole-row references";
            } else {
                f->construct = "system columns";
                f->relation = rte->relid;
                f->attribute = var->varattno;
            }
            return true;
        }
        return false;
    }
    if (IsA(node, Query)) {  // a subquery of WHERE: its own range table
        WalkContext inner{f, reinterpret_cast<Query*>(node)};
        return query_tree_walker(inner.query, reinterpret_cast<bool (*)()>(find_unsupported), &inner,
                                 QTW_IGNORE_RANGE_TABLE);
    }
    if (check_functions_in_node(node, is_mutable_function, f)) {
        f->construct = "non-immutable functions";
        return true;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_unsupported), raw);
}

// Statement-level clauses the counting engine does not handle (yet).
void check_query_shape(const Query* q, bool recursive_cte_allowed = false, bool windows_allowed = false) {
    if (q->commandType != CMD_SELECT) throw unsupported("statements other than SELECT");
    if (q->cteList != NIL && !recursive_cte_allowed) throw unsupported(q->hasRecursive ? "WITH RECURSIVE" : "WITH");
    if (q->groupingSets != NIL) throw unsupported("GROUPING SETS, ROLLUP and CUBE");
    if ((q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr) && q->distinctClause != NIL)
        throw unsupported("DISTINCT with aggregation");
    if (q->hasWindowFuncs && !windows_allowed) throw unsupported("window functions");
    if (q->hasTargetSRFs) throw unsupported("set-returning functions in the select list");
    if (q->limitCount != nullptr || q->limitOffset != nullptr) throw unsupported("LIMIT and OFFSET");
    if (q->rowMarks != NIL) throw unsupported("FOR UPDATE and FOR SHARE");
    if (q->hasDistinctOn) throw unsupported("DISTINCT ON");
}

void check_expressions(Query* q) {
    Finding finding;
    WalkContext ctx{&finding, q};
    call([&] {
        query_tree_walker(q, reinterpret_cast<bool (*)()>(find_unsupported), &ctx,
                          QTW_IGNORE_RANGE_TABLE);
    });
    if (finding.construct == nullptr) return;
    if (finding.function != InvalidOid) {
        Oid func = finding.function;
        const char* name = call([&] { return get_func_name(func); });
        throw unsupported(std::string("the non-immutable function ") + (name ? name : "?") + "()",
                          "Only immutable functions and operators can be maintained incrementally.");
    }
    if (finding.relation != InvalidOid) {
        Oid rel = finding.relation;
        AttrNumber att = finding.attribute;
        const char* name = call([&] { return get_attname(rel, att, true); });
        throw unsupported(std::string("the system column ") + (name ? name : "?"));
    }
    throw unsupported(finding.construct);
}

// How a column's values are matched: by the type's equality, or, for a
// type without one (json, point, xml), by their text (Column::image).
// (Columns whose equal values may show otherwise: tell_apart_by_text.)
void set_equality(Column& c, Oid type) {
    TypeCacheEntry* tc = call([&] { return lookup_type_cache(type, TYPECACHE_EQ_OPR); });
    c.image = !OidIsValid(tc->eq_opr);
    c.equality = c.image ? "" : qualified_operator(tc->eq_opr);
}

// A column matched by its text from now on, whatever its type's equality.
void match_by_text(Column& c) {
    c.image = true;
    c.equality.clear();
}

// Whether equal values of the type always show alike.  Not so for numeric
// (1.0 = 1.00), float (0 = -0), jsonb ({"a": 1} = {"a": 1.0}), interval
// ('1 day' = '24 hours'), arrays and the like; but a numeric or
// character(n) of a declared typmod has one scale or length.
bool equal_values_show_alike(Oid type, int32 typmod, Oid collation) {
    return call([&] {
        const Oid base = getBaseType(type);
        if ((base == NUMERICOID || base == BPCHAROID) && typmod >= 0) return true;
        return image_equal(type, collation);
    });
}

// A view that keeps its rows apart (no DISTINCT, grouping or set operation
// other than UNION ALL) shows each row's own values: a column whose equal
// values may show differently is told apart by its text (Column::image),
// as REFRESH ... CONCURRENTLY tells rows apart by their image.  (Where the
// query merges equal values, which one PostgreSQL shows is not fixed.)
void tell_apart_by_text(std::vector<Column>& columns, const std::vector<bool>& show_alike) {
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (!show_alike[i]) match_by_text(columns[i]);
}

// A collation's name, schema-qualified (generate_collation_name leaves out
// a schema on the search path, which ivm's statements do not have).  Runs
// inside call().
char* qualified_collation(Oid collation) {
    HeapTuple tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));
    if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for collation %u", collation);
    auto* coll = reinterpret_cast<Form_pg_collation>(GETSTRUCT(tup));
    char* name = quote_qualified_identifier(get_namespace_name(coll->collnamespace), NameStr(coll->collname));
    ReleaseSysCache(tup);
    return name;
}

// A type as SQL, schema-qualified, with typmod and collation.
std::string sql_type(Oid type, int32 typmod, Oid collation) {
    return call([&] {
        char* text = format_type_extended(type, typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
        if (OidIsValid(collation) && collation != get_typcollation(type))
            text = psprintf("%s COLLATE %s", text, qualified_collation(collation));
        return text;
    });
}

// The query as SQL, with only pg_catalog visible, so that every other
// object comes out schema-qualified.
char* deparse(Query* q) {
    return call([&] {
        int nest = NewGUCNestLevel();
        set_config_option("search_path", "pg_catalog", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
                          true, 0, false);
        char* text = pg_get_querydef(q, false);
        AtEOXact_GUC(true, nest);
        return text;
    });
}

bool hashable(Oid type) {
    TypeCacheEntry* tc = call([&] { return lookup_type_cache(type, TYPECACHE_HASH_EXTENDED_PROC); });
    return OidIsValid(tc->hash_extended_proc);
}

}  // namespace

// The deparser prints a CTE reference by name only; the queries put a WITH
// of that name around the template.  A table's columns are described as
// the CTE's (dropped ones keep their place with type InvalidOid), under
// their current names: the stored rule keeps those of its creation, and
// columns may be renamed.  Runs inside call().
void read_as_placeholder(RangeTblEntry* rte, char* name, Index levelsup) {
    if (rte->alias == nullptr) rte->alias = makeAlias(rte->eref->aliasname, NIL);
    if (rte->rtekind == RTE_RELATION) {
        Relation rel = table_open(rte->relid, AccessShareLock);
        TupleDesc desc = RelationGetDescr(rel);
        rte->coltypes = rte->coltypmods = rte->colcollations = NIL;
        rte->eref->colnames = NIL;
        for (int a = 0; a < desc->natts; ++a) {
            Form_pg_attribute att = TupleDescAttr(desc, a);
            // (an ivm view's columns as its storage names them)
            const std::string name = att->attisdropped                          ? ""
                                     : rel->rd_rel->relkind == RELKIND_VIEW ? tuples::stored_name(NameStr(att->attname))
                                                                            : NameStr(att->attname);
            rte->eref->colnames = lappend(rte->eref->colnames, makeString(pstrdup(name.c_str())));
            rte->coltypes = lappend_oid(rte->coltypes, att->attisdropped ? InvalidOid : att->atttypid);
            rte->coltypmods = lappend_int(rte->coltypmods, att->attisdropped ? -1 : att->atttypmod);
            rte->colcollations = lappend_oid(rte->colcollations, att->attisdropped ? InvalidOid : att->attcollation);
        }
        // An ivm view is read from its storage, whose stored group keys
        // follow the view's columns: a column alias list of the user's
        // (`AS x(a, b)`) would be printed over every column of the CTE and
        // misname them.  Its columns are printed under their own names.
        if (rel->rd_rel->relkind == RELKIND_VIEW) rte->alias->colnames = NIL;
        table_close(rel, AccessShareLock);
    }
    rte->rtekind = RTE_CTE;
    rte->ctename = name;
    rte->ctelevelsup = levelsup;
    rte->self_reference = false;
    rte->inh = false;
}

namespace {

// A join named by an alias hides the tables under it (`(a JOIN b ON ...)
// AS x` may only be read as x.col), but the templates name each
// occurrence: the columns read through joins are read from the tables
// under them instead, and the joins lose their names.  Runs inside call().
bool unname_join(Node* node, void* context) {
    if (node == nullptr) return false;
    if (IsA(node, JoinExpr)) reinterpret_cast<JoinExpr*>(node)->alias = nullptr;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(unname_join), context);
}
void unname_joins(Query* t) {
    t->targetList = reinterpret_cast<List*>(flatten_join_alias_vars(t, reinterpret_cast<Node*>(t->targetList)));
    t->jointree = reinterpret_cast<FromExpr*>(flatten_join_alias_vars(t, reinterpret_cast<Node*>(t->jointree)));
    t->havingQual = flatten_join_alias_vars(t, t->havingQual);
    unname_join(reinterpret_cast<Node*>(t->jointree), nullptr);
    ListCell* lc;
    foreach (lc, t->rtable) {
        auto* rte = static_cast<RangeTblEntry*>(lfirst(lc));
        if (rte->rtekind == RTE_JOIN) rte->alias = nullptr;
    }
}

// Rewrites a copy of the query into a template: occurrence k becomes a
// reference to the CTE __ivm_src_<k+1>.  With counts, each such relation of
// the FROM list has an extra column __ivm_cnt that the select list returns
// as __ivm_c<k+1>.  With `filtered`, the WHERE also singles out the rows a
// change of that (non-linear) occurrence can alter, reading the change
// from __ivm_chg_<filtered+1>.  DISTINCT, ORDER BY and the query's own WITH
// go; output columns are renamed to `names` when given.
// What a template outputs besides the query's columns.
enum class Extra {
    None,
    Counts,    // each top-level occurrence's __ivm_cnt, as __ivm_c<k+1>
    Premises,  // the recursive occurrence's __ivm_tid, __ivm_key and columns (as __ivm_p<i>)
};

// The WITH query __ivm_a of the touched groups, as a FROM item of a
// subquery: their keys (__ivm_gk<i>) and their hash (__ivm_ah).  Runs
// inside call().
RangeTblEntry* touched_groups(const std::vector<Expr*>& keys) {
    RangeTblEntry* a = makeNode(RangeTblEntry);
    a->rtekind = RTE_CTE;
    a->ctename = pstrdup("__ivm_a");
    a->ctelevelsup = 1;  // (a WITH query of the statement the template goes into)
    List* names = NIL;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const Node* key = reinterpret_cast<const Node*>(keys[i]);
        names = lappend(names, makeString(psprintf("__ivm_gk%d", static_cast<int>(i + 1))));
        a->coltypes = lappend_oid(a->coltypes, exprType(key));
        a->coltypmods = lappend_int(a->coltypmods, exprTypmod(key));
        a->colcollations = lappend_oid(a->colcollations, exprCollation(key));
    }
    a->eref = makeAlias("__ivm_a", lappend(names, makeString(pstrdup("__ivm_ah"))));
    a->coltypes = lappend_oid(a->coltypes, INT8OID);
    a->coltypmods = lappend_int(a->coltypmods, -1);
    a->colcollations = lappend_oid(a->colcollations, InvalidOid);
    a->inFromCl = true;
    return a;
}

// Into q's WHERE (CountingView::grouped_full_template), where __ivm_a
// holds the touched groups' keys (__ivm_gk<i>) and their hash (__ivm_ah):
//   AND EXISTS (SELECT 1 FROM __ivm_a WHERE __ivm_a.__ivm_ah =
//               pg_catalog.hash_record_extended(ROW(<keys>), 0)
//               [AND __ivm_a.__ivm_gk1 = <first key>])
// Runs inside call().
void add_group_filter(Query* q, const std::vector<Expr*>& keys, bool first_never_null) {
    auto raised = [](Expr* key) {
        Node* k = static_cast<Node*>(copyObjectImpl(key));
        IncrementVarSublevelsUp(k, 1, 0);
        return k;
    };
    RowExpr* row = makeNode(RowExpr);
    for (Expr* key : keys) row->args = lappend(row->args, raised(key));
    row->row_typeid = RECORDOID;
    row->row_format = COERCE_IMPLICIT_CAST;
    row->location = -1;
    Expr* seed = reinterpret_cast<Expr*>(makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(0), false, FLOAT8PASSBYVAL));
    Expr* hash = reinterpret_cast<Expr*>(
        makeFuncExpr(F_HASH_RECORD_EXTENDED, INT8OID, list_make2(row, seed), InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL));
    const int ah = static_cast<int>(keys.size()) + 1;
    Expr* stored = reinterpret_cast<Expr*>(makeVar(1, static_cast<AttrNumber>(ah), INT8OID, -1, InvalidOid, 0));
    const Oid int8_equals = lookup_type_cache(INT8OID, TYPECACHE_EQ_OPR)->eq_opr;
    auto* same = reinterpret_cast<OpExpr*>(make_opclause(int8_equals, BOOLOID, false, stored, hash, InvalidOid, InvalidOid));
    same->opfuncid = get_opcode(int8_equals);
    List* conditions = list_make1(same);
    // A first key never NULL (a NOT NULL column) is also matched to the
    // touched groups' first keys: a join an index on it can serve.  (A
    // key that may be NULL is not: NULL = NULL is not true, and an OR
    // would keep the planner from joining at all.)
    Node* first = reinterpret_cast<Node*>(keys.front());
    const Oid equals = lookup_type_cache(exprType(first), TYPECACHE_EQ_OPR)->eq_opr;
    if (first_never_null && OidIsValid(equals)) {
        Expr* gk1 = reinterpret_cast<Expr*>(makeVar(1, 1, exprType(first), exprTypmod(first), exprCollation(first), 0));
        auto* key = reinterpret_cast<Expr*>(raised(keys.front()));
        auto* match = reinterpret_cast<OpExpr*>(make_opclause(equals, BOOLOID, false, gk1, key, InvalidOid, exprCollation(first)));
        match->opfuncid = get_opcode(equals);
        conditions = lappend(conditions, match);
    }
    Node* filter = reinterpret_cast<Node*>(exists_over(touched_groups(keys), reinterpret_cast<Node*>(make_ands_explicit(conditions))));
    q->jointree->quals = q->jointree->quals == nullptr ? filter : make_and_qual(q->jointree->quals, filter);
    q->hasSubLinks = true;
}

std::string build_template(Query* q, const char* cte, Extra extra, const std::vector<std::string>* names = nullptr,
                           int filtered = -1, const std::vector<Expr*>* group_filter = nullptr,
                           bool first_never_null = false, int crossing = -1) {
    Query* t = call([&] {
        auto* copy = static_cast<Query*>(copyObjectImpl(q));
        unname_joins(copy);
        return copy;
    });
    t->distinctClause = NIL;
    t->sortClause = NIL;
    t->cteList = NIL;
    t->hasRecursive = false;
    if (names != nullptr) {
        std::size_t i = 0;
        ListCell* lc;
        foreach (lc, t->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (!te->resjunk && i < names->size()) te->resname = const_cast<char*>((*names)[i++].c_str());
        }
    }
    const std::vector<Occurrence> occurrences = find_occurrences(t, cte, false);
    const Occurrence* occ = occurrences.data();
    const int n = static_cast<int>(occurrences.size());
    call([&] {
        int resno = list_length(t->targetList);
        for (int k = 0; k < n; ++k) {
            RangeTblEntry* rte = rt_fetch(occ[k].rtindex, occ[k].owner->rtable);
            const bool recursive = rte->rtekind == RTE_CTE;
            read_as_placeholder(rte, psprintf("__ivm_src_%d", k + 1), static_cast<Index>(occ[k].path.size()));
            if (extra == Extra::Premises && recursive) {
                // Where the tuple it is derived from is stored and its
                // key (the placeholder's __ivm_tid, __ivm_key), and its columns.
                const int columns = list_length(rte->eref->colnames);
                const char* stored[] = {"__ivm_tid", "__ivm_key"};
                const Oid types[] = {TIDOID, INT8OID};
                for (int e = 0; e < 2; ++e) {
                    rte->eref->colnames = lappend(list_copy(rte->eref->colnames), makeString(pstrdup(stored[e])));
                    rte->coltypes = lappend_oid(list_copy(rte->coltypes), types[e]);
                    rte->coltypmods = lappend_int(list_copy(rte->coltypmods), -1);
                    rte->colcollations = lappend_oid(list_copy(rte->colcollations), InvalidOid);
                    Var* v = makeVar(occ[k].rtindex, columns + 1 + e, types[e], -1, InvalidOid, 0);
                    t->targetList = lappend(t->targetList, makeTargetEntry(reinterpret_cast<Expr*>(v), ++resno,
                                                                           pstrdup(stored[e]), false));
                }
                for (int a = 0; a < columns; ++a) {
                    Var* v = makeVar(occ[k].rtindex, a + 1, list_nth_oid(rte->coltypes, a), list_nth_int(rte->coltypmods, a),
                                     list_nth_oid(rte->colcollations, a), 0);
                    t->targetList = lappend(t->targetList, makeTargetEntry(reinterpret_cast<Expr*>(v), ++resno,
                                                                           psprintf("__ivm_p%d", a + 1), false));
                }
                continue;
            }
            if (extra != Extra::Counts || !occ[k].path.empty()) continue;  // subqueries only filter
            int count_attno = list_length(rte->eref->colnames) + 1;
            rte->eref->colnames = lappend(list_copy(rte->eref->colnames), makeString(pstrdup("__ivm_cnt")));
            rte->coltypes = lappend_oid(list_copy(rte->coltypes), INT8OID);
            rte->coltypmods = lappend_int(list_copy(rte->coltypmods), -1);
            rte->colcollations = lappend_oid(list_copy(rte->colcollations), InvalidOid);
            Var* count = makeVar(occ[k].rtindex, count_attno, INT8OID, -1, InvalidOid, 0);
            t->targetList = lappend(t->targetList,
                                    makeTargetEntry(reinterpret_cast<Expr*>(count), ++resno,
                                                    psprintf("__ivm_c%d", k + 1), false));
        }
    });
    if (filtered >= 0) {
        const std::string changed = "__ivm_chg_" + std::to_string(filtered + 1);
        add_change_filter(t, occurrences.at(static_cast<std::size_t>(filtered)), changed.c_str());
    }
    if (group_filter != nullptr) call([&] { add_group_filter(t, *group_filter, first_never_null); });
    if (crossing >= 0 && !add_crossing_filter(t, occurrences.at(static_cast<std::size_t>(crossing)))) return "";
    return deparse(t);
}

// The block's template, for each non-linear occurrence its filtered one,
// and for each linear one read by WHERE alone its crossing one.
void fill_templates(Block& block, Query* q, const char* cte, const std::vector<std::string>* names = nullptr) {
    block.spj_template = build_template(q, cte, Extra::Counts, names);
    for (std::size_t k = 0; k < block.sources.size(); ++k) {
        const int occurrence = static_cast<int>(k);
        if (block.sources[k].role != Source::Role::Linear)
            block.sources[k].filtered_template = build_template(q, cte, Extra::Counts, names, occurrence);
        else
            block.sources[k].crossing_template =
                build_template(q, cte, Extra::Counts, names, -1, nullptr, false, occurrence);
    }
}

}  // namespace


namespace {

// An error PostgreSQL reported at a position in the user's query: show the
// query and the position (as PL/pgSQL does), not the ivm.create_view call.
PgError in_query(const PgError& error, const char* query_text) {
    ErrorData* data = error.data();
    if (data->cursorpos > 0) {
        data->internalpos = data->cursorpos;
        data->cursorpos = 0;
        data->internalquery = call([&] { return pstrdup(query_text); });
    }
    return error;
}

}  // namespace

std::string query_text(Query* q) { return deparse(q); }

void check_term(Query* q) {
    check_query_shape(q);
    check_expressions(q);
}

namespace {

// While it lives, parse analysis calls no post_parse_analyze_hook.  The
// statements ivm builds are analyzed against a text that holds blanks where
// the generated parts stand; a hook that reads the text at the nodes'
// locations reads what is not there (pg_stat_statements, normalizing the
// query's constants, overran its buffer: a backend crash in create_view).
// These analyses are ivm's own, no statement of the user's to count.
struct NoAnalyzeHook {
    post_parse_analyze_hook_type saved = post_parse_analyze_hook;
    NoAnalyzeHook() { post_parse_analyze_hook = nullptr; }
    ~NoAnalyzeHook() { post_parse_analyze_hook = saved; }
    NoAnalyzeHook(const NoAnalyzeHook&) = delete;
    NoAnalyzeHook& operator=(const NoAnalyzeHook&) = delete;
};

}  // namespace

Query* analyze_statement(Node* select, const char* text) {
    RawStmt* raw = call([&] {
        RawStmt* r = makeNode(RawStmt);
        r->stmt = select;
        r->stmt_location = 0;
        r->stmt_len = 0;
        return r;
    });
    try {
        const NoAnalyzeHook no_hook;
        return call([&] { return parse_analyze_fixedparams(raw, text, nullptr, 0, nullptr); });
    } catch (const PgError& e) {
        throw in_query(e, text);
    }
}

ExprTyping typing_of(const Node* expr) {
    return call([&] { return ExprTyping{exprType(expr), exprTypmod(expr), exprCollation(expr)}; });
}

List* parse_raw(const char* query_text) {
    try {
        return call([&] { return raw_parser(query_text, RAW_PARSE_DEFAULT); });
    } catch (const PgError& e) {
        throw in_query(e, query_text);
    }
}

Query* validate_query(const char* query_text, bool written) {
    List* statements = parse_raw(query_text);
    RawStmt* raw = list_length(statements) == 1 ? linitial_node(RawStmt, statements) : nullptr;
    if (raw == nullptr || !IsA(raw->stmt, SelectStmt) ||
        reinterpret_cast<SelectStmt*>(raw->stmt)->intoClause != nullptr)
        throw Error("42601", "the definition of an incrementally maintained view must be a single SELECT");
    Query* q = nullptr;
    try {
        q = call([&] { return parse_analyze_fixedparams(raw, query_text, nullptr, 0, nullptr); });
    } catch (const PgError& e) {
        throw in_query(e, query_text);
    }
    plain_uncorrelated_laterals(q);
    if (written) refuse_merging_by_nondeterministic_collation(q);
    std::vector<std::string> names;
    ListCell* lc;
    foreach (lc, q->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk) continue;
        if (std::find(names.begin(), names.end(), te->resname) != names.end())
            throw Error(sqlstate::duplicate_column,
                        std::string("column \"") + te->resname + "\" specified more than once");
        names.push_back(te->resname);
    }
    // (judged as join_subqueries will leave them)
    Query* judged = call([&] {
        auto* copy = static_cast<Query*>(copyObjectImpl(q));
        lateral_subqueries_as_joined(copy);
        return copy;
    });
    if (lateral_beside_outer_join(judged)) throw unsupported("LATERAL subqueries beside an outer join");
    if (over_lateral_columns(q))
        throw unsupported("functions in FROM and LATERAL subqueries over the columns of a LATERAL subquery");
    return q;
}

AnalyzedView analyze_view(Oid query_view, const std::string& storage, const std::string& recursive_storage,
                          Oid recursive_storage_oid, const std::vector<Oid>& parts) {
    Query* q = call([&] { return copy_view_query(query_view); });
    return analyze_query(q, storage, recursive_storage, recursive_storage_oid, parts);
}

namespace {

// A counting storage's key is led by the first integer column of its
// tuples (or group keys): see tuples::key.
void mark_key_lead(std::vector<Column>& cols, Oid type) {
    const bool integer = type == INT2OID || type == INT4OID || type == INT8OID;
    const bool led = std::any_of(cols.begin(), cols.end(), [](const Column& c) { return c.leads_key; });
    cols.back().integer = integer;
    cols.back().leads_key = integer && !led && cols.back().hashable;
}

Column make_column(const char* name, Oid type, int32 typmod, Oid collation, bool user_column = true) {
    // (an output column the user named __ivm_... arrives as tuples::stored_name
    // made it; a column of a recursive relation is stored as named)
    if (user_column && tuples::stored_name(name) != name && std::string(name).rfind("__ivm_u_", 0) != 0)
        throw Error(sqlstate::duplicate_column, std::string("column name \"") + name + "\" is reserved by ivm");
    Column column;
    column.name = call([&] { return quote_identifier(name); });
    set_equality(column, type);
    column.hashable = hashable(type);
    column.type = sql_type(type, typmod, collation);
    return column;
}

// The leaves of a CTE's UNION tree, refusing INTERSECT and EXCEPT.
void union_leaves(Query* cq, Node* node, std::vector<Query*>& leaves) {
    if (IsA(node, SetOperationStmt)) {
        auto* op = reinterpret_cast<SetOperationStmt*>(node);
        if (op->op != SETOP_UNION) throw unsupported("INTERSECT and EXCEPT in WITH RECURSIVE");
        union_leaves(cq, op->larg, leaves);
        union_leaves(cq, op->rarg, leaves);
        return;
    }
    RangeTblEntry* rte = rt_fetch(reinterpret_cast<RangeTblRef*>(node)->rtindex, cq->rtable);
    leaves.push_back(rte->subquery);
}

// Whether `expr`, an output of rule `leaf` of the recursive CTE `cte`, is
// never NULL: a non-NULL constant, a column declared NOT NULL of a table
// the rule reads (a rule's joins are inner joins), or column j of the
// recursive relation itself while known_not_null[j] holds.
bool never_null(const Query* leaf, const Node* expr, const char* cte, const std::vector<bool>& known_not_null) {
    while (expr != nullptr && IsA(expr, RelabelType)) expr = reinterpret_cast<const Node*>(reinterpret_cast<const RelabelType*>(expr)->arg);
    if (expr == nullptr) return false;
    if (IsA(expr, Const)) return !reinterpret_cast<const Const*>(expr)->constisnull;
    if (!IsA(expr, Var)) return false;
    const auto* var = reinterpret_cast<const Var*>(expr);
    if (var->varlevelsup != 0 || var->varattno <= 0) return false;
    const std::size_t column = static_cast<std::size_t>(var->varattno - 1);
    RangeTblEntry* rte = rt_fetch(var->varno, leaf->rtable);
    switch (rte->rtekind) {
        case RTE_CTE:
            return std::string(rte->ctename) == cte && column < known_not_null.size() && known_not_null[column];
        case RTE_JOIN:
            return rte->jointype == JOIN_INNER && column < static_cast<std::size_t>(list_length(rte->joinaliasvars)) &&
                   never_null(leaf, static_cast<const Node*>(list_nth(rte->joinaliasvars, static_cast<int>(column))), cte,
                              known_not_null);
        case RTE_RELATION:
            return call([&] { return read_column_not_null(rte, var->varattno); });
        default:
            return false;
    }
}

// Marks the recursive relation's columns that are never NULL: those every
// rule fills with a never-NULL value, assuming it of the relation's own
// columns (true of every tuple by induction on its derivation).  Plain
// equality then matches them, which the planner can push into indexes.
void infer_not_null(RecursiveRelation& r, const std::vector<Query*>& leaves, const char* cte) {
    std::vector<bool> known(r.columns.size(), true);
    for (bool changed = true; changed;) {
        changed = false;
        for (const Query* leaf : leaves) {
            std::size_t i = 0;
            ListCell* lc;
            foreach (lc, leaf->targetList) {
                const auto* tle = static_cast<const TargetEntry*>(lfirst(lc));
                if (tle->resjunk || i >= known.size()) continue;
                if (known[i] && !never_null(leaf, reinterpret_cast<const Node*>(tle->expr), cte, known)) {
                    known[i] = false;
                    changed = true;
                }
                ++i;
            }
        }
    }
    for (std::size_t i = 0; i < known.size(); ++i) r.columns[i].not_null = known[i];
}

// The recursive CTE of a view: its rules (the terms of its UNION), its
// columns and base tables, and its definition as SQL.
void analyze_recursive(CommonTableExpr* cte, const std::string& storage, AnalyzedView& out) {
    Query* cq = reinterpret_cast<Query*>(cte->ctequery);
    auto* top = reinterpret_cast<SetOperationStmt*>(cq->setOperations);
    if (top == nullptr || !IsA(top, SetOperationStmt) || top->op != SETOP_UNION)
        throw unsupported("WITH RECURSIVE without UNION");
    if (top->all)
        throw unsupported("WITH RECURSIVE ... UNION ALL",
                          "Use UNION: the recursive relation is a set, and UNION ALL need not terminate.");
    RecursiveRelation& r = out.recursive.emplace();
    r.storage = storage;
    r.fixed_width = true;  // until a column says otherwise
    std::vector<std::string> names;
    ListCell *ln, *lt, *lm, *lc;
    forfour (ln, cte->ctecolnames, lt, cte->ctecoltypes, lm, cte->ctecoltypmods, lc, cte->ctecolcollations) {
        const char* name = strVal(lfirst(ln));
        const Oid type = lfirst_oid(lt);
        r.columns.push_back(make_column(name, type, lfirst_int(lm), lfirst_oid(lc)));
        names.push_back(name);
        r.fixed_width = r.fixed_width && call([&] { return get_typlen(type) > 0; });
    }
    std::vector<Query*> leaves;
    union_leaves(cq, cq->setOperations, leaves);
    for (Query* leaf : leaves) {
        check_query_shape(leaf);
        if (leaf->hasAggs || leaf->groupClause != NIL || leaf->havingQual != nullptr)
            throw unsupported("aggregation inside WITH RECURSIVE");
        const std::vector<Occurrence> occurrences = find_occurrences(leaf, cte->ctename, true);
        check_expressions(leaf);
        Rule rule;
        for (const Occurrence& o : occurrences) {
            RangeTblEntry* rte = rt_fetch(o.rtindex, leaf->rtable);
            RuleSource source;
            source.recursive = rte->rtekind == RTE_CTE;
            source.only = !rte->inh;
            if (!source.recursive) {
                Oid relid = rte->relid;
                if (call([&] { return get_rel_relkind(relid); }) == RELKIND_VIEW) {  // an ivm view
                    relid = catalog::find_by_view(relid)->storage;
                    source.view_storage = true;
                    source.only = true;
                }
                auto it = std::find(out.recursive_base_oids.begin(), out.recursive_base_oids.end(), relid);
                source.base = static_cast<std::size_t>(it - out.recursive_base_oids.begin());
                if (it == out.recursive_base_oids.end()) {
                    out.recursive_base_oids.push_back(relid);
                    r.bases.push_back(qualified_name(relid));
                }
            }
            rule.sources.push_back(source);
        }
        rule.spj_template = build_template(leaf, cte->ctename, Extra::None, &names);
        if (rule.recursive()) {
            rule.premise_template = build_template(leaf, cte->ctename, Extra::Premises, &names);
            int recursive = 0;
            for (const Occurrence& o : occurrences)
                if (rule.sources[&o - occurrences.data()].recursive) recursive = o.rtindex;
            const bool* passes = call([&] { return pass_through_columns(leaf, recursive); });
            rule.passes_through.assign(passes, passes + r.columns.size());
        }
        r.rules.push_back(std::move(rule));
    }
    if (r.bases.empty()) throw unsupported("recursive views without base tables");
    infer_not_null(r, leaves, cte->ctename);
    std::vector<std::string> quoted;
    for (const Column& c : r.columns) quoted.push_back(c.name);
    const std::string cols = sql::join(quoted, ", ");
    const char* cte_name = cte->ctename;
    const std::string name = call([&] { return quote_identifier(cte_name); });
    r.definition = "WITH RECURSIVE " + name + "(" + cols + ") AS (" + deparse(cq) + ") SELECT " + cols +
                   " FROM " + name;
}

}  // namespace

Column describe_column(const char* name, Oid type, int32 typmod, Oid collation) {
    return make_column(name, type, typmod, collation);
}

namespace {

// What partial state keeps for aggregate `agg` (its kind, and its
// argument, null for count(*)): false where it keeps none.
bool classify_aggregate(Aggref* agg, CountingView::Partial& p, Expr** argument) {
    using Kind = CountingView::Partial::Kind;
    const Oid fn = agg->aggfnoid;
    const char* name = call([&] { return get_func_name(fn); });
    const bool catalog = call([&] { return get_func_namespace(fn); }) == PG_CATALOG_NAMESPACE;
    const bool plain = agg->aggdistinct == NIL && agg->aggorder == NIL && agg->aggfilter == nullptr &&
                       agg->aggkind == AGGKIND_NORMAL;
    const std::string n = name ? name : "";
    *argument = nullptr;
    if (catalog && plain && n == "count" && agg->aggstar) {
        p.kind = Kind::CountStar;
        return true;
    }
    if (!catalog || !plain || list_length(agg->args) != 1) return false;
    *argument = static_cast<TargetEntry*>(linitial(agg->args))->expr;
    const ExprTyping typing = typing_of(reinterpret_cast<Node*>(*argument));
    const Oid type = typing.type;
    // Integers and numeric (whose display scale is kept like a max where
    // its types do not fix it); floating point sums depend on the order of
    // the rows.
    const bool exact = type == INT2OID || type == INT4OID || type == INT8OID || type == NUMERICOID;
    p.numeric = type == NUMERICOID;
    p.narrow = type == INT2OID || type == INT4OID;
    if (n == "count") p.kind = Kind::Count;
    else if (n == "sum" && exact) p.kind = Kind::Sum;
    else if (n == "avg" && exact) p.kind = Kind::Avg;
    // Kept while values come; recomputed for the group when its extreme
    // value goes.
    else if (n == "min" && type == agg->aggtype) p.kind = Kind::Min;
    else if (n == "max" && type == agg->aggtype) p.kind = Kind::Max;
    else return false;
    if (p.numeric && (p.kind == Kind::Sum || p.kind == Kind::Avg))
        p.scale = fixed_numeric_scale(reinterpret_cast<Node*>(*argument)).value_or(-1);
    if (p.kind == Kind::Min || p.kind == Kind::Max)
        p.shows_alike = equal_values_show_alike(type, typing.typmod, typing.collation);
    return true;
}

}  // namespace

bool kept_from_partial_state(Aggref* agg) {
    CountingView::Partial p;
    Expr* argument = nullptr;
    return classify_aggregate(agg, p, &argument);
}

namespace {

// Whether the aggregate view can be kept from partial state: every output
// a group key, count/sum/avg (sum and avg over integers and numeric, so
// the sums are exact), min/max, or an expression over those and the keys
// (aggregate_expressions.hpp; its aggregates become hidden entries), GROUP
// BY or not, no HAVING.  Fills model.partial, and returns each entry's
// aggregate argument (null where there is none).
std::vector<Expr*> partial_state(Query* q, const std::vector<Expr*>& keys, CountingView& model) {
    using Kind = CountingView::Partial::Kind;
    std::vector<CountingView::Partial> partial;
    std::vector<Expr*> arguments;
    std::vector<Aggref*> hidden;  // the aggregates of expressions, each different one once
    if (q->havingQual != nullptr) return {};
    ListCell* lc;
    foreach (lc, q->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk) continue;
        CountingView::Partial p;
        Expr* argument = nullptr;
        bool ok = false;
        for (std::size_t i = 0; i < keys.size() && !ok; ++i)
            if (call([&] { return equal(te->expr, keys[i]); })) {
                p.kind = Kind::Key;
                p.key = i;
                ok = true;
            }
        if (!ok && IsA(te->expr, Aggref)) ok = classify_aggregate(reinterpret_cast<Aggref*>(te->expr), p, &argument);
        if (!ok) {
            std::optional<ExpressionOverAggregates> e = split_over_aggregates(te->expr, keys);
            if (!e) return {};
            p.kind = Kind::Expression;
            p.pieces = e->pieces;
            p.reads = e->holes;
            for (CountingView::Partial::Read& r : p.reads) {
                if (r.key) continue;
                Aggref* agg = e->aggregates.at(r.index);
                std::size_t h = 0;
                while (h < hidden.size() && !call([&] { return equal(hidden[h], agg); })) ++h;
                if (h == hidden.size()) hidden.push_back(agg);
                r.index = h;
            }
        }
        partial.push_back(p);
        arguments.push_back(p.kind == Kind::Key || p.kind == Kind::CountStar || p.kind == Kind::Expression ? nullptr
                                                                                                          : argument);
    }
    // The hidden entries follow the columns; the expressions read them there.
    const std::size_t columns = partial.size();
    for (CountingView::Partial& p : partial)
        for (CountingView::Partial::Read& r : p.reads)
            if (!r.key) r.index += columns;
    for (Aggref* agg : hidden) {
        CountingView::Partial p;
        Expr* argument = nullptr;
        if (!classify_aggregate(agg, p, &argument)) return {};
        const Oid type = agg->aggtype;
        const Oid collation = agg->aggcollid;
        p.type = sql_type(type, -1, collation);
        partial.push_back(p);
        arguments.push_back(argument);
    }
    // An expression over count(*) and keys alone would keep no state
    // column, and a storage made when such views recomputed their groups
    // (counting::use_storage_shape) could not be told from one made now:
    // its hidden count(*) is kept as count(1), a column of its own.
    const bool expressions = std::any_of(partial.begin(), partial.end(), [](const auto& p) { return p.kind == Kind::Expression; });
    // A constant output (a key a grouping set shows as NULL) keeps no state
    // either: a hidden count(1) of its own tells the storage apart.
    const bool constants = std::any_of(partial.begin(), partial.end(), [](const auto& p) {
        return p.kind == Kind::Expression && p.reads.empty();
    });
    auto one = [] {
        return reinterpret_cast<Expr*>(call([] { return makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true); }));
    };
    if (constants) {
        CountingView::Partial count;
        count.kind = Kind::Count;
        count.type = sql_type(INT8OID, -1, InvalidOid);
        partial.push_back(count);
        arguments.push_back(one());
    } else if (expressions && std::all_of(arguments.begin(), arguments.end(), [](Expr* a) { return a == nullptr; })) {
        partial[columns].kind = Kind::Count;  // (the first hidden entry, a count(*))
        arguments[columns] = one();
    }
    for (std::size_t k = 0; k < partial.size(); ++k)
        for (std::size_t j = 0; j < k && arguments[k] != nullptr; ++j)
            if (arguments[j] != nullptr && call([&] { return equal(arguments[k], arguments[j]); })) {
                partial[k].same_argument = j;
                break;
            }
    model.partial = std::move(partial);
    return arguments;
}

// The group keys of an aggregate view become its hidden columns
// __ivm_gk<i>.
void add_group_keys(const std::vector<Expr*>& keys, CountingView& model) {
    model.aggregate = true;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        Node* expr = reinterpret_cast<Node*>(keys[i]);
        const ExprTyping t = typing_of(expr);
        Column c = make_column("group key", t.type, t.typmod, t.collation, false);
        c.name = "__ivm_gk" + std::to_string(i + 1);
        model.group_keys.push_back(std::move(c));
        mark_key_lead(model.group_keys, t.type);
    }
}

// The templates of an aggregate view: the one for deltas yields the group
// keys of the rows under the aggregation (and the aggregates' arguments
// kept in partial state), the full one the whole query with the group
// keys appended.
void group_templates(Query* q, const std::vector<Expr*>& keys, const std::vector<Expr*>& arguments, const char* cte,
                     CountingView& model) {
    Query* inner = call([&] { return static_cast<Query*>(copyObjectImpl(q)); });
    Query* full = call([&] { return static_cast<Query*>(copyObjectImpl(q)); });
    call([&] {
        inner->targetList = NIL;
        inner->groupClause = NIL;
        inner->havingQual = nullptr;
        inner->hasAggs = false;
        inner->windowClause = NIL;
        inner->hasWindowFuncs = false;
        int resno = list_length(full->targetList);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            char* name = psprintf("__ivm_gk%d", static_cast<int>(i + 1));
            inner->targetList = lappend(inner->targetList, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(keys[i])),
                                                                           static_cast<AttrNumber>(i + 1), name, false));
            full->targetList = lappend(full->targetList, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(keys[i])),
                                                                         static_cast<AttrNumber>(++resno), name, false));
        }
        int inner_resno = list_length(inner->targetList);
        for (std::size_t k = 0; k < arguments.size(); ++k) {
            if (arguments[k] == nullptr) continue;
            inner->targetList = lappend(inner->targetList,
                                        makeTargetEntry(static_cast<Expr*>(copyObjectImpl(arguments[k])),
                                                        static_cast<AttrNumber>(++inner_resno),
                                                        psprintf("__ivm_arg%d", static_cast<int>(k + 1)), false));
        }
    });
    fill_templates(model.blocks.at(0), inner, cte);
    model.full_template = build_template(full, cte, Extra::None);
    // (a key that cannot be hashed, or under a collation of its own, whose
    // hash might not be its stored column's: the groups' rows are not
    // limited before they are grouped)
    const bool hashed = !keys.empty() && std::all_of(model.group_keys.begin(), model.group_keys.end(), [](const Column& c) {
        return c.hashable && c.type.find(" COLLATE ") == std::string::npos;
    });
    if (hashed) {
        const bool never_null = call([&] { return not_null_column(full, reinterpret_cast<Node*>(keys.front())); });
        model.grouped_full_template = build_template(full, cte, Extra::None, nullptr, -1, &keys, never_null);
    }
}

void describe_aggregation(Query* q, const char* cte, CountingView& model) {
    std::vector<Expr*> keys;
    ListCell* lc;
    foreach (lc, q->groupClause) {
        auto* clause = static_cast<SortGroupClause*>(lfirst(lc));
        keys.push_back(reinterpret_cast<Expr*>(call([&] { return get_sortgroupclause_expr(clause, q->targetList); })));
    }
    add_group_keys(keys, model);
    const std::vector<Expr*> arguments = partial_state(q, keys, model);
    group_templates(q, keys, arguments, cte, model);
}

// A view with window functions is kept like an aggregate view whose groups
// are the partitions: the PARTITION BY expressions all its windows share
// (none: one partition, the whole view, recomputed on every change).
void describe_windows(Query* q, const char* cte, CountingView& model) {
    std::vector<Expr*> keys;
    call([&] {
        auto* first = static_cast<WindowClause*>(linitial(q->windowClause));
        ListCell* lc;
        foreach (lc, first->partitionClause) {
            Node* key = get_sortgroupclause_expr(static_cast<SortGroupClause*>(lfirst(lc)), q->targetList);
            bool shared = true;
            ListCell* wc;
            foreach (wc, q->windowClause) {
                bool found = false;
                ListCell* pc;
                foreach (pc, static_cast<WindowClause*>(lfirst(wc))->partitionClause)
                    found |= equal(key, get_sortgroupclause_expr(static_cast<SortGroupClause*>(lfirst(pc)), q->targetList));
                shared &= found;
            }
            if (shared) keys.push_back(reinterpret_cast<Expr*>(key));
        }
    });
    model.windowed = true;
    add_group_keys(keys, model);
    group_templates(q, keys, {}, cte, model);
}

}  // namespace

namespace {

// The columns of a table that a non-linear occurrence reads, with the
// smallest of its unique keys (keys.hpp) when it has one (all of them
// where it reads none); returned as attribute numbers.
std::vector<AttrNumber> describe_rows(const Occurrence& o, Oid relid, Source& source) {
    std::vector<AttrNumber> columns = used_columns(o);
    std::vector<AttrNumber> best;
    bool compared_alike = false;  // the key's equality is its columns' own
    for (const UniqueKey& key : unique_keys(relid)) {
        if (!best.empty() && key.size() >= best.size()) continue;
        best.clear();
        for (const KeyColumn& c : key) best.push_back(c.attno);
        compared_alike = std::all_of(key.begin(), key.end(), [&](const KeyColumn& c) {
            return call([&] {
                Oid type = InvalidOid, collation = InvalidOid;
                int32 typmod = -1;
                get_atttypetypmodcoll(relid, c.attno, &type, &typmod, &collation);
                const Oid opclass = GetDefaultOpClass(type, BTREE_AM_OID);
                return OidIsValid(opclass) && get_opclass_family(opclass) == c.opfamily && collation == c.collation;
            });
        });
    }
    for (AttrNumber a : best)
        if (std::find(columns.begin(), columns.end(), a) == columns.end()) columns.push_back(a);
    source.unique = !best.empty();
    if (columns.empty()) {  // rows told apart by something: all the columns
        const int natts = call([&] {
            Relation rel = table_open(relid, AccessShareLock);
            const int n = RelationGetNumberOfAttributes(rel);
            table_close(rel, AccessShareLock);
            return n;
        });
        for (int a = 1; a <= natts; ++a) columns.push_back(static_cast<AttrNumber>(a));
    }
    std::sort(columns.begin(), columns.end());
    // (a child may have dropped a NOT NULL its parent declares: keys.hpp)
    const bool children = rt_fetch(o.rtindex, o.owner->rtable)->inh && call([&] { return has_inheritance_children(relid); });
    for (AttrNumber a : columns) {
        Oid type = InvalidOid;
        Oid collation = InvalidOid;
        bool not_null = false;
        const char* name = call([&] {
            HeapTuple tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(a));
            if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for attribute %d of relation %u", a, relid);
            auto* att = reinterpret_cast<Form_pg_attribute>(GETSTRUCT(tup));
            type = att->atttypid;
            collation = att->attcollation;
            not_null = att->attnotnull;
            char* n = att->attisdropped ? nullptr : pstrdup(NameStr(att->attname));
            ReleaseSysCache(tup);
            return n;
        });
        if (name == nullptr) continue;
        Column c;
        c.name = call([&] { return quote_identifier(name); });
        set_equality(c, type);
        // (a base row is one row: under a nondeterministic collation its
        // values are told apart by their text, 'abc' from 'ABC')
        if (nondeterministic_collation(collation)) match_by_text(c);
        c.not_null = not_null && !children;
        source.columns.push_back(c.name);
        if (compared_alike && !c.image && std::find(best.begin(), best.end(), a) != best.end()) source.key.push_back(c);
        source.row.push_back(std::move(c));
    }
    if (source.key.size() != best.size()) source.key.clear();
    if (source.row.empty()) throw unsupported("a table without columns in a subquery or an outer join");
    return columns;
}

// The occurrences of a block as sources, adding their tables to the view's
// bases; a reference to the recursive CTE reads its storage.
std::vector<Source> block_sources(const std::vector<Occurrence>& occurrences, AnalyzedView& out,
                                  const std::string& recursive_storage, Oid recursive_storage_oid) {
    std::vector<Source> sources;
    for (const Occurrence& o : occurrences) {
        RangeTblEntry* rte = rt_fetch(o.rtindex, o.owner->rtable);
        const bool reads_recursive = rte->rtekind == RTE_CTE;
        Oid relid = reads_recursive ? recursive_storage_oid : rte->relid;
        Source source;
        source.role = o.role;
        source.only = !rte->inh || reads_recursive;
        std::vector<AttrNumber> row_columns;  // of a non-linear table occurrence
        if (reads_recursive) {
            for (const Column& c : out.recursive->columns) source.columns.push_back(c.name);
            source.row = out.recursive->columns;
            source.unique = true;  // a set
        }
        if (!reads_recursive && call([&] { return get_rel_relkind(relid); }) == RELKIND_VIEW) {
            // An ivm view: its storage is the base table, each stored row
            // standing for as many rows as the view shows it.
            std::shared_ptr<ViewRuntime> inner = runtime_for(catalog::find_by_view(relid)->view_id);
            const CountingView& m = inner->analyzed.model;
            relid = inner->entry.storage;
            source.only = true;
            for (const Column& c : m.columns) source.columns.push_back(c.name);
            // (an aggregate view stores one row per group; its __ivm_count
            // may count the group's input rows)
            if (m.repeats_rows()) source.multiplicity = "__ivm_count";
            // One stored row per tuple, or per group (its keys are stored).
            source.row = m.columns;
            for (const Column& c : m.group_keys) {
                source.row.push_back(c);
                source.columns.push_back(c.name);
            }
            source.unique = true;
        } else if (!reads_recursive && o.role != Source::Role::Linear) {
            row_columns = describe_rows(o, relid, source);
        }
        const bool table = !reads_recursive && relid == rte->relid;
        auto it = std::find(out.base_oids.begin(), out.base_oids.end(), relid);
        source.base = static_cast<std::size_t>(it - out.base_oids.begin());
        if (out.columns_read.size() <= source.base) out.columns_read.resize(source.base + 1);
        // An UPDATE of none of these columns changes no row the query
        // reads (trigger.cpp skips it; a deferred log blanks the others).
        // A non-linear occurrence also reads the key its rows are told
        // apart by.
        std::optional<std::vector<AttrNumber>> read = table ? columns_read(o) : std::nullopt;
        if (read && o.role != Source::Role::Linear) read = row_columns;
        std::vector<AttrNumber>& columns = out.columns_read[source.base];
        if (read) columns.insert(columns.end(), read->begin(), read->end());
        else columns.push_back(0);
        if (it == out.base_oids.end()) {
            out.base_oids.push_back(relid);
            out.model.bases.push_back(reads_recursive ? recursive_storage : qualified_name(relid));
        }
        sources.push_back(std::move(source));
    }
    return sources;
}

// The tree of a set operation, its arms numbered from the left.
CountingView::SetNode set_tree(Query* q, Node* node, std::vector<Query*>& arms) {
    using Op = CountingView::SetNode::Op;
    CountingView::SetNode n;
    if (!IsA(node, SetOperationStmt)) {
        n.arm = static_cast<int>(arms.size());
        arms.push_back(rt_fetch(reinterpret_cast<RangeTblRef*>(node)->rtindex, q->rtable)->subquery);
        if (arms.back()->distinctClause == NIL) return n;
        CountingView::SetNode distinct;  // its counts are derivations; the arm shows each tuple once
        distinct.op = Op::Distinct;
        distinct.children.push_back(std::move(n));
        return distinct;
    }
    auto* op = reinterpret_cast<SetOperationStmt*>(node);
    n.op = op->op == SETOP_UNION       ? (op->all ? Op::UnionAll : Op::Union)
           : op->op == SETOP_INTERSECT ? (op->all ? Op::IntersectAll : Op::Intersect)
                                       : (op->all ? Op::ExceptAll : Op::Except);
    n.children.push_back(set_tree(q, op->larg, arms));
    n.children.push_back(set_tree(q, op->rarg, arms));
    return n;
}

// Whether every operation of the tree is `op` (a DISTINCT arm under UNION,
// which shows each tuple once anyway, counts as one).
bool only(const CountingView::SetNode& n, CountingView::SetNode::Op op) {
    using Op = CountingView::SetNode::Op;
    if (n.op == Op::Arm) return true;
    if (n.op == Op::Distinct) return op == Op::Union && only(n.children[0], op);
    return n.op == op && only(n.children[0], op) && only(n.children[1], op);
}

}  // namespace

AnalyzedView analyze_query(Query* q, const std::string& storage, const std::string& recursive_storage,
                           Oid recursive_storage_oid, const std::vector<Oid>& parts) {
    AnalyzedView out;
    // A part that shows a plain view is the view's query (expand_views.hpp).
    if (const Oid shown = shown_view(q); shown != InvalidOid) {
        q = shown_view_query(q, shown);
        read_views_through_parts(q, parts);
        out.expanded_views.push_back(shown);
    }
    const ViewsNotNull views_not_null(q, out.not_null_from);
    plain_uncorrelated_laterals(q);
    // A recursive program: described, then its outer query as any other.
    describe_program(q, recursive_storage, out);
    // Plain views, subqueries and WITH queries are expanded first.
    if (q->setOperations == nullptr)
        for (Oid v : expand_plain_views(q)) out.expanded_views.push_back(v);
    select_nothing_in_exists(q);
    CommonTableExpr* cte = nullptr;
    if (q->cteList != NIL) {
        if (!q->hasRecursive) throw unsupported("WITH");
        if (list_length(q->cteList) > 1) throw unsupported("several WITH RECURSIVE items");
        cte = linitial_node(CommonTableExpr, q->cteList);
        if (!cte->cterecursive) throw unsupported("WITH RECURSIVE items that do not recurse");
        analyze_recursive(cte, recursive_storage, out);
    }
    check_query_shape(q, /*recursive_cte_allowed=*/cte != nullptr, /*windows_allowed=*/true);
    if (q->setOperations == nullptr) check_expressions(q);
    out.model.storage = storage;
    out.ignored_order_by = q->sortClause != NIL;
    ListCell* lc;
    std::vector<std::string> names;
    std::vector<bool> show_alike, deterministic;
    foreach (lc, q->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk) continue;
        Node* expr = reinterpret_cast<Node*>(te->expr);
        const ExprTyping t = typing_of(expr);
        out.model.columns.push_back(make_column(te->resname, t.type, t.typmod, t.collation));
        show_alike.push_back(equal_values_show_alike(t.type, t.typmod, t.collation));
        deterministic.push_back(!nondeterministic_collation(t.collation));
        mark_key_lead(out.model.columns, t.type);
        // (what a query over this view learns of it: views_not_null.hpp)
        if (q->setOperations == nullptr && q->groupingSets == NIL)
            out.model.columns.back().not_null = call([&] { return not_null_column(q, expr); });
        names.push_back(te->resname);
    }
    if (out.model.columns.empty()) throw unsupported("views without columns");
    const char* cte_name = cte ? cte->ctename : nullptr;

    if (q->setOperations != nullptr) {
        // UNION ALL adds the arms' counts; UNION shows each tuple once; any
        // other tree keeps each tuple's count in every arm.
        using Op = CountingView::SetNode::Op;
        std::vector<Query*> arms;
        CountingView::SetNode tree = set_tree(q, q->setOperations, arms);
        std::vector<int> sides(arms.size(), 0);  // of each arm
        out.model.distinct = only(tree, Op::Union);
        if (only(tree, Op::UnionAll)) tell_apart_by_text(out.model.columns, show_alike);
        if (!out.model.distinct && !only(tree, Op::UnionAll)) {
            out.model.set_tree = std::move(tree);
            out.model.arms = static_cast<int>(arms.size());
            for (std::size_t a = 0; a < arms.size(); ++a) sides[a] = static_cast<int>(a);
        }
        for (std::size_t a = 0; a < arms.size(); ++a) {
            Query* arm = arms[a];
            for (Oid v : expand_plain_views(arm)) out.expanded_views.push_back(v);
            select_nothing_in_exists(arm);
            check_query_shape(arm);
            if (arm->setOperations != nullptr || arm->hasAggs || arm->groupClause != NIL || arm->havingQual != nullptr)
                throw unsupported("aggregation and nested set operations in the arms of a UNION");
            check_expressions(arm);
            for (Query* half : split_full_joins(arm)) {
                const std::vector<Occurrence> occurrences = find_occurrences(half, cte_name, false);
                Block block;
                block.sources = block_sources(occurrences, out, recursive_storage, recursive_storage_oid);
                fill_templates(block, half, cte_name, &names);
                block.side = sides[a];
                out.model.blocks.push_back(std::move(block));
            }
        }
        return out;
    }

    out.model.distinct = q->distinctClause != NIL;
    // A FULL JOIN makes the view a UNION ALL of the queries it stands for.
    const std::vector<Query*> halves = split_full_joins(q);
    const bool aggregation = q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr;
    if (q->hasWindowFuncs && (aggregation || q->distinctClause != NIL))
        throw unsupported("window functions over aggregates or DISTINCT",
                          "Aggregate in a subquery in FROM and compute the window functions over it.");
    if (q->hasWindowFuncs && halves.size() > 1) throw unsupported("window functions over a FULL JOIN");
    // (an aggregate view's groups are found by their keys, kept apart from
    // its columns: its values under a nondeterministic collation, such as
    // string_agg's, are told apart by their text too)
    if (!out.model.distinct) tell_apart_by_text(out.model.columns, aggregation ? deterministic : show_alike);
    for (Query* half : halves) {
        const std::vector<Occurrence> occurrences = find_occurrences(half, cte_name, false);
        Block block;
        block.sources = block_sources(occurrences, out, recursive_storage, recursive_storage_oid);
        out.model.blocks.push_back(std::move(block));
        if (aggregation)
            describe_aggregation(q, cte_name, out.model);
        else if (q->hasWindowFuncs)
            describe_windows(q, cte_name, out.model);
        else
            fill_templates(out.model.blocks.back(), half, cte_name, &names);
        if (halves.size() == 1) {
            out.model.keying = keying_bases(half, occurrences, out.model.blocks.back().sources, out.model.bases.size());
            out.model.lookups = lookup_bases(half, occurrences, out.model.blocks.back().sources, out.model.bases.size());
        }
    }
    return out;
}

}  // namespace ivm::pg
