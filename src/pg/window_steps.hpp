// A query computes its window functions after its aggregation and before
// its DISTINCT; ivm keeps each step a query of its own, the earlier one a
// subquery in FROM (which then becomes a part, view_parts.hpp), so that
// window functions are only ever computed over a select-project-join query,
// a view kept by window partitions like any other.
//   SELECT a, sum(b) AS s, rank() OVER (ORDER BY sum(b)) FROM t GROUP BY a
// becomes
//   SELECT g.w_1 AS a, g.w_2 AS s, rank() OVER (ORDER BY g.w_2)
//   FROM (SELECT a AS w_1, sum(b) AS w_2 FROM t GROUP BY a) g
// and
//   SELECT DISTINCT a, count(*) OVER (PARTITION BY a) FROM t
// becomes
//   SELECT DISTINCT w.a, w.count FROM (SELECT a, count(*) OVER (PARTITION BY a) FROM t) w
// (and so DISTINCT over an aggregation: SELECT DISTINCT count(*) FROM t GROUP BY a)
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// Rewrites q so; false when there was nothing to rewrite.
bool split_window_steps(Query* q);

// HAVING is a step too: over aggregates kept from partial state,
//   SELECT a, sum(b) AS s FROM t GROUP BY a HAVING count(*) > 1
// becomes
//   SELECT g.w_1 AS a, g.w_2 AS s FROM (SELECT a AS w_1, sum(b) AS w_2,
//   count(*) > 1 AS w_3 FROM t GROUP BY a) g WHERE g.w_3
// so that a change updates its group's state, where HAVING alone made the
// view recompute the groups a change touched from their rows.
bool split_having_step(Query* q);

// A condition of HAVING that reads no aggregate holds for all the rows of
// a group alike (it reads their group keys): in WHERE it keeps the same
// groups.  Those with subqueries go there (where EXISTS, IN and the others
// are maintained), as PostgreSQL's planner moves such conditions:
//   SELECT a, count(*) FROM t GROUP BY a HAVING a IN (SELECT k FROM s)
// becomes
//   SELECT a, count(*) FROM t WHERE a IN (SELECT k FROM s) GROUP BY a
// Not without GROUP BY (HAVING false has no row where WHERE false has
// the aggregates of none).  false when nothing moved.
bool having_conditions_to_where(Query* q);

// q keeps the rows numbered `first` to `last` (from 1) in each partition
// by `partition` (SortGroupClauses of its target list) in the order of
// `order` (the same), then of its other output columns (which make the
// choice among rows tied in `order` one, where PostgreSQL takes any;
// `last` INT64_MAX: to the end):
//   SELECT <its columns> FROM (<q, without ORDER BY, LIMIT, DISTINCT>,
//   row_number() OVER (PARTITION BY .. ORDER BY ..)) first
//   WHERE row_number BETWEEN first AND last
// DISTINCT ON is the first row of its groups; a LATERAL subquery with
// ORDER BY and LIMIT, correlated, the first rows of each correlation's.
void keep_first_rows(Query* q, List* partition, List* order, int64 first, int64 last);
}  // namespace ivm::pg
