// Which writers of a view may maintain it at once, as PostgreSQL
// heavyweight locks held to the end of the transaction (they show in
// pg_locks as advisory locks of the view's database, objsubid 18774 and
// 18775, so they cannot collide with an application's own).
//
// One lock per (view, base table) and one for the whole view.  A writer
// of one base table that the view is linear in (counting, the table read
// once, in no outer join's nullable side nor subquery) takes the whole
// view's lock and its table's lock in ROW EXCLUSIVE mode and the other
// tables' in SHARE mode: writers of that table run together, writers of
// another wait (each must see the other's rows: the ΔR⋈ΔS term).  Any other
// maintenance (DRed, a change of two tables at once, a refresh) takes the
// whole view's lock EXCLUSIVE: it is the view's only writer.  Locks are
// taken in one order (whole view, then the tables by their place in the
// view, then the storage, then row keys), so one maintenance never
// deadlocks with another; the writer locks are first taken by the BEFORE
// STATEMENT trigger, before the statement changes any base row.
//
// Writers running together merge into the same storage; the stored rows
// their change touches are locked by key (lock_keys) before the merge
// reads them, so two writers wait for each other only where they change
// the same stored row.
#pragma once
#include "pg/maintain.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ivm::pg::view_locks {

// Every function here takes the view's relation (`view`), named in its
// errors (looked up only then): where a transaction holding some of the
// view's locks waits for another that waits for it (a cycle PostgreSQL
// would report as a deadlock, 40P01), the one that finds the cycle fails
// at once with 40001.

// Takes the writer locks of a maintenance of view `view_id`, which has
// `bases` base tables; `shared_base` is the one table it changes when the
// view may have other writers of that table at once.  Returns whether it
// writes the view alone.  A session whose transactions write a view in
// ways that cannot run together (two of its tables, or by row and then
// whole) writes it alone from its next transaction on: the second kind
// of write waits for every concurrent writer of the first, which may be
// waiting for this transaction (one of the two then fails with 40001).
bool lock_writers(int32 view_id, Oid view, std::size_t bases, std::optional<std::size_t> shared_base);

// Locks the view's storage in `mode` for this transaction.
void lock_storage(Oid view, Oid storage, LOCKMODE mode);

// Locks the stored rows of `keys` (storage keys, __ivm_key) for this
// transaction.  False, and nothing locked, when that would pass the
// transaction's share of the lock table (half of max_locks_per_transaction,
// at least 32 keys): the caller then locks the whole storage.
bool lock_keys(int32 view_id, Oid view, const std::vector<uint64>& keys);

// The transaction writes the view's storage as a whole (locked EXCLUSIVE)
// after writing it by row: later transactions of the session write it alone.
void writing_whole(int32 view_id);

// At the end of a transaction (commit or abort): its locks are gone.
void end_transaction();

}  // namespace ivm::pg::view_locks

namespace ivm::pg {

// The one base of the view `changed` says a change touches, when other
// writers of it may maintain the view at the same time (ivm.parallel_writers
// and counting::parallel_writers); none otherwise.
std::optional<std::size_t> shared_base(const ViewRuntime& view, const std::vector<bool>& changed);

// Takes the writer locks of one maintenance of the view (view_locks::
// lock_writers: as a writer of `shared_base` alongside others, or alone,
// then also locking `storage` EXCLUSIVE) and marks the view written by
// this transaction (catalog::mark_writer); returns whether it writes
// alone.  Under REPEATABLE READ and SERIALIZABLE, fails with 40001 where a
// writer it waited for committed after the transaction's snapshot.  Under
// READ COMMITTED with `before` (DRed's snapshot from before the
// statement), *missed says whether a maintenance committed since.
bool lock_for_maintenance(const ViewRuntime& view, Oid storage, std::optional<std::size_t> shared_base = std::nullopt,
                          Snapshot before = nullptr, bool* missed = nullptr);

// A writer alongside others about to write the view's whole storage (a
// large change, a rebuild, a recompute): locks it EXCLUSIVE.
void lock_whole_storage(ViewRuntime& view);
// ... about to merge a small change: locks the stored rows it touches by
// key (`keys_query` makes counting::delta_keys_query; `plan_key` names its
// kept plan), or the whole storage where it has no key or the keys are too
// many.
void lock_rows(ViewRuntime& view, const std::string& plan_key, const std::function<std::string()>& keys_query);

}  // namespace ivm::pg
