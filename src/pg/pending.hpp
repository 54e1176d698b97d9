// The statement-level queue of base changes kept by the triggers.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// After a (sub)transaction abort: forget firings from inside it
// (InvalidSubTransactionId: all of them, at the end of the transaction).
void reset_pending(SubTransactionId aborted);

// Whether every trigger of `rel` is ivm's: the guard of a storage, or the
// triggers of views that read it (those announce_rewritten tells).
bool only_ivm_triggers(Relation rel);

// The rows of `rel` changed without its triggers firing (its heap was
// swapped for a new one, heap_swap.hpp): each view that reads it is told
// that its rows are not known, as by a statement that started without its
// transition capture, and computes its query anew.
void announce_rewritten(Relation rel);

}  // namespace ivm::pg
