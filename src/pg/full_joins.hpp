// FULL JOIN as the union of two queries the counting engine maintains:
//   a FULL JOIN b ON c  =  a LEFT JOIN b ON c
//                          UNION ALL  b WHERE NOT EXISTS (a WHERE c), a's columns NULL
// (the second keeps the rest of the query: its other joins, WHERE and
// select list, with a's columns read as NULLs).
#pragma once
#include "pg/pg.hpp"

#include <vector>

namespace ivm::pg {

// The blocks q stands for: q itself, or for each FULL JOIN in it the two
// halves above (both sides of a FULL JOIN must be single relations).
std::vector<Query*> split_full_joins(Query* q);

}  // namespace ivm::pg
