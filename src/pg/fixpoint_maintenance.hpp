// Maintenance of a view defined by a program of general recursion
// (analyzed.program): its fixpoint run over the program's items table.
#pragma once
#include "pg/maintain.hpp"

namespace ivm::pg {

// The changes of the program's base tables (indexed like its bases), with
// the snapshot taken before the statement.  Needs SPI.
MaintenanceResult apply_program_changes(ViewRuntime& view, const std::vector<BaseChange>& changes, Snapshot before);
// Recomputes every stratum.  Needs SPI.
MaintenanceResult refresh_program(ViewRuntime& view);

}  // namespace ivm::pg
