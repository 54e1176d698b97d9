// GROUP BY GROUPING SETS, ROLLUP and CUBE, as the UNION ALL of one grouped
// query per grouping set, which is what they mean: each arm groups by its
// set's keys, shows the other keys as NULL and GROUPING() as the constant
// it has there.
//   SELECT a, b, sum(x), GROUPING(a, b) FROM t GROUP BY ROLLUP (a, b)
// becomes
//   (SELECT a, b, sum(x), 0 FROM t GROUP BY a, b) UNION ALL
//   (SELECT a, NULL::int, sum(x), 1 FROM t GROUP BY a) UNION ALL
//   (SELECT NULL::int, NULL::int, sum(x), 3 FROM t)
// whose aggregating arms then become parts (view_parts.hpp), each kept from
// partial state like any other aggregation.
#pragma once
#include "pg/pg.hpp"

#include <optional>
#include <string>

namespace ivm::pg {

// q's text so rewritten; nothing where q has no grouping sets, or where
// DISTINCT reads them (window_steps.hpp's split_distinct makes the query
// under it a part, rewritten in turn).  Refused (0A000): window functions
// or DISTINCT ON over them (which read every set's rows at once), LIMIT, a
// correlated subquery in the select list or HAVING, more than 64 sets.
std::optional<std::string> grouping_sets_as_union(Query* q);

}  // namespace ivm::pg
