#include "pg/large_statements.hpp"

#include "pg/boundary.hpp"
#include "pg/maintain.hpp"
#include "pg/spi.hpp"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace ivm::pg {
namespace {

ExecutorStart_hook_type previous_hook = nullptr;

// The view id of ivm's AFTER STATEMENT trigger `t` of a view's query (not
// of a recursive relation, whose triggers carry a second argument), or
// none for any other trigger.
std::optional<int32> view_of_trigger(const Trigger& t) {
    if (!TRIGGER_FOR_AFTER(t.tgtype) || TRIGGER_FOR_ROW(t.tgtype) || t.tgnargs != 1) return std::nullopt;
    const Oid function = t.tgfoid;
    const bool ours = call([&] {
        const char* name = get_func_name(function);
        const char* schema = get_namespace_name(get_func_namespace(function));
        return name != nullptr && schema != nullptr && strcmp(name, "after_base_change") == 0 &&
               strcmp(schema, "ivm") == 0;
    });
    if (!ours) return std::nullopt;
    return static_cast<int32>(std::stol(t.tgargs[0]));
}

// The views whose triggers on `rel` keep the transition rows of `event`
// (TRIGGER_TYPE_INSERT, _UPDATE or _DELETE), or none where another
// trigger keeps them too.
std::optional<std::vector<int32>> views_capturing(Relation rel, int16 event) {
    std::vector<int32> views;
    const TriggerDesc* triggers = rel->trigdesc;
    for (int i = 0; triggers != nullptr && i < triggers->numtriggers; ++i) {
        const Trigger& t = triggers->triggers[i];
        if ((t.tgoldtable == nullptr && t.tgnewtable == nullptr) || (t.tgtype & event) == 0) continue;
        const std::optional<int32> view = view_of_trigger(t);
        if (!view) return std::nullopt;
        views.push_back(*view);
    }
    return views;
}

// Drops the transition capture of the statement `query` starts where it
// changes only what large_statements.hpp allows and every view reading the
// table would be computed anew for the rows the planner expects it to change.
void drop_capture_if_recomputed(QueryDesc* query) {
    PlanState* top = query->planstate;
    if (top == nullptr || !IsA(top, ModifyTableState)) return;
    auto* modify = reinterpret_cast<ModifyTableState*>(top);
    const PlanState* source = outerPlanState(modify);
    if (modify->mt_transition_capture == nullptr || modify->mt_oc_transition_capture != nullptr ||
        modify->mt_nrels != 1 || source == nullptr || query->estate->es_auxmodifytables != NIL ||
        reinterpret_cast<const ModifyTable*>(modify->ps.plan)->onConflictAction != ONCONFLICT_NONE)
        return;
    const double rows = source->plan->plan_rows;
    if (rows <= large_delta_rows) return;
    int16 event = 0;
    double inserted = 0, deleted = 0;
    switch (modify->operation) {
        case CMD_INSERT: event = TRIGGER_TYPE_INSERT, inserted = rows; break;
        case CMD_UPDATE: event = TRIGGER_TYPE_UPDATE, inserted = deleted = rows; break;
        case CMD_DELETE: event = TRIGGER_TYPE_DELETE, deleted = rows; break;
        default: return;
    }
    Relation rel = modify->rootResultRelInfo->ri_RelationDesc;
    if (rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relhassubclass) return;
    const std::optional<std::vector<int32>> views = views_capturing(rel, event);
    if (!views || views->empty()) return;
    spi::connect();
    bool recomputed = true;
    for (int32 id : *views) {
        std::shared_ptr<ViewRuntime> view = runtime_for_locks(id);
        const int base = view->base_index(RelationGetRelid(rel));
        if (view->entry.populated &&
            (base < 0 || !recomputes_change(*view, static_cast<std::size_t>(base), inserted, deleted))) {
            recomputed = false;
            break;
        }
    }
    spi::finish();
    if (recomputed) modify->mt_transition_capture = nullptr;
}

void start_executor(QueryDesc* query, int eflags) {
    if (previous_hook != nullptr)
        previous_hook(query, eflags);
    else
        standard_ExecutorStart(query, eflags);
    if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) != 0) return;
    boundary([&]() -> Datum {
        drop_capture_if_recomputed(query);
        return 0;
    });
}

}  // namespace

void install_large_statement_hook() {
    previous_hook = ExecutorStart_hook;
    ExecutorStart_hook = start_executor;
}

}  // namespace ivm::pg
