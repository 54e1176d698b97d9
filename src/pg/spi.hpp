// SPI through the boundary guard: every call here either succeeds or throws
// a C++ exception carrying the PostgreSQL error.  Values cross as text.
#pragma once
#include "pg/pg.hpp"

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

// The first column of the only row, as an integer (0 when NULL).
int64 query_int(const std::string& sql, const std::vector<Value>& args = {});

// Column i (0-based) of the last result's row r, as int64; for results read
// by the caller right after SPI_execute_plan.
int64 result_int(uint64 row, int column);

}  // namespace ivm::pg::spi
