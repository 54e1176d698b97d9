#include "core/dred.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "core/matching.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"

namespace ivm {

bool Rule::recursive() const {
    for (const RuleSource& s : sources)
        if (s.recursive) return true;
    return false;
}

namespace dred {
namespace {

using tuples::Key;


// What an occurrence reads in one term.
enum class Read {
    Table,       // the base table (as of the snapshot the query runs with)
    WithDeleted, // the base table and its OLD transition rows: at least its old state
    Deleted,     // the base table's OLD transition rows
    Inserted,    // the base table's NEW transition rows
    Stored,      // R as stored
    Known,       // R as stored, minus the over-deleted tuples
    Itself,      // the recursive CTE being computed (no binding)
    WithTid,     // R as stored, with where each tuple is stored (__ivm_tid)
    Given,       // the one tuple of parameters $1..$n
    GivenInBatch, // the one tuple __ivm_b of a lookup of many (given_rows)
};

const Rule* recursive_rule(const RecursiveRelation& r) {
    for (const Rule& rule : r.rules)
        if (rule.recursive()) return &rule;
    return nullptr;
}

std::string recursive_name(const RecursiveRelation& r) {
    const Rule* rule = recursive_rule(r);
    if (rule != nullptr)
        for (std::size_t k = 0; k < rule->sources.size(); ++k)
            if (rule->sources[k].recursive) return source_placeholder(k);
    return "__ivm_rec";
}

std::string not_deleted(const RecursiveRelation& r, const std::string& q) {
    return "NOT EXISTS (SELECT 1 FROM " + std::string(deleted_relation) + " __ivm_x WHERE " +
           tuples::same(r.columns, "__ivm_x", Key::Stored, q, Key::Computed) + ")";
}

// The one tuple of parameters $1..$n, as R's columns; in a lookup of many
// (`batch`), the tuple of __ivm_b, a row of given_rows that the lookup
// follows laterally.
std::string given_row(const RecursiveRelation& r, bool batch = false) {
    std::vector<std::string> values;
    for (std::size_t i = 0; i < r.columns.size(); ++i)
        values.push_back((batch ? "__ivm_b." + r.columns[i].name : "$" + std::to_string(i + 1) + "::" + r.columns[i].type) +
                         " AS " + r.columns[i].name);
    return "SELECT " + sql::join(values, ", ");
}

std::string binding(const RecursiveRelation& r, const RuleSource& s, Read read) {
    const std::string all = "SELECT __ivm_r.* FROM ";
    const std::string shown = s.view_storage ? " WHERE __ivm_r.__ivm_count" + sql::op(">") + "0" : "";
    switch (read) {
        case Read::Table: return all + (s.only ? "ONLY " : "") + r.bases.at(s.base) + " __ivm_r" + shown;
        case Read::WithDeleted:
            return binding(r, s, Read::Table) + " UNION ALL " + binding(r, s, Read::Deleted);
        case Read::Deleted: return all + counting::old_rows_relation(s.base) + " __ivm_r" + shown;
        case Read::Inserted: return all + counting::new_rows_relation(s.base) + " __ivm_r" + shown;
        case Read::Stored:
            return "SELECT " + tuples::columns(r.columns, "__ivm_r") + " FROM " + r.storage + " __ivm_r";
        case Read::Known:
            return "SELECT " + tuples::columns(r.columns, "__ivm_r") + " FROM " + r.storage +
                   " __ivm_r WHERE " + not_deleted(r, "__ivm_r");
        case Read::WithTid:
            return "SELECT __ivm_r.*, __ivm_r.ctid AS __ivm_tid FROM " + r.storage + " __ivm_r";
        case Read::Given: return given_row(r);
        case Read::GivenInBatch: return given_row(r, true);
        case Read::Itself: break;
    }
    throw Error(sqlstate::internal_error, "no binding for the recursive reference");
}

// The rule's template (`spj`: the rule's spj_template or premise_template)
// with each occurrence bound as `reads` says.
std::string bound(const RecursiveRelation& r, const Rule& rule, const std::vector<Read>& reads, const std::string& spj) {
    std::vector<std::string> ctes;
    for (std::size_t k = 0; k < rule.sources.size(); ++k)
        if (reads[k] != Read::Itself)
            ctes.push_back(source_placeholder(k) + " AS (" + binding(r, rule.sources[k], reads[k]) + ")");
    const std::string with = ctes.empty() ? "" : "WITH " + sql::join(ctes, ", ") + " ";
    return with + spj;
}

// One rule with each occurrence bound as `reads` says, as a query that
// returns R's columns.
std::string term(const RecursiveRelation& r, const Rule& rule, const std::vector<Read>& reads) {
    return "SELECT " + tuples::columns(r.columns, "__ivm_q") + " FROM (" + bound(r, rule, reads, rule.spj_template) +
           ") __ivm_q";
}

// What an occurrence of a base table reads outside the changed one: the
// table, or where `tables` is WithDeleted and the base changed, the table
// with its deleted rows.
Read unchanged_read(const RuleSource& s, const std::vector<bool>& changed_bases, Read tables) {
    return tables == Read::WithDeleted && changed_bases.at(s.base) ? Read::WithDeleted : Read::Table;
}

// The terms where at least one occurrence of a changed base reads `changed`
// and every other occurrence reads its table (as `tables` says), R reading
// `recursive`.
std::vector<std::string> seed_terms(const RecursiveRelation& r, const std::vector<bool>& changed_bases,
                                    Read changed, Read recursive, Read tables = Read::Table) {
    std::vector<std::string> terms;
    for (const Rule& rule : r.rules) {
        for (std::size_t j = 0; j < rule.sources.size(); ++j) {
            const RuleSource& s = rule.sources[j];
            if (s.recursive || !changed_bases.at(s.base)) continue;
            std::vector<Read> reads;
            for (std::size_t k = 0; k < rule.sources.size(); ++k) {
                const RuleSource& o = rule.sources[k];
                reads.push_back(o.recursive ? recursive : k == j ? changed : unchanged_read(o, changed_bases, tables));
            }
            terms.push_back(term(r, rule, reads));
        }
    }
    return terms;
}

std::string self_term(const RecursiveRelation& r, const std::vector<bool>& changed_bases = {},
                      Read tables = Read::Table) {
    const Rule* rule = recursive_rule(r);
    std::vector<Read> reads;
    for (const RuleSource& s : rule->sources)
        reads.push_back(s.recursive ? Read::Itself : unchanged_read(s, changed_bases, tables));
    return term(r, *rule, reads);
}

// `key` among the over-deleted tuples' keys.
std::string key_over_deleted(const std::string& key) {
    return key + " IN (SELECT __ivm_x.__ivm_key FROM " + std::string(deleted_relation) + " __ivm_x)";
}

// Not already in R (as stored, minus the over-deleted tuples).
// The over-deleted tuples are matched by key alone, a set the planner can
// hash (under OR it cannot anti-join them; a correlated lookup scans them
// for every candidate).  A key shared by a tuple still in R only makes it
// derived again: the apply step inserts nothing stored.  The hashed
// over-deleted keys are asked first (PostgreSQL evaluates an OR's arms in
// order): the thousands of over-deleted tuples a heavy delete derives
// again then skip their probe of R.  Without a key the over-deleted set is
// scanned for each tuple, after R.
std::string unknown(const RecursiveRelation& r, const std::string& q) {
    const std::string key = tuples::key(r.columns, q);
    const std::string not_in_r = "NOT EXISTS (SELECT 1 FROM " + r.storage + " __ivm_k WHERE " +
                                 tuples::same(r.columns, "__ivm_k", Key::Stored, q, Key::Computed) + ")";
    if (key.empty()) return "(" + not_in_r + " OR NOT " + not_deleted(r, q) + ")";
    return "(" + key_over_deleted(key) + " OR " + not_in_r + ")";
}

// Possibly over-deleted: when R can only shrink, a derived tuple that was
// not over-deleted is in R already, and so is all it derives.  By key alone
// (a hashed set): a tuple sharing a key with an over-deleted one is in R
// as it is now, and only followed further.  IS TRUE keeps it a hashed
// subplan: a bare IN becomes a semi-join, which the plans kept for few
// seeds (no hash joins) evaluate as a nested loop over the set.
std::string over_deleted(const RecursiveRelation& r, const std::string& q) {
    const std::string key = tuples::key(r.columns, q);
    if (key.empty()) return "NOT " + not_deleted(r, q);
    return "(" + key_over_deleted(key) + ") IS TRUE";
}

// A recursive CTE named after R's placeholder in the recursive rule, so the
// rule's template reads the CTE itself; with the key of each tuple.
std::string fixpoint(const RecursiveRelation& r, const std::string& seeds, const std::string& step) {
    const std::string name = recursive_name(r);
    std::string body = seeds;
    if (!step.empty()) body += " UNION " + step;
    std::string key = tuples::key(r.columns, "");
    return "WITH RECURSIVE " + name + "(" + tuples::columns(r.columns, "") + ") AS (" + body +
           ") SELECT " + tuples::columns(r.columns, "") + (key.empty() ? "" : ", " + key + " AS __ivm_key") +
           " FROM " + name;
}

std::string with_key(const RecursiveRelation& r, const std::string& q) {
    std::string key = tuples::key(r.columns, q);
    return key.empty() ? "" : ", " + key + " AS __ivm_key";
}

// What an occurrence of a changed base reads outside the deleted rows.
Read old_tables(OldTables old) { return old == OldTables::WithDeleted ? Read::WithDeleted : Read::Table; }

// The terms deriving a tuple of R in one step from a deleted base row and R
// as stored: step 1's seeds.
std::vector<std::string> deletion_seeds(const RecursiveRelation& r, const std::vector<bool>& changed_bases,
                                        OldTables old) {
    std::vector<std::string> seeds = seed_terms(r, changed_bases, Read::Deleted, Read::Stored, old_tables(old));
    if (seeds.empty()) throw Error(sqlstate::internal_error, "over-delete without a changed base");
    return seeds;
}

}  // namespace

std::string overdelete_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases, OldTables old) {
    const Read tables = old_tables(old);
    std::vector<std::string> seeds = deletion_seeds(r, changed_bases, old);
    std::string step = recursive_rule(r) ? self_term(r, changed_bases, tables) : "";
    if (old == OldTables::WithDeleted) {
        // The inserted rows derive tuples R may not hold: kept out, as the
        // steps after count every over-deleted tuple as one of R's.  Every
        // derivation R's tuples had through a deleted row runs through R's
        // tuples alone.
        auto in_r = [&](const std::string& t) {
            return "SELECT " + tuples::columns(r.columns, "__ivm_s") + " FROM (" + t + ") __ivm_s WHERE EXISTS (SELECT 1 FROM " +
                   r.storage + " __ivm_k WHERE " +
                   tuples::same(r.columns, "__ivm_k", Key::Stored, "__ivm_s", Key::Computed) + ")";
        };
        for (std::string& seed : seeds) seed = in_r(seed);
        if (!step.empty()) step = in_r(step);
    }
    return fixpoint(r, sql::join(seeds, " UNION "), step);
}

std::string rederive_query(const RecursiveRelation& r, Rederive how) {
    const std::string selected = "SELECT " + tuples::columns(r.columns, "__ivm_d") + with_key(r, "__ivm_d") + " FROM " +
                                 deleted_relation + " __ivm_d WHERE ";
    const bool set_at_a_time = how == Rederive::SetAtATime && !tuples::key(r.columns, "").empty();
    std::vector<std::string> derivable;
    for (const Rule& rule : r.rules) {
        std::vector<Read> reads;
        for (const RuleSource& s : rule.sources) reads.push_back(s.recursive ? Read::Known : Read::Table);
        const std::string terms = "EXISTS (SELECT 1 FROM (" + term(r, rule, reads) + ") __ivm_p WHERE ";
        if (set_at_a_time) {
            // By the key: a semi-join the planner can hash, each rule once.
            derivable.push_back(selected + terms + tuples::same(r.columns, "__ivm_d", Key::Stored, "__ivm_p", Key::Computed) + ")");
            continue;
        }
        // Column by column, so the equalities reach the rule's indexes.
        // OFFSET 0 keeps the planner from evaluating the rule once and
        // hashing it instead: for the recursive rule that joins all of R,
        // and a kept plan made for a few tuples would do it for many.  A
        // rule over base tables alone is otherwise left to the planner, which
        // may hash the table once instead of probing it per tuple
        // (docs/benchmarks.md, "Measurements behind design decisions").
        const bool fenced = how == Rederive::Lookups || rule.recursive();
        derivable.push_back(terms + tuples::equal(r.columns, "__ivm_p", "__ivm_d") + (fenced ? " OFFSET 0)" : ")"));
    }
    if (set_at_a_time) return sql::join(derivable, " UNION ");
    return selected + sql::join(derivable, " OR ");
}

namespace {

// Step 3: semi-naively from the rederived tuples and the tuples `derived`
// (terms with R's columns) yields that R lacks.
std::string insertion(const RecursiveRelation& r, const std::vector<std::string>& derived, bool only_deletes) {
    std::vector<std::string> seeds{"SELECT " + tuples::columns(r.columns, "") + " FROM " + rederived_relation};
    for (const std::string& t : derived)
        seeds.push_back("SELECT " + tuples::columns(r.columns, "__ivm_s") + " FROM (" + t + ") __ivm_s WHERE " +
                        unknown(r, "__ivm_s"));
    std::string step;
    if (recursive_rule(r) != nullptr)
        step = "SELECT " + tuples::columns(r.columns, "__ivm_s") + " FROM (" + self_term(r) + ") __ivm_s WHERE " +
               (only_deletes ? over_deleted(r, "__ivm_s") : unknown(r, "__ivm_s"));
    return fixpoint(r, sql::join(seeds, " UNION "), step);
}

// The rules' terms, their tables read as they are and R as `recursive`.
std::vector<std::string> rule_terms(const RecursiveRelation& r, const std::vector<std::size_t>& rules, Read recursive) {
    std::vector<std::string> terms;
    for (std::size_t i : rules) {
        const Rule& rule = r.rules.at(i);
        std::vector<Read> reads;
        for (const RuleSource& s : rule.sources) reads.push_back(s.recursive ? recursive : Read::Table);
        terms.push_back(term(r, rule, reads));
    }
    return terms;
}

bool same_source(const RecursiveRelation& a, const RuleSource& x, const RecursiveRelation& b, const RuleSource& y) {
    return x.recursive == y.recursive && x.only == y.only && x.view_storage == y.view_storage &&
           (x.recursive || a.bases.at(x.base) == b.bases.at(y.base));
}

bool same_rule(const RecursiveRelation& a, const Rule& x, const RecursiveRelation& b, const Rule& y) {
    if (x.spj_template != y.spj_template || x.premise_template != y.premise_template ||
        x.sources.size() != y.sources.size())
        return false;
    for (std::size_t k = 0; k < x.sources.size(); ++k)
        if (!same_source(a, x.sources[k], b, y.sources[k])) return false;
    return true;
}

// The rules of `a` that `b` lacks (each rule of b matching one of a's).
std::vector<std::size_t> rules_lacking(const RecursiveRelation& a, const RecursiveRelation& b) {
    return unmatched(a.rules.size(), b.rules.size(),
                     [&](std::size_t i, std::size_t j) { return same_rule(a, a.rules[i], b, b.rules[j]); });
}

}  // namespace

std::string insert_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases, bool only_deletes) {
    return insertion(r, only_deletes ? std::vector<std::string>{} : seed_terms(r, changed_bases, Read::Inserted, Read::Known),
                     only_deletes);
}

std::optional<RuleDifference> rule_difference(const RecursiveRelation& old_r, const RecursiveRelation& new_r) {
    if (old_r.storage != new_r.storage || old_r.fixed_width != new_r.fixed_width ||
        !keeps_serving(old_r.columns, new_r.columns))
        return std::nullopt;
    RuleDifference d{rules_lacking(old_r, new_r), rules_lacking(new_r, old_r)};
    // (the recursive rule is the same in both, or R is recomputed)
    for (std::size_t i : d.removed)
        if (old_r.rules[i].recursive()) return std::nullopt;
    for (std::size_t i : d.added)
        if (new_r.rules[i].recursive()) return std::nullopt;
    return d;
}

std::string overdelete_by_rules_query(const RecursiveRelation& old_r, const std::vector<std::size_t>& removed) {
    if (removed.empty()) throw Error(sqlstate::internal_error, "over-delete without a removed rule");
    return fixpoint(old_r, sql::join(rule_terms(old_r, removed, Read::Stored), " UNION "),
                    recursive_rule(old_r) ? self_term(old_r) : "");
}

std::string insert_by_rules_query(const RecursiveRelation& new_r, const std::vector<std::size_t>& added) {
    return insertion(new_r, rule_terms(new_r, added, Read::Known), false);
}

std::string apply_statement(const RecursiveRelation& r, bool deletes_at_once, bool inserts_at_once, bool only_deletes) {
    const std::string cols = tuples::columns(r.columns, "");
    // What goes is computed between the two sets first, where the planner
    // knows their sizes (a hash anti-join on the key), then deleted: one by
    // one unless the sets are a large part of R.
    const std::string gone = "WITH __ivm_g AS MATERIALIZED (SELECT __ivm_d.* FROM " + std::string(deleted_relation) +
                             " __ivm_d WHERE NOT EXISTS (SELECT 1 FROM " + inserted_relation + " __ivm_i WHERE " +
                             tuples::same(r.columns, "__ivm_i", Key::Stored, "__ivm_d", Key::Stored) +
                             ")), __ivm_gone AS (" +
                             tuples::delete_stored(r.storage, r.columns, "__ivm_g", !deletes_at_once) + " RETURNING 1)";
    if (only_deletes) return gone + " SELECT (SELECT pg_catalog.count(*) FROM __ivm_gone), 0::bigint";
    return gone + ", __ivm_added AS (INSERT INTO " + r.storage + " (" + cols + ") SELECT " +
           tuples::columns(r.columns, "__ivm_i") + " FROM (SELECT __ivm_n.* FROM " + inserted_relation +
           // An over-deleted tuple found again stays in R: only the others are
           // looked up (an edge with another path re-derives thousands), after
           // the anti-join (OFFSET 0: else the lookup filters the scan below it).
           " __ivm_n WHERE NOT EXISTS (SELECT 1 FROM " + deleted_relation + " __ivm_d WHERE " +
           tuples::same(r.columns, "__ivm_d", Key::Stored, "__ivm_n", Key::Stored) + ")" +
           (inserts_at_once ? "" : " OFFSET 0") + ") __ivm_i WHERE NOT EXISTS (SELECT 1 FROM " + r.storage + " __ivm_t WHERE " +
           tuples::same(r.columns, "__ivm_t", Key::Stored, "__ivm_i", Key::Stored) +
           // OFFSET 0: no anti-join, which the planner would rather hash all of R for
           (inserts_at_once ? "" : " OFFSET 0") + ") RETURNING 1) SELECT (SELECT pg_catalog.count(*) FROM __ivm_gone), "
           "(SELECT pg_catalog.count(*) FROM __ivm_added)";
}

bool backward_forward_possible(const RecursiveRelation& r) {
    const Rule* rule = recursive_rule(r);
    if (rule == nullptr || rule->premise_template.empty() || tuples::key(r.columns, "").empty()) return false;
    for (const Column& c : r.columns)
        if (c.image) return false;
    return true;
}

namespace {

// `q`'s tuples (a query with R's columns) that equal the parameters' tuple
// ($1..$n), NULL matching NULL; the parameters' row is pulled up into the
// query, so the equalities reach the indexes as those with constants do.
std::string given_among(const RecursiveRelation& r, const std::string& select, const std::string& q, bool batch = false) {
    return select + " FROM (" + q + ") __ivm_q, (" + given_row(r, batch) + ") __ivm_g WHERE " +
           tuples::equal(r.columns, "__ivm_q", "__ivm_g");
}

// The stored tuples among `tuples`' (a query with R's columns), as
// (__ivm_tid, R's columns).
std::string stored_among(const RecursiveRelation& r, const std::string& tuples) {
    return "SELECT __ivm_k.ctid AS __ivm_tid, __ivm_k.__ivm_key, " + tuples::columns(r.columns, "__ivm_k") + " FROM (" + tuples + ") __ivm_s JOIN " +
           r.storage + " __ivm_k ON " + tuples::same(r.columns, "__ivm_k", Key::Stored, "__ivm_s", Key::Computed);
}

}  // namespace

bool deletions_factor(const RecursiveRelation& r) {
    const Rule* rule = recursive_rule(r);
    if (rule == nullptr || rule->passes_through.size() != r.columns.size()) return false;
    std::size_t passed = 0;
    for (std::size_t i = 0; i < r.columns.size(); ++i) {
        if (!r.columns[i].hashable || r.columns[i].image) return false;
        passed += rule->passes_through[i] ? 1 : 0;
    }
    return passed > 0 && passed < r.columns.size();
}

std::vector<std::size_t> passed_columns(const RecursiveRelation& r) {
    std::vector<std::size_t> passed;
    const Rule* rule = recursive_rule(r);
    for (std::size_t i = 0; rule != nullptr && i < rule->passes_through.size(); ++i)
        if (rule->passes_through[i]) passed.push_back(i);
    return passed;
}

std::string reach_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases) {
    const Rule* rule = recursive_rule(r);
    std::vector<std::string> start;
    for (std::size_t i = 0; i < r.columns.size(); ++i)
        start.push_back(rule->passes_through.at(i) ? "NULL::" + r.columns[i].type + " AS " + r.columns[i].name
                                                   : "__ivm_s." + r.columns[i].name);
    const std::string seeds = "SELECT " + sql::join(start, ", ") + " FROM (" +
                              sql::join(deletion_seeds(r, changed_bases, OldTables::AsOfSnapshot), " UNION ") +
                              ") __ivm_s";
    const std::string name = recursive_name(r);
    const std::string cols = tuples::columns(r.columns, "");
    return "WITH RECURSIVE " + name + "(" + cols + ") AS (" + seeds + " UNION " + self_term(r, changed_bases) +
           ") SELECT " + cols + " FROM " + name;
}

std::string seeds_query(const RecursiveRelation& r, const std::vector<bool>& changed_bases, OldTables old) {
    return stored_among(r, sql::join(deletion_seeds(r, changed_bases, old), " UNION "));
}

namespace {

// A tuple's premises (see premises_query), the tuple given as parameters
// or, in a lookup of many, as __ivm_b.
std::string premises_of(const RecursiveRelation& r, bool batch) {
    // A row without a tid when a rule without R derives the tuple.
    std::vector<std::string> derived;
    for (const Rule& rule : r.rules) {
        if (rule.recursive()) continue;
        std::vector<Read> reads(rule.sources.size(), Read::Table);
        derived.push_back("EXISTS (" + given_among(r, "SELECT 1", term(r, rule, reads), batch) + ")");
    }
    std::vector<std::string> root{"NULL::pg_catalog.tid AS __ivm_tid", "NULL::bigint AS __ivm_key"};
    for (const Column& c : r.columns) root.push_back("NULL::" + c.type + " AS " + c.name);
    const Rule& rule = *recursive_rule(r);
    std::vector<Read> reads;
    for (const RuleSource& s : rule.sources) reads.push_back(s.recursive ? Read::WithTid : Read::Table);
    std::vector<std::string> premise{"__ivm_q.__ivm_tid", "__ivm_q.__ivm_key"};
    for (std::size_t i = 0; i < r.columns.size(); ++i)
        premise.push_back("__ivm_q.__ivm_p" + std::to_string(i + 1) + " AS " + r.columns[i].name);
    return "SELECT " + sql::join(root, ", ") + " WHERE " + (derived.empty() ? std::string("false") : sql::join(derived, " OR ")) +
           " UNION ALL " +
           given_among(r, "SELECT " + sql::join(premise, ", "), bound(r, rule, reads, rule.premise_template), batch);
}

std::string consequences_of(const RecursiveRelation& r, bool batch) {
    const Rule& rule = *recursive_rule(r);
    std::vector<Read> reads;
    for (const RuleSource& s : rule.sources)
        reads.push_back(!s.recursive ? Read::Table : batch ? Read::GivenInBatch : Read::Given);
    return stored_among(r, term(r, rule, reads));
}

// The tuples of a lookup of many, one array of values per column
// ($1..$n), each followed laterally by `lookup` (which reads it as __ivm_b);
// `numbered`: its rows lead with the place of the tuple (__ivm_i, from 1).
// Lateral, so that each tuple's values reach the indexes as a single
// lookup's parameters do: joined with the rule's subquery instead, the
// planner would evaluate the rule in full.
std::string for_each_given(const RecursiveRelation& r, const std::string& lookup, bool numbered) {
    std::vector<std::string> arrays, names;
    for (std::size_t i = 0; i < r.columns.size(); ++i) {
        arrays.push_back("pg_catalog.unnest($" + std::to_string(i + 1) + ")");
        names.push_back(r.columns[i].name);
    }
    names.push_back("__ivm_i");
    return std::string("SELECT ") + (numbered ? "__ivm_b.__ivm_i, " : "") + "__ivm_x.* FROM ROWS FROM (" +
           sql::join(arrays, ", ") + ") WITH ORDINALITY AS __ivm_b(" + sql::join(names, ", ") +
           ") CROSS JOIN LATERAL (" + lookup + ") __ivm_x";
}

}  // namespace

std::string premises_query(const RecursiveRelation& r) { return premises_of(r, false); }

std::string consequences_query(const RecursiveRelation& r) { return consequences_of(r, false); }

std::string premises_batch_query(const RecursiveRelation& r) { return for_each_given(r, premises_of(r, true), true); }

std::string consequences_batch_query(const RecursiveRelation& r) {
    return for_each_given(r, consequences_of(r, true), false);
}

std::string stored_at_query(const RecursiveRelation& r) {
    return "SELECT __ivm_k.* FROM " + r.storage + " __ivm_k WHERE __ivm_k.ctid" + sql::op("=") + "ANY ($1)";
}

std::string full_query(const RecursiveRelation& r) {
    return "SELECT " + tuples::columns(r.columns, "__ivm_f") + with_key(r, "__ivm_f") + " FROM (" + r.definition +
           ") __ivm_f";
}

namespace {

// Deletes from the storage what `full` (a relation or CTE with R's columns
// and key) lacks, inserts what it has more.
std::string replace_from(const RecursiveRelation& r, const std::string& prefix, const std::string& full) {
    const std::string cols = tuples::columns(r.columns, "");
    return prefix + "__ivm_gone AS (DELETE FROM " + r.storage + " __ivm_t WHERE NOT EXISTS (SELECT 1 FROM " + full +
           " __ivm_full WHERE " + tuples::same(r.columns, "__ivm_full", Key::Stored, "__ivm_t", Key::Stored) +
           ") RETURNING 1), __ivm_added AS (INSERT INTO " + r.storage + " (" + cols + ") SELECT " +
           tuples::columns(r.columns, "__ivm_full") + " FROM " + full + " __ivm_full WHERE NOT EXISTS (SELECT 1 FROM " +
           r.storage + " __ivm_t WHERE " + tuples::same(r.columns, "__ivm_t", Key::Stored, "__ivm_full", Key::Stored) +
           ") RETURNING 1) SELECT (SELECT pg_catalog.count(*) FROM __ivm_gone), "
           "(SELECT pg_catalog.count(*) FROM __ivm_added)";
}

}  // namespace

std::string replace_statement(const RecursiveRelation& r) { return replace_from(r, "WITH ", full_relation); }

std::string storage_ddl(const RecursiveRelation& r) {
    std::vector<std::string> defs;
    for (const Column& c : r.columns) defs.push_back(c.name + " " + c.type);
    const std::string key = tuples::key(r.columns, "");
    if (!key.empty()) defs.push_back("__ivm_key bigint GENERATED ALWAYS AS (" + key + ") STORED");
    return "CREATE TABLE " + r.storage + " (" + sql::join(defs, ", ") + ")";
}

std::string first_fill_query(const RecursiveRelation& r) {
    return "SELECT " + tuples::columns(r.columns, "__ivm_f") + " FROM (" + r.definition + ") __ivm_f";
}

std::string first_fill_statement(const RecursiveRelation& r) {
    return "INSERT INTO " + r.storage + " (" + tuples::columns(r.columns, "") + ") " + first_fill_query(r);
}

std::vector<std::string> storage_index_ddl(const RecursiveRelation& r) {
    std::vector<std::string> ddl;
    if (!tuples::key(r.columns, "").empty()) ddl.push_back(tuples::key_index_ddl(r.storage));
    // An index per column serves the rules' joins.  Where the entries stay
    // small, the first one covers every column, so that rederivation's
    // check of a tuple built from two known values is one probe (the
    // planner cannot use __ivm_key for a tuple the join builds).
    std::size_t first = 0;
    if (r.fixed_width && r.columns.size() > 1) {
        ddl.push_back("CREATE INDEX ON " + r.storage + " (" + tuples::columns(r.columns, "") + ")");
        first = 1;
    }
    for (std::size_t i = first; i < r.columns.size(); ++i)
        ddl.push_back("CREATE INDEX ON " + r.storage + " (" + r.columns[i].name + ")");
    return ddl;
}

}  // namespace dred
}  // namespace ivm
