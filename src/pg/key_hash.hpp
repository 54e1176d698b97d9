// ivm.key_hash: tuples' keys computed without forming a record.
#pragma once
#include "pg/pg.hpp"

namespace ivm::pg {

// From module load on, SQL that ivm writes computes keys with ivm.key_hash
// where the installed extension has it (0.8 on), else with
// hash_record_extended: the same values (core/tuples.hpp, hash).
void use_installed_key_hash();

}  // namespace ivm::pg
