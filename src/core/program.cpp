#include "core/program.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <functional>

namespace ivm {

std::vector<Column> Program::stored_columns() const {
    Column tag;
    tag.name = "__ivm_item";
    tag.equality = "OPERATOR(pg_catalog.=)";
    tag.type = "integer";
    tag.not_null = true;
    std::vector<Column> out{tag};
    for (const ProgramItem& item : items)
        for (std::size_t j = 0; j < item.columns.size(); ++j) {
            Column c = item.columns[j];
            c.name = item.stored[j];
            c.not_null = false;  // NULL in the other items' rows
            out.push_back(c);
        }
    return out;
}

std::size_t Program::stratum_of(std::size_t item) const {
    for (std::size_t s = 0; s < strata.size(); ++s)
        if (std::find(strata[s].begin(), strata[s].end(), item) != strata[s].end()) return s;
    throw Error(sqlstate::internal_error, "item without a stratum");
}

std::vector<std::vector<std::size_t>> stratify(std::size_t items, const std::vector<ItemEdge>& edges,
                                               const std::vector<std::string>& names) {
    // Tarjan's algorithm: a component is complete only after every
    // component it reaches, so they come out lowest first.
    std::vector<int> index(items, -1), low(items, 0);
    std::vector<bool> on_stack(items, false);
    std::vector<std::size_t> stack;
    std::vector<std::vector<std::size_t>> components;
    int next = 0;
    std::function<void(std::size_t)> visit = [&](std::size_t v) {
        index[v] = low[v] = next++;
        stack.push_back(v);
        on_stack[v] = true;
        for (const ItemEdge& e : edges) {
            if (e.from != v) continue;
            if (index[e.to] < 0) {
                visit(e.to);
                low[v] = std::min(low[v], low[e.to]);
            } else if (on_stack[e.to]) {
                low[v] = std::min(low[v], index[e.to]);
            }
        }
        if (low[v] != index[v]) return;
        std::vector<std::size_t> component;
        std::size_t w;
        do {
            w = stack.back();
            stack.pop_back();
            on_stack[w] = false;
            component.push_back(w);
        } while (w != v);
        std::sort(component.begin(), component.end());
        components.push_back(std::move(component));
    };
    for (std::size_t v = 0; v < items; ++v)
        if (index[v] < 0) visit(v);
    std::vector<std::size_t> component_of(items, 0);
    for (std::size_t c = 0; c < components.size(); ++c)
        for (std::size_t v : components[c]) component_of[v] = c;
    for (const ItemEdge& e : edges)
        if (e.negative && component_of[e.from] == component_of[e.to])
            throw Error(sqlstate::feature_not_supported,
                        "recursive query is not stratifiable: \"" + names.at(e.from) + "\" depends on \"" +
                            names.at(e.to) + "\" through negation, aggregation, an outer join or a subquery within its own recursion",
                        {},
                        "Within its own recursion an item may be read only in the FROM list of a term, through "
                        "inner joins; NOT EXISTS, IN, EXCEPT, aggregates and outer joins may read tables and WITH "
                        "items that do not depend on it.");
    return components;
}

}  // namespace ivm
