// A change that replaces one row of a relation by another (a scalar
// subquery's value moving, a threshold updated) reaches every row the
// relation is joined to: each is derived once with the old row (counted -1)
// and once with the new one (+1).  Where the relation is read by WHERE's
// conditions alone, the two derivations of a row show the same tuple and
// cancel, unless the conditions hold for one row and not for the other:
//   SELECT c.id FROM customer c, (SELECT avg(bal) AS v FROM customer) s WHERE c.bal > s.v
// changes only for the customers between the old average and the new.  The
// delta term of such a relation gets that as a filter on the other
// relations' rows, which the planner applies before it joins them.
#pragma once
#include "pg/occurrences.hpp"

namespace ivm::pg {

// Adds to q's WHERE, for occurrence o (in q's FROM list, read as the WITH
// query `placeholder` whose last column is the count __ivm_cnt):
//   (SELECT __ivm_ok FROM __ivm_pair) IS NOT TRUE
//   OR (<o's conditions over the old row>) IS TRUE <> (<over the new row>) IS TRUE
// where __ivm_pair (counting::term_query) says whether the change is one
// row counted -m and one +m.  False, q unchanged, where something besides
// WHERE's conditions reads o, or they cannot be so evaluated.
bool add_crossing_filter(Query* q, const Occurrence& o);

}  // namespace ivm::pg
