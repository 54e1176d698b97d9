// DRed (delete and rederive, Gupta, Mumick, Subrahmanian 1993) for a
// recursive relation R defined by WITH RECURSIVE ... UNION, as SQL text.
//
// R is stored as a set.  For a statement that changed some base tables:
//  1. over-delete: D = every stored tuple with a derivation that uses a
//     deleted base tuple or a tuple of D (a recursive query over the state
//     before the statement, run with that statement's snapshot);
//  2. rederive: the tuples of D that still have a one-step derivation from
//     R - D and the base tables as they are now;
//  3. insert: semi-naively, from the rederived tuples and from what the
//     inserted base tuples derive, stopping at tuples already known;
//  4. apply: delete D minus what step 3 found, insert what is new, in one
//     statement (its transition tables maintain the views that read R).
#pragma once
#include "core/no_postgres.hpp"
#include "core/matching.hpp"
#include "core/view_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ivm {

// One occurrence in a rule: a base table, or R itself (the recursive reference).
struct RuleSource {
    bool recursive = false;
    std::size_t base = 0;  // into RecursiveRelation::bases, when not recursive
    bool only = false;
    bool view_storage = false;  // another ivm view's storage: only rows it shows (__ivm_count > 0)
};

// One term of the WITH RECURSIVE union.  Its template reads placeholder
// __ivm_src_<k+1> for sources[k] and outputs the relation's columns.
struct Rule {
    std::string spj_template;
    std::vector<RuleSource> sources;
    // Of the recursive rule: the template also outputs where the tuple of R
    // it reads is stored, its key and its columns (__ivm_tid, __ivm_key,
    // __ivm_p1, ...), read from the placeholder's __ivm_tid and __ivm_key.
    std::string premise_template;
    // Of the recursive rule: for each of R's columns, whether the rule
    // passes it through from the tuple of R it reads, reading it nowhere
    // else (pass_through.hpp).
    std::vector<bool> passes_through;
    bool recursive() const;
};

struct RecursiveRelation {
    std::string storage;              // quoted qualified table holding R
    std::vector<Column> columns;      // R's columns
    std::vector<std::string> bases;   // quoted qualified base tables of the rules
    std::vector<Rule> rules;          // at most one of them recursive
    std::string definition;           // R as PostgreSQL evaluates it: WITH RECURSIVE ... SELECT
    bool fixed_width = false;         // every column of a fixed-width type
};

namespace dred {

// ENR names of the sets passed between the steps (each with __ivm_key).
inline constexpr const char* deleted_relation = "ivm_dred_deleted";
inline constexpr const char* rederived_relation = "ivm_dred_rederived";
inline constexpr const char* inserted_relation = "ivm_dred_inserted";

// Step 1: every tuple of R with a derivation through a deleted base row,
// found against the base tables' old state.  AsOfSnapshot: the tables as
// the query's snapshot (the one from before the statement) sees them.
// WithDeleted: where no such snapshot is kept (a deferred view's apply, a
// replicated transaction's commit), a changed table as it is now with its
// deleted rows: a superset of its old state, with the tuples found kept
// to those R holds.
enum class OldTables { AsOfSnapshot, WithDeleted };
std::string overdelete_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases,
                             OldTables old = OldTables::AsOfSnapshot);
// How step 2 checks the over-deleted tuples.
enum class Rederive {
    Lookups,     // tuple by tuple, index lookups through every rule (few tuples: the plan is kept)
    Planned,     // tuple by tuple, but a rule over base tables alone may be evaluated once and
                 // hashed instead, as the planner finds cheaper for this many tuples
    SetAtATime,  // each rule evaluated once and joined with them by key (a large part of R);
                 // without a key, as Planned
};
// Step 2, reads deleted_relation.
std::string rederive_query(const RecursiveRelation& r, Rederive how = Rederive::Lookups);
// Step 3, reads rederived_relation and deleted_relation.  `only_deletes`:
// the statement inserted no base rows, so R can only shrink: what the
// rederived tuples derive is followed only through over-deleted tuples.
std::string insert_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases, bool only_deletes = false);
// Step 4, reads deleted_relation and inserted_relation; returns (deleted, inserted).
// `deletes_at_once`: the tuples that go are deleted in one pass (a join with
// R); otherwise each is found through the key index.  `inserts_at_once`:
// the inserted tuples are checked against R in one pass (a hash anti-join);
// otherwise each is looked up through the key index.
// `only_deletes`: no base rows inserted, nothing new to insert into R.
std::string apply_statement(const RecursiveRelation& r, bool deletes_at_once = false, bool inserts_at_once = false,
                            bool only_deletes = false);
// Step 2 by backward/forward (core/backward_forward.hpp), where R's rules
// allow it (a recursive rule, a key, every column with an equality): of
// the over-deleted tuples, only those a deleted row derives and what the
// ones found gone derive are checked.  The queries return stored tuples of
// R as (__ivm_tid, __ivm_key, R's columns); $1..$n are one tuple's columns.
bool backward_forward_possible(const RecursiveRelation& r);
// Whether a deletion's over-deleted tuples factor: the recursive rule
// passes some of R's columns (P) through and derives the others (Q) without
// reading them, so along a chain P stays as it is and the Q reached do not
// depend on it.  Then every tuple a deletion can take has a seed's P and a Q
// that some seed's Q reaches (reach_query), found without over-deleting the
// tuples of every P: a bound backward/forward can check against.
bool deletions_factor(const RecursiveRelation& r);
// Which of R's columns the recursive rule passes through (P), by index.
std::vector<std::size_t> passed_columns(const RecursiveRelation& r);
// The Q columns that the seeds' Q values reach through the recursive rule
// over the tables before the statement (read with its snapshot; a seed's
// Q included), the P columns NULL: R's columns, with duplicates removed.
std::string reach_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases);
// The stored tuples with a one-step derivation through a deleted base row
// (as step 1 reads the old state).
std::string seeds_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases, OldTables old);
// The stored tuples the recursive rule derives the tuple from, now, and a
// row without a tid when a rule without R derives it.
std::string premises_query(const RecursiveRelation& r);
// The stored tuples the recursive rule derives from the tuple, now.
std::string consequences_query(const RecursiveRelation& r);
// The same for many tuples at once, given as one array per column ($1..$n):
// premises_batch_query's rows lead with the place of the tuple they are of
// (__ivm_i, from 1); consequences_batch_query's are of them all together.
std::string premises_batch_query(const RecursiveRelation& r);
std::string consequences_batch_query(const RecursiveRelation& r);
// R's stored rows at the tids $1 (tid[]): the tuples that go, kept as
// deleted_relation for steps 3 and 4 in place of the over-deleted ones.
std::string stored_at_query(const RecursiveRelation& r);

// Redefinition (the paper's section 6): R keeps its columns and its
// recursive rule, and rules without R are added or taken away.  R is not
// recomputed: what the removed rules derived is over-deleted through the
// old rules (step 1), rederived through the new ones (step 2, as for a
// change), and what the added rules derive is inserted (step 3); step 4
// applies it as for a change.
// Null where R cannot be redefined so: its columns, storage or recursive
// rule differ.  Rules are the same when they read the same tables the same
// way through the same template.
std::optional<RuleDifference> rule_difference(const RecursiveRelation& old_r, const RecursiveRelation& new_r);
// Step 1 of a redefinition, over the old relation: every tuple of R with a
// derivation through a removed rule, R and the tables as they are.
std::string overdelete_by_rules_query(const RecursiveRelation& old_r, const std::vector<std::size_t>& removed);
// Step 3 of a redefinition, over the new relation: semi-naively from the
// rederived tuples and from what the added rules derive (reads
// rederived_relation and deleted_relation).
std::string insert_by_rules_query(const RecursiveRelation& new_r, const std::vector<std::size_t>& added);

// Recomputing R, in two steps, so that the second is planned knowing the
// size of the first: R evaluated in full (with __ivm_key), kept as
// full_relation; then the statement making the storage equal to it, which
// returns (deleted, inserted).
inline constexpr const char* full_relation = "ivm_dred_full";
std::string full_query(const RecursiveRelation& r);
std::string replace_statement(const RecursiveRelation& r);

// Storage of R: its columns and a hash key; its indexes (the key, and one
// per column for the joins of the rules) come after the first fill
// (storage_index_ddl), one sort each instead of an insert per tuple.
std::string storage_ddl(const RecursiveRelation& r);
std::vector<std::string> storage_index_ddl(const RecursiveRelation& r);

// R evaluated now, its columns in the storage's order (without __ivm_key),
// and the statement that fills an empty storage of R with it.
std::string first_fill_query(const RecursiveRelation& r);
std::string first_fill_statement(const RecursiveRelation& r);

}  // namespace dred
}  // namespace ivm
