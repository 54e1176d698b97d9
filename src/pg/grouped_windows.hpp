// Window functions over an aggregating query are computed over its groups:
// the aggregation becomes a subquery in FROM (which then becomes a part,
// view_parts.hpp) and the windows read its rows, a view kept by window
// partitions like any other.
//   SELECT a, sum(b) AS s, rank() OVER (ORDER BY sum(b)) FROM t GROUP BY a
// becomes
//   SELECT g.w_1 AS a, g.w_2 AS s, rank() OVER (ORDER BY g.w_3)
//   FROM (SELECT a AS w_1, sum(b) AS w_2, sum(b) AS w_3 FROM t GROUP BY a) g
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// Rewrites q so; false when it has no window function over aggregation
// (or is DISTINCT as well: DISTINCT comes after the windows, left as it is).
bool split_grouped_windows(Query* q);

}  // namespace ivm::pg
