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

}  // namespace ivm::pg
