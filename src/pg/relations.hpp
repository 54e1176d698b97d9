// Facts about relations, from the system catalog.
#pragma once
#include "pg/pg.hpp"

#include <string>

namespace ivm::pg {

// "schema"."name" for a relation, quoted.
std::string qualified_name(Oid relid);

// The role that owns a relation.
Oid relation_owner(Oid relid);

}  // namespace ivm::pg
