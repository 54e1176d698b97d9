#include "pg/views_not_null.hpp"

#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/maintain.hpp"

#include <algorithm>

namespace ivm::pg {
namespace {

const ViewsNotNull* innermost = nullptr;

// Collects the views among the relations a query tree reads (into a List of
// oids, `raw`).  Inside call().
bool collect_views(Node* node, void* raw) {
    if (node == nullptr) return false;
    if (IsA(node, RangeTblEntry)) {
        const auto* rte = reinterpret_cast<const RangeTblEntry*>(node);
        if (rte->rtekind == RTE_RELATION && get_rel_relkind(rte->relid) == RELKIND_VIEW) {
            auto** views = static_cast<List**>(raw);
            *views = list_append_unique_oid(*views, rte->relid);
        }
        return false;
    }
    if (IsA(node, Query))
        return query_tree_walker(reinterpret_cast<Query*>(node), reinterpret_cast<bool (*)()>(collect_views), raw,
                                 QTW_EXAMINE_RTES_BEFORE);
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(collect_views), raw);
}

std::vector<Oid> views_read(Query* q) {
    List* views = call([&] {
        List* found = NIL;
        collect_views(reinterpret_cast<Node*>(q), &found);
        return found;
    });
    std::vector<Oid> out;
    ListCell* lc;
    foreach (lc, views) out.push_back(lfirst_oid(lc));
    return out;
}

int attribute_count(Oid relid) {
    return call([&] {
        Relation rel = relation_open(relid, AccessShareLock);
        const int n = RelationGetNumberOfAttributes(rel);
        relation_close(rel, AccessShareLock);
        return n;
    });
}

}  // namespace

ViewsNotNull::ViewsNotNull(Query* q, std::vector<Oid>& relied_on) : enclosing_(innermost) {
    for (Oid view : views_read(q)) {
        const std::optional<catalog::Entry> entry = catalog::find_by_view(view);
        if (!entry) continue;  // a plain view
        std::shared_ptr<ViewRuntime> inner = runtime_for(entry->view_id);
        const AnalyzedView& a = inner->analyzed;
        // The view shows its model's columns in order (views.cpp).
        if (attribute_count(view) != static_cast<int>(a.model.columns.size())) continue;
        std::vector<bool>& columns = columns_[view];
        for (const Column& c : a.model.columns) columns.push_back(c.not_null);
        // (a redefinition replaces the view's query view)
        const std::vector<Oid> own{entry->view, entry->query_view};
        for (const std::vector<Oid>* from : {&own, &a.base_oids, &a.recursive_base_oids, &a.not_null_from})
            for (Oid relid : *from)
                if (std::find(relied_on.begin(), relied_on.end(), relid) == relied_on.end()) relied_on.push_back(relid);
    }
    innermost = this;
}

ViewsNotNull::~ViewsNotNull() { innermost = enclosing_; }

bool view_column_not_null(Oid view, AttrNumber attno) {
    if (innermost == nullptr || attno <= 0) return false;
    auto it = innermost->columns_.find(view);
    if (it == innermost->columns_.end() || static_cast<std::size_t>(attno) > it->second.size()) return false;
    return it->second[static_cast<std::size_t>(attno - 1)];
}

}  // namespace ivm::pg
