// WITH RECURSIVE queries that ivm evaluates itself (core/program.hpp):
// from the raw parse tree, which PostgreSQL accepts for them although its
// analysis refuses them, to a program and back.
//
// PostgreSQL must still know the definition (to track the tables it reads,
// follow renames, dump it), so it is kept as a query PostgreSQL can
// analyze, its stand-in: every item becomes a WITH query over the storage
// of the items (`SELECT __ivm_<i>_<j> ... FROM storage WHERE __ivm_item =
// i`), every term of an item a WITH query "__ivm_rule_<i>_<n>" that nothing
// reads, and the outer query stays as written, reading the items.
#pragma once
#include "pg/analyze.hpp"
#include "pg/pg.hpp"

#include <string>

namespace ivm::pg {

// Whether the query is a WITH RECURSIVE for ivm's own evaluation: several
// items, a term reading its item more than once or other than through the
// joins of its FROM list, or one item the linear engine refuses (such as
// NOT EXISTS over a table).  Needs SPI.
bool is_program(const char* query);

// Creates the items' storage (`storage`, quoted and qualified) and returns
// the stand-in query.  Refuses with PostgreSQL's codes what PostgreSQL
// would refuse in a WITH query, and 0A000 what ivm cannot evaluate.
std::string make_program(const char* query, const std::string& storage);

// Whether the analyzed query is a stand-in; then describes the program in
// out.program (with out.recursive_base_oids) and leaves in q the outer
// query, reading the items from their storage.  Refuses (0A000) programs
// that are not stratifiable.
bool describe_program(Query* q, const std::string& storage, AnalyzedView& out);

}  // namespace ivm::pg
