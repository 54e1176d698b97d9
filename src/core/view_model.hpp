// What the delta engine knows about one view, in plain C++: names are
// already quoted SQL text, expressions live inside the deparsed template.
#pragma once
#include "core/no_postgres.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ivm {

// One output column of the view.
struct Column {
    std::string name;      // quoted identifier
    std::string equality;  // qualified operator, e.g. OPERATOR(pg_catalog.=); empty for an image column
    bool hashable = true;  // has a hash function, so it is part of the storage key
    std::string type;      // SQL type with typmod and collation, e.g. varchar(10) COLLATE "C"
    bool not_null = false; // never NULL (a base column declared NOT NULL): plain = matches it
    bool leads_key = false; // an integer whose value leads the storage key (tuples::key)
    bool integer = false;   // of an integer type (smallint, integer, bigint)
    // Hashed into the storage key.  Every hashable column, but for a view
    // with lookup bases (below) those a lookup base shows that do not show a
    // key: a lookup update then moves no key (counting::key_columns).
    bool hashed = true;
    // No equality operator (json, point, xml): values are told apart and
    // grouped by their text, as netting tells rows apart (tuples::image).
    bool image = false;
};

// Whether two columns are alike in every property: a storage made for one
// serves the other.
inline bool same_column(const Column& a, const Column& b) {
    return a.name == b.name && a.equality == b.equality && a.hashable == b.hashable && a.type == b.type &&
           a.not_null == b.not_null && a.leads_key == b.leads_key && a.integer == b.integer && a.hashed == b.hashed &&
           a.image == b.image;
}
inline bool same_columns(const std::vector<Column>& a, const std::vector<Column>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!same_column(a[i], b[i])) return false;
    return true;
}

// Whether a relation stored for columns `stored` keeps serving a new
// definition's `wanted` as it is: alike, but that a column may now allow
// NULLs it did not (a rule added over a nullable table).  Not the reverse:
// tuples with NULLs stored before would escape the new plain equalities.
inline bool keeps_serving(const std::vector<Column>& stored, const std::vector<Column>& wanted) {
    if (stored.size() != wanted.size()) return false;
    for (std::size_t i = 0; i < stored.size(); ++i) {
        Column as_wanted = stored[i];
        as_wanted.not_null = wanted[i].not_null;
        if (!same_column(as_wanted, wanted[i]) || (wanted[i].not_null && !stored[i].not_null)) return false;
    }
    return true;
}

// One occurrence of a base relation in the FROM tree of a block.
// Occurrence k (from 0) appears in the block's template as relation
// "__ivm_src_<k+1>" with a derivation count column "__ivm_cnt", and the
// template outputs that count as "__ivm_c<k+1>".  Two occurrences of one
// table (a self-join) share a base.
struct Source {
    std::size_t base = 0;              // index into CountingView::bases
    bool only = false;                 // FROM ONLY
    std::vector<std::string> columns;  // the columns it provides (quoted); empty: all of them
    // Another ivm view read through its storage: each stored row stands for
    // this many rows (e.g. __ivm_count); empty: each row is one row.
    std::string multiplicity;

    // Where the occurrence sits.  The view is linear in an occurrence of the
    // FROM list (inner joins, the preserved side of an outer join): its
    // change is pushed through as a delta.  It is not linear in the nullable
    // side of an outer join, nor in a relation read by a subquery of WHERE
    // (EXISTS, IN, NOT IN, ...): their change is the difference of the
    // view's query evaluated over the relation as it is and as it was, both
    // limited by `filtered_template` to the rows that change can alter.
    enum class Role { Linear, Nullable, Nested };
    Role role = Role::Linear;
    // Non-linear occurrences: the block's template with a condition added
    // that holds for every row whose derivations the occurrence's change
    // can alter; it reads the changed rows (inserted and deleted) from
    // "__ivm_chg_<k+1>".
    std::string filtered_template;
    // Linear occurrences read by WHERE's conditions alone: the block's
    // template with a condition added that holds for every row of the other
    // relations those conditions take differently with the old row and the
    // new one, where the change replaced one row by another (the other rows'
    // derivations cancel); see pg/crossing_filter.hpp.  Empty: none.
    std::string crossing_template;
    // Non-linear occurrences read the relation as it was before the
    // statement as true rows, not signed counts, told apart by `row`: the
    // columns the query uses, with their equality, and a unique key when
    // the relation has one (then `unique`: no two rows are equal).
    std::vector<Column> row;
    bool unique = false;
    // Of a unique source, the columns of `row` (never NULL, compared by
    // their own equality) that alone tell its rows apart (a unique key);
    // empty: all of `row`.
    std::vector<Column> key;
};

// The name of occurrence k (from 0) in its block's template.
inline std::string source_placeholder(std::size_t k) { return "__ivm_src_" + std::to_string(k + 1); }

// One select-project-join block: its occurrences and its deparsed template.
struct Block {
    std::vector<Source> sources;
    std::string spj_template;
    int side = 0;  // in a set operation tree: the arm it belongs to
};

// A view maintained by counting: a select-project-join query, or a UNION
// [ALL] of such blocks (the view's counts are the sums of the blocks').
struct CountingView {
    std::string storage;                // quoted qualified storage table
    std::vector<Column> columns;        // the view's output columns
    std::vector<std::string> bases;     // quoted qualified base tables, each once
    std::vector<Block> blocks;          // one, or the arms of a UNION [ALL]
    bool distinct = false;              // SELECT DISTINCT or UNION: show each tuple once

    // A tree of set operations other than UNION ALL alone or UNION alone
    // (INTERSECT [ALL], EXCEPT [ALL], nested, mixed with UNION [ALL]): the
    // storage keeps each tuple's count in every arm (__ivm_arm<i>, for the
    // blocks with side i - 1) and shows it as many times as the tree,
    // applied to those counts, says (PostgreSQL's set operations work tuple
    // by tuple).
    struct SetNode {
        // Distinct: an arm that is SELECT DISTINCT shows each tuple once.
        enum class Op { Arm, Distinct, UnionAll, Union, IntersectAll, Intersect, ExceptAll, Except };
        Op op = Op::Arm;
        int arm = 0;                    // Op::Arm: the blocks' side
        std::vector<SetNode> children;  // Distinct: its arm; otherwise: left and right
    };
    SetNode set_tree;
    int arms = 0;  // 0: no set operation tree

    // Per base: whether it keys the view.  One select-project-join block of
    // inner joins over tables, the base read once, each of its rows joined
    // to at most one row of every other occurrence (through equalities on
    // a unique key of that occurrence, with columns of rows so determined),
    // and its unique key shown as output columns: each of its rows makes at
    // most one view tuple, one that no other row makes.  Then every stored
    // tuple has count 1, and a statement that changes one table read once
    // removes tuples stored once and adds tuples that, once those are
    // gone, are not stored (counting::keyed_change).  Empty: none does.
    std::vector<bool> keying;

    // A base joined on a unique key of its own whose columns the view shows,
    // as themselves or as the columns they equal in the join (branches in
    // `accounts a JOIN branches b ON a.bid = b.bid`, its key bid equal to
    // the a.bid the view shows): the stored
    // tuples a row of it derives are those that show its key, and it derives
    // all of them.  An UPDATE of its rows that keeps each row's key and every
    // column the query reads other than those it shows as they are moves
    // those tuples to the rows' new values where they are stored
    // (counting::lookup_update_statement; counting::LookupFind says how the
    // tuples are found).
    struct Lookup {
        struct KeyPart {
            std::string column;     // a column of the base's key (quoted)
            std::string equality;   // the key's equality for it (qualified operator)
            std::size_t shown = 0;  // the view column that shows it, or a column it equals
            std::string match;      // the equality of that view column (left) with it (right)
        };
        std::vector<KeyPart> key;
        struct Shown {
            std::size_t column = 0;  // a view column
            std::string source;      // the base's column it shows as it is (quoted)
        };
        std::vector<Shown> shown;
        std::vector<std::string> guarded;  // the base's columns the query reads otherwise (quoted)
    };
    std::vector<std::optional<Lookup>> lookups;  // per base; empty: none is

    // Aggregate views (GROUP BY, aggregates, HAVING): one stored row per
    // group, one block.  Its template then outputs the group keys (as
    // group_keys, hidden columns __ivm_gk<i> of the storage) for the rows
    // under the aggregation, and full_template is the whole query over the
    // same placeholders with the group keys appended; a change recomputes
    // the groups whose input rows it touched.
    bool aggregate = false;
    std::vector<Column> group_keys;
    std::string full_template;
    // The full query with its rows limited, before they are grouped, to the
    // groups of the WITH query __ivm_a (by the hash of their keys, its
    // column __ivm_ah): recomputing the groups a change touched without
    // aggregating every other group too.  Empty where a key has no hash.
    std::string grouped_full_template;
    // Window functions: an aggregate view whose groups are the window
    // partitions (the PARTITION BY keys every window shares; none: the
    // whole view is one).  A partition's rows may repeat, so each stored
    // row keeps how many times the view shows it.
    bool windowed = false;
    // Whether a stored row stands for __ivm_count rows of the view (else
    // for one: DISTINCT and one row per group).
    bool repeats_rows() const { return (!distinct && !aggregate) || windowed; }

    // Partial state: when every output column is a group key or count(*),
    // count(x), sum(x) or avg(x) over integers, min(x) or max(x) (with or
    // without GROUP BY, no HAVING), the storage keeps per group the row count (__ivm_count) and
    // per aggregate k the count of non-NULL arguments (__ivm_n<k>), their
    // sum (__ivm_s<k>) or their minimum or maximum (__ivm_x<k>); a delta
    // updates them and recomputes the outputs, and the template then also
    // outputs each argument as __ivm_arg<k>.  A min or max whose value was
    // deleted is recomputed from the group's rows (only that group's).
    //
    // An output column that is an expression over such aggregates and the
    // group keys (`0.5 * sum(x)`, `sum(a) / sum(b)`, `k || count(*)`) is
    // Kind::Expression: its aggregates are kept as hidden entries of
    // `partial`, after one per output column (they have state, no column),
    // and the column is recomputed from them with the group's state.
    struct Partial {
        enum class Kind { Key, CountStar, Count, Sum, Avg, Min, Max, Expression } kind = Kind::Key;
        std::size_t key = 0;   // Kind::Key: which group key the column shows
        // Kind::Expression: the expression's SQL text in pieces, with the
        // value of reads[i] between pieces[i] and pieces[i + 1].
        struct Read {
            bool key = false;        // group key `index`, else the output of partial entry `index`
            std::size_t index = 0;
        };
        std::vector<std::string> pieces;
        std::vector<Read> reads;
        std::string type;  // a hidden entry: its aggregate's type (a column's is the column's)
        // Sum, Avg over numeric: the result's display scale is the largest
        // scale among the group's values, kept like a max (of scale(x), in
        // __ivm_x<k>), and NaN and infinities are counted apart
        // (__ivm_nan<k>, __ivm_pinf<k>, __ivm_ninf<k>), as PostgreSQL's own
        // moving aggregate does.
        bool numeric = false;
        // Sum, Avg over numeric whose arguments all have one display scale,
        // fixed by their types (a numeric(p, s) column, products and sums of
        // such): that scale, and no infinities to count; -1: kept as above.
        int scale = -1;
        // Sum, Avg over smallint or integer: a value times its count fits a
        // bigint, whose sum PostgreSQL accumulates faster than numeric's.
        bool narrow = false;
        // Min, Max: whether equal values of the argument show alike.  Where
        // they may not (numeric 1.5 = 1.50), rows gone at the stored extreme
        // may have been the ones showing it: the group's extreme is recomputed.
        bool shows_alike = true;
        // The first output column whose aggregate has an argument equal to
        // this one's (none: its own).  Aggregates over one argument share
        // the parts of its partial state they have in common.
        static constexpr std::size_t own = static_cast<std::size_t>(-1);
        std::size_t same_argument = own;
    };
    std::vector<Partial> partial;  // one per output column, then the hidden ones; empty: recompute groups

    // How the storage holds the view: the one choice the generators of
    // counting.hpp dispatch on.
    enum class Shape {
        Tuples,        // a row per tuple and its derivation count (DISTINCT: shown once)
        SetOperation,  // a row per tuple and its count in each arm of the set operation tree
        Groups,        // a row per group (or window partition row), recomputed from the group's rows
        PartialState,  // a row per group and the partial state of its aggregates, which a delta updates
    };
    Shape shape() const {
        if (!partial.empty()) return Shape::PartialState;
        if (aggregate) return Shape::Groups;
        return arms > 0 ? Shape::SetOperation : Shape::Tuples;
    }
};

}  // namespace ivm
