// Counting maintenance: a view's delta merged into its storage (or the
// storage rebuilt, refreshed, emptied), and the settings that steer it.
#include "pg/maintain.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/bulk_fill.hpp"
#include "pg/execution.hpp"
#include "pg/faults.hpp"
#include "pg/heap_swap.hpp"
#include "pg/keys.hpp"
#include "pg/spi.hpp"
#include "pg/view_locks.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace ivm::pg {

double rebuild_fraction = 0.3;
bool allow_parallel_writers = true;
int large_delta_rows = 5000;

void define_settings() {
    DefineCustomIntVariable("ivm.large_change_rows",
                            "Changes of more transition rows than this are planned for their size.",
                            "A smaller change runs a plan kept for small changes (index lookups, the inserted rows "
                            "hashed in memory).",
                            &large_delta_rows, 5000, 0, INT_MAX, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomBoolVariable("ivm.parallel_writers",
                             "Lets writers of one base table of a view maintain it at the same time.",
                             "Off: each view is maintained by one transaction at a time, which never waits for a "
                             "lock this transaction holds (for sessions whose transactions write several base tables "
                             "of one view and end before they learn to, see view_locks.hpp).",
                             &allow_parallel_writers, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomRealVariable("ivm.rebuild_fraction",
                             "Changes larger than this fraction of a view's input rebuild its storage.",
                             "A change of more transition rows than this fraction of the tuples the view holds after "
                             "it (the rows its query reads or its stored tuples, whichever is more, plus the rows "
                             "inserted less those deleted) recomputes the view instead of merging its delta.",
                             &rebuild_fraction, 0.3, 0.0, 1e10, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomBoolVariable("ivm.rebuild_by_swap",
                             "Lets a rebuild of a view's storage fill a new heap and swap it in, as REFRESH does.",
                             "Readers that come after such a rebuild wait for the writer's commit, as for a REFRESH; "
                             "off, the storage is rewritten in place and readers never wait.",
                             &rebuild_by_swap, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("ivm.swap_min_tuples",
                            "A rebuild swaps in a new heap only for a storage of at least this many tuples.",
                            "A smaller storage is rewritten in place, which costs less than a new heap's files.",
                            &swap_min_tuples, 1000, 0, INT_MAX, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

namespace {

// Whether a change of `inserted` and `deleted` transition rows costs more
// to merge tuple by tuple than the view costs to compute anew, which writes
// the tuples the view holds after the change: about the larger of the rows
// its query reads and the tuples its storage holds, plus the rows inserted
// less those deleted.  On W1 (1,000,000 tuples), since a statement that
// large keeps no transition rows (large_statements.hpp): deleting a quarter
// of the accounts merged in 1.2-1.3 s and rebuilt in 0.8 s, updating a
// quarter 1.9-2.1 s against 1.85 s, updating 15% 1.8-1.9 s against 1.4-1.5 s;
// inserts about even either way (half as many accounts again: 2.3 s).  A
// small change (a kept plan) never asks (ivm.rebuild_fraction = 0 rebuilds
// on every change).
bool rebuild_pays(const ViewRuntime& view, double inserted, double deleted) {
    const double rows = inserted + deleted;
    if (rebuild_fraction == 0) return rows > 0;
    if (rows <= large_delta_rows) return false;
    double size = estimated_rows(view.entry.storage);
    for (Oid base : view.analyzed.base_oids) size = std::max(size, estimated_rows(base));
    return rows > rebuild_fraction * std::max(size + inserted - deleted, 0.0);
}

// Keyed deletes and tuples moved in place by a lookup update: past this
// part of the storage found by one join, below it by a key index probe
// each.  On W1 (1,000,000 tuples)
// deleting half of them took 1.75 s by probes (3.5 us a tuple) and
// about 0.5 s by a hash join, which scans the storage once; W4's tenth is
// faster by probes (docs/benchmarks.md, "Keyed deletes in one join").
constexpr double join_fraction = 0.25;
bool large_part_of_storage(const ViewRuntime& view, double tuples) {
    return tuples > join_fraction * estimated_rows(view.entry.storage);
}

// What a merge statement that ran (SPI result code `rc`) did, counted in
// the statistics.  A merge returns one row of counts (counting::Report), or
// is a plain INSERT of tuples with count 1.
MaintenanceResult merged(ViewRuntime& view, int rc, TimestampTz started) {
    using counting::Report;
    auto reported = [](Report column) { return spi::result_int(0, static_cast<int>(column)); };
    MaintenanceResult result;
    if (rc == SPI_OK_INSERT) {  // a plain INSERT of tuples shown once each
        result.rows_added = static_cast<int64>(SPI_processed);
    } else if (rc != SPI_OK_SELECT || SPI_processed != 1) {
        throw Error(sqlstate::internal_error, "ivm merge returned no result");
    } else {
        const bool distinct = view.analyzed.model.distinct;  // a stored row is a view row
        result.rows_added = reported(distinct ? Report::Inserted : Report::Added);
        result.rows_removed = reported(distinct ? Report::Deleted : Report::Removed);
    }
    if (rc == SPI_OK_SELECT && reported(Report::Negative) > 0) {
        const std::string name = qualified_name(view.entry.view);
        throw Error(sqlstate::data_corrupted,
                    "incrementally maintained view " + name + " is out of sync with its base tables",
                    "A change would make a stored derivation count negative.",
                    "Run ivm.refresh_view('" + name + "') to recompute it.");
    }
    // Groups whose min or max went: recomputed by a second statement, which
    // a change that leaves every extreme known never starts.
    if (rc == SPI_OK_SELECT && SPI_tuptable->tupdesc->natts > static_cast<int>(Report::Stale) &&
        reported(Report::Stale) > 0) {
        SPIPlanPtr plan = kept_plan(view, "extremes", [&] { return counting::extremes_statement(view.analyzed.model); });
        rc = call([&] { return SPI_execute_plan(plan, nullptr, nullptr, false, 0); });
        if (rc != SPI_OK_UPDATE) throw Error(sqlstate::internal_error, "ivm could not recompute the extremes of a view");
    }
    record_run(view, result, started);
    return result;
}

// Runs a merge statement, through a kept plan when `key` is given.  The SQL
// is generated only when there is no kept plan: a small change must not
// pay for building the text.
MaintenanceResult run_merge(ViewRuntime& view, const std::string& key, const std::function<std::string()>& generate,
                            bool lookups = false) {
    const TimestampTz started = GetCurrentTimestamp();
    return merged(view, run_statement(view, key, generate, lookups), started);
}

// The statement that computes the view anew into its storage, and the key
// its plan is kept under: a rebuild (a view of tuples), else a refresh
// merging the difference.
const char* recompute_key(const CountingView& model) { return counting::can_rebuild(model) ? "rebuild" : "refresh"; }
std::string recompute_statement(const CountingView& model) {
    return counting::can_rebuild(model) ? counting::rebuild_statement(model) : counting::refresh_statement(model);
}

// A large change's delta merge (planned for its size) against the view's
// recompute: the merge's plan, or null where the planner prices the
// recompute at most 1/`margin` of the delta and `extra` (what else the
// delta costs that its plan does not price).  A view whose delta is dear per changed row (a table read again
// under EXISTS and NOT EXISTS) can cost many times more to maintain than
// to compute long before a change is ivm.rebuild_fraction of its input;
// where the two are priced alike the delta stays, as the planner prices a
// delta's many small parts less surely than one pass over the tables
// (TPC-H Q06 and Q14 came out slower recomputed).
//
// A view of groups whose storage fits in hash memory has its delta's groups
// hashed: they are mostly groups it holds, so few, where the planner, which
// knows nothing of a change's rows, takes a tenth of them for groups and
// sorts them all (TPC-H Q01, a third of lineitem updated: 200,000 rows
// sorted on disk for its 4 groups, 350 ms, hashed 240).  Planned with sorts
// priced out, unless the statement needs one anyway.
SPIPlanPtr delta_unless_recompute(ViewRuntime& view, const std::string& merge, double margin = 2, double extra = 0) {
    const CountingView& model = view.analyzed.model;
    SPIPlanPtr whole = kept_plan(view, recompute_key(model), [&] { return recompute_statement(model); });
    const char* text = merge.c_str();
    const bool hashed = model.shape() == CountingView::Shape::PartialState && fits_hash_memory(view.entry.storage);
    const int level = hashed ? planner_without({"enable_sort"}) : -1;
    return call([&]() -> SPIPlanPtr {
        SPIPlanPtr plan = spi::prepare(text);
        double cost = generic_plan_cost(plan, false);
        if (hashed) {
            AtEOXact_GUC(false, level);
            if (cost >= disable_cost) {
                SPI_freeplan(plan);
                plan = spi::prepare(text);
                cost = generic_plan_cost(plan, false);
            }
        }
        if (margin * generic_plan_cost(whole, true) >= cost + extra) return plan;
        SPI_freeplan(plan);
        return nullptr;
    });
}

// The size class of a small change, which its kept plans are kept under
// (" 0" up to lookup_delta_rows, then each class four times the last): a
// plan is made for the rows of the first change of its class.  Kept for
// all small changes, a self-join's plan made for 50 changed rows (which
// looks the table as it was up per changed row, rescanning the changed
// rows each time) took 1.1 s for 2,000 rows, 84 ms planned for them.
std::string size_class(double rows) {
    int c = 0;
    for (double r = rows; r > lookup_delta_rows; r /= 4) ++c;
    return " " + std::to_string(c);
}

// Where several bases changed, the order counting::delta_query takes them
// in (fewest transition rows first), which a kept plan is kept under.
std::string changed_order(const std::vector<bool>& changed, const std::vector<double>& base_rows) {
    std::vector<std::size_t> order;
    for (std::size_t b = 0; b < changed.size(); ++b)
        if (changed[b]) order.push_back(b);
    if (order.size() < 2) return "";
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return base_rows[a] < base_rows[b]; });
    std::string key = " order";
    for (std::size_t b : order) key += " " + std::to_string(b);
    return key;
}

// A lookup base's change whose rows pair up by its key moves its tuples in
// place (counting::lookup_update_statement); nothing when they do not.
std::optional<MaintenanceResult> run_lookup_update(ViewRuntime& view, std::size_t base, bool small, double rows) {
    const TimestampTz started = GetCurrentTimestamp();
    // (each pair of rows moves one tuple)
    const counting::Lookup find =
        !small && !large_part_of_storage(view, rows / 2) ? counting::Lookup::PerTuple : counting::Lookup::Join;
    const int rc = run_statement(view, small ? "lookup " + std::to_string(base) + size_class(rows) : std::string(),
                                 [&] { return counting::lookup_update_statement(view.analyzed.model, base, find); });
    if (rc != SPI_OK_SELECT || SPI_processed != 1) throw Error(sqlstate::internal_error, "ivm lookup update returned no result");
    if (spi::result_int(0, 0) == 0) return std::nullopt;
    MaintenanceResult result;
    result.rows_added = result.rows_removed = spi::result_int(0, view.analyzed.model.distinct ? 2 : 1);
    record_run(view, result, started);
    return result;
}


// Whether an index of the storage leads with `column` (quoted).
bool storage_indexed_on(Oid storage, const std::string& column) {
    for (AttrNumber lead : index_leads(storage))
        if (column == call([&] { return quote_identifier(get_attname(storage, lead, false)); })) return true;
    return false;
}

// The storage made anew from the query in a new heap swapped in, where
// the view may be (a view of tuples or of partial state, counting::
// can_first_fill), heap_swap.hpp allows, and the storage holds, or gains
// by `growth` tuples to, ivm.swap_min_tuples; none otherwise.
std::optional<MaintenanceResult> swapped_storage(ViewRuntime& view, double growth) {
    const CountingView& model = view.analyzed.model;
    if (!counting::can_first_fill(model) || estimated_rows(view.entry.storage) + growth < swap_min_tuples ||
        !may_swap(view.entry.storage, view.entry.view))
        return std::nullopt;
    const TimestampTz started = GetCurrentTimestamp();
    const int64 before = spi::query_int(counting::row_count_query(model));
    const std::optional<BulkFill> filled =
        swap_storage(view.entry.storage, counting::first_fill_query(model), "__ivm_count");
    if (!filled) return std::nullopt;
    MaintenanceResult result;
    result.rows_removed = before;
    result.rows_added = counting::first_fill_writes_view_rows(model) ? static_cast<int64>(filled->rows) : filled->counted;
    record_run(view, result, started);
    return result;
}

// What a change of `inserted` and `deleted` rows may add to the storage.
double growth(double inserted, double deleted) { return std::max(inserted - deleted, 0.0); }

// The storage made anew from the query (counting::can_rebuild) after a
// change of `inserted` and `deleted` rows: swapped in where it may be,
// else rewritten in place by one statement.
MaintenanceResult rebuild_storage(ViewRuntime& view, double inserted, double deleted) {
    if (std::optional<MaintenanceResult> swapped = swapped_storage(view, growth(inserted, deleted))) return *swapped;
    return run_merge(view, "rebuild", [&] { return counting::rebuild_statement(view.analyzed.model); });
}

// A view of groups kept from partial state computed anew into a new heap
// swapped in, as REFRESH does, where the change is as large as a rebuild
// pays for (rebuild_pays) and the storage may be swapped: merging the
// delta group by group costs more (TPC-H Q18, 100,000 lineitems updated:
// 25,000 groups of its part and 21,000 of the view updated, 1.5 s).
std::optional<MaintenanceResult> partial_state_swapped(ViewRuntime& view, double inserted, double deleted) {
    if (view.analyzed.model.shape() != CountingView::Shape::PartialState || !rebuild_pays(view, inserted, deleted))
        return std::nullopt;
    return swapped_storage(view, growth(inserted, deleted));
}

// A change of a lookup base of the view (counting::lookup_change) alone,
// as many rows deleted as inserted: an UPDATE, which may keep the keys.  A
// base whose tuples a scan finds needs an index of the storage for them.
std::optional<std::size_t> moved_lookup_base(ViewRuntime& view, const std::vector<BaseChange>& changes) {
    const CountingView& model = view.analyzed.model;
    std::optional<std::size_t> found;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        const uint64 inserted = rows_in(changes[b].new_rows), deleted = rows_in(changes[b].old_rows);
        if (inserted == 0 && deleted == 0) continue;
        if (found || inserted != deleted || !counting::lookup_change(model, b)) return std::nullopt;
        found = b;
    }
    if (!found || counting::lookup_find(model, *found) != counting::LookupFind::Scan) return found;
    auto it = view.lookup_indexed.find(*found);
    if (it == view.lookup_indexed.end()) {
        const std::size_t column = model.lookups[*found]->key.front().shown;
        it = view.lookup_indexed.emplace(*found, storage_indexed_on(view.entry.storage, model.columns.at(column).name)).first;
    }
    return it->second ? found : std::nullopt;
}

// A small change's merge as a writer alongside others of its base: its
// delta computed once into a set (counting::delta_rows_relation) whose
// keys lock_rows locks, and which the merge then reads.  Under the writer
// locks the delta reads nothing another writer may be changing (the other
// bases are locked, the shared one is read only through this statement's
// transition rows: counting::parallel_writers), so it is the delta the
// merge would compute after the key locks.  Computed for each, it made such
// a change cost its delta twice (TPC-H Q05, its region renamed: the keys
// 34 ms, then the merge 62).  A delta of no rows changes nothing.
MaintenanceResult merged_by_keys(ViewRuntime& view, const std::string& key, const std::function<std::string()>& delta,
                                 bool lookups) {
    const CountingView& model = view.analyzed.model;
    const TimestampTz started = GetCurrentTimestamp();
    const std::size_t mark = kept_sets_mark();
    Tuplestorestate* store = new_kept_set();
    SPIPlanPtr plan = kept_plan(view, "delta " + key, delta);
    TupleDesc desc = nullptr;
    const uint64 rows = call([&] {
        return spi::fetch_rows(plan, InvalidSnapshot, 0, [&](HeapTuple row) { tuplestore_puttuple(store, row); }, &desc);
    });
    MaintenanceResult result;
    if (rows == 0) {
        end_kept_sets(mark);
        record_run(view, result, started);
        return result;
    }
    const char* name = counting::delta_rows_relation;
    register_set(name, desc, store, static_cast<double>(rows));
    const std::string delta_rows = std::string("SELECT * FROM ") + name;
    lock_rows(view, "stored " + key, [&] { return counting::delta_keys_query(model, delta_rows); });
    result = merged(view, run_statement(view, "stored " + key, [&] {
        return counting::merge_statement(model, delta_rows, counting::Lookup::PerTuple);
    }, lookups), started);
    call([&] { SPI_unregister_relation(name); });
    end_kept_sets(mark);
    return result;
}

// A change of a keyed view's one base read once (counting::keyed_change),
// other bases having fired with no rows.
struct KeyedChange {
    std::size_t base;
    uint64 deleted;   // rows
    uint64 inserted;  // rows
};
std::optional<KeyedChange> keyed_base_change(const CountingView& model, const std::vector<BaseChange>& changes) {
    std::optional<KeyedChange> found;
    for (std::size_t b = 0; b < changes.size(); ++b) {
        const uint64 inserted = rows_in(changes[b].new_rows), deleted = rows_in(changes[b].old_rows);
        if (inserted == 0 && deleted == 0) continue;
        if (found || !counting::keyed_change(model, b)) return std::nullopt;
        found = KeyedChange{b, deleted, inserted};
    }
    return found;
}

}  // namespace

MaintenanceResult apply_changes(ViewRuntime& view, const std::vector<BaseChange>& changes) {
    const CountingView& model = view.analyzed.model;
    std::vector<bool> changed(model.bases.size(), false);
    std::string key;
    double inserted = 0, deleted = 0;
    std::vector<double> base_rows(changes.size(), 0);
    for (std::size_t b = 0; b < changes.size(); ++b) {
        changed[b] = changes[b].new_rows != nullptr || changes[b].old_rows != nullptr;
        key += changed[b] ? '1' : '0';
        const auto in = static_cast<double>(rows_in(changes[b].new_rows));
        const auto out = static_cast<double>(rows_in(changes[b].old_rows));
        base_rows[b] = in + out;
        inserted += in;
        deleted += out;
    }
    const double rows = inserted + deleted;
    key += size_class(rows) + changed_order(changed, base_rows);
    const bool alone = lock_for_maintenance(view, view.entry.storage, shared_base(view, changed));
    register_changes(view, changes, view.analyzed.base_oids);
    Elevated e = enter(view);
    faults::point("maintain.locked");
    const bool small = rows <= large_delta_rows;
    const bool lookups = rows <= lookup_delta_rows;
    const std::optional<KeyedChange> keyed = keyed_base_change(model, changes);
    const bool rebuild = counting::can_rebuild(model) && rebuild_pays(view, inserted, deleted);
    // A lookup or keyed change writes only stored rows that show its own
    // base rows' keys, which no other writer can be changing (PostgreSQL's
    // row locks on the base rows keep them apart): it needs no row locks.
    // Moved in place, each tuple costs an update, which past the rebuild's
    // size costs more than writing the view anew.
    if (const std::optional<std::size_t> lookup = rebuild ? std::nullopt : moved_lookup_base(view, changes)) {
        if (std::optional<MaintenanceResult> moved = run_lookup_update(view, *lookup, small, rows)) {
            leave(e);
            return *moved;
        }
    }
    auto delta = [&] { return counting::delta_query(model, changed, !small, base_rows); };
    // (a small change locks the stored rows it merges by their keys: merged_by_keys)
    const bool by_keys = !alone && small && !rebuild && !keyed && counting::has_storage_key(model);
    if (!alone && (rebuild || !keyed) && !by_keys) lock_whole_storage(view);
    MaintenanceResult result;
    if (keyed && !rebuild) {
        using counting::KeyedRows;
        const KeyedRows rows = keyed->deleted == 0    ? KeyedRows::Inserted
                               : keyed->inserted > 0 ? KeyedRows::Both
                                                     : KeyedRows::Deleted;
        const char* what = rows == KeyedRows::Inserted ? "inserted " : rows == KeyedRows::Deleted ? "deleted " : "changed ";
        const std::string plan = what + std::to_string(keyed->base) + size_class(inserted + deleted);
        const counting::Lookup find = !small && large_part_of_storage(view, static_cast<double>(keyed->deleted))
                                          ? counting::Lookup::Join
                                          : counting::Lookup::PerTuple;
        // Many fresh tuples are written in batches (a kept plan's few by
        // its INSERT).
        const TimestampTz started = GetCurrentTimestamp();
        const std::optional<uint64> written =
            !small && rows == KeyedRows::Inserted
                ? bulk_insert(view.entry.storage,
                              counting::keyed_insert_query(model, counting::keyed_delta_query(model, keyed->base)))
                : std::nullopt;
        if (written) {
            result.rows_added = static_cast<int64>(*written);
            record_run(view, result, started);
        } else
            result = run_merge(view, small ? plan : std::string(), [&] {
                return counting::keyed_merge_statement(model, counting::keyed_delta_query(model, keyed->base), rows, find);
            }, lookups);
    } else if (rebuild) {
        result = rebuild_storage(view, inserted, deleted);
    } else if (by_keys) {
        result = merged_by_keys(view, key, delta, lookups);
    } else if (small) {
        result = run_merge(view, key, [&] {
            return counting::merge_statement(model, delta(), counting::Lookup::PerTuple);
        }, lookups);
    } else if (std::optional<MaintenanceResult> swapped = partial_state_swapped(view, inserted, deleted)) {
        result = *swapped;
    } else {
        const TimestampTz started = GetCurrentTimestamp();
        const std::string merge = counting::merge_statement(model, delta(), counting::Lookup::Join);
        if (SPIPlanPtr plan = delta_unless_recompute(view, merge)) {  // run as it was priced, not planned again
            result = merged(view, call([&] { return SPI_execute_plan(plan, nullptr, nullptr, false, 0); }), started);
            call([&] { SPI_freeplan(plan); });
        } else if (counting::can_rebuild(model)) {
            result = rebuild_storage(view, inserted, deleted);
        } else {
            result = run_merge(view, "refresh", [&] { return counting::refresh_statement(model); });
        }
    }
    faults::point("maintain.merged");
    leave(e);
    return result;
}

namespace {

// A statement that writes the whole storage, under the view's lock and its
// owner's rights.
MaintenanceResult run_whole(ViewRuntime& view, const char* key, std::string (*statement)(const CountingView&)) {
    const CountingView& model = view.analyzed.model;
    lock_for_maintenance(view, view.entry.storage);
    Elevated e = enter(view);
    MaintenanceResult result = run_merge(view, key, [&] { return statement(model); });
    leave(e);
    return result;
}

}  // namespace

MaintenanceResult refresh(ViewRuntime& view) { return run_whole(view, "refresh", counting::refresh_statement); }

MaintenanceResult recompute(ViewRuntime& view, const std::vector<bool>& changed) {
    const CountingView& model = view.analyzed.model;
    // As a writer of one base alongside others where it may be, as a large
    // change's rebuild is, the whole storage locked.
    if (!lock_for_maintenance(view, view.entry.storage, shared_base(view, changed))) lock_whole_storage(view);
    Elevated e = enter(view);
    // (a TRUNCATE marks no base changed; a statement that keeps no
    // transition rows is large, and what it adds unknown)
    const bool grows = std::find(changed.begin(), changed.end(), true) != changed.end();
    std::optional<MaintenanceResult> result =
        swapped_storage(view, grows ? std::numeric_limits<double>::infinity() : 0);
    if (!result)
        result = run_merge(view, recompute_key(model), [&] { return recompute_statement(model); });
    leave(e);
    return *result;
}

bool recomputes_change(ViewRuntime& view, std::size_t base, double inserted, double deleted) {
    const CountingView& model = view.analyzed.model;
    if (counting::can_rebuild(model)) return rebuild_pays(view, inserted, deleted);
    // Else priced (a set operation's recompute merges the difference of
    // every tuple; a lookup table's rows that pair up move tuples in
    // place): the delta's plan, its rows registered empty with the
    // planner's estimates, against the recompute's.  The delta also costs
    // keeping the rows, which the statement is spared if the view is
    // recomputed: priced as the planner prices a materialized row written
    // and read back from temporary pages as wide as the table's (W2's view,
    // 1,000,000 accounts deleted: the rows kept 300 ms, the delta 400, the
    // recompute 50).  Without apply_changes' margin for the delta, which is
    // there for rows counted.
    if (model.shape() == CountingView::Shape::SetOperation || inserted + deleted <= large_delta_rows ||
        (inserted == deleted && counting::lookup_change(model, base)))
        return false;
    // Planning the delta costs the statement time whichever way it goes
    // (40-60 ms a bulk unit of TPC-H over lineitem, where the delta won):
    // only for changes of half the table's rows or more.
    const Oid relid = view.analyzed.base_oids.at(base);
    if (inserted + deleted < 0.5 * estimated_rows(relid)) return false;
    spi::connect();  // (its own: the rows' names are registered in it)
    Elevated e = enter(view);
    for (auto [name, rows] : {std::pair{counting::new_rows_relation(base), inserted},
                              std::pair{counting::old_rows_relation(base), deleted}})
        register_set(name.c_str(), relid, call([] { return tuplestore_begin_heap(false, false, work_mem); }), rows);
    std::vector<bool> changed(model.bases.size(), false);
    changed[base] = true;
    const double pages_per_row = call([&] {
        Relation r = table_open(relid, AccessShareLock);
        const double ratio = r->rd_rel->reltuples > 0 ? r->rd_rel->relpages / r->rd_rel->reltuples : 0;
        table_close(r, AccessShareLock);
        return ratio;
    });
    const double kept = (inserted + deleted) * (2 * cpu_operator_cost + 2 * seq_page_cost * pages_per_row);
    SPIPlanPtr delta = delta_unless_recompute(
        view, counting::merge_statement(model, counting::delta_query(model, changed, true), counting::Lookup::Join), 1,
        kept);
    const bool recomputed = delta == nullptr;
    if (delta != nullptr) call([&] { SPI_freeplan(delta); });
    leave(e);
    spi::finish();
    return recomputed;
}

MaintenanceResult first_fill(ViewRuntime& view) {
    const CountingView& model = view.analyzed.model;
    lock_for_maintenance(view, view.entry.storage);
    Elevated e = enter(view);
    const TimestampTz started = GetCurrentTimestamp();
    MaintenanceResult result;
    if (const std::optional<BulkFill> filled =
            bulk_fill(view.entry.storage, counting::first_fill_query(model), "__ivm_count")) {
        result.rows_added = counting::first_fill_writes_view_rows(model) ? static_cast<int64>(filled->rows) : filled->counted;
    } else {
        const int rc = run_statement(view, "first fill", [&] { return counting::first_fill_statement(model); });
        if (rc != SPI_OK_INSERT) throw Error(sqlstate::internal_error, "ivm could not fill a view's storage");
        result.rows_added = counting::first_fill_writes_view_rows(model) ? static_cast<int64>(SPI_processed)
                                                                          : spi::query_int(counting::row_count_query(model));
    }
    // The key index is built after the fill, once.
    for (const std::string& ddl : counting::storage_index_ddl(model)) spi::execute(ddl);
    leave(e);
    record_run(view, result, started);
    return result;
}

void empty_storage(ViewRuntime& view) {
    lock_for_maintenance(view, view.entry.storage);
    Elevated e = enter(view);
    spi::execute("DELETE FROM " + view.analyzed.model.storage);
    leave(e);
}

int64 row_count(ViewRuntime& view) {
    Elevated e = enter(view);
    int64 n = spi::query_int(counting::row_count_query(view.analyzed.model));
    leave(e);
    return n;
}

}  // namespace ivm::pg
