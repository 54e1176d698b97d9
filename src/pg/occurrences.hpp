// The relation occurrences of one query block, and where each sits: in the
// FROM list (inner joins and the preserved side of outer joins), on the
// nullable side of an outer join, or inside a subquery of WHERE (EXISTS,
// IN, NOT IN, op ANY/ALL).  They are found in one fixed order (the FROM
// tree, then the subqueries of WHERE, depth first), so the same walk over a
// copy of the query finds the copies in the same order.
#pragma once
#include "core/view_model.hpp"
#include "pg/pg.hpp"

#include <optional>
#include <vector>

namespace ivm::pg {

// One subquery on the way from the block down to a nested occurrence: the
// SubLink sits in conjunct `conjunct` of the WHERE of `owner`.
struct SubqueryStep {
    Query* owner = nullptr;
    int conjunct = 0;
    SubLink* link = nullptr;
    bool never_unknown = false;  // x op ANY/ALL (...) that cannot be NULL (occurrences.cpp)
};

struct Occurrence {
    Query* owner = nullptr;  // the query whose range table holds it
    int rtindex = 0;
    Source::Role role = Source::Role::Linear;
    JoinExpr* join = nullptr;         // Nullable: its outer join
    std::vector<SubqueryStep> path;   // Nested: the subqueries, outermost first
};

// Finds the occurrences of q, refusing (0A000) what the engine cannot
// maintain.  A reference to the WITH query `recursive_cte` counts as an
// occurrence; with `linear_only`, outer joins and subqueries are refused
// (the rules of a recursive relation must be select-project-join).
std::vector<Occurrence> find_occurrences(Query* q, const char* recursive_cte, bool linear_only);

// An immutable function or a VALUES list of constants in FROM (not
// LATERAL, reading no column): rows that no change alters, which stay in
// the templates as they are and are no occurrence.
bool constant_relation(const RangeTblEntry* rte);
// Also an immutable function of q's FROM reading columns of the items
// beside it (`FROM t, unnest(t.tags) tag`), where q has no outer join:
// rows computed from each row of those items, which stay in the templates
// as they are too, applied to whatever rows of them a term reads.
bool computed_relation(const Query* q, const RangeTblEntry* rte);
// Whether a join tree has an outer join anywhere.
bool has_outer_join(Node* node);
// Whether a LATERAL subquery, at any level of q, sits beside an outer join
// (whose relations a part may replace).  (One over the columns of a
// subquery, a view or a WITH query has its references expanded with the
// item, as a function in FROM has its arguments: expand_views.cpp.)
bool lateral_beside_outer_join(Query* q);
// Whether a function in FROM or a LATERAL subquery reads the columns of a
// LATERAL subquery (one that aggregates is joined as a scalar subquery is,
// which leaves their references behind).
bool over_lateral_columns(Query* q);

// EXISTS subqueries of q, at any depth, that only filter (no aggregate,
// grouping, DISTINCT, window, LIMIT, set operation, set-returning or
// volatile function) select the constant 1 instead of their select list,
// which decides nothing: the columns it named are not read (an UPDATE of
// them maintains nothing, a deferred view's log leaves them out; TPC-H's
// `EXISTS (SELECT * FROM lineitem ...)` read every column of lineitem).
void select_nothing_in_exists(Query* q);

// The conjuncts of a condition (one, unless it is an AND), a new list.
List* conjuncts_of(Node* quals);

// Adds to the WHERE of q (the query the occurrence was found in) a
// condition that holds for every row whose derivations a change of the
// non-linear occurrence can alter.  The changed rows (inserted and deleted
// ones) are read from the WITH query named `changed`.
void add_change_filter(Query* q, const Occurrence& occurrence, const char* changed);

// EXISTS (SELECT 1 FROM <relation rtindex of q> WHERE quals): the
// relation's columns in quals now read the subquery's, the others are
// outer references.  With `renamed`, the relation (a CTE reference) is
// read under that name instead.
SubLink* exists_matching(Query* q, int rtindex, Node* quals, const char* renamed);
// SELECT <no columns yet> FROM rte WHERE qual, qual reading rte as entry
// 1 of the query.  Runs inside call().
Query* select_over(RangeTblEntry* rte, Node* qual);
// EXISTS (SELECT 1 FROM rte WHERE qual), qual reading rte as entry 1 of
// the subquery.  Runs inside call().
SubLink* exists_over(RangeTblEntry* rte, Node* qual);
// (SELECT value FROM rte WHERE qual), value and qual reading rte as entry
// 1 of the subquery.  Runs inside call().
SubLink* value_over(RangeTblEntry* rte, Node* qual, Expr* value);

// Refuses (0A000) what may not be a base relation: FROM items other than
// tables and ivm views, views, materialized views, foreign and temporary
// tables, FROM ONLY over a parent.
void check_relation(RangeTblEntry* rte);

// The columns of the occurrence's relation that the query uses.
std::vector<AttrNumber> used_columns(const Occurrence& occurrence);
// The same, or none where the query also reads its whole row or a system
// column (or a join's whole row): every column counts as read.
std::optional<std::vector<AttrNumber>> columns_read(const Occurrence& occurrence);

}  // namespace ivm::pg
