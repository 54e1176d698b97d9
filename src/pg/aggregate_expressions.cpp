#include "pg/aggregate_expressions.hpp"

#include "pg/boundary.hpp"

extern "C" {
#include "utils/ruleutils.h"
}

#include <cctype>

namespace ivm::pg {
namespace {

// What make_holes found, in PostgreSQL lists (it runs inside call()).
struct Holes {
    const std::vector<Expr*>* keys;
    List* holes;       // of int: hole n (from 1) reads key i as -(i + 1), aggregate j as j
    List* aggregates;  // of Aggref, one a hole (the caller tells equal ones apart)
    bool ok;
};

// Param $n of the type of `what`, standing for the next hole.
Node* hole(Holes* h, Node* what, int read) {
    h->holes = lappend_int(h->holes, read);
    Param* p = makeNode(Param);
    p->paramkind = PARAM_EXTERN;
    p->paramid = list_length(h->holes);
    p->paramtype = exprType(what);
    p->paramtypmod = exprTypmod(what);
    p->paramcollid = exprCollation(what);
    p->location = -1;
    return reinterpret_cast<Node*>(p);
}

Node* make_holes(Node* node, void* raw) {
    auto* h = static_cast<Holes*>(raw);
    if (node == nullptr || !h->ok) return node;
    for (std::size_t i = 0; i < h->keys->size(); ++i)
        if (equal(node, (*h->keys)[i])) return hole(h, node, -static_cast<int>(i) - 1);
    if (IsA(node, Aggref)) {
        h->aggregates = lappend(h->aggregates, node);
        return hole(h, node, list_length(h->aggregates) - 1);
    }
    if (IsA(node, Var) || IsA(node, SubLink) || IsA(node, WindowFunc) || IsA(node, GroupingFunc) ||
        IsA(node, Param) || IsA(node, PlaceHolderVar)) {
        h->ok = false;
        return node;
    }
    return expression_tree_mutator(node, reinterpret_cast<Node* (*)()>(make_holes), raw);
}

}  // namespace

std::optional<ExpressionOverAggregates> split_over_aggregates(Expr* expr, const std::vector<Expr*>& keys) {
    Node* node = reinterpret_cast<Node*>(expr);
    Holes h{&keys, NIL, NIL, true};
    const char* deparsed = call([&]() -> const char* {
        if (contain_volatile_functions(node)) return nullptr;
        Node* with_holes = make_holes(static_cast<Node*>(copyObjectImpl(node)), &h);
        // (a constant, such as a key a grouping set shows as NULL, reads
        // nothing; an expression over keys alone is left to a recompute)
        if (!h.ok || (h.aggregates == NIL && h.holes != NIL)) return nullptr;
        // Implicit casts shown: the text means the same wherever it is read.
        return deparse_expression(with_holes, NIL, false, true);
    });
    if (deparsed == nullptr) return std::nullopt;
    ExpressionOverAggregates split;
    std::vector<CountingView::Partial::Read> reads;
    for (int i = 0; i < list_length(h.holes); ++i) {
        const int read = list_nth_int(h.holes, i);
        reads.push_back(read < 0 ? CountingView::Partial::Read{true, static_cast<std::size_t>(-read - 1)}
                                 : CountingView::Partial::Read{false, static_cast<std::size_t>(read)});
    }
    for (int i = 0; i < list_length(h.aggregates); ++i) split.aggregates.push_back(static_cast<Aggref*>(list_nth(h.aggregates, i)));
    // Cut at each $n; a $ that is not a hole's, or a hole met twice (a
    // literal that looks like one), and the expression is not split.
    const std::string text = deparsed;
    std::vector<bool> met(reads.size(), false);
    std::string piece;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '$') {
            piece += text[i];
            continue;
        }
        std::size_t j = i + 1;
        while (j < text.size() && j - i <= 6 && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
        if (j == i + 1 || (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))) return std::nullopt;
        const std::size_t n = std::stoul(text.substr(i + 1, j - i - 1));
        if (n == 0 || n > met.size() || met[n - 1]) return std::nullopt;
        met[n - 1] = true;
        split.pieces.push_back(piece);
        piece.clear();
        split.holes.push_back(reads[n - 1]);
        i = j - 1;
    }
    split.pieces.push_back(piece);
    for (bool m : met)
        if (!m) return std::nullopt;
    return split;
}

}  // namespace ivm::pg
