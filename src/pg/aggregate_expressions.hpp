// An output column of an aggregate view that is an expression over its
// aggregates and group keys (`0.5 * sum(x)`, `sum(a) / sum(b)`): the
// expression's SQL text with a hole for each aggregate and key it reads,
// so that the engine can fill the holes with the values a group's partial
// state gives (view_model.hpp, CountingView::Partial::Kind::Expression).
#pragma once
#include "core/view_model.hpp"
#include "pg/pg.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ivm::pg {

struct ExpressionOverAggregates {
    std::vector<std::string> pieces;  // the text around the holes: one more than holes
    // Hole i reads group key keys[index] (key) or aggregates[index].
    std::vector<CountingView::Partial::Read> holes;
    std::vector<Aggref*> aggregates;  // one per hole that reads an aggregate (equal ones repeat)
};

// Nothing where expr reads anything else (a column outside an aggregate
// and the keys, a subquery, a window, a volatile function) or where its
// text would not split cleanly.
std::optional<ExpressionOverAggregates> split_over_aggregates(Expr* expr, const std::vector<Expr*>& keys);

}  // namespace ivm::pg
