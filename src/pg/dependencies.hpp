// PostgreSQL's own dependency records for the objects of a view: its
// storage and recursive relation depend on its query view, so that
// DROP TABLE base CASCADE takes them along (and a plain DROP TABLE names
// them), and the query view and storage depend on the extension, so that
// DROP EXTENSION ivm CASCADE does.
#pragma once
#include "pg/catalog.hpp"

namespace ivm::pg {

// Records what is missing (a restored database has none of them).
void record_dependencies(const catalog::Entry& entry);
// Before the query view is replaced: the records that point at it.
void forget_definition_dependencies(const catalog::Entry& entry);

}  // namespace ivm::pg
