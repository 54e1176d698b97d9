// The per-backend cache of what maintaining each view needs (its model and
// kept plans), rebuilt when what it read changes or outgrows its plans.
#include "pg/maintain.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/relations.hpp"

#include <algorithm>

namespace ivm::pg {
namespace {

std::map<int32, std::shared_ptr<ViewRuntime>> runtimes;
// Replaced runtimes whose kept plans may still be executing further up the
// stack (maintenance nests); freed once nobody holds them.
std::vector<std::shared_ptr<ViewRuntime>> retired;

void free_plans(ViewRuntime& view) {
    for (auto& [key, plan] : view.plans) {
        SPIPlanPtr p = plan;
        if (p != nullptr) call([&] { SPI_freeplan(p); });
    }
    view.plans.clear();
}

}  // namespace

int ViewRuntime::base_index(Oid relid) const {
    auto it = std::find(analyzed.base_oids.begin(), analyzed.base_oids.end(), relid);
    return it == analyzed.base_oids.end() ? -1 : static_cast<int>(it - analyzed.base_oids.begin());
}

int ViewRuntime::recursive_base_index(Oid relid) const {
    const std::vector<Oid>& oids = analyzed.recursive_base_oids;
    auto it = std::find(oids.begin(), oids.end(), relid);
    return it == oids.end() ? -1 : static_cast<int>(it - oids.begin());
}

bool ViewRuntime::depends_on(Oid relid) const {
    return relid == entry.view || relid == entry.storage || relid == entry.query_view ||
           (relid == entry.recursive_storage && relid != InvalidOid) || base_index(relid) >= 0 ||
           recursive_base_index(relid) >= 0 ||
           std::find(analyzed.expanded_views.begin(), analyzed.expanded_views.end(), relid) !=
               analyzed.expanded_views.end() ||
           std::find(analyzed.not_null_from.begin(), analyzed.not_null_from.end(), relid) !=
               analyzed.not_null_from.end();
}

// The pages of the relations a view's maintenance reads: its storage, its
// recursive relation and its base tables.
double pages_read(const ViewRuntime& view) {
    std::vector<Oid> relations = view.analyzed.base_oids;
    relations.insert(relations.end(), view.analyzed.recursive_base_oids.begin(), view.analyzed.recursive_base_oids.end());
    relations.push_back(view.entry.storage);
    if (view.entry.recursive_storage != InvalidOid) relations.push_back(view.entry.recursive_storage);
    return call([&] {
        double pages = 0;
        for (Oid relid : relations) {
            Relation r = table_open(relid, AccessShareLock);
            if (RELKIND_HAS_STORAGE(r->rd_rel->relkind)) pages += static_cast<double>(RelationGetNumberOfBlocks(r));
            table_close(r, AccessShareLock);
        }
        return pages;
    });
}

// Kept plans are remade when what they read has more than doubled since:
// PostgreSQL replans them after an ANALYZE, but a table that grows in one
// transaction, or before autovacuum comes, keeps plans made for it small.
// A storage emptied and analyzed so, then loaded again a few hundred rows a
// statement: each merge looked every delta tuple up by a scan of the whole
// storage (docs/benchmarks.md, "Measurements behind design decisions").
bool outgrown(const ViewRuntime& view) { return pages_read(view) > 2 * view.pages_planned_for + 16; }

namespace {

// A size check costs a system call per relation: made at each trigger
// firing, 6% of a one-row UPDATE's time with an aggregate view.  Maintenance checks
// once this many changes or transition rows have passed since the last:
// a relation that grows a few rows a statement is seen within a few
// statements, one that grows by hundreds at its next change.
constexpr int size_check_changes = 16;
constexpr uint64 size_check_rows = 256;

std::shared_ptr<ViewRuntime> cached_or_made(int32 view_id, bool check_size) {
    for (auto it = retired.begin(); it != retired.end();) {
        if (it->use_count() > 1) {
            ++it;
            continue;
        }
        free_plans(**it);
        it = retired.erase(it);
    }
    auto it = runtimes.find(view_id);
    if (it != runtimes.end()) {
        if (it->second->valid && !(check_size && outgrown(*it->second))) return it->second;
        retired.push_back(it->second);
        runtimes.erase(it);
    }
    std::optional<catalog::Entry> entry = catalog::find_by_id(view_id);
    if (!entry)
        throw Error(sqlstate::undefined_object,
                    "incrementally maintained view " + std::to_string(view_id) + " does not exist",
                    "A trigger of a dropped view was left behind.");
    auto view = std::make_shared<ViewRuntime>();
    view->entry = *entry;
    const Oid rec = entry->recursive_storage;
    std::vector<Oid> parts;
    for (int32 part : catalog::parts_of(view_id))
        if (std::optional<catalog::Entry> p = catalog::find_by_id(part)) parts.push_back(p->view);
    view->analyzed = analyze_view(entry->query_view, qualified_name(entry->storage),
                                  rec == InvalidOid ? std::string() : qualified_name(rec), rec, parts);
    counting::use_key_columns(view->analyzed.model, entry->key_columns);  // what the storage was made with
    const Oid storage = entry->storage;
    counting::use_storage_shape(view->analyzed.model, [storage](const std::string& column) {
        const char* name = column.c_str();
        return call([&] { return get_attnum(storage, name) != InvalidAttrNumber; });
    });
    view->owner = relation_owner(entry->storage);
    view->pages_planned_for = pages_read(*view);
    runtimes.emplace(view_id, view);
    return view;
}

}  // namespace

std::shared_ptr<ViewRuntime> runtime_for(int32 view_id) { return cached_or_made(view_id, true); }

std::shared_ptr<ViewRuntime> runtime_for_locks(int32 view_id) { return cached_or_made(view_id, false); }

std::shared_ptr<ViewRuntime> runtime_for_change(int32 view_id, uint64 rows) {
    bool check = true;
    if (auto it = runtimes.find(view_id); it != runtimes.end()) {
        ViewRuntime& cached = *it->second;
        cached.rows_since_sized += rows;
        check = ++cached.changes_since_sized >= size_check_changes || cached.rows_since_sized >= size_check_rows;
    }
    std::shared_ptr<ViewRuntime> view = cached_or_made(view_id, check);
    if (check) {
        view->rows_since_sized = 0;
        view->changes_since_sized = 0;
    }
    return view;
}

void invalidate_runtimes(Oid relid) {
    for (auto& [id, view] : runtimes)
        if (relid == InvalidOid || view->depends_on(relid)) view->valid = false;
}

void forget_runtime(int32 view_id) {
    auto it = runtimes.find(view_id);
    if (it == runtimes.end()) return;
    it->second->valid = false;
    retired.push_back(it->second);
    runtimes.erase(it);
}

}  // namespace ivm::pg
