// Where a change enters.  Each base table of a view carries a BEFORE
// STATEMENT trigger and AFTER STATEMENT triggers with transition tables.
// One SQL statement can fire several of them for one view (a writable CTE
// changing two tables, a trigger writing another table, INSERT ... ON
// CONFLICT firing both INSERT and UPDATE).  Every BEFORE firing is counted;
// an AFTER firing that leaves BEFOREs unanswered only keeps a copy of its
// transition tables; the one that answers the last BEFORE maintains the
// view once, with every base table in its final state and all the deltas.
// The BEFORE firing also takes the view's writer locks, before the
// statement changes any row (lock_writers_early).
#include "core/error.hpp"
#include "core/triggers.hpp"
#include "pg/base_triggers.hpp"
#include "pg/boundary.hpp"
#include "pg/faults.hpp"
#include "pg/maintain.hpp"
#include "pg/netting.hpp"
#include "pg/pending.hpp"
#include "pg/spi.hpp"
#include "pg/view_locks.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace ivm::pg {
namespace {

// One trigger firing for a view; AFTER firings may carry saved deltas.
struct Firing {
    SubTransactionId subxact;
    bool before;           // BEFORE STATEMENT (true) or AFTER STATEMENT
    Oid relid;
    // The rows are not known: a TRUNCATE, or a statement that started
    // without its transition capture (large_statements.hpp).  The view is
    // computed anew.
    bool unknown_rows = false;
    bool truncate = false;  // (of these, a TRUNCATE)
    Tuplestorestate* new_rows = nullptr;
    Tuplestorestate* old_rows = nullptr;
    bool copies = false;  // the rows are our copies (in pending_context), ended once maintained
    // AFTER: the command id of the statement whose trigger this is.  The
    // firings of one statement (INSERT ... ON CONFLICT, writable CTEs)
    // share it; a statement run inside it (by a trigger) has another, and
    // may change again the rows the first one changed (netting.hpp).
    CommandId command = InvalidCommandId;
    Snapshot snapshot = nullptr;  // DRed: the first BEFORE keeps the state before the statement
};

// A view's counting part (its query) and its recursive part (DRed of the
// WITH RECURSIVE relation) queue their changes separately.
struct PendingKey {
    int32 view_id;
    bool recursive;
    bool operator==(const PendingKey& o) const { return view_id == o.view_id && recursive == o.recursive; }
};
struct PendingKeyHash {
    std::size_t operator()(const PendingKey& k) const { return std::hash<int64>()(k.view_id * 2 + k.recursive); }
};

std::unordered_map<PendingKey, std::vector<Firing>, PendingKeyHash> pending;
MemoryContext pending_context = nullptr;  // child of TopTransactionContext

PendingKey key_argument(TriggerData* data) {
    const Trigger* t = data->tg_trigger;
    if (t->tgnargs < 1) throw Error(sqlstate::internal_error, "ivm trigger without a view id");
    return {static_cast<int32>(std::stol(t->tgargs[0])), t->tgnargs > 1 && std::string(t->tgargs[1]) == "rec"};
}

// A copy of the active snapshot in TopTransactionContext.  It needs no
// registration: the statement it belongs to is still running when its
// batch is maintained, so the statement's own snapshot holds back xmin.
Snapshot copy_of_active_snapshot() {
    return call([] {
        Snapshot active = GetActiveSnapshot();
        char* buffer = static_cast<char*>(palloc(EstimateSnapshotSpace(active)));
        SerializeSnapshot(active, buffer);
        Snapshot copy = RestoreSnapshot(buffer);  // allocated in TopTransactionContext
        pfree(buffer);
        // Ours to free: marked as not a snapmgr copy, so that pushing it as
        // the active snapshot (SPI_execute_snapshot) pushes a copy of it,
        // which snapmgr frees when it pops it.
        copy->copied = false;
        return copy;
    });
}

// A copy that spilled holds a temporary file until it is ended: left to
// the transaction's end, PostgreSQL warns of a temporary file leak.
void release(Firing& f) {
    auto end = [](Tuplestorestate*& rows) {
        Tuplestorestate* store = rows;
        rows = nullptr;
        if (store != nullptr) call([&] { tuplestore_end(store); });
    };
    if (f.copies) {
        end(f.new_rows);
        end(f.old_rows);
        f.copies = false;
    }
    if (f.snapshot == nullptr) return;
    Snapshot snap = f.snapshot;
    f.snapshot = nullptr;
    call([&] { pfree(snap); });
}

MemoryContext pending_memory() {
    if (pending_context == nullptr)
        pending_context = call([] {
            return AllocSetContextCreate(TopTransactionContext, "ivm pending changes",
                                         ALLOCSET_DEFAULT_SIZES);
        });
    return pending_context;
}

// Appends every row of `from` (row type `desc`) to `into`, converted to
// row type `to` by column name when given (a partition or child may order
// its columns differently, a child may have more), reading `from` through
// a read pointer of its own: a transition table is shared by all the AFTER
// triggers of its event.
void append_rows(Tuplestorestate* into, Tuplestorestate* from, TupleDesc desc, TupleDesc to = nullptr) {
    MemoryContext memory = pending_memory();
    call([&] {
        MemoryContext old = MemoryContextSwitchTo(memory);
        TupleConversionMap* map = to != nullptr ? convert_tuples_by_name(desc, to) : nullptr;
        TupleTableSlot* slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
        TupleTableSlot* converted = map != nullptr ? MakeSingleTupleTableSlot(to, &TTSOpsVirtual) : nullptr;
        int reader = tuplestore_alloc_read_pointer(from, EXEC_FLAG_REWIND);
        tuplestore_select_read_pointer(from, reader);
        tuplestore_rescan(from);
        while (tuplestore_gettupleslot(from, true, false, slot))
            tuplestore_puttupleslot(into, map != nullptr ? execute_attr_map_slot(map->attrMap, slot, converted) : slot);
        tuplestore_select_read_pointer(from, 0);
        ExecDropSingleTupleTableSlot(slot);
        if (converted != nullptr) ExecDropSingleTupleTableSlot(converted);
        MemoryContextSwitchTo(old);
    });
}

// A copy of `source` in pending_context, converted to row type `to` when given.
Tuplestorestate* copy_rows(Tuplestorestate* source, TupleDesc desc, TupleDesc to = nullptr) {
    if (source == nullptr) return nullptr;
    MemoryContext memory = pending_memory();
    Tuplestorestate* copy = call([&] {
        MemoryContext old = MemoryContextSwitchTo(memory);
        Tuplestorestate* store = tuplestore_begin_heap(false, false, work_mem);
        MemoryContextSwitchTo(old);
        return store;
    });
    append_rows(copy, source, desc, to);
    return copy;
}

TupleDesc base_descriptor(Oid relid) {
    return call([&] {
        Relation rel = table_open(relid, AccessShareLock);
        TupleDesc desc = CreateTupleDescCopy(RelationGetDescr(rel));
        table_close(rel, AccessShareLock);
        return desc;
    });
}

// The base table of the view (or of its recursive relation) that a trigger
// on `rel` reports for: rel, or the ancestor it is a partition or child of.
Oid firing_base(const ViewRuntime& view, PendingKey key, Relation rel) {
    const Oid base =
        base_of(RelationGetRelid(rel), key.recursive ? view.analyzed.recursive_base_oids : view.analyzed.base_oids);
    if (base == InvalidOid) throw Error(sqlstate::internal_error, "ivm trigger on a table the view does not read");
    return base;
}

// A base changed by several statements gets its rows netted: the middle
// version of a row both changed is neither inserted nor deleted.  Those of
// one statement never touch one row twice, and are only concatenated.
void net_repeated_changes(std::vector<BaseChange>& changes, const std::vector<bool>& repeated,
                          const std::vector<Oid>& bases, std::vector<Tuplestorestate*>& made) {
    for (std::size_t b = 0; b < changes.size(); ++b) {
        if (!repeated[b]) continue;
        const NetRows net = net_rows(bases[b], changes[b].new_rows, changes[b].old_rows, pending_memory());
        made.push_back(net.inserted);
        made.push_back(net.deleted);
        changes[b].new_rows = net.inserted;
        changes[b].old_rows = net.deleted;
    }
}

// Gathers the saved deltas per base (concatenating several firings of one
// base) and maintains the view, or its recursive relation.
void maintain(PendingKey key, std::vector<Firing>& firings) {
    // Only UPDATEs of columns the view does not read: nothing changed.
    if (std::all_of(firings.begin(), firings.end(), [](const Firing& f) {
            return f.before || (!f.unknown_rows && f.new_rows == nullptr && f.old_rows == nullptr);
        })) {
        for (Firing& f : firings) release(f);
        return;
    }
    uint64 rows = 0;
    for (const Firing& f : firings) rows += rows_in(f.new_rows) + rows_in(f.old_rows);
    spi::connect();
    std::shared_ptr<ViewRuntime> holder = runtime_for_change(key.view_id, rows);
    ViewRuntime& view = *holder;
    Snapshot before = firings.front().snapshot;
    bool unknown = false, truncated = false;
    const std::size_t n = key.recursive ? view.analyzed.recursive_base_oids.size() : view.analyzed.base_oids.size();
    std::vector<BaseChange> changes(n);
    std::vector<CommandId> command(n, InvalidCommandId);
    std::vector<bool> repeated(n, false);
    std::vector<bool> changed(n, false);  // bases with rows, or whose rows are not known
    for (Firing& f : firings) {
        if (f.before) continue;
        unknown |= f.unknown_rows;
        truncated |= f.truncate;
        int b = key.recursive ? view.recursive_base_index(f.relid) : view.base_index(f.relid);
        if (b < 0) throw Error(sqlstate::internal_error, "ivm trigger on a table the view does not read");
        BaseChange& c = changes[b];
        changed[b] = changed[b] || f.unknown_rows || rows_in(f.new_rows) + rows_in(f.old_rows) > 0;
        if (rows_in(f.new_rows) + rows_in(f.old_rows) > 0) {
            repeated[b] = repeated[b] || (command[b] != InvalidCommandId && command[b] != f.command);
            command[b] = f.command;
        }
        for (auto [into, from] : {std::pair{&c.new_rows, f.new_rows}, std::pair{&c.old_rows, f.old_rows}}) {
            if (from == nullptr) continue;
            if (*into == nullptr) {
                *into = from;
            } else {
                TupleDesc desc = base_descriptor(f.relid);
                append_rows(*into, from, desc);
            }
        }
    }
    std::vector<Tuplestorestate*> netted;
    if (!unknown && view.entry.populated)
        net_repeated_changes(changes, repeated,
                             key.recursive ? view.analyzed.recursive_base_oids : view.analyzed.base_oids, netted);
    if (!view.entry.populated) {
        // refresh_view(..., false): maintenance paused
    } else if (key.recursive) {
        if (unknown)
            refresh_recursive(view);
        else
            apply_recursive_changes(view, changes, before);
    } else if (unknown) {
        // (a TRUNCATE's BEFORE firing took the view's locks alone)
        recompute(view, truncated ? std::vector<bool>(n, false) : changed);
    } else {
        apply_changes(view, changes);
    }
    for (Firing& f : firings) release(f);
    for (Tuplestorestate* store : netted) call([&] { tuplestore_end(store); });
    spi::finish();
}

// Whether an UPDATE of `rel` (a base of the view's query, not its
// recursive relation) may have changed a column the view reads.  The
// statement's updated columns (tg_updatedcols: those it sets and the
// generated columns that follow them) are all that changed, unless a
// BEFORE ROW trigger changed others, or the table has partitions or
// children with triggers of their own.  An UPDATE of other columns (a
// last_login, a counter the view does not show) leaves every row of the
// view as it was: the view is not maintained at all.
bool reads_updated_columns(const ViewRuntime& view, Relation rel, const Bitmapset* updated) {
    if (updated == nullptr || rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relhassubclass ||
        (rel->trigdesc != nullptr && rel->trigdesc->trig_update_before_row))
        return true;
    const int b = view.base_index(RelationGetRelid(rel));
    const std::vector<std::vector<AttrNumber>>& read = view.analyzed.columns_read;
    if (b < 0 || static_cast<std::size_t>(b) >= read.size()) return true;
    const std::vector<AttrNumber>& columns = read[static_cast<std::size_t>(b)];
    if (std::find(columns.begin(), columns.end(), 0) != columns.end()) return true;
    int member = -1;
    while ((member = bms_next_member(updated, member)) >= 0) {
        const int attno = member + FirstLowInvalidHeapAttributeNumber;
        if (attno <= 0 || std::find(columns.begin(), columns.end(), attno) != columns.end()) return true;
    }
    return false;
}

// Takes the view's writer locks (view_locks.hpp) as a writer of the base
// this BEFORE trigger fires for, before the statement touches any row: the
// lock order is the view's writer locks, then base rows, then the storage
// and its row keys.  A writer that waits here for another holds no row of
// this statement the other may be waiting for.  Maintenance takes them
// again (held: no wait), or more where the statement changed more.
void lock_writers_early(PendingKey key, Relation rel, bool truncate, const Bitmapset* updated) {
    spi::connect();
    std::shared_ptr<ViewRuntime> holder = runtime_for_locks(key.view_id);
    const ViewRuntime& view = *holder;
    const Oid base = firing_base(view, key, rel);
    // An UPDATE of columns the view does not read writes nothing of it.
    if (updated != nullptr && !key.recursive && base == RelationGetRelid(rel) &&
        !reads_updated_columns(view, rel, updated)) {
        holder.reset();
        spi::finish();
        return;
    }
    const std::size_t bases = view.analyzed.base_oids.size();
    if (view.entry.populated) {
        std::optional<std::size_t> shared;
        const int b = view.base_index(base);
        if (!key.recursive && !truncate && b >= 0) {
            std::vector<bool> changed(bases, false);
            changed[static_cast<std::size_t>(b)] = true;
            shared = shared_base(view, changed);
        }
        view_locks::lock_writers(view.entry.view_id, view.entry.view, bases, shared);
    }
    spi::finish();
}

// A BEFORE firing for the view `key` on `rel`: queued (the first of a
// recursive view's with the snapshot its over-deletion reads), and the
// view's writer locks taken.
void record_before(PendingKey key, Relation rel, bool truncate, const Bitmapset* updated) {
    std::vector<Firing>& firings = pending[key];
    Firing firing{GetCurrentSubTransactionId(), true, RelationGetRelid(rel)};
    if (key.recursive && firings.empty()) firing.snapshot = copy_of_active_snapshot();
    firings.push_back(firing);
    lock_writers_early(key, rel, truncate, updated);
}

// How many BEFORE firings of the queue no AFTER firing has answered yet.
int unanswered_befores(const std::vector<Firing>& firings) {
    int unanswered = 0;
    for (const Firing& f : firings) unanswered += f.before ? 1 : -1;
    return unanswered;
}

// The command id an AFTER firing records: its statement's (netting.hpp).
CommandId current_command() {
    return call([] { return ActiveSnapshotSet() ? GetActiveSnapshot()->curcid : GetCurrentCommandId(false); });
}

// `last` answers the queue's last BEFORE firing: the view is maintained
// once, with every firing of the statement.
void maintain_answered(PendingKey key, const Firing& last) {
    std::vector<Firing> batch = std::move(pending[key]);
    pending.erase(key);
    batch.push_back(last);
    maintain(key, batch);
}

// Whether trigger `t` fires for a statement now (as PostgreSQL decides:
// not disabled, and as session_replication_role says).
bool fires(const Trigger& t) {
    if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
        return t.tgenabled == TRIGGER_FIRES_ON_REPLICA || t.tgenabled == TRIGGER_FIRES_ALWAYS;
    return t.tgenabled == TRIGGER_FIRES_ON_ORIGIN || t.tgenabled == TRIGGER_FIRES_ALWAYS;
}

// The views `rel`'s triggers report changes to (from their BEFORE triggers
// that fire).
std::vector<PendingKey> trigger_keys(Relation rel) {
    std::vector<PendingKey> keys;
    if (rel->trigdesc == nullptr) return keys;
    for (int i = 0; i < rel->trigdesc->numtriggers; ++i) {
        const Trigger& t = rel->trigdesc->triggers[i];
        if (t.tgnargs < 1 || !TRIGGER_FOR_BEFORE(t.tgtype) || !fires(t) || !triggers::is_base_trigger_name(t.tgname))
            continue;
        const PendingKey key{static_cast<int32>(std::stol(t.tgargs[0])), t.tgnargs > 1 && std::string(t.tgargs[1]) == "rec"};
        if (t.tgname != triggers::before_trigger_name(key.view_id, key.recursive ? triggers::Part::Recursive
                                                                                 : triggers::Part::Counting))
            continue;
        keys.push_back(key);
    }
    return keys;
}

}  // namespace

bool only_ivm_triggers(Relation rel) {
    if (rel->trigdesc == nullptr) return true;
    for (int i = 0; i < rel->trigdesc->numtriggers; ++i) {
        const char* name = rel->trigdesc->triggers[i].tgname;
        if (strcmp(name, triggers::guard_trigger) != 0 && !triggers::is_base_trigger_name(name)) return false;
    }
    return true;
}

void announce_rewritten(Relation rel) {
    const Oid relid = RelationGetRelid(rel);
    for (const PendingKey key : trigger_keys(rel)) {
        // its BEFORE firing (the view's writer locks, alone: as for a TRUNCATE) ...
        record_before(key, rel, true, nullptr);
        // ... and its AFTER firing, without rows
        Firing after{GetCurrentSubTransactionId(), false, relid};
        after.unknown_rows = true;
        after.command = current_command();
        if (unanswered_befores(pending[key]) > 1)  // other changes of the statement are still to come
            pending[key].push_back(after);
        else
            maintain_answered(key, after);
    }
}

void reset_pending(SubTransactionId aborted) {
    if (aborted == InvalidSubTransactionId) {
        pending.clear();
        pending_context = nullptr;  // deleted with TopTransactionContext
        return;
    }
    for (auto it = pending.begin(); it != pending.end();) {
        auto& firings = it->second;
        while (!firings.empty() && firings.back().subxact >= aborted) firings.pop_back();
        it = firings.empty() ? pending.erase(it) : std::next(it);
    }
}

}  // namespace ivm::pg

using namespace ivm::pg;

IVM_SQL_FUNCTION(ivm_before_base_change) {
    TriggerData* data = trigger_data(fcinfo);
    record_before(key_argument(data), data->tg_relation, TRIGGER_FIRED_BY_TRUNCATE(data->tg_event),
                  TRIGGER_FIRED_BY_UPDATE(data->tg_event) ? data->tg_updatedcols : nullptr);
    return PointerGetDatum(nullptr);
}

IVM_SQL_FUNCTION(ivm_after_base_change) {
    TriggerData* data = trigger_data(fcinfo);
    PendingKey key = key_argument(data);
    std::vector<Firing>& firings = pending[key];
    const int unanswered = unanswered_befores(firings);
    if (unanswered <= 0) {
        pending.erase(key);
        throw ivm::Error(ivm::sqlstate::internal_error,
                         "ivm AFTER trigger fired without its BEFORE trigger");
    }
    Firing firing{GetCurrentSubTransactionId(), false, RelationGetRelid(data->tg_relation)};
    firing.truncate = TRIGGER_FIRED_BY_TRUNCATE(data->tg_event);
    firing.unknown_rows = firing.truncate;
    firing.command = current_command();
    spi::connect();
    std::shared_ptr<ViewRuntime> view = runtime_for_locks(key.view_id);
    const Oid base = firing_base(*view, key, data->tg_relation);
    const bool unread = !key.recursive && base == firing.relid && TRIGGER_FIRED_BY_UPDATE(data->tg_event) &&
                        !reads_updated_columns(*view, data->tg_relation, data->tg_updatedcols);
    view.reset();
    spi::finish();
    const Trigger* trigger = data->tg_trigger;
    if (!unread && ((trigger->tgnewtable != nullptr && data->tg_newtable == nullptr) ||
                    (trigger->tgoldtable != nullptr && data->tg_oldtable == nullptr))) {
        firing.unknown_rows = true;  // not captured (large_statements.hpp)
        faults::point("maintain.uncaptured");
    }
    if (unread) {
        // (no rows: answers its BEFORE, changes nothing)
        if (unanswered > 1) {
            firings.push_back(firing);
            return PointerGetDatum(nullptr);
        }
    } else if (base != firing.relid) {
        // A partition or child table: its rows stand for rows of the base.
        TupleDesc from = RelationGetDescr(data->tg_relation);
        TupleDesc to = base_descriptor(base);
        firing.new_rows = copy_rows(data->tg_newtable, from, to);
        firing.old_rows = copy_rows(data->tg_oldtable, from, to);
        firing.copies = true;
        firing.relid = base;
        if (unanswered > 1) {
            firings.push_back(firing);
            return PointerGetDatum(nullptr);
        }
    } else if (unanswered > 1) {
        // Other changes of this statement are still to come: keep a copy,
        // the trigger's tuplestores are freed when its query level ends.
        TupleDesc desc = RelationGetDescr(data->tg_relation);
        firing.new_rows = copy_rows(data->tg_newtable, desc);
        firing.old_rows = copy_rows(data->tg_oldtable, desc);
        firing.copies = true;
        firings.push_back(firing);
        return PointerGetDatum(nullptr);
    }
    if (base == RelationGetRelid(data->tg_relation) && !unread) {
        firing.new_rows = data->tg_newtable;
        firing.old_rows = data->tg_oldtable;
    }
    maintain_answered(key, firing);
    return PointerGetDatum(nullptr);
}

// Storage tables and views of ivm are written by maintenance only.
IVM_SQL_FUNCTION(ivm_refuse_direct_change) {
    TriggerData* data = trigger_data(fcinfo);
    Oid relid = RelationGetRelid(data->tg_relation);
    if (data->tg_relation->rd_rel->relkind == RELKIND_RELATION && maintaining(relid))
        return PointerGetDatum(nullptr);
    const std::string name = qualified_name(relid);
    throw ivm::Error(ivm::sqlstate::wrong_object_type,
                     data->tg_relation->rd_rel->relkind == RELKIND_RELATION
                         ? "cannot change " + name + ": it stores an incrementally maintained view"
                         : "cannot change incrementally maintained view " + name,
                     {}, "Change the view's base tables; ivm keeps the view equal to its query.");
}
