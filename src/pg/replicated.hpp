// Views on a logical replication subscriber.  A subscription's apply
// worker (as any session with session_replication_role = replica) fires no
// statement trigger but TRUNCATE's, only row triggers enabled for replicas:
// ivm's log each row it writes into a view's base table (deferred.cpp's
// row trigger, on every view's base tables where the database has a
// subscription), and when its transaction commits every view reading them
// takes them in — an immediate view the rows its transaction logged, netted
// per table and merged as one change of all its tables (the old state of
// each derived from the current one, as a deferred view's apply does, by
// DRed too), a deferred view by its apply.  The view is then current
// when the replicated transaction commits, as on the publisher.
#pragma once
#include "pg/pg.hpp"

#include <vector>

namespace ivm::pg::replicated {

// The replica row trigger logged rows of `base` in this transaction.
void note_logged(Oid base);

// Every view reading a base table with rows logged in this transaction
// and not yet taken in takes them in; those reading a table of `truncated`
// (a replicated TRUNCATE of it) are recomputed instead.  Opens its own SPI
// connections.
void apply_pending(const std::vector<Oid>& truncated);

// Before a commit: raises an error where rows this transaction logged were
// not taken in (its constraint trigger set IMMEDIATE fired too early).
// Raw PostgreSQL error: call it from C code only.
void check_taken_in();
// After a subtransaction abort: its rows are gone.  After a transaction:
// nothing logged.  (No PostgreSQL call, no throw.)
void forget_subtransaction(SubTransactionId aborted);
void end_transaction();

}  // namespace ivm::pg::replicated
