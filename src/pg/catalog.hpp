// The ivm.view_catalog table: one row per view.
#pragma once
#include "pg/pg.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ivm::pg::catalog {

struct Entry {
    int32 view_id = 0;
    Oid view = InvalidOid;        // the user-facing view
    Oid storage = InvalidOid;     // the table with tuples and counts
    Oid query_view = InvalidOid;  // the defining query, as a plain view
    Oid recursive_storage = InvalidOid;  // DRed views: the recursive relation
    std::string algorithm;
    std::string definition;
    std::vector<Oid> bases;
    bool populated = true;
    int32 part_of = 0;  // the view it was made for (a subquery of that view's query), or 0
    // The view columns (quoted) its storage's key hashes, as made; empty:
    // every hashable one (counting::key_columns).
    std::vector<std::string> key_columns;
};

// Callers hold an SPI connection.
std::optional<Entry> find_by_view(Oid view);
std::optional<Entry> find_by_id(int32 view_id);
int32 next_view_id();
void insert(const Entry& entry);
void remove(int32 view_id);
void set_populated(int32 view_id, bool populated);
void set_bases(int32 view_id, const std::vector<Oid>& bases);
void set_part_of(int32 view_id, int32 part_of);
// Marks the view maintained by this transaction (its row in
// ivm.maintenance, made on first use) and returns the top-level transaction
// that marked it before, as a 64-bit xid8 (0: none).  Under REPEATABLE READ
// and SERIALIZABLE, PostgreSQL raises 40001 here when a transaction that
// committed after this one's snapshot marked it; under READ COMMITTED the
// latest mark is returned, after waiting for an open one.  Nothing (and
// no mark) in a database whose extension predates ivm.maintenance, until
// ALTER EXTENSION ivm UPDATE.
std::optional<uint64> mark_maintained(int32 view_id);
// The views made for this one.
std::vector<int32> parts_of(int32 view_id);

// The view named by a user's text argument, or 42P01 / 42809.
Entry lookup(const char* name);

}  // namespace ivm::pg::catalog
