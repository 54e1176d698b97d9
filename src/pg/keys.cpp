#include "pg/keys.hpp"

#include "pg/boundary.hpp"
#include "pg/occurrences.hpp"
#include "pg/views_not_null.hpp"

#include <algorithm>

namespace ivm::pg {
namespace {

// One index as read from the catalog, in plain arrays (filled inside call()).
struct IndexRow {
    bool usable = false;
    int columns = 0;
    AttrNumber attno[INDEX_MAX_KEYS] = {};
    Oid opfamily[INDEX_MAX_KEYS] = {};
    Oid collation[INDEX_MAX_KEYS] = {};
};

List* index_list(Oid relid) {
    return call([&] {
        Relation rel = table_open(relid, AccessShareLock);
        List* list = RelationGetIndexList(rel);
        table_close(rel, AccessShareLock);
        return list;
    });
}

IndexRow read_index(Oid relid, Oid index) {
    IndexRow row;
    call([&] {
        HeapTuple tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
        if (!HeapTupleIsValid(tup)) return;
        auto* form = reinterpret_cast<Form_pg_index>(GETSTRUCT(tup));
        row.usable = form->indisunique && form->indimmediate && form->indisvalid &&
                     heap_attisnull(tup, Anum_pg_index_indexprs, nullptr) &&
                     heap_attisnull(tup, Anum_pg_index_indpred, nullptr);
        bool isnull = false;
        auto* classes = reinterpret_cast<oidvector*>(
            DatumGetPointer(SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indclass, &isnull)));
        auto* collations = reinterpret_cast<oidvector*>(
            DatumGetPointer(SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indcollation, &isnull)));
        row.columns = form->indnkeyatts;
        for (int i = 0; row.usable && i < row.columns; ++i) {
            row.attno[i] = form->indkey.values[i];
            row.usable = row.attno[i] > 0 && attribute_not_null(relid, row.attno[i]);
            row.opfamily[i] = get_opclass_family(classes->values[i]);
            row.collation[i] = collations->values[i];
        }
        ReleaseSysCache(tup);
    });
    return row;
}

// A column compared under collation `used` is compared as its index
// compares it (`indexed`): the same collation, or two deterministic ones
// (both equal only what is byte-for-byte equal).
bool same_equality(Oid used, Oid indexed) {
    if (used == indexed || !OidIsValid(indexed)) return true;
    if (!OidIsValid(used)) return false;
    return call([&] { return get_collation_isdeterministic(used) && get_collation_isdeterministic(indexed); });
}

// Whether `op` is the equality of operator family `opfamily`.
bool equality_of(Oid op, Oid opfamily) {
    return call([&] {
        return op_in_opfamily(op, opfamily) && get_op_opfamily_strategy(op, opfamily) == BTEqualStrategyNumber;
    });
}

// A Var of the block itself, under any binary-compatible relabeling.
const Var* plain_var(const Node* node) {
    while (node != nullptr && IsA(node, RelabelType))
        node = reinterpret_cast<const Node*>(reinterpret_cast<const RelabelType*>(node)->arg);
    if (node == nullptr || !IsA(node, Var)) return nullptr;
    const auto* var = reinterpret_cast<const Var*>(node);
    return var->varlevelsup == 0 && var->varattno > 0 ? var : nullptr;
}

// `left = right` between two columns of the block, ANDed into its WHERE or
// an inner join's ON.
struct Equality {
    Oid op = InvalidOid;
    Oid collation = InvalidOid;
    const Var* left = nullptr;
    const Var* right = nullptr;
};

void add_equalities(Node* quals, std::vector<Equality>& out) {
    ListCell* lc;
    foreach (lc, conjuncts_of(quals)) {
        auto* node = static_cast<Node*>(lfirst(lc));
        if (!IsA(node, OpExpr) || list_length(reinterpret_cast<OpExpr*>(node)->args) != 2) continue;
        auto* op = reinterpret_cast<OpExpr*>(node);
        const Var* l = plain_var(static_cast<Node*>(linitial(op->args)));
        const Var* r = plain_var(static_cast<Node*>(lsecond(op->args)));
        if (l != nullptr && r != nullptr) out.push_back({op->opno, op->inputcollid, l, r});
    }
}

// The equalities of the FROM tree's WHERE and ON clauses; false when the
// tree holds anything but inner joins.
bool collect_equalities(Node* node, std::vector<Equality>& out) {
    if (node == nullptr || IsA(node, RangeTblRef)) return true;
    if (IsA(node, FromExpr)) {
        auto* from = reinterpret_cast<FromExpr*>(node);
        ListCell* lc;
        foreach (lc, from->fromlist)
            if (!collect_equalities(static_cast<Node*>(lfirst(lc)), out)) return false;
        add_equalities(from->quals, out);
        return true;
    }
    if (!IsA(node, JoinExpr)) return false;
    auto* join = reinterpret_cast<JoinExpr*>(node);
    if (join->jointype != JOIN_INNER) return false;
    if (!collect_equalities(join->larg, out) || !collect_equalities(join->rarg, out)) return false;
    add_equalities(join->quals, out);
    return true;
}

// Whether each column of `key` (of the relation at `rtindex`) equals, by
// its index's equality, a column of a relation marked in `determined`.
bool pinned_by(const UniqueKey& key, int rtindex, const std::vector<Equality>& equalities,
               const std::vector<bool>& determined) {
    for (const KeyColumn& c : key) {
        bool pinned = false;
        for (const Equality& e : equalities) {
            for (const auto& [mine, other] : {std::pair{e.left, e.right}, std::pair{e.right, e.left}}) {
                if (pinned || static_cast<int>(mine->varno) != rtindex || mine->varattno != c.attno) continue;
                const auto o = static_cast<std::size_t>(other->varno);
                pinned = o < determined.size() && determined[o] && equality_of(e.op, c.opfamily) &&
                         same_equality(e.collation, c.collation);
            }
        }
        if (!pinned) return false;
    }
    return true;
}

// Whether the block's select list shows every column of `key` (of the
// relation at `rtindex`) as itself, compared as the index compares it.
bool shown_in(const UniqueKey& key, int rtindex, Query* q) {
    for (const KeyColumn& c : key) {
        bool shown = false;
        ListCell* lc;
        foreach (lc, q->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            const Var* var = te->resjunk ? nullptr : plain_var(reinterpret_cast<Node*>(te->expr));
            if (shown || var == nullptr || static_cast<int>(var->varno) != rtindex || var->varattno != c.attno) continue;
            // The storage tells tuples apart by the output type's equality.
            const Node* expr = reinterpret_cast<Node*>(te->expr);
            const Oid type = call([&] { return exprType(expr); });
            const Oid eq = call([&] { return lookup_type_cache(type, TYPECACHE_EQ_OPR)->eq_opr; });
            const Oid collation = call([&] { return exprCollation(expr); });
            shown = OidIsValid(eq) && equality_of(eq, c.opfamily) && same_equality(collation, c.collation);
        }
        if (!shown) return false;
    }
    return true;
}

// The recursive relation (a reference to the WITH RECURSIVE query) is a
// set: all of its columns are a unique key, under each type's equality
// (which UNION and DRed tell its tuples apart by).  None for a type
// without a B-tree equality.
std::vector<UniqueKey> set_key(const RangeTblEntry* cte) {
    UniqueKey key;
    AttrNumber attno = 0;
    ListCell *type, *collation;
    forboth (type, cte->coltypes, collation, cte->colcollations) {
        const Oid t = lfirst_oid(type);
        const Oid opfamily = call([&] { return lookup_type_cache(t, TYPECACHE_BTREE_OPFAMILY)->btree_opf; });
        if (!OidIsValid(opfamily)) return {};
        key.push_back({++attno, opfamily, lfirst_oid(collation)});
    }
    return {key};
}

// The Var an output column is when it shows a column of the block as it
// is (no cast), or null.
const Var* bare_var(const TargetEntry* te) {
    if (te->resjunk || !IsA(te->expr, Var)) return nullptr;
    const auto* var = reinterpret_cast<const Var*>(te->expr);
    return var->varlevelsup == 0 && var->varattno > 0 ? var : nullptr;
}

// The view's output columns that are bare: (index among the output
// columns, the Var).
std::vector<std::pair<std::size_t, const Var*>> bare_outputs(Query* q) {
    std::vector<std::pair<std::size_t, const Var*>> out;
    std::size_t column = 0;
    ListCell* lc;
    foreach (lc, q->targetList) {
        auto* te = static_cast<TargetEntry*>(lfirst(lc));
        if (te->resjunk) continue;
        if (const Var* var = bare_var(te)) out.emplace_back(column, var);
        ++column;
    }
    return out;
}

std::string column_name(Oid relid, AttrNumber attno) {
    return call([&] { return quote_identifier(get_attname(relid, attno, false)); });
}

// The columns of the occurrence at `rtindex` that q reads other than as
// output columns showing them as they are.
std::vector<AttrNumber> read_otherwise(Query* q, int rtindex) {
    Query shallow = *q;
    shallow.targetList = call([&] {
        List* kept = NIL;
        ListCell* lc;
        foreach (lc, q->targetList) {
            auto* te = static_cast<TargetEntry*>(lfirst(lc));
            const Var* var = bare_var(te);
            if (var == nullptr || static_cast<int>(var->varno) != rtindex) kept = lappend(kept, te);
        }
        return kept;
    });
    Occurrence o;
    o.owner = &shallow;
    o.rtindex = rtindex;
    return used_columns(o);
}

// Where the view shows key column `c` of the occurrence at `rtindex`: the
// output column showing it, or one showing a column it equals in the join.
std::optional<CountingView::Lookup::KeyPart> shown_key_part(
    const KeyColumn& c, Oid relid, int rtindex, const std::vector<std::pair<std::size_t, const Var*>>& outputs,
    const std::vector<Equality>& equalities) {
    const Oid type = call([&] { return get_atttype(relid, c.attno); });
    const Oid key_eq = call([&] { return get_opfamily_member(c.opfamily, type, type, BTEqualStrategyNumber); });
    if (!OidIsValid(key_eq)) return std::nullopt;
    CountingView::Lookup::KeyPart part;
    part.column = column_name(relid, c.attno);
    part.equality = qualified_operator(key_eq);
    for (const auto& [column, var] : outputs)
        if (static_cast<int>(var->varno) == rtindex && var->varattno == c.attno) {
            part.shown = column;
            part.match = part.equality;
            return part;
        }
    for (const Equality& e : equalities) {
        for (const auto& [mine, other] : {std::pair{e.left, e.right}, std::pair{e.right, e.left}}) {
            if (static_cast<int>(mine->varno) != rtindex || mine->varattno != c.attno) continue;
            if (!equality_of(e.op, c.opfamily) || !same_equality(e.collation, c.collation)) continue;
            // The operator with the shown column on its left.
            const Oid op = other == e.left ? e.op : call([&] { return get_commutator(e.op); });
            if (!OidIsValid(op)) continue;
            for (const auto& [column, var] : outputs)
                if (var->varno == other->varno && var->varattno == other->varattno) {
                    part.shown = column;
                    part.match = qualified_operator(op);
                    return part;
                }
        }
    }
    return std::nullopt;
}

}  // namespace

std::string qualified_operator(Oid opno) {
    const char* name = nullptr;
    const char* nsp = nullptr;
    call([&] {
        HeapTuple tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
        if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for operator %u", opno);
        auto* form = reinterpret_cast<Form_pg_operator>(GETSTRUCT(tup));
        name = pstrdup(NameStr(form->oprname));
        nsp = quote_identifier(get_namespace_name(form->oprnamespace));
        ReleaseSysCache(tup);
    });
    return std::string("OPERATOR(") + nsp + "." + name + ")";
}

namespace {

// A constant or computed relation multiplies a base row's tuples: the
// view is neither keyed nor has lookup bases.
bool reads_computed_relation(Query* q) {
    ListCell* lc;
    foreach (lc, q->rtable)
        if (computed_relation(q, static_cast<RangeTblEntry*>(lfirst(lc)))) return true;
    return false;
}

}  // namespace

std::vector<std::optional<CountingView::Lookup>> lookup_bases(Query* q, const std::vector<Occurrence>& occurrences,
                                                               const std::vector<Source>& sources, std::size_t bases) {
    std::vector<std::optional<CountingView::Lookup>> lookups(bases);
    if (q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr || q->hasSubLinks || q->hasTargetSRFs ||
        q->hasWindowFuncs || q->setOperations != nullptr || reads_computed_relation(q))
        return lookups;
    for (const Occurrence& o : occurrences)
        if (o.owner != q || o.role != Source::Role::Linear) return lookups;
    std::vector<Equality> equalities;
    if (!collect_equalities(reinterpret_cast<Node*>(q->jointree), equalities)) return lookups;
    const auto outputs = bare_outputs(q);
    for (std::size_t t = 0; t < occurrences.size(); ++t) {
        const std::size_t base = sources[t].base;
        const auto same_base = [&](const Source& s) { return s.base == base; };
        if (std::count_if(sources.begin(), sources.end(), same_base) != 1 || !sources[t].multiplicity.empty()) continue;
        RangeTblEntry* rte = rt_fetch(occurrences[t].rtindex, q->rtable);
        if (rte->rtekind != RTE_RELATION) continue;
        const Oid relid = rte->relid;
        const char kind = call([&] { return get_rel_relkind(relid); });
        if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE) continue;
        const int rtindex = occurrences[t].rtindex;
        for (const UniqueKey& key : unique_keys(relid)) {
            CountingView::Lookup lookup;
            for (const KeyColumn& c : key) {
                std::optional<CountingView::Lookup::KeyPart> part = shown_key_part(c, relid, rtindex, outputs, equalities);
                if (!part) break;
                lookup.key.push_back(std::move(*part));
            }
            if (lookup.key.size() != key.size()) continue;
            for (const auto& [column, var] : outputs)
                if (static_cast<int>(var->varno) == rtindex) lookup.shown.push_back({column, column_name(relid, var->varattno)});
            for (AttrNumber a : read_otherwise(q, rtindex)) lookup.guarded.push_back(column_name(relid, a));
            lookups[base] = std::move(lookup);
            break;
        }
    }
    return lookups;
}

bool attribute_not_null(Oid relid, AttrNumber attno) {
    HeapTuple tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attno));
    if (!HeapTupleIsValid(tup)) return false;
    const bool not_null = reinterpret_cast<Form_pg_attribute>(GETSTRUCT(tup))->attnotnull;
    ReleaseSysCache(tup);
    return not_null;
}

bool on_nullable_side(const Node* node, int rti, bool nullable) {
    if (node == nullptr) return false;
    if (IsA(node, RangeTblRef)) return nullable && reinterpret_cast<const RangeTblRef*>(node)->rtindex == rti;
    if (IsA(node, FromExpr)) {
        const ListCell* lc;
        foreach (lc, reinterpret_cast<const FromExpr*>(node)->fromlist)
            if (on_nullable_side(static_cast<const Node*>(lfirst(lc)), rti, nullable)) return true;
        return false;
    }
    if (!IsA(node, JoinExpr)) return false;
    const auto* j = reinterpret_cast<const JoinExpr*>(node);
    const bool full = j->jointype == JOIN_FULL;
    return on_nullable_side(j->larg, rti, nullable || full || j->jointype == JOIN_RIGHT) ||
           on_nullable_side(j->rarg, rti, nullable || full || j->jointype == JOIN_LEFT);
}

bool not_null_column(Query* q, Node* expr) {
    if (!IsA(expr, Var) || reinterpret_cast<Var*>(expr)->varlevelsup != 0) return false;
    // WHERE <column> IS NOT NULL (a decorrelated LATERAL subquery's key)
    ListCell* lc;
    foreach (lc, conjuncts_of(q->jointree->quals)) {
        const auto* test = static_cast<const NullTest*>(lfirst(lc));
        if (IsA(test, NullTest) && test->nulltesttype == IS_NOT_NULL && !test->argisrow && equal(test->arg, expr))
            return true;
    }
    const Var* v = reinterpret_cast<Var*>(expr);
    return read_column_not_null(rt_fetch(v->varno, q->rtable), v->varattno) &&
           !on_nullable_side(reinterpret_cast<Node*>(q->jointree), static_cast<int>(v->varno));
}

bool read_column_not_null(const RangeTblEntry* rte, AttrNumber attno) {
    if (rte->rtekind != RTE_RELATION || attno <= 0) return false;
    const char kind = get_rel_relkind(rte->relid);
    if (kind == RELKIND_VIEW) return view_column_not_null(rte->relid, attno);
    if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE) return false;
    return attribute_not_null(rte->relid, attno) && !(rte->inh && has_inheritance_children(rte->relid));
}

bool has_inheritance_children(Oid relid) { return get_rel_relkind(relid) == RELKIND_RELATION && has_subclass(relid); }

bool image_equal(Oid type, Oid collation) {
    const Oid base = getBaseType(type);
    // (bpchar's class says so too, but its = ignores trailing spaces, which
    // a value without a declared length keeps: 'a' = 'a ')
    if (base == BPCHAROID) return false;
    TypeCacheEntry* entry = lookup_type_cache(base, TYPECACHE_BTREE_OPFAMILY);
    if (!OidIsValid(entry->btree_opf)) return false;
    const Oid proc = get_opfamily_proc(entry->btree_opf, entry->btree_opintype, entry->btree_opintype, BTEQUALIMAGE_PROC);
    if (!OidIsValid(proc)) return false;
    return DatumGetBool(OidFunctionCall1Coll(proc, collation, ObjectIdGetDatum(entry->btree_opintype)));
}

std::vector<AttrNumber> index_leads(Oid relid) {
    std::vector<AttrNumber> leads;
    List* indexes = index_list(relid);
    ListCell* lc;
    foreach (lc, indexes) {
        const Oid index = lfirst_oid(lc);
        const AttrNumber lead = call([&]() -> AttrNumber {
            HeapTuple tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
            if (!HeapTupleIsValid(tup)) return 0;
            auto* form = reinterpret_cast<Form_pg_index>(GETSTRUCT(tup));
            const AttrNumber attno = form->indisvalid && form->indnkeyatts > 0 ? form->indkey.values[0] : 0;
            ReleaseSysCache(tup);
            return attno;
        });
        if (lead > 0) leads.push_back(lead);
    }
    return leads;
}

std::vector<UniqueKey> unique_keys(Oid relid) {
    if (call([&] { return has_inheritance_children(relid); })) return {};
    List* indexes = index_list(relid);
    std::vector<UniqueKey> keys;
    ListCell* lc;
    foreach (lc, indexes) {
        const IndexRow row = read_index(relid, lfirst_oid(lc));
        if (!row.usable) continue;
        UniqueKey key;
        for (int i = 0; i < row.columns; ++i) key.push_back({row.attno[i], row.opfamily[i], row.collation[i]});
        keys.push_back(std::move(key));
    }
    return keys;
}

std::vector<bool> keying_bases(Query* q, const std::vector<Occurrence>& occurrences,
                               const std::vector<Source>& sources, std::size_t bases) {
    std::vector<bool> keying(bases, false);
    if (q->hasAggs || q->groupClause != NIL || q->havingQual != nullptr || q->distinctClause != NIL ||
        q->hasSubLinks || q->hasTargetSRFs || q->hasWindowFuncs || q->setOperations != nullptr ||
        reads_computed_relation(q))
        return keying;
    // Every occurrence a table, joined in the block's own FROM list.
    std::vector<std::vector<UniqueKey>> keys;
    for (std::size_t i = 0; i < occurrences.size(); ++i) {
        const Occurrence& o = occurrences[i];
        if (o.owner != q || o.role != Source::Role::Linear || !sources[i].multiplicity.empty()) return keying;
        RangeTblEntry* rte = rt_fetch(o.rtindex, q->rtable);
        if (rte->rtekind == RTE_CTE) {  // the recursive relation (analyze.cpp, block_sources)
            keys.push_back(set_key(rte));
            continue;
        }
        if (rte->rtekind != RTE_RELATION) return keying;
        const Oid relid = rte->relid;
        const char kind = call([&] { return get_rel_relkind(relid); });
        if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE) return keying;
        keys.push_back(unique_keys(relid));
    }
    std::vector<Equality> equalities;
    if (!collect_equalities(reinterpret_cast<Node*>(q->jointree), equalities)) return keying;
    const std::size_t rtsize = static_cast<std::size_t>(list_length(q->rtable)) + 1;
    for (std::size_t t = 0; t < occurrences.size(); ++t) {
        const std::size_t base = sources[t].base;
        const auto same_base = [&](const Source& s) { return s.base == base; };
        if (std::count_if(sources.begin(), sources.end(), same_base) != 1) continue;  // a self-join
        const int rtindex = occurrences[t].rtindex;
        if (std::none_of(keys[t].begin(), keys[t].end(), [&](const UniqueKey& k) { return shown_in(k, rtindex, q); }))
            continue;
        // The other occurrences, each pinned to one row by equalities on a
        // unique key of its own with columns of rows already pinned.
        std::vector<bool> determined(rtsize, false);
        std::vector<bool> done(occurrences.size(), false);
        determined[static_cast<std::size_t>(rtindex)] = done[t] = true;
        for (bool grew = true; grew;) {
            grew = false;
            for (std::size_t r = 0; r < occurrences.size(); ++r) {
                if (done[r]) continue;
                const int rt = occurrences[r].rtindex;
                if (std::any_of(keys[r].begin(), keys[r].end(),
                                [&](const UniqueKey& k) { return pinned_by(k, rt, equalities, determined); })) {
                    determined[static_cast<std::size_t>(rt)] = done[r] = grew = true;
                }
            }
        }
        keying[base] = std::all_of(done.begin(), done.end(), [](bool d) { return d; });
    }
    return keying;
}

}  // namespace ivm::pg
