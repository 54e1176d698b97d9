#include "pg/catalog.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "parser/parse_func.h"
}

#include <functional>
#include <set>
#include <sstream>
#include <utility>

namespace ivm::pg::catalog {
namespace {

// (deferred: from version 0.4 of the objects.)
std::string select_entry() {
    return std::string("SELECT view_id, view_name::oid, storage::oid, query_view::oid, algorithm, definition, "
                       "base_relations::oid[]::text, populated, recursive_storage::oid, COALESCE(part_of, 0), ") +
           (have_deferred() ? "deferred" : "false") + " FROM ivm.view_catalog ";
}

Oid to_oid(const spi::Value& v) { return v ? static_cast<Oid>(std::stoul(*v)) : InvalidOid; }

// "{1,2,3}" from an oid[] cast to text.
std::vector<Oid> to_oids(const spi::Value& v) {
    std::vector<Oid> out;
    if (!v) return out;
    std::string s = v->substr(1, v->size() - 2);
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(static_cast<Oid>(std::stoul(item)));
    return out;
}

std::optional<Entry> find(const std::string& where, const std::string& arg) {
    std::vector<spi::Row> rows = spi::query(select_entry() + where, {arg});
    if (rows.empty()) return std::nullopt;
    const spi::Row& r = rows[0];
    Entry e;
    e.view_id = std::stoi(*r[0]);
    e.view = to_oid(r[1]);
    e.storage = to_oid(r[2]);
    e.query_view = to_oid(r[3]);
    e.algorithm = r[4].value_or("");
    e.definition = r[5].value_or("");
    e.bases = to_oids(r[6]);
    e.populated = r[7] == std::string("t");
    e.recursive_storage = to_oid(r[8]);
    e.part_of = std::stoi(*r[9]);
    e.deferred = r[10] == std::string("t");
    for (const spi::Row& k : spi::query("SELECT k FROM ivm.view_catalog, pg_catalog.unnest(key_columns) WITH ORDINALITY "
                                        "AS u(k, n) WHERE view_id = $1::integer ORDER BY n", {std::to_string(e.view_id)}))
        e.key_columns.push_back(k[0].value_or(""));
    return e;
}

// An array literal of texts, each quoted.
std::string text_array(const std::vector<std::string>& items) {
    std::string out = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
        out += i ? ",\"" : "\"";
        for (char c : items[i]) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        out += '"';
    }
    return out + "}";
}

// Catalog writes run as the catalog's owner: users creating views need no
// write privilege on ivm.view_catalog, and cannot edit it directly.  They
// run with search_path = pg_catalog, pg_temp: the caller's search_path must
// not choose the operators that run with the owner's rights.  (`qualified`:
// statements whose every name is qualified keep the caller's search_path,
// which they cannot read: a one-row change need not pay to set it.)
template <typename Fn>
void as_catalog_owner(Fn&& fn, bool qualified = false) {
    Oid saved_user;
    int saved_context;
    Oid owner = relation_owner(call([] {
        return get_relname_relid("view_catalog", get_namespace_oid("ivm", false));
    }));
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE);
    if (qualified) {
        fn();
        SetUserIdAndSecContext(saved_user, saved_context);
        return;
    }
    const int guc_level = call([] {
        int level = NewGUCNestLevel();
        set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
                          false);
        return level;
    });
    fn();  // on error the transaction abort restores the user and the setting
    call([&] { AtEOXact_GUC(false, guc_level); });
    SetUserIdAndSecContext(saved_user, saved_context);
}

}  // namespace

std::optional<Entry> find_by_view(Oid view) {
    return find("WHERE view_name = $1::oid", std::to_string(view));
}

std::optional<Entry> find_by_id(int32 view_id) {
    return find("WHERE view_id = $1::integer", std::to_string(view_id));
}

int32 next_view_id() {
    int64 id = 0;
    as_catalog_owner([&] { id = spi::query_int("SELECT pg_catalog.nextval('ivm.view_id_seq')"); });
    return static_cast<int32>(id);
}

void insert(const Entry& e) {
    const std::string bases = spi::oid_array(e.bases);
    const bool deferred_known = have_deferred();  // (from 0.4)
    as_catalog_owner([&] {
        spi::execute(std::string("INSERT INTO ivm.view_catalog (view_id, view_name, storage, query_view, "
                     "algorithm, definition, base_relations, recursive_storage, part_of, key_columns") +
                     (deferred_known ? ", deferred" : "") + ") VALUES ($1::integer, "
                     "$2::oid, $3::oid, $4::oid, $5, $6, $7::oid[]::regclass[], $8::oid, $9::integer, $10::text[]" +
                     (deferred_known ? (e.deferred ? ", true" : ", false") : "") + ")",
                     {std::to_string(e.view_id), std::to_string(e.view), std::to_string(e.storage),
                      std::to_string(e.query_view), e.algorithm, e.definition, bases,
                      e.recursive_storage == InvalidOid ? spi::Value() : spi::Value(std::to_string(e.recursive_storage)),
                      e.part_of == 0 ? spi::Value() : spi::Value(std::to_string(e.part_of)),
                      e.key_columns.empty() ? spi::Value() : spi::Value(text_array(e.key_columns))});
    });
}

void remove(int32 view_id) {
    as_catalog_owner([&] {
        spi::execute("DELETE FROM ivm.view_catalog WHERE view_id = $1::integer",
                     {std::to_string(view_id)});
        if (have_deferred())
            spi::execute("DELETE FROM ivm.deferred_state WHERE view_id = $1::integer", {std::to_string(view_id)});
        if (have_maintainers())
            spi::execute("DELETE FROM ivm.maintainers WHERE view_id = $1::integer", {std::to_string(view_id)});
    });
}

namespace {

// The mark's statements (maintenance runs them in the writer's session:
// every operator is qualified, so the writer's search_path cannot change
// them), prepared once per backend: a one-row change must not pay for
// planning.
const char* const mark_sql =
    "INSERT INTO ivm.maintainers (view_id, backend, base, xid) VALUES ($1, $2, $3, pg_catalog.pg_current_xact_id()) "
    "ON CONFLICT (view_id, backend, base) DO UPDATE SET xid = EXCLUDED.xid";
const char* const writers_sql =
    "SELECT xid FROM ivm.maintainers WHERE view_id OPERATOR(pg_catalog.=) $1 AND base OPERATOR(pg_catalog.<>) $2";
SPIPlanPtr mark_plan = nullptr;
SPIPlanPtr writers_plan = nullptr;

// (view, base) marks this transaction made, so each is written once.
std::set<std::pair<int32, int>> marked;

// Raw PostgreSQL calls: run it inside call().
SPIPlanPtr kept(SPIPlanPtr& plan, const char* sql, int nargs) {
    if (plan == nullptr) {
        Oid types[3] = {INT4OID, INT4OID, INT4OID};
        SPIPlanPtr p = spi::prepare(sql, nargs, types);
        SPI_keepplan(p);
        plan = p;
    }
    return plan;
}

// Raw PostgreSQL calls: run it inside call().
Oid maintainers_relid() { return get_relname_relid("maintainers", get_namespace_oid("ivm", false)); }

// Writes the mark in the row this backend already has, by a heap update
// as PostgreSQL writes its own catalogs (the INSERT ... ON CONFLICT through
// the executor was 7% of a one-row UPDATE's time with an aggregate view).
// Returns false where there is no such row.  Raw PostgreSQL calls: run it
// inside call().
bool update_own_mark(int32 view_id, int base) {
    Relation rel = table_open(maintainers_relid(), RowExclusiveLock);
    ScanKeyData keys[3];
    ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(view_id));
    ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(MyBackendId));
    ScanKeyInit(&keys[2], 3, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(base));
    // The newest committed version: only this backend writes its rows
    // (and DROP, which waits for the base tables' writers).
    Snapshot latest = RegisterSnapshot(GetLatestSnapshot());
    SysScanDesc scan = systable_beginscan(rel, RelationGetPrimaryKeyIndex(rel), true, latest, 3, keys);
    HeapTuple row = systable_getnext(scan);
    const bool found = HeapTupleIsValid(row);
    if (found) {
        const Datum xid = FullTransactionIdGetDatum(GetTopFullTransactionId());
        bool isnull = false;
        const Datum stored = heap_getattr(row, 4, RelationGetDescr(rel), &isnull);
        if (isnull || DatumGetFullTransactionId(stored).value != DatumGetFullTransactionId(xid).value) {
            Datum values[4] = {};
            bool nulls[4] = {};
            bool replace[4] = {false, false, false, true};
            values[3] = xid;
            HeapTuple updated = heap_modify_tuple(row, RelationGetDescr(rel), values, nulls, replace);
            CatalogTupleUpdate(rel, &row->t_self, updated);
            heap_freetuple(updated);
        }
    }
    systable_endscan(scan);
    UnregisterSnapshot(latest);
    table_close(rel, RowExclusiveLock);
    return found;
}

}  // namespace

bool have_deferred() {
    return call([] {
        Oid relid = get_relname_relid("view_catalog", get_namespace_oid("ivm", false));
        return get_attnum(relid, "deferred") != InvalidAttrNumber;
    });
}

Oid snapshot_check_function() {
    return call([] {
        Oid argument = REGCLASSOID;
        List* name = list_make2(makeString(pstrdup("ivm")), makeString(pstrdup("snapshot_sees_storage")));
        return LookupFuncName(name, 1, &argument, true);
    });
}

bool have_snapshot_check() { return OidIsValid(snapshot_check_function()); }

void set_deferred(int32 view_id, bool deferred) {
    as_catalog_owner([&] {
        spi::execute("UPDATE ivm.view_catalog SET deferred = $2::boolean WHERE view_id = $1::integer",
                     {std::to_string(view_id), deferred ? "true" : "false"});
    });
}

void as_owner(const std::function<void()>& fn, bool qualified) { as_catalog_owner(fn, qualified); }

bool have_maintainers() {
    return call([] { return OidIsValid(maintainers_relid()); });
}

void mark_writer(int32 view_id, int base) {
    if (!marked.emplace(view_id, base).second) return;
    if (call([&] { return update_own_mark(view_id, base); })) return;
    as_catalog_owner([&] {
        call([&] {
            Datum values[3] = {Int32GetDatum(view_id), Int32GetDatum(MyBackendId), Int32GetDatum(base)};
            const int rc = SPI_execute_plan(kept(mark_plan, mark_sql, 3), values, nullptr, false, 0);
            if (rc != SPI_OK_INSERT) elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(rc));
        });
    }, true);
}

std::vector<uint64> committed_writers(int32 view_id, int except) {
    std::vector<uint64> xids;
    as_catalog_owner([&] {
        const uint64 n = call([&] {
            Datum values[2] = {Int32GetDatum(view_id), Int32GetDatum(except)};
            const int rc = SPI_execute_snapshot(kept(writers_plan, writers_sql, 2), values, nullptr, GetLatestSnapshot(),
                                                InvalidSnapshot, true, false, 0);
            if (rc != SPI_OK_SELECT) elog(ERROR, "SPI_execute_snapshot failed: %s", SPI_result_code_string(rc));
            return SPI_processed;
        });
        for (uint64 i = 0; i < n; ++i)
            xids.push_back(call([&] {
                bool isnull = true;
                const Datum d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
                return isnull ? uint64{0} : DatumGetUInt64(d);  // an xid8
            }));
    }, true);
    return xids;
}

void forget_marks() { marked.clear(); }

void set_populated(int32 view_id, bool populated) {
    as_catalog_owner([&] {
        spi::execute("UPDATE ivm.view_catalog SET populated = $2::boolean WHERE view_id = $1::integer",
                     {std::to_string(view_id), std::string(populated ? "true" : "false")});
    });
}

void set_bases(int32 view_id, const std::vector<Oid>& bases) {
    as_catalog_owner([&] {
        spi::execute("UPDATE ivm.view_catalog SET base_relations = $2::oid[]::regclass[] WHERE view_id = $1::integer",
                     {std::to_string(view_id), spi::oid_array(bases)});
    });
}

void set_part_of(int32 view_id, int32 part_of) {
    as_catalog_owner([&] {
        spi::execute("UPDATE ivm.view_catalog SET part_of = $2::integer WHERE view_id = $1::integer",
                     {std::to_string(view_id), std::to_string(part_of)});
    });
}

std::vector<int32> parts_of(int32 view_id) {
    std::vector<int32> parts;
    for (const spi::Row& r : spi::query("SELECT view_id FROM ivm.view_catalog WHERE part_of = $1::integer ORDER BY view_id",
                                        {std::to_string(view_id)}))
        parts.push_back(std::stoi(*r[0]));
    return parts;
}

Entry lookup(const char* name) {
    Oid relid = call([&] {
        List* names = textToQualifiedNameList(cstring_to_text(name));
        return RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, false);
    });
    std::optional<Entry> entry = find_by_view(relid);
    if (!entry)
        throw Error(sqlstate::wrong_object_type,
                    std::string("\"") + name + "\" is not an incrementally maintained view");
    return *entry;
}

}  // namespace ivm::pg::catalog
