#include "pg/catalog.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/relations.hpp"
#include "pg/spi.hpp"

#include <sstream>

namespace ivm::pg::catalog {
namespace {

const char* const select_entry =
    "SELECT view_id, view_name::oid, storage::oid, query_view::oid, algorithm, definition, "
    "base_relations::oid[]::text, populated, recursive_storage::oid, COALESCE(part_of, 0) FROM ivm.view_catalog ";

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
    std::vector<spi::Row> rows = spi::query(select_entry + where, {arg});
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
// not choose the operators that run with the owner's rights.
template <typename Fn>
void as_catalog_owner(Fn&& fn) {
    Oid saved_user;
    int saved_context;
    Oid owner = relation_owner(call([] {
        return get_relname_relid("view_catalog", get_namespace_oid("ivm", false));
    }));
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE);
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
    std::string bases = "{";
    for (std::size_t i = 0; i < e.bases.size(); ++i)
        bases += (i ? "," : "") + std::to_string(e.bases[i]);
    bases += "}";
    as_catalog_owner([&] {
        spi::execute("INSERT INTO ivm.view_catalog (view_id, view_name, storage, query_view, "
                     "algorithm, definition, base_relations, recursive_storage, part_of, key_columns) VALUES ($1::integer, "
                     "$2::oid, $3::oid, $4::oid, $5, $6, $7::oid[]::regclass[], $8::oid, $9::integer, $10::text[])",
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
        spi::execute("DELETE FROM ivm.maintenance WHERE view_id = $1::integer", {std::to_string(view_id)});
    });
}

namespace {

// The mark's statement (maintenance runs it in the writer's session: every
// operator is qualified, so the writer's search_path cannot change it),
// prepared once per backend: a one-row change must not pay for planning.
const char* const mark_sql =
    "UPDATE ivm.maintenance SET previous = maintainer, maintainer = pg_catalog.pg_current_xact_id() "
    "WHERE view_id OPERATOR(pg_catalog.=) $1 RETURNING previous";
SPIPlanPtr mark_plan = nullptr;

// Runs the mark; false when the view has no row yet.  Raw PostgreSQL calls:
// run it inside call().
bool run_mark(int32 view_id, uint64& previous) {
    if (mark_plan == nullptr) {
        Oid types[1] = {INT4OID};
        SPIPlanPtr plan = spi::prepare(mark_sql, 1, types);
        SPI_keepplan(plan);
        mark_plan = plan;
    }
    Datum values[1] = {Int32GetDatum(view_id)};
    const int rc = SPI_execute_plan(mark_plan, values, nullptr, false, 0);
    if (rc != SPI_OK_UPDATE_RETURNING) elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(rc));
    if (SPI_processed == 0) return false;
    bool isnull = true;
    const Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    previous = isnull ? 0 : DatumGetUInt64(d);  // an xid8
    return true;
}

}  // namespace

std::optional<uint64> mark_maintained(int32 view_id) {
    const bool have_table = call([] {
        return OidIsValid(get_relname_relid("maintenance", get_namespace_oid("ivm", false)));
    });
    if (!have_table) return std::nullopt;
    uint64 previous = 0;
    bool marked = false;
    as_catalog_owner([&] {
        marked = call([&] { return run_mark(view_id, previous); });
        if (marked) return;
        // the view's first maintenance (or the first since a restore)
        spi::execute("INSERT INTO ivm.maintenance (view_id) VALUES ($1::integer) ON CONFLICT DO NOTHING",
                     {std::to_string(view_id)});
        marked = call([&] { return run_mark(view_id, previous); });
    });
    if (!marked) throw Error(sqlstate::internal_error, "no ivm.maintenance row for view " + std::to_string(view_id));
    return previous;
}

void set_populated(int32 view_id, bool populated) {
    as_catalog_owner([&] {
        spi::execute("UPDATE ivm.view_catalog SET populated = $2::boolean WHERE view_id = $1::integer",
                     {std::to_string(view_id), std::string(populated ? "true" : "false")});
    });
}

void set_bases(int32 view_id, const std::vector<Oid>& bases) {
    std::string array = "{";
    for (std::size_t i = 0; i < bases.size(); ++i) array += (i ? "," : "") + std::to_string(bases[i]);
    array += "}";
    as_catalog_owner([&] {
        spi::execute("UPDATE ivm.view_catalog SET base_relations = $2::oid[]::regclass[] WHERE view_id = $1::integer",
                     {std::to_string(view_id), array});
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
