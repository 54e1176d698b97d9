// Which tables carry a view's maintenance triggers: every base table and
// every descendant of one (partitions, inheritance children), since a
// statement fires only the statement triggers of the table it names.
#pragma once
#include "core/triggers.hpp"
#include "pg/analyze.hpp"
#include "pg/pg.hpp"

#include <vector>

namespace ivm::pg {

struct TriggerChanges {
    std::vector<Oid> added;    // tables that got the view's triggers
    std::vector<Oid> removed;  // tables that lost them (still existing)
};

// Makes one part's triggers of the view sit on exactly `bases` and their
// descendants.  Triggers are created as the current user (who needs the
// TRIGGER privilege) unless as_owner, and dropped as the table's owner.
// Needs SPI.
void sync_part_triggers(int32 view_id, triggers::Part part, const std::vector<Oid>& bases, bool as_owner,
                        TriggerChanges& changes);
// Whether every one of `bases` carries the part's triggers (not so while
// pg_restore has yet to create them).
bool has_triggers(int32 view_id, triggers::Part part, const std::vector<Oid>& bases);
// Both parts, from the view's analysis; or none (analysis == nullptr, or a
// deferred view).
TriggerChanges sync_base_triggers(int32 view_id, const AnalyzedView* analysis, bool as_owner = false);

// The bases, among `bases`, whose rows a firing on `relid` changes: relid
// itself and the ancestors it descends from (the first only, when
// `first_only`).
std::vector<Oid> bases_of(Oid relid, const std::vector<Oid>& bases, bool first_only = false);
// The base, among `bases`, that a firing on `relid` belongs to: relid
// itself, or the ancestor it descends from; InvalidOid if none.
Oid base_of(Oid relid, const std::vector<Oid>& bases);

}  // namespace ivm::pg
