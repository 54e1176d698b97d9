#include "pg/netting.hpp"

#include "pg/boundary.hpp"
#include "pg/maintain.hpp"
#include "pg/spi.hpp"

#include <string>

namespace ivm::pg {
namespace {

constexpr const char* inserted_relation = "ivm_net_inserted";
constexpr const char* deleted_relation = "ivm_net_deleted";

// In one pass over both sets, each row image with the number of its copies
// in the inserted rows less those in the deleted rows, where not 0, and one
// of its rows as a composite value.  Rows are told apart by their text,
// which tells apart what equality may not (1.0 and 1.00, -0 and 0) and
// needs no equality of the column types (json); hashed, as the planner
// sees fit.
std::string net_query() {
    const std::string image = "(__ivm_r::text COLLATE pg_catalog.\"C\")";
    return std::string("SELECT (pg_catalog.array_agg(__ivm_r))[1], pg_catalog.sum(__ivm_s)::bigint FROM (SELECT __ivm_r, "
                       "1 AS __ivm_s FROM ") +
           inserted_relation + " __ivm_r UNION ALL SELECT __ivm_r, -1 FROM " + deleted_relation +
           " __ivm_r) __ivm_u GROUP BY " + image + " HAVING pg_catalog.sum(__ivm_s) OPERATOR(pg_catalog.<>) 0";
}

// A composite value appended to `store` as a row of its type.
void put_composite(Tuplestorestate* store, Datum value) {
    HeapTupleHeader header = DatumGetHeapTupleHeader(value);
    HeapTupleData row;
    row.t_len = HeapTupleHeaderGetDatumLength(header);
    ItemPointerSetInvalid(&row.t_self);
    row.t_tableOid = InvalidOid;
    row.t_data = header;
    tuplestore_puttuple(store, &row);
}

Tuplestorestate* new_store(MemoryContext memory) {
    MemoryContext old = MemoryContextSwitchTo(memory);
    Tuplestorestate* store = tuplestore_begin_heap(false, false, work_mem);
    MemoryContextSwitchTo(old);
    return store;
}

// Floats print exactly (rows are told apart by their text); nothing on
// the search path is called.  Undone by AtEOXact_GUC(false, level).
int exact_text_settings() {
    const int level = NewGUCNestLevel();
    set_config_option("extra_float_digits", "1", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
    set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
    return level;
}

// Each row of `sql` (a composite value, its signed copies) put into
// `net` as many times as it has copies.
void put_netted(const char* sql, NetRows& net) {
    SPIPlanPtr plan = spi::prepare(sql);
    TupleDesc desc = nullptr;
    spi::fetch_rows(plan, InvalidSnapshot, 0, [&](HeapTuple result) {
        bool isnull = false;
        const Datum value = heap_getattr(result, 1, desc, &isnull);
        if (isnull) elog(ERROR, "ivm: a netted row is NULL");
        const int64 copies = DatumGetInt64(heap_getattr(result, 2, desc, &isnull));
        for (int64 i = 0; i < (copies < 0 ? -copies : copies); ++i)
            put_composite(copies > 0 ? net.inserted : net.deleted, value);
    }, &desc);
    SPI_freeplan(plan);
}

}  // namespace

NetRows netted_rows(const char* sql, MemoryContext memory) {
    const int level = exact_text_settings();
    NetRows net{new_store(memory), new_store(memory)};
    put_netted(sql, net);
    AtEOXact_GUC(false, level);
    return net;
}

NetRows net_rows(Oid relid, Tuplestorestate* inserted, Tuplestorestate* deleted, MemoryContext memory) {
    register_rows(inserted_relation, relid, inserted);
    register_rows(deleted_relation, relid, deleted);
    const std::string query = net_query();
    const char* sql = query.c_str();
    NetRows net;
    call([&] {
        net = netted_rows(sql, memory);
        SPI_unregister_relation(inserted_relation);
        SPI_unregister_relation(deleted_relation);
    });
    return net;
}

}  // namespace ivm::pg
