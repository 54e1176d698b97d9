// The triggers ivm installs, as SQL text.
#pragma once
#include "core/no_postgres.hpp"

#include <string>
#include <vector>

namespace ivm::triggers {

// On a base table: a BEFORE STATEMENT trigger counting the statement's
// changes, and one AFTER STATEMENT trigger per event with its transition
// tables (PostgreSQL allows transition tables on single-event triggers only).
// The triggers of a DRed view's recursive relation (part = Recursive) are
// named with a _rec suffix and pass 'rec' as a second argument.
enum class Part { Counting, Recursive };
std::vector<std::string> base_table_ddl(int view_id, const std::string& base, Part part = Part::Counting);
std::vector<std::string> base_table_drop(int view_id, const std::string& base, Part part = Part::Counting);
// The name of the BEFORE trigger, present wherever the part has triggers.
std::string before_trigger_name(int view_id, Part part);
// Whether `name` is one of base_table_ddl's trigger names.
bool is_base_trigger_name(const std::string& name);

// Refuse direct writes: on a storage table, and on the user-facing view,
// by triggers of this name (and a statement trigger on the view).
extern const char* const guard_trigger;
std::string storage_guard_ddl(const std::string& storage);
std::vector<std::string> view_guard_ddl(const std::string& user_view);

}  // namespace ivm::triggers
