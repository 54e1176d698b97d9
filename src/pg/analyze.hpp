// From a view's Query tree to the engine's model: refuse what cannot be
// maintained (0A000 naming the construct), then describe the rest.
#pragma once
#include "core/view_model.hpp"
#include "pg/pg.hpp"

#include <string>
#include <vector>

namespace ivm::pg {

struct AnalyzedView {
    CountingView model;
    std::vector<Oid> base_oids;  // parallel to model.bases
    bool ignored_order_by = false;
};

// Parses and analyzes the user's query as PostgreSQL would (42601, 42P01,
// ... reported against the query text); it must be exactly one SELECT.
Query* validate_query(const char* query_text);

// Refuses what cannot be maintained, and describes the rest.
AnalyzedView analyze_query(Query* query, const std::string& storage);
// The same for the defining query stored in the plain view query_view.
AnalyzedView analyze_view(Oid query_view, const std::string& storage);

// "schema"."name" for a relation, quoted.
std::string qualified_name(Oid relid);

}  // namespace ivm::pg
