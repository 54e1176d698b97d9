// Deletions in a linear recursive relation by backward/forward
// (core/backward_forward.hpp) in place of DRed's over-delete and rederive:
// the lookups it asks for are kept plans over R's storage and the base
// tables.
#pragma once
#include "core/backward_forward.hpp"
#include "core/dred.hpp"
#include "pg/maintain.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ivm::pg {

// ivm.backward_forward: auto (the default) tries backward/forward where
// recursion_policy.hpp says, on always and without a budget, off never.
enum class BackwardForward { Off, Auto, On };
BackwardForward backward_forward_mode();
void define_backward_forward_setting();

// Of the over-deleted tuples (dred::deleted_relation, step 1's), finds
// those the change takes and registers them as dred::deleted_relation in
// their place; returns how many.  nullopt when it ran past its budget:
// nothing changed, DRed's rederive step is to run.  The seeds are
// read as step 1 read the old tables (`old`, with `before`, the snapshot
// from before the statement, or InvalidSnapshot for WithDeleted); `key`
// names the changed bases for the kept plans.
std::optional<uint64> backward_forward_deletions(ViewRuntime& view, const RecursiveRelation& rel, Oid storage,
                                                 const std::vector<bool>& changed, dred::OldTables old, Snapshot before,
                                                 const std::string& key, const backward_forward::Budget& budget);

// Where deletions factor (dred::deletions_factor) and the statement's
// snapshot from before it is kept: backward/forward without an
// over-deletion, checking against the bound on what the deletion can touch
// (the seeds' P values, and the Q values their Q values reach: at most
// `bound` tuples, DRed's over-deletion for a single deleted row of a
// closure).  `budget_for(bound)` says how long it may run, or nullopt where
// it is not to (nothing changed then).  When it finishes, the tuples that go
// are registered as dred::deleted_relation.
struct BoundedOutcome {
    uint64 bound = 0;
    bool tried = false;           // it ran (finished or not)
    std::optional<uint64> gone;   // it finished: how many go
};
BoundedOutcome backward_forward_bounded(ViewRuntime& view, const RecursiveRelation& rel, Oid storage,
                                        const std::vector<bool>& changed, Snapshot before, const std::string& key,
                                        bool keep_plan,
                                        const std::function<std::optional<backward_forward::Budget>(uint64)>& budget_for);

}  // namespace ivm::pg
