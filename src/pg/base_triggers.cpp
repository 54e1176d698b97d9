#include "pg/base_triggers.hpp"

#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"

#include <algorithm>
#include <optional>

namespace ivm::pg {
namespace {



std::vector<Oid> tables_with_triggers(int32 view_id, triggers::Part part) {
    return spi::oids(spi::query("SELECT tgrelid FROM pg_catalog.pg_trigger WHERE tgname = $1 ORDER BY tgrelid",
                                {triggers::before_trigger_name(view_id, part)}));
}

}  // namespace

void sync_part_triggers(int32 view_id, triggers::Part part, const std::vector<Oid>& bases, bool as_owner,
                        TriggerChanges& changes) {
    const std::vector<Oid> wanted = with_descendants(bases);
    const std::vector<Oid> present = tables_with_triggers(view_id, part);
    for (Oid t : wanted) {
        if (contains(present, t)) continue;
        std::vector<std::string> ddl = triggers::base_table_ddl(view_id, qualified_name(t), part);
        if (as_owner)
            execute_as_owner_of(t, ddl);
        else
            for (const std::string& sql : ddl) spi::execute(sql);
        if (!contains(changes.added, t)) changes.added.push_back(t);
    }
    for (Oid t : present) {
        if (contains(wanted, t)) continue;
        execute_as_owner_of(t, triggers::base_table_drop(view_id, qualified_name(t), part));
        if (!contains(changes.removed, t)) changes.removed.push_back(t);
    }
}

bool has_triggers(int32 view_id, triggers::Part part, const std::vector<Oid>& bases) {
    const std::vector<Oid> present = tables_with_triggers(view_id, part);
    for (Oid b : bases)
        if (!contains(present, b)) return false;
    return true;
}

TriggerChanges sync_base_triggers(int32 view_id, const AnalyzedView* analysis, bool as_owner) {
    TriggerChanges changes;
    std::vector<Oid> counting, recursive;
    if (analysis != nullptr) {
        counting = analysis->base_oids;
        recursive = analysis->recursive_base_oids;
        // A deferred view's base tables carry the change logs' triggers
        // instead; its own recursive relation keeps them: DRed's writes of
        // it during an apply maintain the view over it.
        std::optional<catalog::Entry> entry = catalog::find_by_id(view_id);
        if (entry && entry->deferred) {
            counting.clear();
            recursive.clear();
            if (entry->recursive_storage != InvalidOid) counting.push_back(entry->recursive_storage);
        }
    }
    sync_part_triggers(view_id, triggers::Part::Counting, counting, as_owner, changes);
    sync_part_triggers(view_id, triggers::Part::Recursive, recursive, as_owner, changes);
    return changes;
}

std::vector<Oid> bases_of(Oid relid, const std::vector<Oid>& bases, bool first_only) {
    std::vector<Oid> out;
    if (contains(bases, relid)) {
        out.push_back(relid);
        if (first_only) return out;
    }
    for (Oid base : bases) {
        if (base == relid || !call([&] { return has_subclass(base); })) continue;
        if (!contains(with_descendants(base), relid)) continue;
        out.push_back(base);
        if (first_only) break;
    }
    return out;
}

Oid base_of(Oid relid, const std::vector<Oid>& bases) {
    const std::vector<Oid> found = bases_of(relid, bases, true);
    return found.empty() ? InvalidOid : found.front();
}

}  // namespace ivm::pg
