#include "pg/program.hpp"

#include "core/error.hpp"
#include "core/fixpoint.hpp"
#include "core/sql_text.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/occurrences.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"

#include <algorithm>
#include <cstring>

namespace ivm::pg {
namespace {

constexpr const char* rule_prefix = "__ivm_rule_";

std::string stored_name(std::size_t item, std::size_t column) {
    return "__ivm_" + std::to_string(item + 1) + "_" + std::to_string(column + 1);
}

// The user's statement as a raw SelectStmt, or null when it is not one.
SelectStmt* raw_select(const char* query) {
    List* statements = parse_raw(query);
    if (list_length(statements) != 1) return nullptr;
    Node* stmt = linitial_node(RawStmt, statements)->stmt;
    return IsA(stmt, SelectStmt) ? reinterpret_cast<SelectStmt*>(stmt) : nullptr;
}

SelectStmt* parse_select(const std::string& text) {
    SelectStmt* s = raw_select(text.c_str());
    if (s == nullptr) throw Error(sqlstate::internal_error, "generated query is not a SELECT: " + text);
    return s;
}

struct RawItem {
    std::string name;
    CommonTableExpr* cte = nullptr;
    std::vector<Node*> arms;  // the terms of its UNION
    bool typed = false;
    std::vector<std::string> names;
    std::vector<Oid> types, collations;
    std::vector<int32> typmods;
};

// The terms of an item's UNION (a term may itself be a set operation other
// than UNION).
void union_arms(Node* node, const RawItem& item, std::vector<Node*>& arms) {
    auto* s = reinterpret_cast<SelectStmt*>(node);
    const bool plain_union = s->op == SETOP_UNION && s->sortClause == NIL && s->limitCount == nullptr &&
                             s->limitOffset == nullptr && s->withClause == nullptr && s->lockingClause == NIL;
    if (plain_union && s->all)
        throw unsupported("UNION ALL in WITH RECURSIVE item \"" + item.name + "\"",
                          "Use UNION: the items of a recursive query are sets, and UNION ALL need not terminate.");
    if (plain_union) {
        union_arms(reinterpret_cast<Node*>(s->larg), item, arms);
        union_arms(reinterpret_cast<Node*>(s->rarg), item, arms);
        return;
    }
    if (s->withClause != nullptr) throw unsupported("WITH inside a term of WITH RECURSIVE item \"" + item.name + "\"");
    arms.push_back(node);
}

struct RefWalk {
    const std::vector<RawItem>* items;
    std::vector<int> counts;  // references to each item
};

bool count_refs(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* walk = static_cast<RefWalk*>(raw);
    if (IsA(node, RangeVar)) {
        auto* rv = reinterpret_cast<RangeVar*>(node);
        if (rv->schemaname == nullptr && rv->catalogname == nullptr)
            for (std::size_t i = 0; i < walk->items->size(); ++i)
                if ((*walk->items)[i].name == rv->relname) ++walk->counts[i];
        return false;
    }
    return raw_expression_tree_walker(node, reinterpret_cast<bool (*)()>(count_refs), raw);
}

std::vector<int> references(Node* node, const std::vector<RawItem>& items) {
    RefWalk walk{&items, std::vector<int>(items.size(), 0)};
    call([&] { count_refs(node, &walk); });
    return walk.counts;
}

// References to the items in the FROM list of a term, through inner joins.
void count_from_refs(Node* node, const std::vector<RawItem>& items, std::vector<int>& counts) {
    if (node == nullptr) return;
    if (IsA(node, RangeVar)) {
        std::vector<int> c = references(node, items);
        for (std::size_t i = 0; i < c.size(); ++i) counts[i] += c[i];
    } else if (IsA(node, JoinExpr)) {
        auto* j = reinterpret_cast<JoinExpr*>(node);
        if (j->jointype != JOIN_INNER) return;
        count_from_refs(j->larg, items, counts);
        count_from_refs(j->rarg, items, counts);
    }
}

std::vector<RawItem> raw_items(SelectStmt* stmt) {
    std::vector<RawItem> items;
    ListCell* lc;
    foreach (lc, stmt->withClause->ctes) {
        auto* cte = static_cast<CommonTableExpr*>(lfirst(lc));
        RawItem item;
        item.name = cte->ctename;
        item.cte = cte;
        if (item.name.rfind("__ivm_", 0) == 0)
            throw Error("42939", "WITH query name \"" + item.name + "\" is reserved by ivm");
        for (const RawItem& other : items)
            if (other.name == item.name)
                throw Error("42712", "WITH query name \"" + item.name + "\" specified more than once");
        if (!IsA(cte->ctequery, SelectStmt))
            throw unsupported("data-modifying statements in WITH");
        items.push_back(std::move(item));
    }
    for (RawItem& item : items) union_arms(item.cte->ctequery, item, item.arms);
    return items;
}

// One item and PostgreSQL's own WITH RECURSIVE takes it: its last term
// alone reads it, once, in its FROM list.
bool linear(const RawItem& item, const std::vector<RawItem>& items) {
    for (std::size_t a = 0; a < item.arms.size(); ++a) {
        const int all = references(item.arms[a], items)[0];
        std::vector<int> from(items.size(), 0);
        auto* s = reinterpret_cast<SelectStmt*>(item.arms[a]);
        if (s->op == SETOP_NONE) {
            ListCell* lc;
            foreach (lc, s->fromClause) count_from_refs(static_cast<Node*>(lfirst(lc)), items, from);
        }
        if (all > 1 || all != from[0] || (all > 0 && a + 1 != item.arms.size())) return false;
    }
    return true;
}

// A WITH query of the items typed so far, as rows of nothing with the
// items' column types (for analyzing terms) or as the items' rows in the
// storage.
CommonTableExpr* item_cte(const RawItem& item, std::size_t index, const std::string* storage, std::string& texts) {
    std::vector<std::string> cols;
    for (std::size_t j = 0; j < item.types.size(); ++j) {
        if (storage != nullptr) {
            cols.push_back("__ivm_r." + stored_name(index, j));
            continue;
        }
        const Oid type = item.types[j];
        const int32 typmod = item.typmods[j];
        cols.push_back("NULL::" + std::string(call([&] {
                           return format_type_extended(type, typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
                       })));
    }
    const std::string text = storage == nullptr
                                 ? "SELECT " + sql::join(cols, ", ") + " WHERE false"
                                 : "SELECT " + sql::join(cols, ", ") + " FROM " + *storage +
                                       " __ivm_r WHERE __ivm_r.__ivm_item OPERATOR(pg_catalog.=) " +
                                       std::to_string(index + 1);
    texts += text;
    SelectStmt* query = parse_select(text);
    const std::vector<std::string>& names = item.names;
    return call([&] {
        CommonTableExpr* cte = makeNode(CommonTableExpr);
        cte->ctename = pstrdup(item.name.c_str());
        for (const std::string& n : names) cte->aliascolnames = lappend(cte->aliascolnames, makeString(pstrdup(n.c_str())));
        cte->ctematerialized = CTEMaterializeDefault;
        cte->ctequery = reinterpret_cast<Node*>(query);
        cte->location = -1;
        return cte;
    });
}

CommonTableExpr* rule_cte(const RawItem& item, std::size_t index, std::size_t arm) {
    const std::string name = rule_prefix + std::to_string(index + 1) + "_" + std::to_string(arm + 1);
    return call([&] {
        CommonTableExpr* cte = makeNode(CommonTableExpr);
        cte->ctename = pstrdup(name.c_str());
        for (const std::string& n : item.names)
            cte->aliascolnames = lappend(cte->aliascolnames, makeString(pstrdup(n.c_str())));
        cte->ctematerialized = CTEMaterializeDefault;
        cte->ctequery = static_cast<Node*>(copyObjectImpl(item.arms[arm]));
        cte->location = -1;
        return cte;
    });
}

// The user's text, long enough that the positions of generated parts of
// a statement stay inside it (they only matter for errors).
std::string source_text(const char* query, const std::string& generated) {
    return std::string(query) + std::string(generated.size() + 1, ' ');
}

// A copy of the SELECT with `ctes` (if any) as its WITH, instead of its own.
Node* with_ctes(Node* select, List* ctes) {
    return call([&] {
        auto* s = static_cast<SelectStmt*>(copyObjectImpl(select));
        s->withClause = nullptr;
        if (ctes != NIL) {
            WithClause* with = makeNode(WithClause);
            with->ctes = ctes;
            with->recursive = false;
            with->location = -1;
            s->withClause = with;
        }
        return reinterpret_cast<Node*>(s);
    });
}

// A term analyzed with the typed items as WITH queries.
Query* analyze_arm(Node* arm, const std::vector<RawItem>& items, const char* query) {
    std::string texts;
    List* ctes = NIL;
    for (std::size_t i = 0; i < items.size(); ++i)
        if (items[i].typed) {
            CommonTableExpr* cte = item_cte(items[i], i, nullptr, texts);
            ctes = call([&] { return lappend(ctes, cte); });
        }
    const std::string text = source_text(query, texts);
    return analyze_statement(with_ctes(arm, ctes), text.c_str());
}

struct OutputColumn {
    std::string name;
    Oid type, collation;
    int32 typmod;
};

std::vector<OutputColumn> outputs(Query* q) {
    std::vector<OutputColumn> out;
    ListCell* lc;
    foreach (lc, q->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk) continue;
        Node* e = reinterpret_cast<Node*>(te->expr);
        const ExprTyping t = typing_of(e);
        out.push_back({te->resname ? te->resname : "?column?", t.type, t.collation, t.typmod});
    }
    return out;
}

std::string type_name(Oid type) {
    return call([&] { return format_type_be(type); });
}

// Types the items from their terms: a term whose items are all typed gives
// its item's types (as PostgreSQL types a WITH RECURSIVE from its
// non-recursive term), until every item is typed; then every term must
// agree with its item.
void type_items(std::vector<RawItem>& items, const char* query) {
    for (bool progress = true; progress;) {
        progress = false;
        for (RawItem& item : items) {
            if (item.typed) continue;
            for (Node* arm : item.arms) {
                const std::vector<int> refs = references(arm, items);
                bool ready = true;
                for (std::size_t i = 0; i < items.size(); ++i) ready &= refs[i] == 0 || items[i].typed;
                if (!ready) continue;
                const std::vector<OutputColumn> cols = outputs(analyze_arm(arm, items, query));
                std::vector<std::string> declared;
                ListCell* lc;
                foreach (lc, item.cte->aliascolnames) declared.push_back(strVal(lfirst(lc)));
                if (!declared.empty() && declared.size() != cols.size())
                    throw Error("42P10", "WITH query \"" + item.name + "\" has " + std::to_string(cols.size()) +
                                             " columns available but " + std::to_string(declared.size()) +
                                             " columns specified");
                for (std::size_t j = 0; j < cols.size(); ++j) {
                    const std::string name = declared.empty() ? cols[j].name : declared[j];
                    if (std::find(item.names.begin(), item.names.end(), name) != item.names.end())
                        throw Error(sqlstate::duplicate_column, "column \"" + name + "\" of WITH query \"" + item.name +
                                                                    "\" specified more than once");
                    item.names.push_back(name);
                    item.types.push_back(cols[j].type);
                    item.typmods.push_back(cols[j].typmod);
                    item.collations.push_back(cols[j].collation);
                }
                item.typed = progress = true;
                break;
            }
        }
    }
    for (const RawItem& item : items)
        if (!item.typed)
            throw Error("42P19", "could not determine the column types of WITH query \"" + item.name + "\"",
                        "Each item must have a term that reads only tables and items whose types are known.",
                        "Give it a term that does not read the items it depends on.");
    for (const RawItem& item : items)
        for (Node* arm : item.arms) {
            const std::vector<OutputColumn> cols = outputs(analyze_arm(arm, items, query));
            if (cols.size() != item.types.size())
                throw Error("42601", "each term of WITH query \"" + item.name + "\" must have " +
                                         std::to_string(item.types.size()) + " columns");
            for (std::size_t j = 0; j < cols.size(); ++j)
                if (cols[j].type != item.types[j])
                    throw Error("42804", "column \"" + item.names[j] + "\" of WITH query \"" + item.name + "\" has type " +
                                             type_name(item.types[j]) + " in one term and " + type_name(cols[j].type) +
                                             " in another",
                                {}, "Cast the terms' outputs to one type.");
        }
}

}  // namespace

bool is_program(const char* query) {
    SelectStmt* stmt = raw_select(query);  // a syntax error is raised here, as validate_query would
    if (stmt == nullptr || stmt->withClause == nullptr || !stmt->withClause->recursive) return false;
    if (list_length(stmt->withClause->ctes) > 1) return true;
    std::vector<RawItem> items;
    try {
        items = raw_items(stmt);
    } catch (const Error&) {
        return false;  // refused either way; the linear engine says why
    }
    if (!linear(items[0], items)) return true;
    // One linear item: the linear engine's, unless it refuses the shape.
    Query* q = validate_query(query);
    try {
        analyze_query(q, "__ivm_probe", "__ivm_probe", InvalidOid);
    } catch (const Error& e) {
        if (std::strcmp(e.code(), sqlstate::feature_not_supported) == 0) return true;
        throw;
    }
    return false;
}

std::string make_program(const char* query, const std::string& storage) {
    SelectStmt* stmt = raw_select(query);
    std::vector<RawItem> items = raw_items(stmt);
    type_items(items, query);

    Program p;
    p.storage = storage;
    for (std::size_t i = 0; i < items.size(); ++i) {
        ProgramItem item;
        item.name = items[i].name;
        item.reference = call([&] { return quote_identifier(item.name.c_str()); });
        for (std::size_t j = 0; j < items[i].types.size(); ++j) {
            item.columns.push_back(describe_column(items[i].names[j].c_str(), items[i].types[j], items[i].typmods[j],
                                                   items[i].collations[j]));
            item.stored.push_back(stored_name(i, j));
        }
        p.items.push_back(std::move(item));
    }
    for (const std::string& ddl : fixpoint::storage_ddl(p)) spi::execute(ddl);

    std::string texts;
    List* ctes = NIL;
    for (std::size_t i = 0; i < items.size(); ++i) {
        CommonTableExpr* cte = item_cte(items[i], i, &storage, texts);
        ctes = call([&] { return lappend(ctes, cte); });
    }
    for (std::size_t i = 0; i < items.size(); ++i)
        for (std::size_t a = 0; a < items[i].arms.size(); ++a) {
            CommonTableExpr* cte = rule_cte(items[i], i, a);
            ctes = call([&] { return lappend(ctes, cte); });
        }
    const std::string text = source_text(query, texts);
    return query_text(analyze_statement(with_ctes(reinterpret_cast<Node*>(stmt), ctes), text.c_str()));
}

namespace {

struct RteWalk {
    const Program* program;
    std::vector<RangeTblEntry*> found;  // tables and items, at any depth
};

bool collect_rtes(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* walk = static_cast<RteWalk*>(raw);
    if (IsA(node, RangeTblEntry)) {
        auto* rte = reinterpret_cast<RangeTblEntry*>(node);
        if (rte->rtekind == RTE_RELATION) walk->found.push_back(rte);
        if (rte->rtekind == RTE_CTE)
            for (const ProgramItem& item : walk->program->items)
                if (item.name == rte->ctename) walk->found.push_back(rte);
        return false;
    }
    if (IsA(node, Query))
        return query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(collect_rtes), raw,
                                 QTW_EXAMINE_RTES_BEFORE);
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(collect_rtes), raw);
}

std::size_t item_index(const Program& p, const char* name) {
    for (std::size_t i = 0; i < p.items.size(); ++i)
        if (p.items[i].name == name) return i;
    throw Error(sqlstate::internal_error, std::string("unknown item ") + name);
}

// The range table indexes of the FROM list reached through inner joins.
void from_list(Node* node, std::vector<int>& out) {
    if (IsA(node, RangeTblRef)) {
        out.push_back(reinterpret_cast<RangeTblRef*>(node)->rtindex);
    } else if (IsA(node, JoinExpr)) {
        auto* j = reinterpret_cast<JoinExpr*>(node);
        if (j->jointype != JOIN_INNER) return;
        from_list(j->larg, out);
        from_list(j->rarg, out);
    } else if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, reinterpret_cast<FromExpr*>(node)->fromlist) from_list(static_cast<Node*>(lfirst(lc)), out);
    }
}

// A table a term reads: its index among the program's bases.
std::size_t base_of(RangeTblEntry* rte, Program& p, AnalyzedView& out, bool& view_storage) {
    check_relation(rte);
    Oid relid = rte->relid;
    view_storage = false;
    if (call([&] { return get_rel_relkind(relid); }) == RELKIND_VIEW) {  // an ivm view: its storage
        relid = catalog::find_by_view(relid)->storage;
        view_storage = true;
    }
    auto it = std::find(out.recursive_base_oids.begin(), out.recursive_base_oids.end(), relid);
    if (it != out.recursive_base_oids.end()) return static_cast<std::size_t>(it - out.recursive_base_oids.begin());
    out.recursive_base_oids.push_back(relid);
    p.bases.push_back(qualified_name(relid));
    return p.bases.size() - 1;
}

template <typename T>
void add_once(std::vector<T>& v, T x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

ProgramRule describe_rule(CommonTableExpr* cte, std::size_t item, Program& p, AnalyzedView& out,
                          std::vector<ItemEdge>& edges) {
    Query* rq = reinterpret_cast<Query*>(cte->ctequery);
    List* names = cte->ctecolnames;
    check_term(rq);
    ProgramRule rule;
    rule.item = item;
    const bool plain = !rq->hasAggs && rq->groupClause == NIL && rq->havingQual == nullptr &&
                       rq->setOperations == nullptr && rq->groupingSets == NIL;
    std::vector<int> positive;
    if (plain) from_list(reinterpret_cast<Node*>(rq->jointree), positive);
    std::vector<int> sources;  // rtindexes of the sources, in order
    for (int rti : positive) {
        RangeTblEntry* rte = rt_fetch(rti, rq->rtable);
        ProgramSource s;
        if (rte->rtekind == RTE_RELATION) {
            s.index = base_of(rte, p, out, s.view_storage);
            s.only = !rte->inh || s.view_storage;
        } else if (rte->rtekind == RTE_CTE && rte->ctelevelsup == 1) {
            s.item = true;
            s.index = item_index(p, rte->ctename);
            edges.push_back({item, s.index, false});
        } else {
            continue;
        }
        rule.sources.push_back(s);
        sources.push_back(rti);
    }
    RteWalk walk{&p, {}};
    call([&] {
        query_tree_walker(rq, reinterpret_cast<bool (*)()>(collect_rtes), &walk, QTW_EXAMINE_RTES_BEFORE);
    });
    for (RangeTblEntry* rte : walk.found) {
        bool source = false;
        for (int rti : sources) source |= rt_fetch(rti, rq->rtable) == rte;
        if (source) continue;
        if (rte->rtekind == RTE_CTE) {
            const std::size_t i = item_index(p, rte->ctename);
            add_once(rule.other_items, i);
            edges.push_back({item, i, true});
        } else {
            bool view_storage;
            add_once(rule.other_bases, base_of(rte, p, out, view_storage));
        }
    }
    Query* t = call([&] { return static_cast<Query*>(copyObjectImpl(rq)); });
    call([&] {
        for (std::size_t k = 0; k < sources.size(); ++k)
            read_as_placeholder(rt_fetch(sources[k], t->rtable), psprintf("__ivm_src_%d", static_cast<int>(k + 1)), 0);
        if (plain) t->distinctClause = NIL;  // the item is a set anyway
        t->sortClause = NIL;
        // Output columns named as the item's (the term's CTE lists them).
        ListCell* name = list_head(names);
        ListCell* lc;
        foreach (lc, t->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            if (te->resjunk || name == nullptr) continue;
            te->resname = pstrdup(strVal(lfirst(name)));
            name = lnext(names, name);
        }
    });
    rule.sql_template = query_text(t);
    return rule;
}

// Replaces the outer query's references to the items (at any depth:
// subqueries of WHERE, arms of a set operation) by subqueries over the
// items' table, which the analysis of the outer query then expands.
struct ItemReads {
    List* items;  // the items' CommonTableExprs
    Index depth = 0;
    int in_sublink = 0;
    bool read_in_sublink = false;  // (the analysis does not take subqueries apart there)
};

bool read_items_as_subqueries(Node* node, void* raw) {
    if (node == nullptr) return false;
    auto* ctx = static_cast<ItemReads*>(raw);
    if (IsA(node, RangeTblEntry)) {
        auto* rte = reinterpret_cast<RangeTblEntry*>(node);
        if (rte->rtekind != RTE_CTE || rte->ctelevelsup != ctx->depth) return false;
        ListCell* lc;
        foreach (lc, ctx->items) {
            auto* cte = static_cast<CommonTableExpr*>(lfirst(lc));
            if (std::strcmp(cte->ctename, rte->ctename) != 0) continue;
            ctx->read_in_sublink |= ctx->in_sublink > 0;
            rte->rtekind = RTE_SUBQUERY;
            rte->subquery = static_cast<Query*>(copyObjectImpl(cte->ctequery));
            rte->ctename = nullptr;
            rte->ctelevelsup = 0;
            rte->self_reference = false;
            rte->coltypes = rte->coltypmods = rte->colcollations = NIL;
            break;
        }
        return false;
    }
    if (IsA(node, SubLink)) {
        ++ctx->in_sublink;
        bool result = expression_tree_walker(node, reinterpret_cast<bool (*)()>(read_items_as_subqueries), raw);
        --ctx->in_sublink;
        return result;
    }
    if (IsA(node, Query)) {
        ++ctx->depth;
        bool result = query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(read_items_as_subqueries),
                                        raw, QTW_EXAMINE_RTES_BEFORE);
        --ctx->depth;
        return result;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(read_items_as_subqueries), raw);
}

}  // namespace

bool describe_program(Query* q, const std::string& storage, AnalyzedView& out) {
    bool stand_in = false;
    ListCell* lc;
    foreach (lc, q->cteList)
        stand_in |= std::strncmp(static_cast<CommonTableExpr*>(lfirst(lc))->ctename, rule_prefix, std::strlen(rule_prefix)) == 0;
    if (!stand_in) return false;
    Program& p = out.program.emplace();
    p.storage = storage;
    List* rules = NIL;
    List* items = NIL;
    foreach (lc, q->cteList) {
        auto* cte = static_cast<CommonTableExpr*>(lfirst(lc));
        if (std::strncmp(cte->ctename, rule_prefix, std::strlen(rule_prefix)) == 0) {
            rules = call([&] { return lappend(rules, cte); });
            continue;
        }
        items = call([&] { return lappend(items, cte); });
        ProgramItem item;
        item.name = cte->ctename;
        item.reference = call([&] { return quote_identifier(cte->ctename); });
        ListCell *ln, *lt, *lm, *lcoll;
        forfour (ln, cte->ctecolnames, lt, cte->ctecoltypes, lm, cte->ctecoltypmods, lcoll, cte->ctecolcollations) {
            item.columns.push_back(describe_column(strVal(lfirst(ln)), lfirst_oid(lt), lfirst_int(lm), lfirst_oid(lcoll)));
            item.stored.push_back(stored_name(p.items.size(), item.stored.size()));
        }
        p.items.push_back(std::move(item));
    }
    std::vector<ItemEdge> edges;
    foreach (lc, rules) {
        auto* cte = static_cast<CommonTableExpr*>(lfirst(lc));
        const std::size_t item = static_cast<std::size_t>(std::atoi(cte->ctename + std::strlen(rule_prefix))) - 1;
        p.rules.push_back(describe_rule(cte, item, p, out, edges));
    }
    std::vector<std::string> names;
    for (const ProgramItem& item : p.items) names.push_back(item.name);
    p.strata = stratify(p.items.size(), edges, names);
    // The outer query reads the items from the storage.
    q->cteList = NIL;
    ItemReads reads{items};
    call([&] {
        query_tree_walker(q, reinterpret_cast<bool (*)()>(read_items_as_subqueries), &reads,
                          QTW_EXAMINE_RTES_BEFORE | QTW_IGNORE_CTE_SUBQUERIES);
    });
    if (reads.read_in_sublink)
        throw unsupported("WITH RECURSIVE items read by a subquery of the final query (EXISTS, IN, ...)",
                          "Move the subquery into a WITH item and select from that item.");
    return true;
}

}  // namespace ivm::pg
