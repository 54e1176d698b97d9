// Facts about relations, from the system catalog.
#pragma once
#include "pg/pg.hpp"

#include <string>
#include <vector>

namespace ivm::pg {

// Whether `relations` holds `relid`.
inline bool contains(const std::vector<Oid>& relations, Oid relid) {
    for (Oid r : relations)
        if (r == relid) return true;
    return false;
}

// "schema"."name" for a relation, quoted.
std::string qualified_name(Oid relid);

// The role that owns a relation.
Oid relation_owner(Oid relid);

// Runs statements as the owner of a relation (dropping a trigger needs
// ownership, where creating it needed only the TRIGGER privilege).
void execute_as_owner_of(Oid relid, const std::vector<std::string>& statements);

// The relation and its descendants: partitions, inheritance children.
std::vector<Oid> with_descendants(Oid relid);
// The same for each of `relids`, each table once.
std::vector<Oid> with_descendants(const std::vector<Oid>& relids);

// Whether the relation itself (not its descendants) holds a row.
bool holds_rows(Oid relid);

// Refuses (42501), before anything is made, a base table on which `role`
// may not create the triggers that maintain a view: CREATE TRIGGER would
// fail later, with an internal statement as its context.
void require_trigger_privilege(Oid relid, Oid role);

// Refuses (0A000) a base table whose row-level security would filter what
// `role` reads: the changes handed to maintenance are not filtered.
void refuse_row_security(Oid relid, Oid role);

}  // namespace ivm::pg
