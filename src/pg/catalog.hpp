// The ivm.view_catalog table: one row per view.
#pragma once
#include "pg/pg.hpp"

#include <functional>
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
    // Maintained by ivm.refresh_view from its base tables' change logs
    // (deferred.hpp), not by the writing statements.
    bool deferred = false;
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
// Whether this database's ivm objects know deferred views (from 0.4).
bool have_deferred();
// ivm.snapshot_sees_storage, which a view's definition reads to check its
// readers' snapshots (from 0.5 of the objects; pg/heap_swap.hpp), or
// InvalidOid; and whether there is one.
Oid snapshot_check_function();
bool have_snapshot_check();
void set_deferred(int32 view_id, bool deferred);
// Runs fn as the owner of ivm's catalog with search_path = pg_catalog,
// pg_temp (unless `qualified`: every name in its statements is).
void as_owner(const std::function<void()>& fn, bool qualified = false);
// Who wrote which view (ivm.maintainers, from version 0.3 of the objects):
// whether this database's ivm objects have it (false until ALTER EXTENSION
// ivm UPDATE from an older version).
bool have_maintainers();
// Records this transaction as this backend's last writer of the view's
// base table `base` (its place in the view; -1: the whole view).
void mark_writer(int32 view_id, int base);
// The last writers (xid8s) of the view's base tables other than `except`
// (-2: of all), as committed now: read with the latest snapshot, so a
// REPEATABLE READ transaction sees those its snapshot misses.
std::vector<uint64> committed_writers(int32 view_id, int except);
// At the end of a (sub)transaction: its marks may be gone.
void forget_marks();
// The views made for this one.
std::vector<int32> parts_of(int32 view_id);

// The view named by a user's text argument, or 42P01 / 42809.
Entry lookup(const char* name);

}  // namespace ivm::pg::catalog
