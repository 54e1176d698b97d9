// Maintenance of a view defined by a program of general recursion
// (analyzed.program): its fixpoint run over the program's items table.
#pragma once
#include "core/fixpoint.hpp"
#include "pg/maintain.hpp"

namespace ivm::pg {

// The changes of the program's base tables (indexed like its bases), with
// the snapshot taken before the statement.  Needs SPI.
MaintenanceResult apply_program_changes(ViewRuntime& view, const std::vector<BaseChange>& changes, Snapshot before);
// Recomputes every stratum.  Needs SPI.
MaintenanceResult refresh_program(ViewRuntime& view);
// A redefined program that kept its items' table (renamed to the new
// program's): stratum by stratum, one whose rules and lower strata did not
// change is left alone, the others are changed by DRed over the rules
// removed and added (recomputed where a lower stratum's change meets a
// removed rule or is read through negation).  Needs SPI.
MaintenanceResult redefine_program(ViewRuntime& view, const Program& old_program,
                                   const RuleDifference& difference);

}  // namespace ivm::pg
