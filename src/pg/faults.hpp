// Fault injection for tests: ivm.test_fail_at names a step and how it
// fails, and the step fails so, from inside the guard (pg::call) as a real
// fault would: "STEP:error" raises a PostgreSQL error there, "STEP:throw"
// throws a C++ exception (an ivm::Error), "STEP:alloc" a std::bad_alloc.
// test/sql/faults.sql triggers each step's faults and checks that the
// backend lives, the statement was undone and the views equal their
// queries.  Superuser only; empty (the default) costs a string compare.
#pragma once

namespace ivm::pg::faults {

// Steps (see each use):
//   create.made      create_view: storage, triggers and catalog made, before the fill
//   create.filled    create_view: after the fill
//   maintain.uncaptured  a statement's AFTER trigger found its transition rows not kept
//   maintain.locked  counting maintenance: locks taken, transition rows registered
//   maintain.merged  counting maintenance: after the merge
//   dred.deleted     DRed: after the over-deletion
//   alter.replaced   alter_view: old rules out, new ones in, before the fill
//   refresh.done     refresh_view: after the recompute
void point(const char* step);

void define_setting();

}  // namespace ivm::pg::faults
