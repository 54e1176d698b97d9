// The columns of the maintained views a query reads that are never NULL.
// PostgreSQL's catalogs cannot say it of a view, so read_column_not_null
// (keys.hpp) asks the scope an analysis opens here: `x IN (SELECT y FROM
// a maintained view)` then filters a change by IN itself, which the
// planner starts from the changed rows, instead of by `IS NOT FALSE`, which
// it can only evaluate for every outer row.
#pragma once
#include "pg/pg.hpp"

#include <map>
#include <vector>

namespace ivm::pg {

class ViewsNotNull {
  public:
    // The maintained views `q` reads anywhere (subqueries too), each
    // described by its runtime (loaded as needed; needs SPI).  `relied_on`
    // gains the relations whose NOT NULL the answers rest on: the views'
    // base tables, as far down as they go.
    ViewsNotNull(Query* q, std::vector<Oid>& relied_on);
    ~ViewsNotNull();
    ViewsNotNull(const ViewsNotNull&) = delete;
    ViewsNotNull& operator=(const ViewsNotNull&) = delete;

  private:
    std::map<Oid, std::vector<bool>> columns_;  // by view: attno - 1
    const ViewsNotNull* enclosing_;
    friend bool view_column_not_null(Oid view, AttrNumber attno);
};

// Whether column `attno` of view `view` is a maintained view's column that
// is never NULL, as the innermost open ViewsNotNull says (none: false).
// Plain lookups: fine inside call().
bool view_column_not_null(Oid view, AttrNumber attno);

}  // namespace ivm::pg
