#include "pg/change_estimates.hpp"

#include "pg/boundary.hpp"
#include "pg/maintain.hpp"

extern "C" {
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
}

namespace ivm::pg {
namespace {

set_rel_pathlist_hook_type previous_hook = nullptr;

// The relation whose rows a tuplestore scan reads, where its statistics
// can stand for them: a table, a partitioned table or a materialized view.
char stands_in_kind(const RangeTblEntry* rte) {
    if (rte->rtekind != RTE_NAMEDTUPLESTORE || rte->relid == InvalidOid) return '\0';
    const char kind = get_rel_relkind(rte->relid);
    return kind == RELKIND_RELATION || kind == RELKIND_PARTITIONED_TABLE || kind == RELKIND_MATVIEW ? kind : '\0';
}

// Sets the rows of `rel` and of its unparameterized paths.
void set_rows(RelOptInfo* rel, double rows) {
    rel->rows = rows;
    ListCell* lc;
    foreach (lc, rel->pathlist) {
        auto* path = static_cast<Path*>(lfirst(lc));
        if (path->param_info == nullptr) path->rows = rows;
    }
}

// A tuplestore scan's filters estimated as on the relation it stands for:
// the selectivities cached in its restrictions are computed anew with a
// range-table entry of that relation in its place.
void estimate_filters(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
    const char kind = stands_in_kind(rte);
    if (kind == '\0' || rel->baserestrictinfo == NIL) return;
    RangeTblEntry stand_in = *rte;
    stand_in.rtekind = RTE_RELATION;
    stand_in.relkind = kind;
    stand_in.inh = kind == RELKIND_PARTITIONED_TABLE;  // (its statistics are of the whole tree)
    ListCell* lc;
    foreach (lc, rel->baserestrictinfo) {
        auto* r = lfirst_node(RestrictInfo, lc);
        r->norm_selec = -1;
        r->outer_selec = -1;
    }
    root->simple_rte_array[rti] = &stand_in;
    const Selectivity s = clauselist_selectivity(root, rel->baserestrictinfo, 0, JOIN_INNER, nullptr);
    root->simple_rte_array[rti] = rte;
    set_rows(rel, clamp_row_est(rel->tuples * s));
}

// An append relation's rows as set_append_rel_size sums them: its live
// members' rows.
void sum_members(PlannerInfo* root, RelOptInfo* rel, Index rti) {
    double rows = 0;
    ListCell* lc;
    foreach (lc, root->append_rel_list) {
        auto* link = lfirst_node(AppendRelInfo, lc);
        if (link->parent_relid != rti) continue;
        RelOptInfo* member = root->simple_rel_array[link->child_relid];
        if (member == nullptr || IS_DUMMY_REL(member)) continue;
        rows += member->rows;
    }
    if (rows > 0) {
        rel->tuples = rows;
        set_rows(rel, rows);
    }
}

void estimate(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
    if (rel->reloptkind == RELOPT_BASEREL && rte->rtekind == RTE_SUBQUERY && rte->inh) {
        sum_members(root, rel, rti);
        return;
    }
    if (rel->reloptkind == RELOPT_BASEREL || rel->reloptkind == RELOPT_OTHER_MEMBER_REL)
        estimate_filters(root, rel, rti, rte);
}

void set_rel_pathlist(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
    if (previous_hook != nullptr) previous_hook(root, rel, rti, rte);
    if (!maintaining_any()) return;
    boundary([&]() -> Datum {
        call([&] { estimate(root, rel, rti, rte); });
        return 0;
    });
}

}  // namespace

void install_change_estimates_hook() {
    previous_hook = set_rel_pathlist_hook;
    set_rel_pathlist_hook = set_rel_pathlist;
}

}  // namespace ivm::pg
