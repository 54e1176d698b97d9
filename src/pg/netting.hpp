// Netting a base table's changes that several statements made: a trigger
// that writes the table its statement wrote hands over the rows its own
// statement changed, and a row that statement updated again is inserted by
// one and deleted by the other, though it was never there before nor after.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

struct NetRows {
    Tuplestorestate* inserted = nullptr;
    Tuplestorestate* deleted = nullptr;
};

// The rows of `inserted` less one for each identical row of `deleted`, and
// the other way round (multisets of rows of `relid`'s row type; either store
// may be null), as two new tuplestores made in `memory`.  Needs SPI.
NetRows net_rows(Oid relid, Tuplestorestate* inserted, Tuplestorestate* deleted, MemoryContext memory);

// The rows of `sql` (a composite value of a table's row type, its copies:
// a bigint, inserted where above 0, deleted where below) in two new
// tuplestores made in `memory`, each as many times as its copies, as rows
// of that table (a composite value is laid out as the table's rows are,
// dropped columns included).  Run with the settings that make row texts
// exact (the query may net by them).  Raw PostgreSQL calls: run it inside
// call().
NetRows netted_rows(const char* sql, MemoryContext memory);

}  // namespace ivm::pg
