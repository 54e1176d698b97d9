// Rebuilding a view's storage as REFRESH MATERIALIZED VIEW rebuilds a
// materialized view: a new heap filled in one pass, swapped in for the old
// one, its indexes built once after the fill.  Writing the rebuilt
// contents into the live storage instead costs a key-index insertion per
// tuple (about 2 us each, 2.5 s for W1's 1,000,000 tuples against
// REFRESH's 0.45 s; docs/benchmarks.md, "Change sizes").
//
// What readers see: a swap takes ACCESS EXCLUSIVE on the storage until the
// writer commits, so readers that come after it wait for that commit, as
// they wait for a REFRESH; the swap is made only where no one reads the
// view at that moment (the lock is taken only if granted at once), so a
// writer never waits for a reader.  The new heap is not visible to a
// snapshot taken before the writer's commit: the view's readers check
// (ivm.snapshot_sees_storage in the view's definition) and fail with
// 40001 instead of reading an empty or newer view, where REFRESH and
// TRUNCATE leave such a reader the wrong contents.
#pragma once
#include "pg/bulk_fill.hpp"

#include <optional>
#include <string>

namespace ivm::pg {

// ivm.rebuild_by_swap: a rebuild (maintain.hpp, ivm.rebuild_fraction) swaps
// in a new heap where it may; off, it always rewrites the storage in place,
// and readers never wait.
extern bool rebuild_by_swap;

// ivm.swap_min_tuples: a storage of fewer tuples is rewritten in place.  A
// swap's new files (heap, key index) cost about 5 ms whatever the size;
// rewriting in place about 0.6 ms and 3-7 us a tuple.  One view rebuilt on
// every change, swap against in place: 50 tuples 5.2 ms against 0.6,
// 1,000 9.2 against 3.9-7.2, 2,000 11 against 15, 5,000 16 against 30-36
// (docs/benchmarks.md, "Small storage rewritten in place").
extern int swap_min_tuples;

// Whether user view `view`'s definition reads ivm.snapshot_sees_storage
// (views made before version 0.5 of ivm's objects do not until
// ivm.refresh_view makes it again).  Needs SPI.
bool checks_snapshots(Oid view);

// Whether the storage of user view `view` may be swapped now; if so it is
// locked ACCESS EXCLUSIVE for the transaction.  It may where the view
// checks its readers' snapshots, nothing reads the storage's changes (no
// trigger on it but ivm's refusal of direct writes: no view over it, no
// change log of a deferred view), it is in no publication, no query of
// this transaction has it open, and no other transaction holds a lock on
// it.  Needs SPI.
bool may_swap(Oid storage, Oid view);

// Fills a new heap with `query`'s rows (as bulk_fill, summing `counted`)
// and swaps it in for the storage's, its indexes rebuilt.  None, and
// nothing changed, where the query's columns do not match the storage's.
std::optional<BulkFill> swap_storage(Oid storage, const std::string& query, const char* counted);

}  // namespace ivm::pg
