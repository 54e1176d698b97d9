// Matching two lists one to one, as a redefinition matches the old rules
// with the new (dred::rule_difference, fixpoint::rule_difference).
#pragma once
#include <cstddef>
#include <vector>

namespace ivm {

// The indexes of the `a` elements left unmatched when each is matched with
// the first element of `b` still free that `same(i, j)` accepts.
template <typename Same>
std::vector<std::size_t> unmatched(std::size_t a, std::size_t b, Same same) {
    std::vector<std::size_t> left;
    std::vector<bool> taken(b, false);
    for (std::size_t i = 0; i < a; ++i) {
        bool found = false;
        for (std::size_t j = 0; j < b && !found; ++j)
            if (!taken[j] && same(i, j)) found = taken[j] = true;
        if (!found) left.push_back(i);
    }
    return left;
}

// A redefinition's rules: those of the old definition the new one lacks,
// and those of the new one the old one lacks (indexes into each's rules).
struct RuleDifference {
    std::vector<std::size_t> removed;
    std::vector<std::size_t> added;
};

}  // namespace ivm
