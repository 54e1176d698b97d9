// SPI through the boundary guard: every call here either succeeds or throws
// a C++ exception carrying the PostgreSQL error (but fetch_rows, a raw
// cursor loop for use inside call()).  Values cross as text.
#pragma once
#include "pg/pg.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace ivm::pg::spi {

using Value = std::optional<std::string>;  // nullopt is SQL NULL
using Row = std::vector<Value>;

void connect();
void finish();

// Runs one statement with text parameters $1..$n; returns SPI_processed.
uint64 execute(const std::string& sql, const std::vector<Value>& args = {});

// Runs a query with text parameters and returns its rows as text.
std::vector<Row> query(const std::string& sql, const std::vector<Value>& args = {});

// An array literal of oids, for a $n::oid[] argument.
std::string oid_array(const std::vector<Oid>& oids);

// The first column of each row, as oids (NULLs skipped).
std::vector<Oid> oids(const std::vector<Row>& rows);

// The first column of the only row, as an integer (0 when NULL).
int64 query_int(const std::string& sql, const std::vector<Value>& args = {});

// SPI_prepare of `text` with its parameters' types, raising PostgreSQL's
// error when it fails.  Raw PostgreSQL calls: run it inside call().
inline SPIPlanPtr prepare(const char* text, int nargs = 0, Oid* types = nullptr, int options = 0) {
    SPIPlanPtr plan = SPI_prepare_cursor(text, nargs, types, options);
    if (plan == nullptr) elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
    return plan;
}

// Column i (0-based) of the last result's row r, as int64; for results read
// by the caller right after SPI_execute_plan.
int64 result_int(uint64 row, int column);

// Runs a prepared query that returns rows (with `snapshot`, or a new one as
// SPI_execute takes; at most `limit` rows when not 0) and hands each row to
// `sink`, fetching them through a cursor a batch at a time: a step of a
// million rows never sits in memory whole (the tuplestores it goes to
// spill to disk).  Raw PostgreSQL calls: run it inside call().
constexpr uint64 fetch_batch = 10000;

template <typename Sink>
uint64 fetch_rows(SPIPlanPtr plan, Snapshot snapshot, uint64 limit, const Sink& sink, TupleDesc* desc = nullptr) {
    const bool given = snapshot != InvalidSnapshot;
    if (given) PushActiveSnapshot(snapshot);
    Portal portal = SPI_cursor_open(nullptr, plan, nullptr, nullptr, given);
    if (given) PopActiveSnapshot();
    uint64 rows = 0;
    for (;;) {
        const uint64 want = limit > 0 ? std::min(fetch_batch, limit - rows) : fetch_batch;
        if (want == 0) break;
        SPI_cursor_fetch(portal, true, static_cast<long>(want));
        const uint64 got = SPI_processed;
        if (desc != nullptr && *desc == nullptr && got > 0) *desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
        for (uint64 i = 0; i < got; ++i) sink(SPI_tuptable->vals[i]);
        SPI_freetuptable(SPI_tuptable);
        rows += got;
        if (got < want) break;
    }
    SPI_cursor_close(portal);
    return rows;
}

}  // namespace ivm::pg::spi
