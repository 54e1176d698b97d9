// A recursive program: the items of a WITH RECURSIVE that PostgreSQL
// itself does not evaluate (a term reading an item more than once, items
// reading each other, several items), which ivm evaluates semi-naively and
// maintains with DRed, one stratum at a time.
//
// Every item's tuples live in one storage table: column __ivm_item says
// which item a row belongs to (1, 2, ...), item i's columns are
// __ivm_<i>_<j> (NULL in the rows of other items), and __ivm_key hashes the
// whole row.  So every set passed between the steps has the storage's row
// type, whichever items it holds.
#pragma once
#include "core/no_postgres.hpp"
#include "core/view_model.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ivm {

struct ProgramItem {
    std::string name;                 // as written in the query (for messages)
    std::string reference;            // the same, quoted: how the terms read it
    std::vector<Column> columns;      // named as the query names them (quoted)
    std::vector<std::string> stored;  // the same columns in the storage (quoted)
};

// An occurrence in a term through which a change is pushed: in its FROM
// list, joined by inner joins only.  The term's template reads it as
// __ivm_src_<k+1>.
struct ProgramSource {
    bool item = false;
    std::size_t index = 0;      // into Program::items or Program::bases
    bool only = false;          // FROM ONLY (a base table)
    bool view_storage = false;  // another ivm view's storage: the rows it shows
};

// One term of an item's UNION.  Its template outputs the item's columns and
// reads __ivm_src_<k+1> for sources[k], and item i by its name wherever
// else it reads it (under NOT EXISTS, in a subquery, through an aggregate,
// on the nullable side of an outer join).  What a term reads in
// those places can only have come from a lower stratum.
struct ProgramRule {
    std::size_t item = 0;
    std::string sql_template;
    std::vector<ProgramSource> sources;
    std::vector<std::size_t> other_bases;  // read elsewhere than through sources
    std::vector<std::size_t> other_items;
};

struct Program {
    std::string storage;              // quoted qualified table
    std::vector<ProgramItem> items;
    std::vector<std::string> bases;   // quoted qualified tables
    std::vector<ProgramRule> rules;
    // The strata, lowest first: each a set of items that read each other
    // (only positively), reading lower strata in any way.
    std::vector<std::vector<std::size_t>> strata;

    // The storage's columns: __ivm_item, then every item's columns.
    std::vector<Column> stored_columns() const;
    std::size_t stratum_of(std::size_t item) const;
};

// What item `from` reads of item `to`; `negative` when through negation,
// aggregation or an outer join's nullable side.
struct ItemEdge {
    std::size_t from = 0, to = 0;
    bool negative = false;
};

// The strata of a program with `items` items (its strongly connected
// components, each after every component it reads).  Throws 0A000 when an
// item reads its own stratum negatively: the program is not stratifiable.
std::vector<std::vector<std::size_t>> stratify(std::size_t items, const std::vector<ItemEdge>& edges,
                                               const std::vector<std::string>& names);

}  // namespace ivm
