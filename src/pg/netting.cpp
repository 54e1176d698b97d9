#include "pg/netting.hpp"

#include "pg/boundary.hpp"
#include "pg/maintain.hpp"
#include "pg/spi.hpp"

#include <string>

namespace ivm::pg {
namespace {

constexpr const char* inserted_relation = "ivm_net_inserted";
constexpr const char* deleted_relation = "ivm_net_deleted";

// The rows of `a` less one for each identical row of `b`, each as one
// composite value.  Rows are told apart by their text, which tells apart
// what equality may not (1.0 and 1.00, -0 and 0) and needs no equality of
// the column types (json); copies of one row are numbered.
std::string difference(const char* a, const char* b) {
    const std::string image = "(__ivm_r::text COLLATE pg_catalog.\"C\")";
    auto numbered = [&](const char* relation, const char* row) {
        return "(SELECT " + std::string(row) + image + " AS t, pg_catalog.row_number() OVER (PARTITION BY " + image +
               ") AS i FROM " + relation + " __ivm_r)";
    };
    return "SELECT __ivm_a.r FROM " + numbered(a, "__ivm_r AS r, ") + " __ivm_a WHERE NOT EXISTS (SELECT 1 FROM " +
           numbered(b, "") + " __ivm_b WHERE __ivm_b.t OPERATOR(pg_catalog.=) __ivm_a.t AND __ivm_b.i " +
           "OPERATOR(pg_catalog.=) __ivm_a.i)";
}

}  // namespace

Tuplestorestate* composite_rows(const char* sql, MemoryContext memory) {
    MemoryContext old = MemoryContextSwitchTo(memory);
    Tuplestorestate* store = tuplestore_begin_heap(false, false, work_mem);
    MemoryContextSwitchTo(old);
    SPIPlanPtr plan = spi::prepare(sql);
    TupleDesc desc = nullptr;
    spi::fetch_rows(plan, InvalidSnapshot, 0, [&](HeapTuple result) {
        bool isnull = false;
        Datum value = heap_getattr(result, 1, desc, &isnull);
        if (isnull) elog(ERROR, "ivm: a netted row is NULL");
        HeapTupleHeader header = DatumGetHeapTupleHeader(value);
        HeapTupleData row;
        row.t_len = HeapTupleHeaderGetDatumLength(header);
        ItemPointerSetInvalid(&row.t_self);
        row.t_tableOid = InvalidOid;
        row.t_data = header;
        tuplestore_puttuple(store, &row);
    }, &desc);
    SPI_freeplan(plan);
    return store;
}

NetRows net_rows(Oid relid, Tuplestorestate* inserted, Tuplestorestate* deleted, MemoryContext memory) {
    register_rows(inserted_relation, relid, inserted);
    register_rows(deleted_relation, relid, deleted);
    const std::string came = difference(inserted_relation, deleted_relation);
    const std::string went = difference(deleted_relation, inserted_relation);
    const char* came_sql = came.c_str();
    const char* went_sql = went.c_str();
    NetRows net;
    call([&] {
        // Floats print exactly; nothing on the search path is called.
        const int level = NewGUCNestLevel();
        set_config_option("extra_float_digits", "1", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
                          false);
        net.inserted = composite_rows(came_sql, memory);
        net.deleted = composite_rows(went_sql, memory);
        AtEOXact_GUC(false, level);
        SPI_unregister_relation(inserted_relation);
        SPI_unregister_relation(deleted_relation);
    });
    return net;
}

}  // namespace ivm::pg
