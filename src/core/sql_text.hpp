// Small helpers for composing generated SQL.
#pragma once
#include "core/no_postgres.hpp"

#include <functional>
#include <string>
#include <vector>

namespace ivm::sql {

// "a, b, c" from items, each passed through f.
std::string join(const std::vector<std::string>& items, const std::string& separator);
template <typename T>
std::string join_mapped(const std::vector<T>& items, const std::string& separator,
                        const std::function<std::string(const T&)>& f) {
    std::vector<std::string> mapped;
    mapped.reserve(items.size());
    for (const T& item : items) mapped.push_back(f(item));
    return join(mapped, separator);
}

// A built-in operator, schema-qualified so no search_path can replace it.
std::string op(const std::string& symbol);

// A string literal: 'it''s'.
std::string literal(const std::string& text);

// "1, 2, ..., n": ordinals for GROUP BY.
std::string ordinals(std::size_t n);

}  // namespace ivm::sql
