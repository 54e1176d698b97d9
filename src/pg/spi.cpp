#include "pg/spi.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"

namespace ivm::pg::spi {
namespace {

// Plain arrays for SPI_execute_with_args, built outside any PG_TRY.
struct Params {
    std::vector<Oid> types;
    std::vector<Datum> values;
    std::vector<char> nulls;
};

Params make_params(const std::vector<Value>& args) {
    Params p;
    for (const Value& v : args) {
        p.types.push_back(TEXTOID);
        p.nulls.push_back(v ? ' ' : 'n');
        const char* text = v ? v->c_str() : nullptr;
        p.values.push_back(v ? call([&] { return PointerGetDatum(cstring_to_text(text)); })
                             : Datum(0));
    }
    return p;
}

int run(const std::string& sql, const std::vector<Value>& args) {
    Params p = make_params(args);
    const char* text = sql.c_str();
    int nargs = static_cast<int>(args.size());
    Oid* types = p.types.data();
    Datum* values = p.values.data();
    const char* nulls = p.nulls.data();
    int rc = call([&] {
        return nargs == 0 ? SPI_execute(text, false, 0)
                          : SPI_execute_with_args(text, nargs, types, values, nulls, false, 0);
    });
    if (rc < 0)
        throw Error(sqlstate::internal_error,
                    std::string("SPI failed (") + SPI_result_code_string(rc) + "): " + sql);
    return rc;
}

}  // namespace

void connect() {
    int rc = call([] { return SPI_connect(); });
    if (rc != SPI_OK_CONNECT) throw Error(sqlstate::internal_error, "SPI_connect failed");
}

void finish() {
    int rc = call([] { return SPI_finish(); });
    if (rc != SPI_OK_FINISH) throw Error(sqlstate::internal_error, "SPI_finish failed");
}

uint64 execute(const std::string& sql, const std::vector<Value>& args) {
    run(sql, args);
    return SPI_processed;
}

std::vector<Row> query(const std::string& sql, const std::vector<Value>& args) {
    run(sql, args);
    std::vector<Row> rows;
    const uint64 n = SPI_processed;
    SPITupleTable* table = SPI_tuptable;
    if (table == nullptr) return rows;
    const int ncols = table->tupdesc->natts;
    for (uint64 r = 0; r < n; ++r) {
        Row row;
        for (int c = 1; c <= ncols; ++c) {
            HeapTuple tuple = table->vals[r];
            TupleDesc desc = table->tupdesc;
            const char* value = call([&] { return SPI_getvalue(tuple, desc, c); });
            row.push_back(value ? Value(value) : std::nullopt);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string oid_array(const std::vector<Oid>& oids) {
    std::string out = "{";
    for (std::size_t i = 0; i < oids.size(); ++i) out += (i ? "," : "") + std::to_string(oids[i]);
    return out + "}";
}

std::vector<Oid> oids(const std::vector<Row>& rows) {
    std::vector<Oid> out;
    for (const Row& row : rows)
        if (row[0]) out.push_back(static_cast<Oid>(std::stoul(*row[0])));
    return out;
}

int64 query_int(const std::string& sql, const std::vector<Value>& args) {
    std::vector<Row> rows = query(sql, args);
    if (rows.size() != 1 || rows[0].empty())
        throw Error(sqlstate::internal_error, "expected one row from: " + sql);
    return rows[0][0] ? std::stoll(*rows[0][0]) : 0;
}

int64 result_int(uint64 row, int column) {
    SPITupleTable* table = SPI_tuptable;
    if (table == nullptr || row >= SPI_processed)
        throw Error(sqlstate::internal_error, "no such SPI result row");
    bool isnull = false;
    Datum d = call([&] { return SPI_getbinval(table->vals[row], table->tupdesc, column + 1, &isnull); });
    return isnull ? 0 : DatumGetInt64(d);
}

}  // namespace ivm::pg::spi
