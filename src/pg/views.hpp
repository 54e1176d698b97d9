// Dropping a view, for ivm.drop_view and for the DDL event triggers.
#pragma once
#include "pg/catalog.hpp"

namespace ivm::pg {

// Drops the view's triggers, what is left of its objects and its catalog
// entry; the views that read it first when cascade, else refuses (2BP01).
// Needs SPI.
void drop_view(const catalog::Entry& entry, bool cascade, bool check_owner);

}  // namespace ivm::pg
