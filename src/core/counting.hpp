// The counting algorithm (Gupta, Mumick, Subrahmanian 1993) as SQL text.
//
// Every relation is a counted relation: rows with a signed derivation count
// __ivm_cnt.  A base table's delta is its NEW transition table with +1 and
// its OLD one with -1.  For a join of occurrences R1..Rm where the changed
// occurrences are c1 < ... < ck, the delta telescopes into k terms:
//     term j = (Rc1..Rc(j-1) as before the statement) x dRcj x (the rest as now)
// with counts multiplied.  Summing the terms per output tuple and dropping
// zero sums gives the view delta, which is merged into the stored counts.
#pragma once
#include "core/no_postgres.hpp"
#include "core/view_model.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ivm::counting {

// Names under which the engine registers a base table's transition tables.
std::string new_rows_relation(std::size_t base);
std::string old_rows_relation(std::size_t base);

// The counted delta of the view for a statement that changed the bases
// marked true: one row per view tuple whose count changes, with the change.
// `large`: a change too large for its transition rows to be hashed in
// memory, planned for its size (it reads tables as they were by joins).
// `base_rows` (per base, its transition rows; empty: the query's order)
// orders each block's changed occurrences, fewest rows first: a term
// reads the occurrences changed before its own as they were (the table now
// and its transition rows appended, which a nested loop scans again for
// every outer row), those after as they are now.
std::string delta_query(const CountingView& view, const std::vector<bool>& changed_bases, bool large = false,
                        const std::vector<double>& base_rows = {});

// The difference between the view's query run now and what the storage
// holds: merging it makes the storage exact (refresh, and the first fill).
std::string refresh_delta_query(const CountingView& view);

// How a merge finds the stored tuples of the delta: with a join the
// planner chooses (right for large deltas), or one index lookup per delta
// tuple (for the plans kept for small base changes, which can still make
// many view tuples change: the planner would hash the whole storage).
enum class Lookup { Join, PerTuple };

// The one row every merge statement returns (merge_statement,
// keyed_merge_statement, refresh_statement, rebuild_statement), its
// columns in this order: view rows added and removed (with multiplicity;
// a DISTINCT view's are the storage rows), storage rows inserted and
// deleted, tuples whose count would go below zero, and for a view that
// keeps extremes the groups left without one (extremes_statement).
enum class Report { Added, Removed, Inserted, Deleted, Negative, Stale };
struct MergeReport {
    std::string added, removed, inserted, deleted, negative;
    std::string stale;  // empty: the view keeps no extremes
};
// "SELECT <each expression> AS __ivm_<its name>, ..." (the caller adds FROM).
std::string report_select(const MergeReport& report);

// One statement that merges a counted delta into the storage and returns
// (view rows added, view rows removed, storage rows inserted, storage rows
// deleted, tuples whose count would go below zero), and for a view that
// keeps extremes the groups left without one (see extremes_statement).
std::string merge_statement(const CountingView& view, const std::string& counted_delta, Lookup lookup = Lookup::Join);

// Whether writers of `base` alone may maintain the view at once, each
// merging its own delta: the view is linear in the base (every occurrence
// of it is in a FROM list, not the nullable side of an outer join or a
// subquery of WHERE) and reads it once in each block, so no delta term
// pairs one writer's rows with another's (see pg/view_locks.hpp), and its
// groups, if any, are kept as partial state (not recomputed).
bool parallel_writers(const CountingView& view, std::size_t base);

// Whether the storage keeps a key (__ivm_key) for its rows: some column of
// the view's tuples (an aggregate's: of its group keys) is hashable.
bool has_storage_key(const CountingView& view);

// The name under which the engine registers a delta computed once, for
// the statements that read it (delta_keys_query, then the merge).
inline constexpr const char* delta_rows_relation = "ivm_delta_rows";

// The storage keys (__ivm_key) of the stored rows a merge of the delta
// rows `delta_rows` (a query of them) reads and writes, distinct, in order;
// empty when the storage has no key.
std::string delta_keys_query(const CountingView& view, const std::string& delta_rows);

// Aggregate views keeping min or max (or a numeric sum's scale): a merge
// leaves a group whose extreme went with no rows known at it without it,
// and counts such groups in a sixth column.  This statement then recomputes
// the extremes of the groups so left, from their rows as they are now.
// Empty for a view that keeps no extremes.
std::string extremes_statement(const CountingView& view);

// Whether a statement that changed only `base` can be merged as keyed:
// the view is keyed (CountingView::keying) and reads the base once.
bool keyed_change(const CountingView& view, std::size_t base);

// What a keyed change holds.
enum class KeyedRows { Inserted, Deleted, Both };

// The delta of a keyed change: one row per view tuple, count 1 (inserted)
// or -1 (deleted), unsummed (no two are equal).
std::string keyed_delta_query(const CountingView& view, std::size_t base);

// The rows of that delta's inserted tuples as the storage holds them (its
// columns, in order), in the key index's order: what an insert-only merge
// writes.
std::string keyed_insert_query(const CountingView& view, const std::string& delta);

// The merge of that delta.  Deleted tuples are looked up and removed (one
// stored with a count other than 1, twice, or not at all, is reported as a
// count going below zero); inserted ones are written without a lookup (none is
// stored, but for the deleted ones).  Reports like merge_statement; only
// inserted rows: a plain INSERT, each row one view row added.  `lookup`:
// deleted tuples found by one key index probe each, or by the join the
// planner chooses (for deletes of a large part of the storage, where the
// probes cost more than one pass over it).
std::string keyed_merge_statement(const CountingView& view, const std::string& delta, KeyedRows rows,
                                  Lookup lookup = Lookup::PerTuple);

// The view columns a new storage's key hashes (quoted names), the one
// leading the key first: every hashable one but those a lookup base shows
// without a key showing by them (a value of the base's row, which the
// shown key determines: hashing it adds nothing, and a lookup update would
// move the key, which no HOT update may), led by the column showing a
// lookup base's key whose rows do not tell the key (see LookupFind).
// Empty for the usual key: every hashable column, led by the first
// integer one (views without lookup bases).
std::vector<std::string> key_columns(const CountingView& view);

// Makes the model hash what its storage's key hashes: the columns a
// storage recorded, the first leading the key if it is an integer (empty:
// the usual key).  Views that aggregate key their groups: unchanged.
void use_key_columns(CountingView& view, const std::vector<std::string>& names);
// The state columns of a PartialState storage, each with its type.
std::vector<std::pair<std::string, std::string>> partial_state_columns(const CountingView& view);
// A storage made before partial state kept `view`'s shape (an output that
// is an expression over aggregates, before version 0.8) lacks some of
// those columns: the view is then kept as it was made, by recomputing
// groups.  storage_has says whether the storage has a column.
void use_storage_shape(CountingView& view, const std::function<bool(const std::string&)>& storage_has);

// How a lookup update finds the tuples of a lookup base's row: by their
// key, which the row's shown columns tell (a keying table's); in the key
// index's range for the row's key, whose one column leads the storage key;
// or by the columns showing the key, which only an index of the storage on
// them (that the user made) makes cheaper than the usual merge.
enum class LookupFind { ExactKey, KeyLead, Scan };
LookupFind lookup_find(const CountingView& view, std::size_t base);

// Whether a statement that changed only `base` may be merged by
// lookup_update_statement: the base is a lookup base of the view
// (CountingView::lookups).
bool lookup_change(const CountingView& view, std::size_t base);

// For such a statement whose rows pair up by the base's key (each deleted
// row with an inserted one, as an UPDATE that keeps the key makes them;
// the caller runs it only when it deleted as many rows as it inserted),
// and where each pair keeps the columns the query reads otherwise: the
// stored tuples showing each pair's key get the new row's values, in
// place.  Returns (1 when it did so, view rows moved, storage rows moved);
// when the rows do not pair up so it changes nothing and returns 0 first:
// the usual merge is left to run.  `lookup`: the stored tuples found as
// the planner chooses, or by one index probe per pair (for a large change
// that is a small part of a large storage, which the planner would hash in
// full).
std::string lookup_update_statement(const CountingView& view, std::size_t base, Lookup lookup = Lookup::Join);

// The statement that makes the storage exact, from refresh_delta_query.
std::string refresh_statement(const CountingView& view);

// Whether rebuild_statement can replace the storage's contents (views
// kept as one count per tuple: no aggregates, no set operations).
bool can_rebuild(const CountingView& view);

// One statement that empties the storage and fills it from the query as it
// is now, in the key index's order, reporting like merge_statement (every
// tuple counts as removed and added).  For changes larger than the view,
// where looking up each delta tuple costs more than writing the view anew.
std::string rebuild_statement(const CountingView& view);

// Whether first_fill_statement can fill the view's new storage: where
// can_rebuild, and aggregate views kept from partial state.
bool can_first_fill(const CountingView& view);

// One statement that fills a new, empty storage from the query as it is
// now: a plain INSERT (no RETURNING list, which would keep every row once
// more), its tuples counted by one GROUP BY (none for a keyed view, whose
// tuples are distinct with count 1; an aggregate view's rows are its
// groups), for a storage whose key index is built after it (storage_ddl's
// index_later).  Only where can_first_fill.
std::string first_fill_statement(const CountingView& view);

// Its query: the rows, named and ordered as the storage's columns.
std::string first_fill_query(const CountingView& view);

// Whether the rows first_fill_statement writes are the view's rows, one
// each (a keyed or DISTINCT view); else their counts add up to them.
bool first_fill_writes_view_rows(const CountingView& view);

// The view's stored row count, as a query returning one bigint.
std::string row_count_query(const CountingView& view);

// DDL for the storage table: the query view's columns, the derivation
// count and a hash key (indexed) used to find a delta tuple's stored row.
// With `index_later`, the index is left to storage_index_ddl, to be built
// once the storage is filled.
std::vector<std::string> storage_ddl(const CountingView& view, const std::string& query_view, bool index_later = false);
std::vector<std::string> storage_index_ddl(const CountingView& view);

// The user-facing view over the storage: each tuple repeated by its count,
// or once for DISTINCT.  An unpopulated view has the same columns but reads
// from ivm.unpopulated(), which refuses like an unpopulated materialized view.
// `check_snapshots`: a populated view's readers check that their snapshot
// sees the storage's heap (ivm.snapshot_sees_storage, from version 0.5 of
// the extension's objects; pg/heap_swap.hpp).
enum class ViewDdl { Create, Replace };
std::string user_view_ddl(const CountingView& view, const std::string& user_view, bool populated,
                          ViewDdl how = ViewDdl::Create, bool check_snapshots = true);

}  // namespace ivm::counting
