#include "pg/replicated.hpp"

#include "core/change_log.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/deferred.hpp"
#include "pg/maintain.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"

#include <algorithm>
#include <memory>

namespace ivm::pg::replicated {
namespace {

// What this transaction logged, per table and subtransaction: up to which
// command.  Its views have taken in the rows of the commands before
// `taken_from`.
struct Logged {
    Oid table;
    SubTransactionId subxact;
    CommandId last;
};
std::vector<Logged> logged;
CommandId taken_from = FirstCommandId;

std::vector<Oid> tables_logged_from(CommandId from) {
    std::vector<Oid> tables;
    for (const Logged& l : logged)
        if (l.last >= from && !contains(tables, l.table)) tables.push_back(l.table);
    return tables;
}

// While views take in replicated rows, the triggers of the views reading
// their storage fire as on a primary, so that those follow.  Set directly,
// as deferred.cpp's OneSnapshot sets the isolation level (and restored
// also when unwinding): through the setting, its assign hook would drop
// every cached plan of the session twice per replicated transaction, and
// only rules enabled for one role plan differently, of which ivm has none.
class OriginRole {
public:
    OriginRole() : saved_(SessionReplicationRole) { SessionReplicationRole = SESSION_REPLICATION_ROLE_ORIGIN; }
    ~OriginRole() { SessionReplicationRole = saved_; }
    OriginRole(const OriginRole&) = delete;
    OriginRole& operator=(const OriginRole&) = delete;

private:
    const int saved_;
};

// The populated immediate views reading any of `tables`, each before the
// views it reads (made before it): a view merges its own tables' change
// against the old state of the views it reads, whose change then reaches
// it through their storage's triggers.
std::vector<int32> immediate_views_reading(const std::vector<Oid>& tables) {
    std::vector<int32> views;
    for (const spi::Row& row : spi::query("SELECT view_id FROM ivm.view_catalog WHERE NOT deferred AND populated AND "
                                          "base_relations::pg_catalog.oid[] OPERATOR(pg_catalog.&&) $1::pg_catalog.oid[] "
                                          "ORDER BY view_id DESC",
                                          {spi::oid_array(tables)}))
        views.push_back(std::stoi(*row[0]));
    return views;
}

bool reads_any(const ViewRuntime& view, const std::vector<Oid>& tables) {
    return std::any_of(tables.begin(), tables.end(), [&](Oid t) { return view.depends_on(t); });
}

// The rows this transaction logged in commands `from` to `to` (less
// one), merged into the view: its counting part, then (writing the
// recursive relation, whose triggers maintain the rest) DRed, with the
// tables' old state derived from their current one.
void take_in(ViewRuntime& view, CommandId from, CommandId to) {
    const deferred::LoggedRows own = [from, to](const std::string& log, const std::string& type,
                                                const std::vector<std::string>& columns, bool by_value) {
        return change_log::own_rows_sql(log, type, columns, by_value, from, to);
    };
    deferred::apply_logged(
        view.analyzed.base_oids, own, [&](const std::vector<BaseChange>& changes) { return apply_changes(view, changes); },
        &view.analyzed.columns_read);
    if (!view.analyzed.recursion()) return;
    deferred::apply_logged(view.analyzed.recursive_base_oids, own, [&](const std::vector<BaseChange>& changes) {
        return apply_recursive_changes(view, changes, InvalidSnapshot);
    });
}

}  // namespace

void note_logged(Oid base) {
    const CommandId command = call([] { return GetCurrentCommandId(false); });
    const SubTransactionId subxact = call([] { return GetCurrentSubTransactionId(); });
    for (Logged& l : logged)
        if (l.table == base && l.subxact == subxact) {
            l.last = std::max(l.last, command);
            return;
        }
    logged.push_back({base, subxact, command});
}

void apply_pending(const std::vector<Oid>& truncated) {
    // The rows of the commands before this one: all of them at the commit.
    // (Fired before it commits — SET CONSTRAINTS ... IMMEDIATE — each row's
    // firing comes before the row trigger logging it, and a statement may
    // have more rows to log: its own rows wait for a later firing.)
    const CommandId from = taken_from;
    const CommandId to = call([] { return GetCurrentCommandId(false); });
    std::vector<Oid> tables = tables_logged_from(from);
    for (Oid t : truncated)
        if (!contains(tables, t)) tables.push_back(t);
    if (tables.empty() || (to <= from && truncated.empty())) return;
    taken_from = std::max(from, to);
    const OriginRole origin;
    spi::connect();
    const std::vector<int32> views = immediate_views_reading(tables);
    spi::finish();
    for (int32 id : views) {  // each in an SPI connection of its own, as each statement's maintenance is
        spi::connect();
        std::shared_ptr<ViewRuntime> view = runtime_for(id);
        if (reads_any(*view, truncated))
            refresh_all(*view);  // TRUNCATE logs no rows
        else
            take_in(*view, from, to);
        view.reset();
        spi::finish();
    }
    std::vector<int32> done;
    for (Oid t : tables) deferred::apply_views_reading(t, &done);
    // What no deferred view reads has been taken in by every view that reads
    // it (the deferred views' apply removes what they have all taken in).
    spi::connect();
    for (Oid t : tables) {
        const std::string sql = change_log::taken_in_sql(change_log::table_name(t));
        catalog::as_owner([&] { spi::execute(sql, {std::to_string(t), std::to_string(to)}); });
    }
    spi::finish();
}

void check_taken_in() {
    if (tables_logged_from(taken_from).empty()) return;
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("incrementally maintained views have not taken in rows this transaction wrote as a "
                           "replica"),
                    errdetail("ivm's constraint trigger ivm_apply_replicated fired before the last statement's rows "
                              "were logged."),
                    errhint("Do not set ivm_apply_replicated IMMEDIATE in a session with session_replication_role = "
                            "replica.")));
}

void forget_subtransaction(SubTransactionId aborted) {
    logged.erase(std::remove_if(logged.begin(), logged.end(), [&](const Logged& l) { return l.subxact >= aborted; }),
                 logged.end());
}

void end_transaction() {
    logged.clear();
    taken_from = FirstCommandId;
}

}  // namespace ivm::pg::replicated

using namespace ivm::pg;

// The deferred constraint trigger a logical replication apply worker fires
// (enabled for replicas only) at its commit, once per row it wrote: the
// first firing has every view take in what the transaction logged.
IVM_SQL_FUNCTION(ivm_apply_replicated) {
    trigger_data(fcinfo);
    replicated::apply_pending({});
    return PointerGetDatum(nullptr);
}
