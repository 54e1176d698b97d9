// From a view's Query tree to the engine's model: refuse what cannot be
// maintained (0A000 naming the construct), then describe the rest.
#pragma once
#include "core/dred.hpp"
#include "core/view_model.hpp"
#include "pg/pg.hpp"
#include "pg/relations.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ivm::pg {

// A view: the counting model of its (outer) query, and for a WITH
// RECURSIVE view the recursive relation, which the outer query reads as
// the base table holding it.
struct AnalyzedView {
    CountingView model;
    std::vector<Oid> base_oids;  // parallel to model.bases
    bool ignored_order_by = false;
    std::optional<RecursiveRelation> recursive;
    std::vector<Oid> recursive_base_oids;  // parallel to recursive->bases
    std::vector<Oid> expanded_views;  // plain views expanded into the query
};

// Parses and analyzes the user's query as PostgreSQL would (42601, 42P01,
// ... reported against the query text); it must be exactly one SELECT.
Query* validate_query(const char* query_text);

// The query as SQL text with every object schema-qualified.
std::string query_text(Query* q);

// Refuses what cannot be maintained, and describes the rest.  The
// recursive relation, if any, is stored in recursive_storage.
AnalyzedView analyze_query(Query* query, const std::string& storage, const std::string& recursive_storage,
                           Oid recursive_storage_oid);
// The same for the defining query stored in the plain view query_view.
AnalyzedView analyze_view(Oid query_view, const std::string& storage, const std::string& recursive_storage,
                          Oid recursive_storage_oid);


}  // namespace ivm::pg
