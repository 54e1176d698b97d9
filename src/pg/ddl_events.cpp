// Event triggers: what DDL on base tables and on a view's own objects does
// to incrementally maintained views.
//  - sql_drop: a view whose query view, storage or user-facing view was
//    dropped (DROP TABLE base CASCADE, DROP VIEW v) is dropped whole:
//    triggers on the surviving tables, the rest of its objects, its catalog
//    entry.  A dropped partition or child of a base refreshes the view; a
//    user's DROP TRIGGER of a maintenance trigger is refused.
//  - ddl_command_end (CREATE TABLE, ALTER TABLE, CREATE TRIGGER): the
//    view's triggers follow partitions and children as they come and go,
//    refreshing the view when rows came or went with them; a base table
//    read with FROM ONLY may not get children, nor row-level security that
//    applies to the view's owner; and a restored database gets its
//    dependency records back.
#include "pg/ddl_events.hpp"
#include "pg/deferred.hpp"

#include "core/counting.hpp"
#include "core/error.hpp"
#include "pg/base_triggers.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/dependencies.hpp"
#include "pg/maintain.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"
#include "pg/views.hpp"

extern "C" {
#include "commands/event_trigger.h"
}

#include <algorithm>

namespace ivm::pg {
namespace {

int own_ddl_depth = 0;




// Whether the extension is still there: DROP EXTENSION ivm drops the
// catalog, and these triggers with it.
bool catalog_present() {
    return spi::query_int("SELECT pg_catalog.count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                          "ON n.oid = c.relnamespace WHERE n.nspname = 'ivm' AND c.relname = 'view_catalog'") > 0;
}

std::vector<catalog::Entry> entries(const std::string& where, const std::string& oids) {
    std::vector<catalog::Entry> out;
    for (const spi::Row& row : spi::query("SELECT view_id FROM ivm.view_catalog WHERE " + where + " ORDER BY view_id DESC",
                                          {oids}))
        if (std::optional<catalog::Entry> e = catalog::find_by_id(std::stoi(*row[0]))) out.push_back(*e);
    return out;
}

void refresh_because(const catalog::Entry& entry, const std::string& why) {
    if (!entry.populated) return;
    std::shared_ptr<ViewRuntime> view = runtime_for(entry.view_id);
    refresh_all(*view);
    notice("incrementally maintained view " + qualified_name(entry.view) + " was refreshed: " + why);
}

std::string dropped_name(Oid relid) {
    std::vector<spi::Row> rows = spi::query(
        "SELECT object_identity FROM pg_catalog.pg_event_trigger_dropped_objects() "
        "WHERE classid = 'pg_catalog.pg_class'::regclass AND objid = $1::oid AND objsubid = 0",
        {std::to_string(relid)});
    return rows.empty() || !rows[0][0] ? std::to_string(relid) : *rows[0][0];
}

void on_sql_drop(const EventTriggerData&) {
    const std::vector<Oid> dropped = spi::oids(spi::query(
        "SELECT objid FROM pg_catalog.pg_event_trigger_dropped_objects() "
        "WHERE classid = 'pg_catalog.pg_class'::regclass AND objsubid = 0"));
    const std::string list = spi::oid_array(dropped);
    // Views that lost one of their own objects go whole.
    std::vector<int32> gone;
    for (const catalog::Entry& e : entries("view_name::oid = ANY ($1::oid[]) OR storage::oid = ANY ($1::oid[]) "
                                           "OR query_view::oid = ANY ($1::oid[]) OR recursive_storage::oid = ANY ($1::oid[])",
                                           list)) {
        gone.push_back(e.view_id);
        if (!catalog::find_by_id(e.view_id)) continue;  // dropped as a reader of another
        const std::string name = contains(dropped, e.view) ? dropped_name(e.view) : qualified_name(e.view);
        drop_view(e, true, false);
        notice("drop cascades to incrementally maintained view " + name + " (its storage, triggers and catalog entry)");
    }
    // Maintenance triggers that went without their view.
    for (const spi::Row& row : spi::query(
             "SELECT DISTINCT pg_catalog.substring(t.object_identity, '^ivm_([0-9]+)_'), "
             "pg_catalog.substring(t.object_identity, ' on (.*)$'), "
             "pg_catalog.substring(t.object_identity, ' on (.*)$') IN (SELECT object_identity FROM "
             "pg_catalog.pg_event_trigger_dropped_objects() WHERE object_type IN ('table', 'partitioned table')) "
             "FROM pg_catalog.pg_event_trigger_dropped_objects() t "
             "WHERE t.object_type = 'trigger' AND t.object_identity ~ '^ivm_[0-9]+_(before|insert|update|delete|truncate)(_rec)? on '")) {
        const int32 id = std::stoi(*row[0]);
        if (std::find(gone.begin(), gone.end(), id) != gone.end()) continue;
        std::optional<catalog::Entry> e = catalog::find_by_id(id);
        if (!e) continue;
        if (row[2] == std::string("t")) {
            gone.push_back(id);
            refresh_because(*e, "table " + *row[1] + ", part of a base table, was dropped");
            continue;
        }
        throw Error("2BP01", "cannot drop the maintenance trigger of incrementally maintained view " +
                                 qualified_name(e->view) + " on " + *row[1],
                    {}, "Use ivm.drop_view() to drop the view.");
    }
    // Change log triggers: gone with a table (a partition of a base table of
    // a deferred view), or refused.
    bool log_table_dropped = false;
    for (const spi::Row& row : spi::query(
             "SELECT t.object_identity, pg_catalog.substring(t.object_identity, ' on (.*)$') IN (SELECT object_identity "
             "FROM pg_catalog.pg_event_trigger_dropped_objects() WHERE object_type IN ('table', 'partitioned table')) "
             "FROM pg_catalog.pg_event_trigger_dropped_objects() t "
             "WHERE t.object_type = 'trigger' AND t.object_identity ~ '^ivm_(log_[a-z_]+|apply_replicated) on '")) {
        if (row[1] != std::string("t"))
            throw Error("2BP01", "cannot drop change log trigger " + *row[0] + " of deferred incrementally maintained views",
                        {}, "Use ivm.set_deferred(name, false) or ivm.drop_view() on the views that read the table.");
        log_table_dropped = true;
    }
    if (log_table_dropped) deferred::follow_drop();
}

// The tables a command touched and all their ancestors.
std::vector<Oid> with_ancestors(const std::vector<Oid>& tables) {
    return spi::oids(spi::query("WITH RECURSIVE up(relid) AS (SELECT pg_catalog.unnest($1::oid[]) UNION "
                              "SELECT i.inhparent FROM pg_catalog.pg_inherits i JOIN up ON i.inhrelid = up.relid) "
                              "SELECT relid FROM up",
                              {spi::oid_array(tables)}));
}


// Whether a counting view's storage has the columns that its definition,
// analyzed anew, would make: a plain view it shows (expand_views.hpp) may
// have been redefined into another shape (other aggregates, DISTINCT).  A
// table made as the storage would be now, compared and dropped.
bool storage_fits(const catalog::Entry& e, const CountingView& model) {
    CountingView probe = model;
    const std::string nsp = call([&] { return std::string(quote_identifier(get_namespace_name(get_rel_namespace(e.storage)))); });
    probe.storage = nsp + ".__ivm_shape_" + std::to_string(e.view_id);
    spi::execute(counting::storage_ddl(probe, qualified_name(e.query_view), true).front());
    auto columns = [](const char* table) {
        return std::string("(SELECT pg_catalog.array_agg(ROW(attname, atttypid, atttypmod, attnotnull)::text ORDER BY "
                           "attnum) FROM pg_catalog.pg_attribute WHERE attrelid = ") +
               table + "::pg_catalog.regclass AND attnum > 0 AND NOT attisdropped)";
    };
    const bool fits = spi::query_int("SELECT (" + columns("$1") + " IS NOT DISTINCT FROM " + columns("$2") + ")::int",
                                     {qualified_name(e.storage), probe.storage}) == 1;
    spi::execute("DROP TABLE " + probe.storage);
    return fits;
}

// CREATE OR REPLACE VIEW of a plain view expanded into ivm views: they
// follow its new definition (or the statement is refused, if they cannot),
// with their triggers moved to its new base tables, and are recomputed.
void follow_redefined_views(const std::vector<Oid>& relations) {
    std::vector<Oid> views;
    for (Oid r : relations)
        if (call([&] { return get_rel_relkind(r); }) == RELKIND_VIEW) views.push_back(r);
    if (views.empty()) return;
    for (const catalog::Entry& e : entries("true", "{}")) {
        std::shared_ptr<ViewRuntime> view = runtime_for(e.view_id);  // analyzes the new definition
        const AnalyzedView& a = view->analyzed;
        if (std::none_of(views.begin(), views.end(), [&](Oid v) { return contains(a.expanded_views, v); })) continue;
        std::vector<Oid> bases;
        for (const std::vector<Oid>* list : {&a.base_oids, &a.recursive_base_oids})
            for (Oid b : *list)
                if (b != e.recursive_storage && !contains(bases, b)) bases.push_back(b);
        for (Oid b : bases) refuse_row_security(b, view->owner);
        if (e.recursive_storage == InvalidOid) {
            if (!storage_fits(e, a.model)) {
                const Oid redefined = *std::find_if(views.begin(), views.end(), [&](Oid v) { return contains(a.expanded_views, v); });
                catalog::Entry root = e;  // (a part is dropped with the view it was made for)
                while (root.part_of != 0) root = *catalog::find_by_id(root.part_of);
                throw Error(sqlstate::feature_not_supported,
                            "cannot redefine view " + qualified_name(redefined) + ": incrementally maintained view " +
                                qualified_name(root.view) + " would store its rows otherwise",
                            "The new query aggregates, groups or combines rows otherwise than the old one did.",
                            "Drop " + qualified_name(root.view) + " with ivm.drop_view() first and create it again after.");
            }
            // Its columns may be computed otherwise from the same storage.
            spi::execute(counting::user_view_ddl(a.model, qualified_name(e.view), e.populated,
                                                 counting::ViewDdl::Replace, catalog::have_snapshot_check()));
        }
        catalog::set_bases(e.view_id, bases);
        sync_base_triggers(e.view_id, &a, true);
        refresh_because(e, "a view it reads was redefined");
    }
}

void on_ddl_command_end(const EventTriggerData& event) {
    // A subscription's apply worker writes tables: every view's base tables
    // log its rows (replicated.hpp).  So does an update of the extension,
    // whose new version may be the first to.
    const std::string tag = GetCommandTagName(event.tag);
    if (tag == "CREATE SUBSCRIPTION" || tag == "DROP SUBSCRIPTION" || tag == "ALTER EXTENSION") {
        deferred::sync_logs(true);
        return;
    }
    const std::vector<spi::Row> commands = spi::query(
        "SELECT objid, command_tag, classid = 'pg_catalog.pg_trigger'::regclass FROM pg_catalog.pg_event_trigger_ddl_commands() "
        "WHERE classid IN ('pg_catalog.pg_class'::regclass, 'pg_catalog.pg_trigger'::regclass)");
    std::vector<Oid> tables;
    bool our_trigger_created = false;
    for (const spi::Row& row : commands) {
        if (row[2] == std::string("f")) {
            tables.push_back(static_cast<Oid>(std::stoul(*row[0])));
        } else {
            our_trigger_created |= spi::query_int(
                "SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid "
                "WHERE t.oid = $1::oid AND p.pronamespace = 'ivm'::regnamespace", {*row[0]}) > 0;
        }
    }
    if (our_trigger_created) {  // pg_restore: a view's objects are back
        for (const catalog::Entry& e : entries("true", "{}")) record_dependencies(e);
        deferred::sync_logs();
    }
    if (tables.empty()) return;
    follow_redefined_views(tables);
    deferred::follow_ddl(with_ancestors(tables));
    // The views that read the tables (or an ancestor), and those whose
    // triggers they carry (a child that left its parent).
    const std::string where =
        "base_relations::oid[] && $1::oid[] OR view_id IN (SELECT pg_catalog.substring(tgname, '^ivm_([0-9]+)_')::int "
        "FROM pg_catalog.pg_trigger WHERE tgrelid = ANY ($1::oid[]) AND tgname ~ '^ivm_[0-9]+_before')";
    for (const catalog::Entry& e : entries(where, spi::oid_array(with_ancestors(tables)))) {
        // Analysis refuses what can no longer be maintained (a table read
        // with FROM ONLY that got children), and so does row security.
        std::shared_ptr<ViewRuntime> view = runtime_for(e.view_id);
        for (Oid base : e.bases) refuse_row_security(base, view->owner);
        // Only views whose base tables carry their triggers: during
        // pg_restore, the dump creates them later.
        const AnalyzedView& a = view->analyzed;
        if (!has_triggers(e.view_id, triggers::Part::Counting, a.base_oids) ||
            !has_triggers(e.view_id, triggers::Part::Recursive, a.recursive_base_oids))
            continue;
        TriggerChanges changes = sync_base_triggers(e.view_id, &a, true);
        for (Oid t : changes.added)
            if (holds_rows(t)) {
                refresh_because(e, "table " + qualified_name(t) + " with rows became part of a base table");
                break;
            }
        for (Oid t : changes.removed)
            if (holds_rows(t)) {
                refresh_because(e, "table " + qualified_name(t) + " with rows is no longer part of a base table");
                break;
            }
    }
}

EventTriggerData* event_data(FunctionCallInfo fcinfo) {
    if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
        throw Error("39P01", "ivm event trigger functions can only be called as event triggers");
    return reinterpret_cast<EventTriggerData*>(fcinfo->context);
}

}  // namespace

OwnDdl::OwnDdl() { ++own_ddl_depth; }
OwnDdl::~OwnDdl() { --own_ddl_depth; }
void reset_own_ddl() { own_ddl_depth = 0; }

}  // namespace ivm::pg

using namespace ivm::pg;

namespace {

// Runs a handler for a user's DDL: with SPI, and with only pg_catalog on
// the search path, so that the DDL of a privileged user cannot make it run
// someone's function or operator.  On error the abort restores the GUC.
Datum handle(FunctionCallInfo fcinfo, void (*handler)(const EventTriggerData&)) {
    const EventTriggerData& event = *event_data(fcinfo);
    if (own_ddl_depth > 0) PG_RETURN_VOID();
    OwnDdl own;
    const int nest = call([] {
        int level = NewGUCNestLevel();
        set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true,
                          0, false);
        return level;
    });
    spi::connect();
    if (catalog_present()) handler(event);
    spi::finish();
    call([&] { AtEOXact_GUC(true, nest); });
    PG_RETURN_VOID();
}

}  // namespace

IVM_SQL_FUNCTION(ivm_on_sql_drop) { return handle(fcinfo, on_sql_drop); }

IVM_SQL_FUNCTION(ivm_on_ddl_command_end) { return handle(fcinfo, on_ddl_command_end); }
