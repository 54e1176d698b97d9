// Filling a new storage in one pass, as CREATE TABLE AS writes its table.
#pragma once
#include "pg/pg.hpp"

#include <optional>
#include <string>

namespace ivm::pg {

struct BulkFill {
    uint64 rows = 0;     // rows written
    int64 counted = 0;   // the sum of their column `counted`
};

// Runs `query` and writes its rows straight into `table` (an empty table
// made in this transaction, without indexes, whose columns other than its
// stored generated ones the query's match in order, name and type): in
// batches of rows, as COPY writes them, through a bulk-insert buffer ring
// and without free-space map lookups, instead of INSERT's per-row path.
// Generated columns are computed and NOT NULL columns checked as INSERT
// does; the table's triggers do not fire.  Sums the bigint column
// `counted` of the rows written (none: nullptr).  None, and nothing
// written, where the table or the query's columns do not qualify.
std::optional<BulkFill> bulk_fill(Oid table, const std::string& query, const char* counted);

// Runs `query` through SPI (so that it may read the transition rows SPI
// knows) and writes its rows into `table`, a table in use, as bulk_fill
// writes them, with each batch's index entries made after it: the rows
// written.  None, and nothing written, where the query's columns do not
// match or an INSERT would do more (a trigger on inserts other than ivm's
// guard, a CHECK constraint, a unique or exclusion index).
std::optional<uint64> bulk_insert(Oid table, const std::string& query);

}  // namespace ivm::pg
