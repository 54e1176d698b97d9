#include "core/sql_text.hpp"

namespace ivm::sql {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += separator;
        out += items[i];
    }
    return out;
}

std::string op(const std::string& symbol) { return " OPERATOR(pg_catalog." + symbol + ") "; }

// As PostgreSQL's quote_literal: quotes and backslashes doubled, and an E''
// string when there is a backslash, so standard_conforming_strings does not
// matter.
std::string literal(const std::string& text) {
    std::string body;
    for (char c : text) {
        if (c == '\'' || c == '\\') body += c;
        body += c;
    }
    const bool escaped = text.find('\\') != std::string::npos;
    return (escaped ? "E'" : "'") + body + "'";
}

std::string ordinals(std::size_t n) {
    std::vector<std::string> items;
    for (std::size_t i = 1; i <= n; ++i) items.push_back(std::to_string(i));
    return join(items, ", ");
}

}  // namespace ivm::sql
