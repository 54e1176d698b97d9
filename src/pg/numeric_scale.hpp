// The display scale of a numeric expression's values, where its types and
// operators fix it.
#pragma once
#include "pg/pg.hpp"

#include <optional>

namespace ivm::pg {

// The scale every finite value of numeric expression `expr` has, where it
// is fixed, and then no value of it is infinite: a column of type
// numeric(p, s) holds only values of scale s (PostgreSQL rounds each to
// its typmod and refuses infinities there), an integer made numeric has
// scale 0, a constant its own, a sum or difference its operands' larger
// scale, a product the sum of theirs (numeric.c: add_var, mul_var).  None
// for any other expression.  A sum kept from partial state then needs no
// largest scale of its values kept, nor its infinities counted.
std::optional<int> fixed_numeric_scale(const Node* expr);

}  // namespace ivm::pg
