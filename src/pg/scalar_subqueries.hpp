// Subqueries in expressions that the engine cannot take apart become
// subqueries in FROM, which then become parts (view_parts.hpp):
//  - a scalar subquery that aggregates, `x < (SELECT avg(y) FROM t WHERE
//    t.k = r.k)`, is joined: its query, grouped by the inner sides of its
//    equality correlations, is one more FROM item, joined on them, and its
//    place reads the item's value column.  Uncorrelated, the item has
//    exactly one row (an aggregate without GROUP BY), so a cross join
//    keeps every row, wherever the subquery stands.  Correlated, an outer
//    row whose keys have no inner rows finds no item row: an inner join
//    where the value over no rows is NULL and a NULL rejects the row
//    anyway (a strict comparison in WHERE), else a LEFT JOIN with that
//    value (count's 0) standing in.
//  - an IN/EXISTS subquery that aggregates or is a set operation, and reads
//    nothing of the outer query, reads it as a subquery in FROM instead.
// The queries of IN/EXISTS subqueries are rewritten the same way.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// Rewrites q (and the queries of its WHERE's subqueries); false when there
// was nothing to rewrite.  Refuses (0A000) a scalar subquery it cannot join.
bool join_subqueries(Query* q);
// Its first step: the LATERAL subqueries of q's FROM that keep their first
// rows (ORDER BY ... LIMIT), under inner joins or on the right of a LEFT
// JOIN, and the select-project-join ones there, joined on their
// correlations (a subquery in FROM, numbered in a window part where it
// keeps some rows).  Runs inside call().
bool lateral_rows_decorrelated(Query* q);
// q's LATERAL subqueries as join_subqueries will leave them (decorrelated,
// or joined as scalar subqueries are: no longer LATERAL), for judging the
// rest (a copy: the joins are not made whole).  Runs inside call().
void lateral_subqueries_as_joined(Query* q);
// LATERAL subqueries, at any depth of q, that read nothing of the queries
// around them are subqueries like any other (LATERAL written where it is
// not needed): no longer LATERAL.
void plain_uncorrelated_laterals(Query* q);

}  // namespace ivm::pg
