// An outer join's ON may hold conditions with subqueries (EXISTS, IN, a
// scalar subquery) that read its nullable side alone:
//     c LEFT JOIN o ON o.cid = c.id AND o.amount > (SELECT avg(amount) FROM o2)
// Such a condition only decides which rows of that side take part, so it
// may filter the side first: a table there becomes
//     (SELECT <its columns> FROM o WHERE <those conditions>) o
// a subquery in FROM that becomes a part (view_parts.hpp), and the ON keeps
// the rest.  A condition with a subquery that reads the preserved side
// stays in the ON, refused later.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// Rewrites the outer joins of q's FROM so; false when there was nothing to
// move.
bool push_join_subqueries(Query* q);

}  // namespace ivm::pg
