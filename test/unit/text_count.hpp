// Shared by the unit tests: how often generated SQL contains a piece of text.
#pragma once
#include <cstddef>
#include <string>

inline std::size_t occurrences(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}
