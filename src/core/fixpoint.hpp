// The SQL of ivm's own fixpoint loop over a recursive program (see
// program.hpp): semi-naive evaluation of a stratum and the steps of DRed
// for it.  The loop itself runs in src/pg (fixpoint_maintenance.cpp, apply_program_changes); every
// query here returns rows of the storage's row type (with __ivm_key), and
// every relation it reads by name has that type too: the storage itself or
// a set kept between the steps.
#pragma once
#include "core/no_postgres.hpp"
#include "core/matching.hpp"
#include "core/program.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ivm::fixpoint {

// How the changed base tables are read by a seed query.
enum class Change { Deleted, Inserted };

// Every row the stratum's terms derive from lower strata and base tables
// alone (the terms that read no item of the stratum).
std::string initial_query(const Program& p, std::size_t stratum);

// One semi-naive step: each term once for every occurrence of an item of
// the stratum, that occurrence reading `delta`, the stratum's other
// occurrences reading `state`; rows in any of `excluded` are left out
// (`by_lookup`: found in the storage, where it is excluded, through its key
// index, one by one: for a few rows, where PostgreSQL would read it whole).
// Empty when the stratum has no recursive term.
std::string step_query(const Program& p, std::size_t stratum, const std::string& delta, const std::string& state,
                       const std::vector<std::string>& excluded, bool by_lookup = false);

// What a change derives in one step: each term once for every occurrence
// of a changed base table (reading its deleted or inserted rows) or of a
// changed item of a lower stratum (reading `changed_items`, which holds the
// rows those items lost or gained); the other occurrences read the tables,
// the storage, and for the stratum's own items `state`.  Also what the
// `whole_rules` (a redefinition's rules removed or added) derive, every
// occurrence read so.
std::string seed_query(const Program& p, std::size_t stratum, const std::vector<bool>& changed_bases,
                       const std::vector<bool>& changed_items, Change change, const std::string& changed_items_rows,
                       const std::string& state, const std::vector<std::string>& excluded,
                       const std::vector<std::size_t>& whole_rules = {});

// Redefinition: the rules of the old program the new one lacks and the
// reverse, or null where the programs differ otherwise (their items, their
// columns, their strata).  Rules are the same when they derive the same
// item through the same template from the same tables and items.
std::optional<RuleDifference> rule_difference(const Program& old_p, const Program& new_p);
// The rules among `rules` that derive an item of the stratum.
std::vector<std::size_t> rules_of(const Program& p, std::size_t stratum, const std::vector<std::size_t>& rules);

// Whether a change of these inputs reaches the stratum at all, and whether
// it reaches it only through sources (then DRed applies; otherwise the
// stratum is recomputed).
bool reads_changed(const Program& p, std::size_t stratum, const std::vector<bool>& changed_bases,
                   const std::vector<bool>& changed_items, bool only_through_sources);

// The rows of `deleted` that a term still derives from the storage and the
// tables as they are.
std::string rederive_query(const Program& p, std::size_t stratum, const std::string& deleted);

// The rows of `relation` that belong to the stratum's items.
std::string rows_of(const Program& p, std::size_t stratum, const std::string& relation);
// The rows of a that b lacks; `one_by_one`: each row of a looked up in b
// (an indexed table) through its key, not b read whole.
std::string minus(const Program& p, const std::string& a, const std::string& b, bool one_by_one = false);
// Delete from the storage the rows `relation` holds (`one_by_one`: each
// found through the key index, for a few), and insert them.
std::string delete_statement(const Program& p, const std::string& relation, bool one_by_one = false);
std::string insert_statement(const Program& p, const std::string& relation);

// The storage: its columns, the key, an index on the key and, per item and
// column, an index over that item's rows.
std::vector<std::string> storage_ddl(const Program& p);

}  // namespace ivm::fixpoint
