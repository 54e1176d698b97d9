// The triggers ivm installs, as SQL text.
#pragma once
#include "core/no_postgres.hpp"

#include <string>
#include <vector>

namespace ivm::triggers {

// On a base table: a BEFORE STATEMENT trigger counting the statement's
// changes, and one AFTER STATEMENT trigger per event with its transition
// tables (PostgreSQL allows transition tables on single-event triggers only).
std::vector<std::string> base_table_ddl(int view_id, const std::string& base);
std::vector<std::string> base_table_drop(int view_id, const std::string& base);

// On the storage table and the user-facing view: refuse direct writes.
std::vector<std::string> guard_ddl(const std::string& storage, const std::string& user_view);

}  // namespace ivm::triggers
