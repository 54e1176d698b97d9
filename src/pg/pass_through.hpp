// The columns a linear recursive rule passes through: head column i is the
// recursive reference's column i itself, read nowhere else in the rule (no
// join, filter or other output uses it).  Along a chain of such a rule
// those columns never change and never steer a step, which lets a
// deletion's reach be found without them (dred::deletions_factor).
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// For each of `rule`'s output columns in order (palloc'd), whether it
// passes through from the range table entry `recursive` (the recursive
// reference).  Raw PostgreSQL calls: run it inside call().
bool* pass_through_columns(Query* rule, int recursive);

}  // namespace ivm::pg
