#include "pg/deferred.hpp"

#include "core/change_log.hpp"
#include "core/error.hpp"
#include "pg/base_triggers.hpp"
#include "pg/boundary.hpp"
#include "pg/keys.hpp"
#include "pg/netting.hpp"
#include "pg/relations.hpp"
#include "pg/replicated.hpp"
#include "pg/spi.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace ivm::pg::deferred {
namespace {


// The log of a base table, or InvalidOid.
Oid log_of(Oid base) {
    const std::string name = change_log::relname(base);
    const char* relname = name.c_str();
    return call([&] { return get_relname_relid(relname, get_namespace_oid("ivm", false)); });
}

// A relation's columns as "name type [not null]", in order: a log whose
// data columns differ from its base table's must be made anew.
std::string column_signature(Oid relid) {
    return spi::query("SELECT pg_catalog.string_agg(pg_catalog.quote_ident(attname) OPERATOR(pg_catalog.||) ' ' "
                      "OPERATOR(pg_catalog.||) pg_catalog.format_type(atttypid, atttypmod) OPERATOR(pg_catalog.||) "
                      "CASE WHEN attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY attnum) "
                      "FROM pg_catalog.pg_attribute WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped "
                      "AND attname NOT LIKE 'ivm$%'",
                      {std::to_string(relid)})[0][0].value_or("");
}

// A log's data column: its name (quoted) and whether its values are equal
// only where their images are (keys.hpp image_equal).
struct LogColumn {
    std::string name;
    bool image_equal = false;
};

// The log's data columns: the base table's, as the log was made.
std::vector<LogColumn> data_columns(Oid log) {
    std::vector<LogColumn> out;
    for (const spi::Row& r : spi::query("SELECT pg_catalog.quote_ident(attname), atttypid, attcollation FROM "
                                        "pg_catalog.pg_attribute WHERE attrelid = $1::oid AND attnum > 0 AND NOT "
                                        "attisdropped AND attname NOT LIKE 'ivm$%' ORDER BY attnum",
                                        {std::to_string(log)})) {
        const Oid type = static_cast<Oid>(std::stoul(*r[1])), collation = static_cast<Oid>(std::stoul(*r[2]));
        out.push_back({*r[0], call([&] { return image_equal(type, collation); })});
    }
    return out;
}

// The log's data columns with those of `base` the view does not read
// (`read`: its attnums; a 0: every column) blanked, which the logged rows
// then carry as NULL: they are netted and handed on narrower, and an
// UPDATE of only such columns nets to nothing.  The view's delta reads no
// other column (as for an UPDATE it skips, trigger.cpp).  A column of a
// domain keeps its values: the row's cast to the table's type checks the
// domain's constraints, which a NULL may fail.
std::vector<LogColumn> columns_read(std::vector<LogColumn> columns, Oid base, const std::vector<AttrNumber>& read) {
    if (read.empty() || std::find(read.begin(), read.end(), 0) != read.end()) return columns;
    std::string attnums;
    for (AttrNumber a : read) attnums += (attnums.empty() ? "" : ",") + std::to_string(a);
    std::vector<std::string> names;
    for (const spi::Row& r :
         spi::query("SELECT pg_catalog.quote_ident(a.attname) FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t "
                    "ON t.oid OPERATOR(pg_catalog.=) a.atttypid WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT "
                    "a.attisdropped AND (a.attnum = ANY ($2::int2[]) OR t.typtype OPERATOR(pg_catalog.=) 'd')",
                    {std::to_string(base), "{" + attnums + "}"}))
        names.push_back(*r[0]);
    for (LogColumn& c : columns)
        if (std::find(names.begin(), names.end(), c.name) == names.end()) c.name.clear();
    return columns;
}

// The base tables of the views `which` (a condition on ivm.view_catalog)
// picks, each once.
std::vector<Oid> bases_of_views(const char* which) {
    return spi::oids(spi::query(std::string("SELECT DISTINCT b::oid FROM ivm.view_catalog, "
                                            "pg_catalog.unnest(base_relations) b WHERE ") +
                                which + " ORDER BY 1"));
}

// The base tables of deferred views.
std::vector<Oid> logged_bases() {
    if (!catalog::have_deferred()) return {};
    return bases_of_views("deferred");
}

// The base tables whose rows a logical replication apply worker writes are
// logged by row triggers: those of deferred views, and where a subscription
// of this database may write any table, those of every view.
std::vector<Oid> replicated_bases(const std::vector<Oid>& deferred_bases) {
    if (!catalog::have_deferred()) return {};
    const bool subscribed = spi::query_int("SELECT pg_catalog.count(*) FROM pg_catalog.pg_subscription WHERE subdbid = "
                                           "(SELECT oid FROM pg_catalog.pg_database WHERE datname OPERATOR(pg_catalog.=) "
                                           "pg_catalog.current_database())") > 0;
    return subscribed ? bases_of_views("true") : deferred_bases;
}

// The base tables that have a log.
std::vector<Oid> bases_with_logs() {
    return spi::oids(spi::query("SELECT pg_catalog.substr(relname, 9)::oid FROM pg_catalog.pg_class WHERE relnamespace = "
                              "'ivm'::regnamespace AND relkind = 'r' AND relname ~ '^changes_[0-9]+$' ORDER BY 1"));
}

// The log is ivm's (made and read as the owner of its catalog) and a member
// of the extension: not dumped, its rows meaningless in another cluster.
void make_log(Oid base) {
    const std::string ddl = change_log::create_ddl(qualified_name(base), base);
    const std::string log = change_log::table_name(base);
    catalog::as_owner([&] {
        spi::execute(ddl);
        spi::execute("ALTER EXTENSION ivm ADD TABLE " + log);
    });
}

void drop_log(Oid base) {
    const std::string log = change_log::table_name(base);
    catalog::as_owner([&] {
        spi::execute("ALTER EXTENSION ivm DROP TABLE " + log);
        spi::execute("DROP TABLE " + log);
    });
}

// The deferred views reading `base` (InvalidOid: all of them) recompute
// at their next apply.
void mark_recompute(Oid base) {
    catalog::as_owner([&] {
        spi::execute("UPDATE ivm.deferred_state SET rebuild = true WHERE view_id IN (SELECT view_id FROM "
                     "ivm.view_catalog WHERE deferred AND ($1::oid = 0 OR $1::oid::regclass = ANY (base_relations)))",
                     {std::to_string(base)});
    });
}

// A snapshot as pg_snapshot's text, its 32-bit xids made full against the
// next xid (as pg_current_snapshot() does).
std::string snapshot_text(Snapshot snapshot) {
    const FullTransactionId next = call([] { return ReadNextFullTransactionId(); });
    auto full = [&](TransactionId xid) {
        uint64 epoch = EpochFromFullTransactionId(next);
        if (xid > XidFromFullTransactionId(next)) --epoch;  // from before the last wraparound
        return (epoch << 32) | xid;
    };
    std::vector<uint64> running;
    for (uint32 i = 0; i < snapshot->xcnt; ++i) running.push_back(full(snapshot->xip[i]));
    std::sort(running.begin(), running.end());
    running.erase(std::unique(running.begin(), running.end()), running.end());
    std::string text = std::to_string(full(snapshot->xmin)) + ":" + std::to_string(full(snapshot->xmax)) + ":";
    for (std::size_t i = 0; i < running.size(); ++i) text += (i ? "," : "") + std::to_string(running[i]);
    return text;
}

// The view has consumed every log row that `snapshot` sees, and those this
// transaction wrote before command `read_at`.
void record_consumed(int32 view_id, Snapshot snapshot, CommandId read_at) {
    const std::string applied = snapshot_text(snapshot);
    const FullTransactionId own = call([] { return GetTopFullTransactionIdIfAny(); });
    const spi::Value own_xid =
        FullTransactionIdIsValid(own) ? spi::Value(std::to_string(U64FromFullTransactionId(own))) : std::nullopt;
    catalog::as_owner([&] {
        spi::execute("INSERT INTO ivm.deferred_state (view_id, applied, own_xid, own_command, rebuild) VALUES "
                     "($1::integer, $2::pg_catalog.pg_snapshot, $3::pg_catalog.xid8, $4::bigint, false) "
                     "ON CONFLICT (view_id) DO UPDATE SET applied = EXCLUDED.applied, own_xid = EXCLUDED.own_xid, "
                     "own_command = EXCLUDED.own_command, rebuild = false",
                     {std::to_string(view_id), applied, own_xid, std::to_string(read_at)});
    });
}

// Whether the view's next apply recomputes it: marked so, or it never
// applied (a restore).  `lock`: its state row FOR UPDATE, as an apply takes it.
bool recompute_next(int32 view_id, bool lock) {
    std::vector<spi::Row> state;
    catalog::as_owner([&] {
        state = spi::query(std::string("SELECT rebuild FROM ivm.deferred_state WHERE view_id = $1::integer") +
                               (lock ? " FOR UPDATE" : ""),
                           {std::to_string(view_id)});
    });
    return state.empty() || state[0][0] == std::string("t");
}

// Runs an apply's statements under one snapshot, taken when it is made:
// the logs and the tables read are then one state without making the base
// tables' writers wait, at READ COMMITTED too, whose statements would each
// take a snapshot of their own: its transaction runs as REPEATABLE READ for
// as long as this lives (the level is restored also when unwinding: a
// savepoint rolled back leaves the transaction going).  At REPEATABLE READ
// and SERIALIZABLE the transaction's snapshot is that state already.
class OneSnapshot {
public:
    OneSnapshot() : saved_(XactIsoLevel) {
        if (saved_ >= XACT_REPEATABLE_READ) return;
        call([] { GetTransactionSnapshot(); });  // a new one, as READ COMMITTED takes
        XactIsoLevel = XACT_REPEATABLE_READ;     // which the statements then keep
    }
    ~OneSnapshot() { XactIsoLevel = saved_; }
    OneSnapshot(const OneSnapshot&) = delete;
    OneSnapshot& operator=(const OneSnapshot&) = delete;
    // Whether the transaction is at READ COMMITTED (its own level).
    bool read_committed() const { return saved_ < XACT_REPEATABLE_READ; }

private:
    const int saved_;
};

}  // namespace

namespace {

// Puts one set of log triggers (`ddl`, `drop`; `marker` is one of its
// names) on every table whose statements change rows of `bases`, and takes
// it off the others.  A base table without them gets them only when
// `install`.  Returns whether a table with rows joined (a partition
// attached) or left the tables carrying the set: rows a log never saw.
bool sync_trigger_set(const char* marker, const std::vector<Oid>& bases, bool install,
                      const std::function<std::vector<std::string>(const std::string&, bool)>& ddl,
                      const std::function<std::vector<std::string>(const std::string&, bool)>& drop) {
    const std::vector<Oid> triggered = spi::oids(
        spi::query("SELECT tgrelid FROM pg_catalog.pg_trigger WHERE tgname = $1 ORDER BY 1", {std::string(marker)}));
    std::vector<Oid> installed;
    for (Oid b : bases)
        if (install || contains(triggered, b)) installed.push_back(b);
    const std::vector<Oid> tables = with_descendants(installed);
    bool rows_moved = false;
    for (Oid t : tables) {
        if (contains(triggered, t)) continue;
        const bool leaf = call([&] { return get_rel_relkind(t); }) != RELKIND_PARTITIONED_TABLE;
        execute_as_owner_of(t, ddl(qualified_name(t), leaf));
        rows_moved |= !contains(bases, t) && holds_rows(t);
    }
    for (Oid t : triggered) {
        if (contains(tables, t)) continue;
        const bool leaf = call([&] { return get_rel_relkind(t); }) != RELKIND_PARTITIONED_TABLE;
        execute_as_owner_of(t, drop(qualified_name(t), leaf));
        rows_moved |= holds_rows(t);
    }
    return rows_moved;
}

}  // namespace

void sync_logs(bool install) {
    const std::vector<Oid> deferred_bases = logged_bases();
    const std::vector<Oid> wanted = replicated_bases(deferred_bases);  // (deferred_bases among them)
    const std::vector<Oid> present = bases_with_logs();
    for (Oid b : wanted)
        if (!contains(present, b)) make_log(b);
    for (Oid b : present)
        if (!contains(wanted, b)) drop_log(b);
    // A table with rows that joins a deferred view's base table or leaves
    // it changes the base table without a logged row: the deferred views
    // recompute.  (The immediate views' own triggers follow such tables.)
    const bool rows_moved = sync_trigger_set(
        "ivm_log_insert", deferred_bases, install,
        [](const std::string& t, bool) { return change_log::statement_trigger_ddl(t); },
        [](const std::string& t, bool) { return change_log::statement_trigger_drop(t); });
    sync_trigger_set(change_log::replica_truncate_trigger, wanted, install, change_log::replica_trigger_ddl,
                     change_log::replica_trigger_drop);
    if (rows_moved) mark_recompute(InvalidOid);
}

void follow_ddl(const std::vector<Oid>& tables) {
    // Logs live only while deferred views do, or views on a subscriber:
    // most databases' DDL stops here.
    const std::vector<Oid> logs = bases_with_logs();
    if (logs.empty()) return;
    for (Oid base : logs) {
        if (!contains(tables, base)) continue;
        const Oid log = log_of(base);
        if (column_signature(log) == column_signature(base)) continue;
        drop_log(base);
        make_log(base);
        mark_recompute(base);
    }
    sync_logs();
}

void follow_drop() {
    mark_recompute(InvalidOid);
    sync_logs();
}

void refuse_unless_deferrable(const AnalyzedView& analyzed) {
    if (!catalog::have_deferred())
        throw Error(sqlstate::object_not_in_prerequisite_state,
                    "ivm's objects in this database are older than version 0.4, which brought deferred views", {},
                    "Run ALTER EXTENSION ivm UPDATE.");
    if (analyzed.program)
        throw unsupported("deferred maintenance of general recursion (several recursive relations, non-linear "
                          "rules or negation)",
                          "Such a view is maintained by the statements that change its base tables; a linear "
                          "WITH RECURSIVE view can be deferred.");
}

void make_deferred(const catalog::Entry& entry, const AnalyzedView& analyzed) {
    refuse_unless_deferrable(analyzed);
    catalog::set_deferred(entry.view_id, true);
    sync_base_triggers(entry.view_id, &analyzed);  // dropping them waits for the writers under way
    sync_logs(true);
    // No apply may prune a log while this view starts reading it; writers
    // of its base tables wait (for the trigger drop) until this commits.
    for (Oid b : analyzed.base_oids) {
        const Oid log = log_of(b);
        call([&] { LockRelationOid(log, ShareLock); });
    }
    // It holds every change committed so far, its triggers having
    // maintained it: consumed, also those its snapshot does not see.
    record_consumed(entry.view_id, call([] { return GetLatestSnapshot(); }),
                    call([] { return GetCurrentCommandId(false); }));
    forget_runtime(entry.view_id);
}

void make_immediate(ViewRuntime& view) {
    if (call([] { return IsolationUsesXactSnapshot(); }))
        throw Error(sqlstate::feature_not_supported,
                    "a deferred view can be made immediate only in a READ COMMITTED transaction", {},
                    "Its logged changes must be applied as committed when its triggers are back, which a "
                    "REPEATABLE READ or SERIALIZABLE snapshot may not see.");
    const int32 id = view.entry.view_id;
    catalog::set_deferred(id, false);
    sync_base_triggers(id, &view.analyzed);  // waits for the writers under way; later ones wait for this
    apply(view, false);
    catalog::as_owner([&] {
        spi::execute("DELETE FROM ivm.deferred_state WHERE view_id = $1::integer", {std::to_string(id)});
    });
    sync_logs(true);
    forget_runtime(id);
}

MaintenanceResult apply_logged(const std::vector<Oid>& bases, const LoggedRows& rows_sql, const Merge& merge,
                               const std::vector<std::vector<AttrNumber>>* read) {
    MemoryContext memory = call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "ivm logged changes", ALLOCSET_DEFAULT_SIZES);
    });
    std::vector<BaseChange> changes(bases.size());
    std::vector<Tuplestorestate*> stores;  // ended before their memory goes: one that spilled holds a file
    for (std::size_t b = 0; b < bases.size(); ++b) {
        const Oid log = log_of(bases[b]);
        if (log == InvalidOid) continue;
        std::vector<LogColumn> columns = data_columns(log);
        if (read != nullptr && b < read->size()) columns = columns_read(std::move(columns), bases[b], (*read)[b]);
        std::vector<std::string> names;
        bool by_value = true;
        for (const LogColumn& c : columns) {
            names.push_back(c.name);
            by_value = by_value && (c.name.empty() || c.image_equal);
        }
        const std::string logged = change_log::table_name(bases[b]);
        const std::string type = qualified_name(bases[b]);
        const std::string netted_sql = rows_sql(logged, type, names, by_value);
        NetRows net;
        catalog::as_owner([&] {
            const char* sql = netted_sql.c_str();
            call([&] { net = netted_rows(sql, memory); });
        });
        stores.insert(stores.end(), {net.inserted, net.deleted});
        if (rows_in(net.inserted) + rows_in(net.deleted) == 0) continue;
        changes[b] = {net.inserted, net.deleted};
    }
    const bool changed = std::any_of(changes.begin(), changes.end(), [](const BaseChange& c) {
        return c.new_rows != nullptr || c.old_rows != nullptr;
    });
    MaintenanceResult result;
    if (changed) result = merge(changes);
    call([&] {
        for (Tuplestorestate* store : stores)
            if (store != nullptr) tuplestore_end(store);
        MemoryContextDelete(memory);
    });
    return result;
}

MaintenanceResult apply(ViewRuntime& view, bool recompute) {
    const int32 id = view.entry.view_id;
    const std::vector<Oid>& bases = view.analyzed.base_oids;  // (with its recursive relation, which has no log)
    const std::vector<Oid>& tables_logged = view.entry.bases;
    // One apply of the view at a time: the others wait here (at READ
    // COMMITTED, then read what it wrote; at REPEATABLE READ they fail with
    // 40001).  A TRUNCATE of a base table marks the row too, holding the
    // table ACCESS EXCLUSIVE: the tables are locked first, so that the two
    // wait for each other in one order.
    const std::vector<Oid> tables = with_descendants(tables_logged);
    call([&] {
        for (Oid t : tables) LockRelationOid(t, AccessShareLock);
    });
    recompute = recompute_next(id, true) || recompute;
    MaintenanceResult result;
    bool read_committed = false;
    {
        const OneSnapshot snapshot;
        read_committed = snapshot.read_committed();
        const CommandId read_at = call([] { return GetCurrentCommandId(false); });
        if (recompute) {
            result = refresh_all(view);
        } else {
            const LoggedRows pending = [&](const std::string& log, const std::string& type,
                                           const std::vector<std::string>& columns, bool by_value) {
                return change_log::pending_rows_sql(log, type, columns, by_value, id);
            };
            for (Oid b : tables_logged)
                if (log_of(b) == InvalidOid)
                    throw Error(sqlstate::internal_error, "no change log for base table " + qualified_name(b));
            // The view's own tables first, against its recursive relation as
            // it stands; then DRed writes the relation, whose triggers
            // merge its change into the view.
            result = apply_logged(
                bases, pending, [&](const std::vector<BaseChange>& changes) { return apply_changes(view, changes); },
                &view.analyzed.columns_read);
            if (view.analyzed.recursion()) {  // (counted: the relation's tuples that changed)
                const MaintenanceResult r = apply_logged(
                    view.analyzed.recursive_base_oids, pending, [&](const std::vector<BaseChange>& changes) {
                        return apply_recursive_changes(view, changes, InvalidSnapshot);
                    });
                result.rows_added += r.rows_added;
                result.rows_removed += r.rows_removed;
            }
        }
        record_consumed(id, call([] { return GetTransactionSnapshot(); }), read_at);
    }
    // Rows every deferred view has consumed go, seen with a new snapshot
    // once a view being made deferred (which holds its logs SHARE) has
    // committed its state.  Not at REPEATABLE READ: an older snapshot may
    // miss such a view's state and take rows it still needs.
    if (read_committed)
        for (Oid b : tables_logged) {
            const Oid log = log_of(b);
            const std::string sql = change_log::prune_sql(change_log::table_name(b));
            call([&] { LockRelationOid(log, RowExclusiveLock); });
            catalog::as_owner([&] { spi::execute(sql, {std::to_string(b)}); });
        }
    return result;
}

std::optional<int64> pending_changes(int32 view_id) {
    std::optional<catalog::Entry> entry = catalog::find_by_id(view_id);
    if (!entry || !entry->deferred) return std::nullopt;
    int64 pending = 0;
    for (Oid b : entry->bases) {
        if (log_of(b) == InvalidOid) continue;
        const std::string sql = change_log::pending_count_sql(change_log::table_name(b));
        catalog::as_owner([&] { pending += spi::query_int(sql, {std::to_string(view_id)}); });
    }
    return pending;
}

bool will_recompute(int32 view_id) { return recompute_next(view_id, false); }


namespace {

// What a log trigger on one table needs, kept per backend: a one-row write
// must not pay for finding the logs and their columns.  A relcache
// invalidation of the table or a log marks it stale; it is made anew at its
// next use.
struct LogTarget {
    Oid base = InvalidOid;  // the table, or an ancestor, that has a log
    Oid log = InvalidOid;
    // Per column of the log: the firing table's column it takes (by name;
    // 0 for the log's own columns).
    std::vector<AttrNumber> from;
    AttrNumber xid = 0, command = 0, sign = 0;  // the log's own columns
};
struct LogWriter {
    // Every logged base whose rows the table's rows are: the table and
    // each logged ancestor (a partition read by one deferred view and its
    // parent by another writes both logs).
    std::vector<LogTarget> targets;
    bool found = false;  // targets looked up
    bool stale = false;
};
std::unordered_map<Oid, LogWriter> log_writers;

// Where each column of the target's log comes from in rows of `relid`.
// Needs SPI.
void map_columns(LogTarget& t, Oid relid) {
    const std::vector<spi::Row> columns = spi::query(
        "SELECT a.attname, coalesce(r.attnum, 0) FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attribute r "
        "ON r.attrelid = $2::oid AND r.attname = a.attname AND r.attnum > 0 AND NOT r.attisdropped "
        "WHERE a.attrelid = $1::oid AND a.attnum > 0 ORDER BY a.attnum",
        {std::to_string(t.log), std::to_string(relid)});
    t.from.assign(columns.size(), 0);
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const std::string& name = *columns[i][0];
        const auto attno = static_cast<AttrNumber>(i + 1);
        if (name == "ivm$xid") t.xid = attno;
        else if (name == "ivm$command") t.command = attno;
        else if (name == "ivm$sign") t.sign = attno;
        else t.from[i] = static_cast<AttrNumber>(std::stoi(*columns[i][1]));
    }
}

// The writer for a trigger on `relid`.  (SPI only to find it: a write of
// a table whose writer is known opens no SPI connection.)
const LogWriter& log_writer(Oid relid) {
    LogWriter& writer = log_writers[relid];
    if (writer.stale || !writer.found) {
        spi::connect();
        writer = LogWriter{};
        for (Oid base : bases_of(relid, bases_with_logs())) {
            LogTarget t{base, log_of(base)};
            map_columns(t, relid);
            writer.targets.push_back(t);
        }
        writer.found = true;
        spi::finish();
    }
    return writer;
}

// Appending rows of the firing table to a target's log, written straight
// into its heap as the owner of ivm's catalog would (the log has no index,
// no trigger and no constraint but the base table's NOT NULLs, which the
// rows meet): each with this transaction, the command and the sign.  Raw
// PostgreSQL calls, with no C++ object: run them inside call().
struct Appender {
    const LogTarget* target;
    Relation log;
    TupleDesc desc;
    Datum* values;
    bool* nulls;
    Datum xid;
};

Appender open_appender(const LogTarget& t) {
    Relation log = table_open(t.log, RowExclusiveLock);
    TupleDesc desc = RelationGetDescr(log);
    return {&t, log, desc, static_cast<Datum*>(palloc(sizeof(Datum) * static_cast<std::size_t>(desc->natts))),
            static_cast<bool*>(palloc(sizeof(bool) * static_cast<std::size_t>(desc->natts))),
            FullTransactionIdGetDatum(GetTopFullTransactionId())};
}

void close_appender(const Appender& a) {
    pfree(a.values);
    pfree(a.nulls);
    table_close(a.log, NoLock);
}

void append_slot(const Appender& a, TupleTableSlot* slot, int64 command, int16 sign) {
    slot_getallattrs(slot);
    const AttrNumber* from = a.target->from.data();
    for (int i = 0; i < a.desc->natts; ++i) {
        a.nulls[i] = from[i] <= 0 || slot->tts_isnull[from[i] - 1];
        a.values[i] = a.nulls[i] ? Datum(0) : slot->tts_values[from[i] - 1];
    }
    a.values[a.target->xid - 1] = a.xid;
    a.values[a.target->command - 1] = Int64GetDatum(command);
    a.values[a.target->sign - 1] = Int16GetDatum(sign);
    a.nulls[a.target->xid - 1] = a.nulls[a.target->command - 1] = a.nulls[a.target->sign - 1] = false;
    HeapTuple row = heap_form_tuple(a.desc, a.values, a.nulls);
    simple_heap_insert(a.log, row);
    heap_freetuple(row);
}

// The rows of a transition table, appended with `sign`.
void append_transition_rows(const LogTarget& t, Relation firing, Tuplestorestate* rows, int64 command, int16 sign) {
    const Appender a = open_appender(t);
    TupleTableSlot* slot = MakeSingleTupleTableSlot(RelationGetDescr(firing), &TTSOpsMinimalTuple);
    const int reader = tuplestore_alloc_read_pointer(rows, EXEC_FLAG_REWIND);  // the view triggers' reads go on
    tuplestore_select_read_pointer(rows, reader);
    tuplestore_rescan(rows);
    while (tuplestore_gettupleslot(rows, true, false, slot)) append_slot(a, slot, command, sign);
    tuplestore_select_read_pointer(rows, 0);
    ExecDropSingleTupleTableSlot(slot);
    close_appender(a);
}

// One row of the firing table, appended with `sign`.
void append_row(const LogTarget& t, Relation firing, HeapTuple row, int64 command, int16 sign) {
    const Appender a = open_appender(t);
    TupleTableSlot* slot = MakeSingleTupleTableSlot(RelationGetDescr(firing), &TTSOpsHeapTuple);
    ExecStoreHeapTuple(row, slot, false);
    append_slot(a, slot, command, sign);
    ExecDropSingleTupleTableSlot(slot);
    close_appender(a);
}

}  // namespace

// (Each apply in an SPI connection of its own, as each ivm.refresh_view has.)
void apply_views_reading(Oid base, std::vector<int32>* done) {
    if (base == InvalidOid) return;
    spi::connect();
    std::vector<int32> views;
    for (const spi::Row& row : spi::query("SELECT view_id FROM ivm.view_catalog WHERE deferred AND populated AND "
                                          "$1::oid::regclass = ANY (base_relations) ORDER BY view_id",
                                          {std::to_string(base)}))
        views.push_back(std::stoi(*row[0]));
    spi::finish();
    for (int32 id : views) {
        if (done != nullptr) {
            if (std::find(done->begin(), done->end(), id) != done->end()) continue;
            done->push_back(id);
        }
        spi::connect();
        std::shared_ptr<ViewRuntime> view = runtime_for(id);
        apply(*view, false);
        view.reset();
        spi::finish();
    }
}

void forget_log_writers(Oid relid) {
    for (auto& [table, writer] : log_writers) {
        bool involved = relid == InvalidOid || table == relid;
        for (const LogTarget& t : writer.targets) involved |= t.base == relid || t.log == relid;
        if (involved) writer.stale = true;
    }
}

}  // namespace ivm::pg::deferred

using namespace ivm::pg;

// The log triggers: the statement's transition rows appended to the log of
// the base table (the table itself, or the ancestor it belongs to), as the
// owner of ivm's catalog (users cannot write the logs themselves).
IVM_SQL_FUNCTION(ivm_log_change) {
    TriggerData* data = trigger_data(fcinfo);
    const Oid relid = RelationGetRelid(data->tg_relation);
    // (a copy: what a relcache invalidation marks stale meanwhile is kept)
    const deferred::LogWriter writer = deferred::log_writer(relid);
    // (No target at all: between a restore's triggers and the first sync
    // of its logs, when no deferred view has consumed anything yet.)
    if (TRIGGER_FIRED_BY_TRUNCATE(data->tg_event)) {
        spi::connect();
        for (const deferred::LogTarget& t : writer.targets) deferred::mark_recompute(t.base);
        spi::finish();
        // An apply worker's TRUNCATE fires no constraint trigger at its
        // commit: the views reading the table are recomputed now (rows the
        // transaction writes later are applied at its commit).
        if (std::string(data->tg_trigger->tgname) == ivm::change_log::replica_truncate_trigger) {
            std::vector<Oid> truncated;
            for (const deferred::LogTarget& t : writer.targets) truncated.push_back(t.base);
            replicated::apply_pending(truncated);
        }
        return PointerGetDatum(nullptr);
    }
    call([&] {
        const int64 command = GetActiveSnapshot()->curcid;
        for (const deferred::LogTarget& t : writer.targets) {
            if (data->tg_oldtable != nullptr)
                deferred::append_transition_rows(t, data->tg_relation, data->tg_oldtable, command, -1);
            if (data->tg_newtable != nullptr)
                deferred::append_transition_rows(t, data->tg_relation, data->tg_newtable, command, 1);
        }
    });
    return PointerGetDatum(nullptr);
}

// The row trigger a logical replication apply worker fires (enabled for
// replicas only): the row appended to the log as the statement triggers
// append a statement's rows.
IVM_SQL_FUNCTION(ivm_log_row_change) {
    TriggerData* data = trigger_data(fcinfo);
    const deferred::LogWriter writer = deferred::log_writer(RelationGetRelid(data->tg_relation));
    for (const deferred::LogTarget& t : writer.targets) replicated::note_logged(t.base);
    call([&] {
        const int64 command = GetCurrentCommandId(false);
        for (const deferred::LogTarget& t : writer.targets) {
            if (TRIGGER_FIRED_BY_INSERT(data->tg_event)) {
                deferred::append_row(t, data->tg_relation, data->tg_trigtuple, command, 1);
            } else if (TRIGGER_FIRED_BY_DELETE(data->tg_event)) {
                deferred::append_row(t, data->tg_relation, data->tg_trigtuple, command, -1);
            } else {
                deferred::append_row(t, data->tg_relation, data->tg_trigtuple, command, -1);
                deferred::append_row(t, data->tg_relation, data->tg_newtuple, command, 1);
            }
        }
    });
    return PointerGetDatum(nullptr);
}

IVM_SQL_FUNCTION(ivm_pending_changes) {
    const int32 view_id = PG_GETARG_INT32(0);
    spi::connect();
    const std::optional<int64> pending = deferred::pending_changes(view_id);
    spi::finish();
    if (!pending) PG_RETURN_NULL();
    PG_RETURN_INT64(*pending);
}
