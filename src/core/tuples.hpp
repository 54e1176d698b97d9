// Naming and matching whole tuples in generated SQL.  A view's tuples may
// hold NULLs, which are values here: a stored NULL matches a delta NULL.
#pragma once
#include "core/no_postgres.hpp"
#include "core/view_model.hpp"

#include <string>
#include <vector>

namespace ivm::tuples {

// "q.a, q.b" (or "a, b" without qualifier).
std::string columns(const std::vector<Column>& cols, const std::string& qualifier);

// ivm's own names begin with __ivm_ and never with __ivm_u_: a column the
// user names __ivm_... is stored, and read by ivm, as __ivm_u___ivm_...
// (the query view and the storage carry that name, the view the user
// reads shows the user's), so no name of the user's meets one of ivm's.
std::string stored_name(const std::string& user_name);
// The name a view shows for a stored column (`quoted`, as quote_identifier
// writes it).
std::string shown_name(const std::string& quoted);

// A value cast to a column's type, written (value)::type: the type may end
// in a COLLATE clause, which CAST (value AS type) does not take.
std::string cast(const std::string& value, const std::string& type);

// A value as its text in the "C" collation: how values of a type without
// equality, or under a nondeterministic collation, are told apart
// (Column::image).
std::string image(const std::string& value);

// Grouping rows by the columns (the first items of the select list): the
// select list's items, and the GROUP BY list (ordinals; a column without
// equality by its text, read back as its type).
std::string grouped_columns(const std::vector<Column>& cols);
std::string group_by(const std::vector<Column>& cols);

// The hash of `values` ("a, b"): ivm.key_hash(values) where the installed
// extension has that function (0.8 on), else the same value as
// pg_catalog.hash_record_extended(ROW(values), 0).  Which one the library
// asks `installed` (set once, when it loads; none: hash_record_extended).
std::string hash(const std::string& values);
void set_key_hash_probe(bool (*installed)());

// The key of a tuple: hash() over its hashable columns
// (those marked hashed), led
// (in the high bits) by the value of the column marked leads_key if any;
// "" when it has no hashable column.  Storage tables keep it as __ivm_key
// (indexed).
std::string key(const std::vector<Column>& cols, const std::string& qualifier);

// The index on a storage's key (__ivm_key), made after its first fill.
// Keys are nearly all distinct, so B-tree deduplication would only cost
// its attempts (a tenth of a 1,000,000-tuple build); a key's old row
// versions are still removed by bottom-up deletion, which does not need it.
std::string key_index_ddl(const std::string& storage);

// How to find one side's key: its stored __ivm_key column, computed from
// its columns, or carried as __ivm_h (see carry_key).
enum class Key { Stored, Computed, Carried };

// The rows of `rows` with their key computed once, as __ivm_h, in the key
// index's order (unless !sorted); `rows` itself when the tuples have no key.
std::string carry_key(const std::vector<Column>& cols, const std::string& rows, bool sorted = true);

// a and b hold the same tuple: equal keys (when there are hashable
// columns), then each column equal or both NULL ("true" for no columns).
// For finding a row by its key; use equal() where the planner should push
// the column equalities down to indexes of the columns instead.
std::string same(const std::vector<Column>& cols, const std::string& a, Key a_key,
                 const std::string& b, Key b_key);

// As same(), between the stored relation's tuple (alias `stored`) and each
// of `rows`' tuples, in a join the planner can only run as one key index
// lookup per row: the keys' equality is written `= ANY (ARRAY[...])`, which
// it can neither hash nor merge.  As a plain join, a large delete
// merge-joined the whole key index (docs/benchmarks.md, "Measurements
// behind design decisions").  Without a key, as same().
std::string looked_up(const std::vector<Column>& cols, const std::string& stored, const std::string& rows, Key rows_key);

// Each column equal or both NULL, without the key ("true" for no columns).
std::string equal(const std::vector<Column>& cols, const std::string& a, const std::string& b);

// DELETE FROM `table` (alias __ivm_t) of the stored tuples `rows` (a
// relation with the same columns and a stored key, alias __ivm_g) holds.
// One by one, each is found through the key index and deleted by its TID:
// as a join, the planner hashes the whole table to delete a few thousand.
std::string delete_stored(const std::string& table, const std::vector<Column>& cols, const std::string& rows,
                          bool one_by_one);

}  // namespace ivm::tuples
