// Values that a nondeterministic collation makes equal ('abc' and 'ABC'
// under a case-insensitive one) still differ in their bytes.  ivm tells a
// view's stored tuples apart by their bytes where such a collation compares
// them (Column::image), so each row shows its own value.  Where the query
// itself merges equal values into one (GROUP BY, DISTINCT, set operations
// other than UNION ALL, window partitions, min/max and other aggregates that
// compare their input), PostgreSQL shows whichever of them it meets first,
// and a maintained view would go on showing one that is gone: refused.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// Whether the collation compares some different strings as equal.
bool nondeterministic_collation(Oid collation);

// 0A000 where q, its subqueries or its WITH queries merge values under a
// nondeterministic collation.
void refuse_merging_by_nondeterministic_collation(Query* q);

}  // namespace ivm::pg
