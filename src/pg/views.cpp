// The SQL interface: ivm.create_view, ivm.drop_view, ivm.refresh_view.
#include "core/counting.hpp"
#include "core/error.hpp"
#include "core/sql_text.hpp"
#include "core/triggers.hpp"
#include "pg/analyze.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog.hpp"
#include "pg/maintain.hpp"
#include "pg/spi.hpp"

#include <cstring>

namespace ivm::pg {
namespace {

constexpr const char* storage_suffix = "__ivm_data";
constexpr const char* query_suffix = "__ivm_query";

const char* text_argument(FunctionCallInfo fcinfo, int n) {
    return call([&] { return text_to_cstring(PG_GETARG_TEXT_PP(n)); });
}

std::string quoted(Oid nsp, const std::string& relname) {
    const char* name = relname.c_str();
    return call([&] { return quote_qualified_identifier(get_namespace_name(nsp), name); });
}

Oid relation_in(Oid nsp, const std::string& relname) {
    const char* name = relname.c_str();
    return call([&] { return get_relname_relid(name, nsp); });
}

Oid owner_of(Oid relid) {
    return call([&] {
        HeapTuple tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for relation %u", relid);
        Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tup))->relowner;
        ReleaseSysCache(tup);
        return owner;
    });
}

void require_owner(Oid view) {
    Oid relid = view;
    bool owner = call([&] { return pg_class_ownercheck(relid, GetUserId()); });
    if (!owner)
        throw Error("42501", "must be owner of view " + qualified_name(view));
}

// Statements on a base table run as its owner: dropping a trigger needs
// ownership, while creating the view needed only the TRIGGER privilege.
void execute_as_owner_of(Oid relid, const std::vector<std::string>& statements) {
    Oid owner = owner_of(relid);
    Oid saved_user;
    int saved_context;
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE);
    for (const std::string& sql : statements) spi::execute(sql);
    SetUserIdAndSecContext(saved_user, saved_context);  // on error, the abort restores it
}

void notice(const std::string& message) {
    const char* text = message.c_str();
    call([&] { ereport(NOTICE, (errmsg_internal("%s", text))); });
}

// The lines of ivm.explain_view: what a view is and what runs when each of
// its base tables changes.
std::vector<std::string> explain(const ViewRuntime& view) {
    const CountingView& model = view.analyzed.model;
    std::vector<std::string> lines;
    lines.push_back("view " + qualified_name(view.entry.view) + (view.entry.populated ? "" : " (unpopulated)"));
    lines.push_back("algorithm: counting: the query is not recursive, so each stored tuple carries "
                    "the number of its derivations and leaves the view when it reaches zero");
    lines.push_back("definition: " + view.entry.definition);
    lines.push_back("base relations: " + sql::join(model.bases, ", "));
    std::vector<std::string> columns;
    for (const Column& c : model.columns) columns.push_back(c.name + " " + c.type);
    lines.push_back("storage: " + model.storage + " (" + sql::join(columns, ", ") +
                    ", __ivm_count bigint, __ivm_key bigint)" + (model.distinct ? ", shown once per tuple (DISTINCT)" : ", each tuple shown __ivm_count times"));
    Oid storage = view.entry.storage;
    std::vector<spi::Row> indexes = spi::query(
        "SELECT pg_catalog.pg_get_indexdef(indexrelid) FROM pg_catalog.pg_index WHERE indrelid = $1::oid "
        "ORDER BY indexrelid", {std::to_string(storage)});
    for (const spi::Row& r : indexes) lines.push_back("index: " + r[0].value_or(""));
    for (std::size_t b = 0; b < model.bases.size(); ++b) {
        std::vector<bool> changed(model.bases.size(), false);
        changed[b] = true;
        lines.push_back("on INSERT, UPDATE or DELETE of " + model.bases[b] + " (transition tables " +
                        counting::new_rows_relation(b) + " and " + counting::old_rows_relation(b) + "):");
        lines.push_back("  delta: " + counting::delta_query(model, changed));
        lines.push_back("  merge: " + counting::merge_statement(model, "<delta>"));
    }
    lines.push_back("on TRUNCATE of a base relation: recompute, merging the difference:");
    lines.push_back("  delta: " + counting::refresh_delta_query(model));
    return lines;
}

void return_lines(FunctionCallInfo fcinfo, const std::vector<std::string>& lines) {
    call([&] { InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC); });
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    std::vector<std::string> rows;  // one row per line of text, for psql's sake
    for (const std::string& line : lines) {
        std::size_t start = 0, end;
        const std::string indent = line.substr(0, line.find_first_not_of(' '));
        while ((end = line.find('\n', start)) != std::string::npos) {
            rows.push_back((start ? indent + "  " : "") + line.substr(start, end - start));
            start = end + 1;
        }
        rows.push_back((start ? indent + "  " : "") + line.substr(start));
    }
    for (const std::string& row : rows) {
        const char* text = row.c_str();
        call([&] {
            Datum value = CStringGetTextDatum(text);
            bool isnull = false;
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
        });
    }
}

}  // namespace
}  // namespace ivm::pg

using namespace ivm;
using namespace ivm::pg;

IVM_SQL_FUNCTION(ivm_create_view) {
    const char* name = text_argument(fcinfo, 0);
    const char* query = text_argument(fcinfo, 1);
    Query* parsed = validate_query(query);

    Oid nsp = InvalidOid;
    char* relname_c = nullptr;
    call([&] {
        RangeVar* rv = makeRangeVarFromNameList(textToQualifiedNameList(cstring_to_text(name)));
        nsp = RangeVarGetAndCheckCreationNamespace(rv, NoLock, nullptr);
        relname_c = rv->relname;
    });
    const std::string relname = relname_c;
    if (call([&] { return isAnyTempNamespace(nsp); }))
        throw unsupported("temporary schemas");
    if (relname.size() + std::strlen(query_suffix) >= NAMEDATALEN)
        throw Error(sqlstate::name_too_long, "view name \"" + relname + "\" is too long for ivm",
                    "ivm names the view's storage after it; names of at most " +
                        std::to_string(NAMEDATALEN - 1 - std::strlen(query_suffix)) + " bytes fit.");
    if (relation_in(nsp, relname) != InvalidOid)
        throw Error("42P07", "relation \"" + relname + "\" already exists");

    const std::string view_name = quoted(nsp, relname);
    const std::string storage_name = quoted(nsp, relname + storage_suffix);
    const std::string query_name = quoted(nsp, relname + query_suffix);
    analyze_query(parsed, storage_name);  // refuse before creating anything

    spi::connect();
    // The defining query lives on as a plain view: PostgreSQL then tracks
    // its dependencies, follows renames and dumps it.
    spi::execute("CREATE VIEW " + query_name + " AS " + query);
    const Oid query_view = relation_in(nsp, relname + query_suffix);
    AnalyzedView analyzed = analyze_view(query_view, storage_name);
    if (analyzed.ignored_order_by)
        notice("ORDER BY is ignored: an incrementally maintained view is a multiset, read it with ORDER BY");

    for (const std::string& ddl : counting::storage_ddl(analyzed.model, query_name)) spi::execute(ddl);
    spi::execute(counting::user_view_ddl(analyzed.model, view_name, true));
    for (const std::string& ddl : triggers::guard_ddl(storage_name, view_name)) spi::execute(ddl);

    catalog::Entry entry;
    entry.view_id = catalog::next_view_id();
    entry.view = relation_in(nsp, relname);
    entry.storage = relation_in(nsp, relname + storage_suffix);
    entry.query_view = query_view;
    entry.algorithm = "counting";
    entry.definition = query;
    entry.bases = analyzed.base_oids;
    for (std::size_t b = 0; b < entry.bases.size(); ++b)
        for (const std::string& ddl : triggers::base_table_ddl(entry.view_id, analyzed.model.bases[b]))
            spi::execute(ddl);
    catalog::insert(entry);

    const std::string comment = "incrementally maintained view (" + entry.algorithm + "): " + query;
    spi::execute("COMMENT ON VIEW " + view_name + " IS " + sql::literal(comment));
    spi::execute("COMMENT ON TABLE " + storage_name + " IS " +
                 sql::literal("storage of incrementally maintained view " + view_name));
    spi::execute("COMMENT ON VIEW " + query_name + " IS " +
                 sql::literal("defining query of incrementally maintained view " + view_name));
    notice("view " + view_name + " is maintained by counting, as its query is not recursive");
    notice("created storage table " + storage_name + ", indexed on its tuples' hash key");

    ViewRuntime& view = runtime_for(entry.view_id);
    refresh(view);
    int64 rows = row_count(view);
    spi::finish();
    PG_RETURN_INT64(rows);
}

IVM_SQL_FUNCTION(ivm_drop_view) {
    const char* name = text_argument(fcinfo, 0);
    spi::connect();
    catalog::Entry entry = catalog::lookup(name);
    require_owner(entry.view);
    for (Oid base : entry.bases)
        execute_as_owner_of(base, triggers::base_table_drop(entry.view_id, qualified_name(base)));
    spi::execute("DROP VIEW " + qualified_name(entry.view));
    spi::execute("DROP TABLE " + qualified_name(entry.storage));
    spi::execute("DROP VIEW " + qualified_name(entry.query_view));
    catalog::remove(entry.view_id);
    forget_runtime(entry.view_id);
    spi::finish();
    PG_RETURN_VOID();
}

IVM_SQL_FUNCTION(ivm_refresh_view) {
    const char* name = text_argument(fcinfo, 0);
    const bool with_data = PG_GETARG_BOOL(1);
    spi::connect();
    catalog::Entry entry = catalog::lookup(name);
    require_owner(entry.view);
    ViewRuntime* view = &runtime_for(entry.view_id);
    int64 rows = 0;
    if (entry.populated != with_data) {
        // Like REFRESH MATERIALIZED VIEW ... WITH NO DATA: no rows, reads
        // refused, base-table changes no longer maintain it; and back.
        if (!with_data) empty_storage(*view);
        spi::execute(counting::user_view_ddl(view->analyzed.model, qualified_name(entry.view), with_data,
                                             counting::ViewDdl::Replace));
        catalog::set_populated(entry.view_id, with_data);
        forget_runtime(entry.view_id);
        view = &runtime_for(entry.view_id);
    }
    if (with_data) {
        refresh(*view);
        rows = row_count(*view);
    }
    spi::finish();
    PG_RETURN_INT64(rows);
}

IVM_SQL_FUNCTION(ivm_explain_view) {
    const char* name = text_argument(fcinfo, 0);
    spi::connect();
    catalog::Entry entry = catalog::lookup(name);
    ViewRuntime& view = runtime_for(entry.view_id);
    std::vector<std::string> lines = explain(view);
    spi::finish();
    return_lines(fcinfo, lines);
    return Datum(0);
}

extern "C" {
PG_FUNCTION_INFO_V1(ivm_unpopulated);

// What an unpopulated view reads from: refuses as an unpopulated
// materialized view does.  Plain C, no C++ object here.
Datum ivm_unpopulated(PG_FUNCTION_ARGS) {
    Oid view = PG_GETARG_OID(0);
    char* name = get_rel_name(view);
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("incrementally maintained view \"%s\" has not been populated", name ? name : "?"),
                    errhint("Use ivm.refresh_view('%s') to populate it.",
                            name ? quote_identifier(name) : "?")));
    PG_RETURN_NULL();
}
}
