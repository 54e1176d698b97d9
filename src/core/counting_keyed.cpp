// Counting, the fast paths: a keyed view's change written without
// lookups, and a lookup table's update moving its tuples in place.
#include "core/counting.hpp"
#include "core/counting_shared.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/tuples.hpp"

namespace ivm::counting {

bool keyed_change(const CountingView& view, std::size_t base) {
    if (view.blocks.size() != 1 || std::none_of(view.keying.begin(), view.keying.end(), [](bool k) { return k; }))
        return false;
    const std::vector<Source>& sources = view.blocks.front().sources;
    return std::count_if(sources.begin(), sources.end(), [&](const Source& s) { return s.base == base; }) == 1;
}

std::string keyed_delta_query(const CountingView& view, std::size_t base) {
    if (!keyed_change(view, base)) throw Error(sqlstate::internal_error, "keyed delta of a view not keyed");
    const Block& block = view.blocks.front();
    std::vector<State> states = all_now(block);
    for (std::size_t k = 0; k < block.sources.size(); ++k)
        if (block.sources[k].base == base) states[k] = State::Delta;
    return term_query(view, block, states);
}

std::string keyed_insert_query(const CountingView& view, const std::string& delta) {
    const std::string key = key_value(view, "__ivm_d", tuples::Key::Carried);
    return "SELECT " + output_columns(view, "") + ", 1::bigint AS __ivm_count" + (key.empty() ? "" : key + " AS __ivm_key") +
           " FROM (" + tuples::carry_key(view.columns, delta) + ") __ivm_d WHERE __ivm_d.__ivm_cnt" + sql::op(">") + "0" +
           (key.empty() ? "" : " ORDER BY __ivm_d.__ivm_h");
}

std::string keyed_merge_statement(const CountingView& view, const std::string& delta, KeyedRows rows, Lookup lookup) {
    const std::string cols = output_columns(view, "");
    const std::string gt0 = sql::op(">") + "0";
    // Inserted tuples each count 1 (a product of 1s: a keyed view reads
    // tables), straight from the delta into the storage, in the key
    // index's order (which pays for the sort).
    if (rows == KeyedRows::Inserted)
        return "INSERT INTO " + view.storage + " (" + cols + ", __ivm_count" + key_target(view) + ") " +
               keyed_insert_query(view, delta);
    // Each deleted tuple is stored once with count 1, and is deleted where
    // it is found, one key index lookup each, in the key index's order (or
    // by one join, for a large part of the storage); a
    // tuple not found so (or found twice, or stored with another count) is
    // a storage out of step with its base tables.  The count is checked on
    // what was deleted, not in the join: an unanalyzed storage's guess that
    // few tuples have count 1 made the join a nested loop over all of them
    // (docs/benchmarks.md, "Measurements behind design decisions").
    // Inserted tuples need no lookup: the key a deleted tuple leaves free
    // is the only stored one an inserted tuple can show.
    const bool inserts = rows == KeyedRows::Both;
    const std::string count = "pg_catalog.count(*) FILTER (WHERE __ivm_d.__ivm_cnt";
    // (A hash join's deletes go in the delta's order whatever it is, and
    // without inserts nothing gains from sorting it.)
    const bool sorted = inserts || lookup == Lookup::PerTuple;
    return "WITH __ivm_d AS MATERIALIZED (" + tuples::carry_key(view.columns, delta, sorted) + "), __ivm_del AS (DELETE FROM " +
           view.storage + " __ivm_s USING __ivm_d WHERE __ivm_d.__ivm_cnt" + sql::op("<") + "0 AND " +
           (lookup == Lookup::PerTuple
                ? tuples::looked_up(view.columns, "__ivm_s", "__ivm_d", tuples::Key::Carried)
                : tuples::same(view.columns, "__ivm_s", tuples::Key::Stored, "__ivm_d", tuples::Key::Carried)) +
           " RETURNING __ivm_s.__ivm_count)" +
           (inserts ? ", __ivm_ins AS (INSERT INTO " + view.storage + " (" + cols + ", __ivm_count" + key_target(view) +
                          ") SELECT " + cols + ", 1::bigint" + key_value(view, "__ivm_d", tuples::Key::Carried) +
                          " FROM __ivm_d WHERE __ivm_d.__ivm_cnt" + gt0 + ")"
                    : "") +
           " " +
           report_select({"__ivm_n.came", "__ivm_n.went", "__ivm_n.came", "__ivm_n.deleted",
                          "pg_catalog.abs(__ivm_n.went" + sql::op("-") + "__ivm_n.deleted)" + sql::op("+") +
                              "__ivm_n.miscounted",
                          ""}) +
           " FROM (SELECT " +
           (inserts ? count + gt0 + ")" : std::string("0::bigint")) + " AS came, " + count + sql::op("<") +
           "0) AS went, (SELECT pg_catalog.count(*) FROM __ivm_del) AS deleted, (SELECT pg_catalog.count(*) FROM "
           "__ivm_del WHERE __ivm_del.__ivm_count" + sql::op("<>") + "1) AS miscounted "
           "FROM __ivm_d OFFSET 0) __ivm_n";  // each counted once
}

namespace {

using LookupBase = CountingView::Lookup;

// Whether the lookup base shows every column the key hashes: its rows then
// tell the key of the tuples they derive.
bool shows_whole_key(const CountingView& view, const LookupBase& lookup) {
    for (std::size_t i = 0; i < view.columns.size(); ++i) {
        const Column& c = view.columns[i];
        if (!c.hashable || !c.hashed) continue;
        if (std::none_of(lookup.shown.begin(), lookup.shown.end(), [&](const LookupBase::Shown& s) { return s.column == i; }))
            return false;
    }
    return true;
}

// The view column that leads the key: the one showing a lookup base's key
// where its rows do not tell the key (a join view's branch id, for the
// branches table: its tuples are then one range of the key index, and
// stored together), else the first integer one.  None (npos) without an
// integer column.
std::size_t chosen_lead(const CountingView& view) {
    for (const std::optional<LookupBase>& lookup : view.lookups) {
        if (!lookup || lookup->key.size() != 1 || shows_whole_key(view, *lookup)) continue;
        const Column& c = view.columns.at(lookup->key[0].shown);
        if (c.integer && c.hashable && c.hashed) return lookup->key[0].shown;
    }
    for (std::size_t i = 0; i < view.columns.size(); ++i)
        if (view.columns[i].integer && view.columns[i].hashable && view.columns[i].hashed) return i;
    return std::string::npos;
}

void mark_lead(CountingView& view, std::size_t lead) {
    for (std::size_t i = 0; i < view.columns.size(); ++i) view.columns[i].leads_key = i == lead;
}

}  // namespace

std::vector<std::string> key_columns(const CountingView& view) {
    if (view.aggregate) return {};
    CountingView probe = view;
    std::vector<bool> shown(view.columns.size(), false), keys(view.columns.size(), false);
    for (const std::optional<LookupBase>& lookup : view.lookups) {
        if (!lookup) continue;
        for (const LookupBase::Shown& s : lookup->shown) shown.at(s.column) = true;
        for (const LookupBase::KeyPart& k : lookup->key) keys.at(k.shown) = true;
    }
    for (std::size_t i = 0; i < view.columns.size(); ++i) probe.columns[i].hashed = !shown[i] || keys[i];
    const std::size_t lead = chosen_lead(probe);
    CountingView usual = view;
    use_key_columns(usual, {});
    bool same = true;
    for (std::size_t i = 0; i < view.columns.size(); ++i)
        same &= usual.columns[i].hashed == probe.columns[i].hashed && usual.columns[i].leads_key == (i == lead);
    if (same) return {};
    std::vector<std::string> names;
    if (lead != std::string::npos) names.push_back(view.columns[lead].name);
    for (std::size_t i = 0; i < view.columns.size(); ++i)
        if (i != lead && probe.columns[i].hashable && probe.columns[i].hashed) names.push_back(view.columns[i].name);
    return names;
}

void use_key_columns(CountingView& view, const std::vector<std::string>& names) {
    if (view.aggregate) return;
    std::size_t lead = std::string::npos;
    for (std::size_t i = 0; i < view.columns.size(); ++i) {
        Column& c = view.columns[i];
        c.hashed = names.empty() || std::find(names.begin(), names.end(), c.name) != names.end();
        if (!names.empty() && c.name == names.front() && c.integer && c.hashable) lead = i;
    }
    if (names.empty()) {
        for (std::size_t i = 0; i < view.columns.size() && lead == std::string::npos; ++i)
            if (view.columns[i].integer && view.columns[i].hashable) lead = i;
    }
    mark_lead(view, lead);
}

LookupFind lookup_find(const CountingView& view, std::size_t base) {
    const LookupBase& lookup = view.lookups.at(base).value();
    if (tuples::key(view.columns, "").empty()) return LookupFind::Scan;
    if (shows_whole_key(view, lookup)) return LookupFind::ExactKey;
    if (lookup.key.size() == 1 && view.columns.at(lookup.key[0].shown).leads_key) return LookupFind::KeyLead;
    return LookupFind::Scan;
}

bool lookup_change(const CountingView& view, std::size_t base) {
    return view.blocks.size() == 1 && view.shape() == CountingView::Shape::Tuples &&
           base < view.lookups.size() && view.lookups[base].has_value();
}

std::string lookup_update_statement(const CountingView& view, std::size_t base, Lookup find) {
    if (!lookup_change(view, base)) throw Error(sqlstate::internal_error, "lookup update of a base that is no lookup");
    const CountingView::Lookup& lookup = *view.lookups[base];
    const std::string inserted = new_rows_relation(base), deleted = old_rows_relation(base);
    // Rows compared as their images: a pair whose values are equal but
    // shown otherwise (1.0 and 1.00) still moves, and one whose guarded
    // columns change so keeps nothing it may not.
    auto image_equal = [](const std::vector<std::string>& cols) {
        if (cols.empty()) return std::string("true");
        auto row = [&](const char* q) {
            return "ROW(" + sql::join_mapped<std::string>(cols, ", ", [&](const std::string& c) { return std::string(q) + "." + c; }) + ")";
        };
        return "pg_catalog.record_image_eq(" + row("__ivm_o") + ", " + row("__ivm_n") + ")";
    };
    // Probed per pair: equalities no planner can hash or merge.
    auto each_row = [&](const std::string& value) {
        return find == Lookup::PerTuple ? "ANY (ARRAY[" + value + "])" : value;
    };
    std::vector<std::string> pair_cols, pairing, sets, match, shown_sources;
    std::vector<bool> kept(view.columns.size(), false);  // a view column that keeps its value in a pair
    for (std::size_t i = 0; i < lookup.key.size(); ++i) {
        const CountingView::Lookup::KeyPart& k = lookup.key[i];
        const std::string name = "__ivm_k" + std::to_string(i + 1);
        pair_cols.push_back("__ivm_n." + k.column + " AS " + name);
        pairing.push_back("__ivm_n." + k.column + " " + k.equality + " __ivm_o." + k.column);
        const std::string stored = "__ivm_s." + view.columns.at(k.shown).name;
        match.push_back(stored + " " + k.match + " " + each_row("__ivm_p." + name));
        kept.at(k.shown) = true;  // equal, so hashed alike
    }
    // A moved tuple's key, from its shown columns anew (and as they were).
    std::vector<Column> moved_key = view.columns, old_key = view.columns;
    for (Column& c : moved_key) c.name = "__ivm_s." + c.name;
    bool key_moves = false;
    for (std::size_t j = 0; j < lookup.shown.size(); ++j) {
        const CountingView::Lookup::Shown& shown = lookup.shown[j];
        const std::string name = "__ivm_v" + std::to_string(j + 1);
        const Column& column = view.columns.at(shown.column);
        pair_cols.push_back("__ivm_n." + shown.source + " AS " + name);
        sets.push_back(column.name + " = __ivm_p." + name);
        moved_key.at(shown.column).name = "__ivm_p." + name;
        old_key.at(shown.column).name = "__ivm_o." + shown.source;
        const bool guarded = std::find(lookup.guarded.begin(), lookup.guarded.end(), shown.source) != lookup.guarded.end();
        key_moves |= column.hashable && column.hashed && !kept.at(shown.column) && !guarded;
        shown_sources.push_back(shown.source);
    }
    // The pairs are looked up in the key index's order, which is also the
    // storage's as a fill or rebuild wrote it: 10,000 updates of random
    // rows of W1's million then read pages in order, not at random.
    std::string order;
    switch (lookup_find(view, base)) {
        case LookupFind::ExactKey:  // the row tells its tuple's key
            pair_cols.push_back(tuples::key(old_key, "") + " AS __ivm_h");
            match.push_back("__ivm_s.__ivm_key" + sql::op("=") + each_row("__ivm_p.__ivm_h"));
            order = " ORDER BY __ivm_h";
            break;
        case LookupFind::KeyLead: {  // its tuples are the key's range for the value
            order = " ORDER BY __ivm_k1";
            const std::string lead = "(__ivm_p.__ivm_k1::bigint" + sql::op("<<") + "24)";
            match.push_back("__ivm_s.__ivm_key" + sql::op(">=") + lead + " AND __ivm_s.__ivm_key" + sql::op("<=") + "(" +
                            lead + sql::op("|") + "16777215)");
            break;
        }
        case LookupFind::Scan: break;  // through an index of the storage on the columns, if any
    }
    const std::string key = tuples::key(moved_key, "");
    if (key_moves && !key.empty()) sets.push_back("__ivm_key = " + key);
    const std::string moved = lookup.shown.empty() ? "false" : "NOT " + image_equal(shown_sources);
    // Paired up: every inserted row with a deleted one (the caller makes
    // sure there are as many of each; each side holds a key once, a
    // table's unique key before and after the statement), each pair
    // keeping the guarded columns.
    const std::string paired = "(SELECT pg_catalog.count(*) FROM __ivm_p WHERE __ivm_p.__ivm_same)" + sql::op("=") +
                               "(SELECT pg_catalog.count(*) FROM " + inserted + ")";
    return "WITH __ivm_p AS MATERIALIZED (SELECT " + sql::join(pair_cols, ", ") + ", " + image_equal(lookup.guarded) +
           " AS __ivm_same, " + moved + " AS __ivm_moved FROM " + inserted + " __ivm_n JOIN " + deleted + " __ivm_o ON " +
           sql::join(pairing, " AND ") + order + "), __ivm_ok AS MATERIALIZED (SELECT " + paired +
           " AS ok), __ivm_u AS (UPDATE " + view.storage + " __ivm_s SET " + sql::join(sets, ", ") +
           " FROM __ivm_p WHERE __ivm_p.__ivm_moved AND (SELECT __ivm_ok.ok FROM __ivm_ok) AND " +
           sql::join(match, " AND ") + " RETURNING __ivm_s.__ivm_count) SELECT (SELECT pg_catalog.count(*) FROM __ivm_ok "
           "WHERE __ivm_ok.ok), COALESCE(pg_catalog.sum(__ivm_u.__ivm_count), 0)::bigint, pg_catalog.count(*) FROM __ivm_u";
}

}  // namespace ivm::counting
