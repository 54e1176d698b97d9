// The statement-level queue of base changes kept by the triggers.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// After a (sub)transaction abort: forget firings from inside it
// (InvalidSubTransactionId: all of them, at the end of the transaction).
void reset_pending(SubTransactionId aborted);

}  // namespace ivm::pg
