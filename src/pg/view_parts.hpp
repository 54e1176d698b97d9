// Subqueries in FROM and WITH queries that aggregate, are DISTINCT or are
// set operations cannot be expanded into the query as select-project-join
// ones are.  Each
// becomes an incrementally maintained view of its own, a part of the view
// (ivm.views.part_of), and the query reads that view: views over views are
// maintained already, the part from its base tables' changes, the view
// from its part's storage.
#pragma once
#include "pg/pg.hpp"

#include <string>
#include <vector>

namespace ivm::pg {

struct PartNeeded {
    std::vector<RangeTblEntry*> rtes;  // the entries in the query's range table that read it
    std::string query;                 // the subquery or WITH query as SQL
    std::string with_name;             // a WITH query's name, or empty
    std::string view;                  // a plain view's qualified name, or empty
};

// Join trees the engine cannot take apart (the nullable side of an outer
// join or a side of a FULL JOIN that is itself a join, a FULL JOIN under
// aggregation) become subqueries of q, which then get parts.  Modifies q;
// false when there was none.
bool wrap_join_trees(Query* q);

// The subqueries and WITH queries of q's FROM tree (of each arm's, for a
// set operation), and the subqueries in FROM of its WHERE's subqueries,
// that need a part (each reference to such a
// WITH query, at any depth, reads the part).
std::vector<PartNeeded> parts_needed(Query* q);

// q has become a subquery of the query that held it, without WITH queries
// of its own: its references to that query's WITH queries (and those
// above) reach one level further up.  Runs inside call().
void raise_with_references(Query* q);

// `expr`, computed by the subquery that becomes q's only FROM item and
// read as its column: the output of `outputs` (TargetEntry) equal to it,
// else a new one named <prefix>_<n>.  Runs inside call().
Var* read_output(List** outputs, Node* expr, const char* prefix);

// An aggregate call of function `fn` as parse analysis makes one, without
// arguments yet; count(*).  Run inside call().
Aggref* new_aggregate(Oid fn, Oid type, Oid collation);
Aggref* count_star();

// A new output column of q, after its outputs and before its junk entries
// (renumbered after it: an output's resno is its column).  Runs inside
// call().
TargetEntry* add_output(Query* q, Expr* expr, const char* name);
// A sort/group reference no target entry of `targets` has yet.
Index next_sort_group_ref(const List* targets);

// q reads `sub` (named `alias`, its columns `names`) as its only FROM
// item, with no condition: how a query moves into FROM to get a part.
// Runs inside call().
void read_from_only(Query* q, Query* sub, const char* alias, List* names);
// A range table entry reading `sub` as FROM item `alias` with columns
// `names` (palloc's: under pg::call).
RangeTblEntry* subquery_entry(Query* sub, const char* alias, List* names);

// Makes the entries read the part's view instead; a WITH query no longer
// read goes.
void read_part(Query* q, const PartNeeded& part, Oid part_view);

// A part shows a plain view (expand_views.hpp): its entries, at any depth
// of q, read the part among `parts` (views) that shows it instead.
void read_views_through_parts(Query* q, const std::vector<Oid>& parts);

// The joins of the tree at `node` describe their columns afresh: their
// inputs' columns, left then right (after an input changed; a USING join
// keeps its condition in ON, which the parser put there too).  Runs
// inside call().
void describe_joins(Query* q, Node* node);

// Whether a subquery reads columns of the queries around it (is
// correlated), or their columns or WITH queries, or their WITH queries; an expression of a query,
// columns of the queries around that query.
bool reads_outer_columns(Query* sub);
bool reads_outer_query(Query* sub);
bool reads_outer_with(Query* sub);
bool expression_reads_outer(Node* expr);

// A condition `inner = outer` (either way round) with a btree equality,
// the inner side reading the subquery's own columns, the outer side its
// outer query's (one level up).  Runs inside call().
bool correlation(Node* conjunct, Node** inner, Node** outer, bool* inner_left);

}  // namespace ivm::pg
