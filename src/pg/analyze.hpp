// From a view's Query tree to the engine's model: refuse what cannot be
// maintained (0A000 naming the construct), then describe the rest.
#pragma once
#include "core/dred.hpp"
#include "core/program.hpp"
#include "core/view_model.hpp"
#include "pg/pg.hpp"
#include "pg/relations.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ivm::pg {

// A view: the counting model of its (outer) query, and for a WITH
// RECURSIVE view the recursive relation, which the outer query reads as
// the base table holding it.
struct AnalyzedView {
    CountingView model;
    std::vector<Oid> base_oids;  // parallel to model.bases
    // Per base: the columns its occurrences as a table read (read by a
    // subquery or on an outer join's nullable side, with the unique key its
    // rows are told apart by); a 0 among them: every column (a whole-row
    // reference, a view's storage).
    std::vector<std::vector<AttrNumber>> columns_read;
    bool ignored_order_by = false;
    std::optional<RecursiveRelation> recursive;
    std::vector<Oid> recursive_base_oids;  // parallel to recursive->bases, or program->bases
    // A WITH RECURSIVE that ivm evaluates itself (program.hpp); the outer
    // query reads its storage as a base table.
    std::optional<Program> program;
    bool recursion() const { return recursive.has_value() || program.has_value(); }
    std::vector<Oid> expanded_views;  // plain views expanded into the query
    // Tables whose NOT NULL columns the analysis relied on through the
    // maintained views the query reads (views_not_null.hpp).
    std::vector<Oid> not_null_from;
};

// Parses and analyzes the user's query as PostgreSQL would (42601, 42P01,
// ... reported against the query text); it must be exactly one SELECT.
// An expression's type, typmod and collation (exprType and its kin, which
// raise an error for a node they do not know: through the guard).
struct ExprTyping {
    Oid type = InvalidOid;
    int32 typmod = -1;
    Oid collation = InvalidOid;
};
ExprTyping typing_of(const Node* expr);

// The user's query text parsed (raw_parser), or its syntax error shown at
// its position in the query.
List* parse_raw(const char* query_text);
// A definition parsed and analyzed as PostgreSQL would, with ivm's first
// refusals.  `written` false: a query ivm wrote from a definition checked
// before (a part's, or the definition rewritten to read its parts), whose
// merging of values under a nondeterministic collation ivm made itself and
// then only joins by equality (a correlated subquery grouped by the values
// it is compared with), so is not refused.
Query* validate_query(const char* query_text, bool written = true);

// The query as SQL text with every object schema-qualified.
std::string query_text(Query* q);

// Parse analysis of a raw SELECT whose nodes point into `text`, errors
// reported against it.
Query* analyze_statement(Node* select, const char* text);
// A user's output column (0A000 without an equality operator, 42701 for
// a name ivm reserves).
Column describe_column(const char* name, Oid type, int32 typmod, Oid collation);
// Whether an aggregate view keeps `agg` from partial state (count, sum,
// avg over integers and numeric, min, max; no DISTINCT, FILTER or ORDER BY).
bool kept_from_partial_state(Aggref* agg);
// Refuses the clauses and expressions no term may have (0A000).
void check_term(Query* q);
// Turns a range table entry into a reference to the CTE `name` (levelsup
// queries up) with the same columns; runs inside call().
void read_as_placeholder(RangeTblEntry* rte, char* name, Index levelsup);

// Refuses what cannot be maintained, and describes the rest.  The
// recursive relation, if any, is stored in recursive_storage.  `parts`:
// the view's parts (their views), which a query that shows a plain view
// reads in place of the views they show (expand_views.hpp).
AnalyzedView analyze_query(Query* query, const std::string& storage, const std::string& recursive_storage,
                           Oid recursive_storage_oid, const std::vector<Oid>& parts = {});
// The same for the defining query stored in the plain view query_view.
AnalyzedView analyze_view(Oid query_view, const std::string& storage, const std::string& recursive_storage,
                          Oid recursive_storage_oid, const std::vector<Oid>& parts = {});


}  // namespace ivm::pg
