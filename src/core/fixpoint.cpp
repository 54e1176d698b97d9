#include "core/fixpoint.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "core/matching.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"

#include <functional>

namespace ivm::fixpoint {
namespace {

using tuples::Key;
using Binding = std::function<std::string(std::size_t)>;  // source k -> the query it reads

std::string item_tag(std::size_t item) { return std::to_string(item + 1); }

// Item i's columns under their stored names.
std::vector<Column> stored_columns_of(const Program& p, std::size_t item) {
    std::vector<Column> out = p.items.at(item).columns;
    for (std::size_t j = 0; j < out.size(); ++j) out[j].name = p.items[item].stored[j];
    return out;
}

// Item i's rows in `relation` (keeping those the condition accepts), under
// the item's own column names.
std::string item_rows(const Program& p, std::size_t item, const std::string& relation, const std::string& condition) {
    const ProgramItem& it = p.items.at(item);
    std::vector<std::string> cols;
    for (std::size_t j = 0; j < it.columns.size(); ++j)
        cols.push_back("__ivm_r." + it.stored[j] + " AS " + it.columns[j].name);
    const std::string rows = "SELECT " + sql::join(cols, ", ") + " FROM " + relation + " __ivm_r";
    return condition.empty() ? rows : rows + " WHERE " + condition;
}

std::string item_rows(const Program& p, std::size_t item, const std::string& relation) {
    return item_rows(p, item, relation, "__ivm_r.__ivm_item" + sql::op("=") + item_tag(item));
}

// Item i's rows in `relation`, the storage or a kept set holding only the
// rows of i's stratum; in a set, told from the stratum's other items' by
// "not theirs" (nothing where it has none).  PostgreSQL has no statistics
// for a kept set and takes "__ivm_item = i" to keep 0.5% of its rows; so
// misled, it joined a step's rows to the whole state in a nested loop, once
// per row (points-to: a step of 148 rows compared 6,000,000 pairs), where
// "<> j" it takes to keep 99.5%.
std::string stratum_rows(const Program& p, std::size_t item, const std::string& relation) {
    if (relation == p.storage) return item_rows(p, item, relation);
    std::vector<std::string> others;
    for (std::size_t j : p.strata.at(p.stratum_of(item)))
        if (j != item) others.push_back("__ivm_r.__ivm_item" + sql::op("<>") + item_tag(j));
    return item_rows(p, item, relation, sql::join(others, " AND "));
}

std::string base_rows(const Program& p, const ProgramSource& s, Change* change) {
    const std::string shown = s.view_storage ? " WHERE __ivm_r.__ivm_count" + sql::op(">") + "0" : "";
    std::string from = (s.only ? "ONLY " : "") + p.bases.at(s.index);
    if (change != nullptr)
        from = *change == Change::Deleted ? counting::old_rows_relation(s.index) : counting::new_rows_relation(s.index);
    return "SELECT __ivm_r.* FROM " + from + " __ivm_r" + shown;
}

// A term's output as rows of the storage (without the key).
std::string term(const Program& p, const ProgramRule& rule, const Binding& binding) {
    std::vector<std::string> ctes;
    for (std::size_t k = 0; k < rule.sources.size(); ++k)
        ctes.push_back("__ivm_src_" + std::to_string(k + 1) + " AS NOT MATERIALIZED (" + binding(k) + ")");
    for (std::size_t i : rule.other_items)
        ctes.push_back(p.items.at(i).reference + " AS NOT MATERIALIZED (" + item_rows(p, i, p.storage) + ")");
    std::vector<std::string> cols{item_tag(rule.item) + " AS __ivm_item"};
    for (std::size_t i = 0; i < p.items.size(); ++i)
        for (std::size_t j = 0; j < p.items[i].columns.size(); ++j) {
            const Column& c = p.items[i].columns[j];
            cols.push_back("(" + (i == rule.item ? "__ivm_q." + c.name : std::string("NULL")) + ")::" + c.type +
                           " AS " + p.items[i].stored[j]);
        }
    const std::string with = ctes.empty() ? "" : "WITH " + sql::join(ctes, ", ") + " ";
    return "SELECT " + sql::join(cols, ", ") + " FROM (" + with + rule.sql_template + ") __ivm_q";
}

bool in_stratum(const Program& p, const ProgramSource& s, std::size_t stratum) {
    return s.item && p.stratum_of(s.index) == stratum;
}

// Reads of a source other than the one being varied: base tables as they
// are, items of lower strata from the storage, the stratum's from `state`.
std::string plain_read(const Program& p, const ProgramSource& s, std::size_t stratum, const std::string& state) {
    if (!s.item) return base_rows(p, s, nullptr);
    return in_stratum(p, s, stratum) ? stratum_rows(p, s.index, state) : item_rows(p, s.index, p.storage);
}

// NOT EXISTS the row `row` (its key as `key` says) in `relation`;
// `one_by_one`: looked up through the relation's key index for each row
// (OFFSET 0 keeps PostgreSQL from making it an anti-join that reads the
// relation whole).
std::string absent_from(const Program& p, const std::string& relation, const std::string& row, Key key,
                        bool one_by_one) {
    return "NOT EXISTS (SELECT 1 FROM " + relation + " __ivm_x WHERE " +
           tuples::same(p.stored_columns(), "__ivm_x", Key::Stored, row, key) + (one_by_one ? " OFFSET 0" : "") + ")";
}

// The union of terms as rows with their key, without the excluded ones
// (`by_lookup`: each row looked up in the storage through its key index,
// where the storage is excluded, not the storage read whole).
std::string keyed(const Program& p, const std::vector<std::string>& terms, const std::vector<std::string>& excluded,
                  bool by_lookup = false) {
    const std::vector<Column> cols = p.stored_columns();
    // Each row once: UNION across the terms, DISTINCT within a lone one.
    const std::string rows = terms.size() == 1 ? "SELECT DISTINCT * FROM (" + terms[0] + ") __ivm_t"
                                               : sql::join(terms, " UNION ");
    std::string q = "SELECT __ivm_n.*, " + tuples::key(cols, "__ivm_n") + " AS __ivm_key FROM (" + rows + ") __ivm_n";
    std::vector<std::string> conditions;
    for (const std::string& x : excluded)
        conditions.push_back(absent_from(p, x, "__ivm_n", Key::Computed, by_lookup && x == p.storage));
    return conditions.empty() ? q : q + " WHERE " + sql::join(conditions, " AND ");
}

// For each rule of the stratum and each source `vary` accepts: the term
// with that source reading vary(source) and the others plain_read.
std::vector<std::string> varied_terms(const Program& p, std::size_t stratum, const std::string& state,
                                      const std::function<std::string(const ProgramSource&)>& vary) {
    std::vector<std::string> terms;
    for (const ProgramRule& rule : p.rules) {
        if (p.stratum_of(rule.item) != stratum) continue;
        for (std::size_t j = 0; j < rule.sources.size(); ++j) {
            const std::string varied = vary(rule.sources[j]);
            if (varied.empty()) continue;
            terms.push_back(term(p, rule, [&](std::size_t k) {
                return k == j ? varied : plain_read(p, rule.sources[k], stratum, state);
            }));
        }
    }
    return terms;
}

}  // namespace

std::string initial_query(const Program& p, std::size_t stratum) {
    std::vector<std::string> terms;
    for (const ProgramRule& rule : p.rules) {
        if (p.stratum_of(rule.item) != stratum) continue;
        bool recursive = false;
        for (const ProgramSource& s : rule.sources) recursive |= in_stratum(p, s, stratum);
        if (!recursive)
            terms.push_back(term(p, rule, [&](std::size_t k) { return plain_read(p, rule.sources[k], stratum, ""); }));
    }
    if (terms.empty()) throw Error(sqlstate::internal_error, "a stratum without a term that starts it");
    return keyed(p, terms, {});
}

std::string step_query(const Program& p, std::size_t stratum, const std::string& delta, const std::string& state,
                       const std::vector<std::string>& excluded, bool by_lookup) {
    std::vector<std::string> terms = varied_terms(p, stratum, state, [&](const ProgramSource& s) {
        return in_stratum(p, s, stratum) ? stratum_rows(p, s.index, delta) : std::string();
    });
    return terms.empty() ? std::string() : keyed(p, terms, excluded, by_lookup);
}

std::string seed_query(const Program& p, std::size_t stratum, const std::vector<bool>& changed_bases,
                       const std::vector<bool>& changed_items, Change change, const std::string& changed_items_rows,
                       const std::string& state, const std::vector<std::string>& excluded,
                       const std::vector<std::size_t>& whole_rules) {
    std::vector<std::string> terms = varied_terms(p, stratum, state, [&](const ProgramSource& s) {
        if (s.item)
            return !in_stratum(p, s, stratum) && changed_items.at(s.index) ? item_rows(p, s.index, changed_items_rows)
                                                                           : std::string();
        Change c = change;
        return changed_bases.at(s.index) ? base_rows(p, s, &c) : std::string();
    });
    for (std::size_t r : whole_rules) {
        const ProgramRule& rule = p.rules.at(r);
        terms.push_back(term(p, rule, [&](std::size_t k) { return plain_read(p, rule.sources[k], stratum, state); }));
    }
    return terms.empty() ? std::string() : keyed(p, terms, excluded);
}

namespace {

bool same_rule(const Program& a, const ProgramRule& x, const Program& b, const ProgramRule& y) {
    if (x.item != y.item || x.sql_template != y.sql_template || x.sources.size() != y.sources.size() ||
        x.other_items != y.other_items || x.other_bases.size() != y.other_bases.size())
        return false;
    for (std::size_t k = 0; k < x.sources.size(); ++k) {
        const ProgramSource &s = x.sources[k], &t = y.sources[k];
        if (s.item != t.item || s.only != t.only || s.view_storage != t.view_storage) return false;
        if (s.item ? s.index != t.index : a.bases.at(s.index) != b.bases.at(t.index)) return false;
    }
    for (std::size_t k = 0; k < x.other_bases.size(); ++k)
        if (a.bases.at(x.other_bases[k]) != b.bases.at(y.other_bases[k])) return false;
    return true;
}

// The rules of `a` that `b` lacks (each rule of b matching one of a's).
std::vector<std::size_t> rules_lacking(const Program& a, const Program& b) {
    return unmatched(a.rules.size(), b.rules.size(),
                     [&](std::size_t i, std::size_t j) { return same_rule(a, a.rules[i], b, b.rules[j]); });
}

}  // namespace

std::optional<RuleDifference> rule_difference(const Program& old_p, const Program& new_p) {
    if (old_p.items.size() != new_p.items.size() || old_p.strata != new_p.strata) return std::nullopt;
    for (std::size_t i = 0; i < old_p.items.size(); ++i) {
        const ProgramItem &a = old_p.items[i], &b = new_p.items[i];
        if (a.name != b.name || a.stored != b.stored || !keeps_serving(a.columns, b.columns)) return std::nullopt;
    }
    return RuleDifference{rules_lacking(old_p, new_p), rules_lacking(new_p, old_p)};
}

std::vector<std::size_t> rules_of(const Program& p, std::size_t stratum, const std::vector<std::size_t>& rules) {
    std::vector<std::size_t> out;
    for (std::size_t r : rules)
        if (p.stratum_of(p.rules.at(r).item) == stratum) out.push_back(r);
    return out;
}

bool reads_changed(const Program& p, std::size_t stratum, const std::vector<bool>& changed_bases,
                   const std::vector<bool>& changed_items, bool only_through_sources) {
    bool through_sources = false;
    for (const ProgramRule& rule : p.rules) {
        if (p.stratum_of(rule.item) != stratum) continue;
        for (const ProgramSource& s : rule.sources)
            through_sources |= s.item ? changed_items.at(s.index) : changed_bases.at(s.index);
        bool elsewhere = false;
        for (std::size_t b : rule.other_bases) elsewhere |= changed_bases.at(b);
        for (std::size_t i : rule.other_items) elsewhere |= changed_items.at(i);
        if (elsewhere) return !only_through_sources;
    }
    return through_sources;
}

std::string rederive_query(const Program& p, std::size_t stratum, const std::string& deleted) {
    std::vector<std::string> derivable;
    for (const ProgramRule& rule : p.rules) {
        if (p.stratum_of(rule.item) != stratum) continue;
        const std::string t = term(p, rule, [&](std::size_t k) { return plain_read(p, rule.sources[k], stratum, p.storage); });
        // Column by column, so that the equalities reach the term's indexes.
        derivable.push_back("(__ivm_d.__ivm_item" + sql::op("=") + item_tag(rule.item) + " AND EXISTS (SELECT 1 FROM (" +
                            t + ") __ivm_p WHERE " + tuples::equal(stored_columns_of(p, rule.item), "__ivm_p", "__ivm_d") +
                            "))");
    }
    return "SELECT __ivm_d.* FROM " + deleted + " __ivm_d WHERE " + sql::join(derivable, " OR ");
}

std::string rows_of(const Program& p, std::size_t stratum, const std::string& relation) {
    std::vector<std::string> tags;
    for (std::size_t i : p.strata.at(stratum)) tags.push_back(item_tag(i));
    return "SELECT __ivm_r.* FROM " + relation + " __ivm_r WHERE __ivm_r.__ivm_item IN (" + sql::join(tags, ", ") + ")";
}

std::string minus(const Program& p, const std::string& a, const std::string& b, bool one_by_one) {
    return "SELECT __ivm_a.* FROM " + a + " __ivm_a WHERE " + absent_from(p, b, "__ivm_a", Key::Stored, one_by_one);
}

std::string delete_statement(const Program& p, const std::string& relation, bool one_by_one) {
    return tuples::delete_stored(p.storage, p.stored_columns(), relation, one_by_one);
}

std::string insert_statement(const Program& p, const std::string& relation) {
    const std::vector<Column> cols = p.stored_columns();
    return "INSERT INTO " + p.storage + " (" + tuples::columns(cols, "") + ") SELECT " + tuples::columns(cols, "__ivm_i") +
           " FROM " + relation + " __ivm_i";
}

std::vector<std::string> storage_ddl(const Program& p) {
    const std::vector<Column> cols = p.stored_columns();
    std::vector<std::string> defs;
    for (const Column& c : cols) defs.push_back(c.name + " " + c.type + (c.not_null ? " NOT NULL" : ""));
    defs.push_back("__ivm_key bigint GENERATED ALWAYS AS (" + tuples::key(cols, "") + ") STORED");
    std::vector<std::string> ddl{"CREATE TABLE " + p.storage + " (" + sql::join(defs, ", ") + ")",
                                 tuples::key_index_ddl(p.storage)};
    for (std::size_t i = 0; i < p.items.size(); ++i)
        for (const std::string& c : p.items[i].stored)
            ddl.push_back("CREATE INDEX ON " + p.storage + " (" + c + ") WHERE __ivm_item" + sql::op("=") + item_tag(i));
    return ddl;
}

}  // namespace ivm::fixpoint
