// Subqueries in FROM that aggregate, are DISTINCT or are set operations
// cannot be expanded into the query as select-project-join ones are.  Each
// becomes an incrementally maintained view of its own, a part of the view
// (ivm.views.part_of), and the query reads that view: views over views are
// maintained already, the part from its base tables' changes, the view
// from its part's storage.
#pragma once
#include "pg/pg.hpp"

#include <string>
#include <vector>

namespace ivm::pg {

struct PartNeeded {
    RangeTblEntry* rte;  // the subquery's entry in the query's range table
    std::string query;   // the subquery as SQL
};

// The subqueries of q's FROM tree that need a part.
std::vector<PartNeeded> parts_needed(Query* q);

// Makes the entry read the part's view instead of the subquery.
void read_part(RangeTblEntry* rte, Oid part_view);

}  // namespace ivm::pg
