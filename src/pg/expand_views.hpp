// Plain PostgreSQL views, subqueries in FROM and WITH queries read by a
// view's query are expanded into it, as the rewriter and the planner's
// pull-up would, so that maintenance works on their base tables.
#pragma once
#include "pg/pg.hpp"

#include <vector>

namespace ivm::pg {

// Replaces every plain (not ivm) view, subquery and WITH query in the FROM
// tree of a select-project-join query by its own FROM items and WHERE
// condition, and the references to its columns by its output expressions;
// they must themselves be select-project-join queries (0A000 otherwise).
// When there is one to expand, the query's inner joins are flattened into
// one list with the join conditions in WHERE.  Returns the plain views
// expanded (nested ones too).  Modifies q.
std::vector<Oid> expand_plain_views(Query* q);

// A view's query (a copy).  Raw PostgreSQL calls: run it inside call().
Query* copy_view_query(Oid relid);

// A view's query (a copy), locked as the rewriter locks what it reads.
Query* view_query(Oid relid);

// A plain view whose query cannot be expanded into the query reading it
// (it aggregates, is DISTINCT or a set operation, has an outer join or
// subqueries in expressions, or reads such a view) is read through a part
// of its own, whose definition shows the view and nothing else (`SELECT *
// FROM v`): the part's query view reads the view, so that the view cannot
// be dropped from under it and its redefinition is followed, and the part
// is analyzed as the view's own query.
//
// The view's query, if the entry reads such a view (or a
// select-project-join view over one), or null.
Query* separate_view_query(const RangeTblEntry* rte);
// Whether q's FROM (or that of a subquery in it) reads such a view.
bool reads_separate_view(const Query* q);
// The same for any plain view that is not recursive (one among outer
// joins is read through a part too: it is expanded only among inner joins).
Query* plain_view_query(const RangeTblEntry* rte);
// The plain view whose every column q shows, in order, and nothing else
// (or the first of them, where the others can be left out); or InvalidOid.
Oid shown_plain_view(const Query* q);
// The same, if it is a view of that kind.
Oid shown_view(const Query* q);
// Its query, its columns named as q names them.
Query* shown_view_query(const Query* q, Oid view);

// An entry taken out of the FROM tree stays in the range table (range
// table indexes must not move) as an empty RTE_RESULT, which the deparser
// passes over instead of looking for its inputs.  Palloc's: call it under
// pg::call.
void leave_out_of_from(RangeTblEntry* rte);

// References to a join's columns (merged USING columns too) become
// references to its inputs' columns, in the select list, the join tree
// and HAVING.  The join tree is a new copy.  Palloc's: under pg::call.
void flatten_join_columns(Query* q);

}  // namespace ivm::pg
