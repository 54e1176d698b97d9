// Unique keys of base tables, and the bases whose key is also the view's:
// what lets a merge skip looking up tuples that cannot be stored yet.
#pragma once
#include "core/view_model.hpp"
#include "pg/occurrences.hpp"
#include "pg/pg.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ivm::pg {

// Whether column `attno` of `relid` is declared NOT NULL (raw syscache
// access: call it inside call()).
bool attribute_not_null(Oid relid, AttrNumber attno);

// Whether range table entry `rti` is under the nullable side of an outer
// join in the join tree `node` (`nullable`: `node` itself is).
bool on_nullable_side(const Node* node, int rti, bool nullable = false);

// Whether column `attno` of the table `rte` reads is never NULL there:
// declared NOT NULL in a table, and for a table read with its inheritance
// children not one a child may have dropped the constraint of (PostgreSQL
// 15 lets a child do so; a partition may not); of a maintained view, as
// views_not_null.hpp says.  Inside call().
bool read_column_not_null(const RangeTblEntry* rte, AttrNumber attno);

// Whether `relid` is a table with inheritance children (not a partitioned
// one): their rows may break what the parent declares (NOT NULL, unique
// indexes).  Inside call().
bool has_inheritance_children(Oid relid);

// Whether expr is a column of a table of q declared NOT NULL (or tested IS
// NOT NULL in q's WHERE), and not NULL for an outer join either.  Inside
// call().
bool not_null_column(Query* q, Node* expr);

// Whether values of `type` compared under `collation` are equal only where
// their binary images are, as the type's default btree operator class
// declares for index deduplication (int, text under a deterministic
// collation; not numeric: 1.0 = 1.00; nor bpchar, whose = ignores
// trailing spaces).  Raw catalog access: inside call().
bool image_equal(Oid type, Oid collation);

// An operator as generated SQL names it: OPERATOR(schema.name).
std::string qualified_operator(Oid opno);

// One column of a unique key, with the operator family and collation its
// index compares it with.
struct KeyColumn {
    AttrNumber attno = 0;
    Oid opfamily = InvalidOid;
    Oid collation = InvalidOid;
};
using UniqueKey = std::vector<KeyColumn>;

// The keys no two rows of the table share at the end of any statement:
// unique indexes that are immediate and valid, on NOT NULL columns, without
// expressions or predicate.  None for a table with inheritance children (a
// parent's index says nothing about its children's rows).
std::vector<UniqueKey> unique_keys(Oid relid);

// The column each valid index of the relation leads with (indexes on an
// expression first left out).
std::vector<AttrNumber> index_leads(Oid relid);

// For each base of the view (indexed like CountingView::bases): whether it
// keys the view, as CountingView::keying says.  `q` is the view's only
// block, `occurrences` and `sources` its occurrences as found and described.
std::vector<bool> keying_bases(Query* q, const std::vector<Occurrence>& occurrences,
                               const std::vector<Source>& sources, std::size_t bases);

// For each base: how it is a lookup base of the view (CountingView::Lookup),
// or nothing.  Arguments as for keying_bases.
std::vector<std::optional<CountingView::Lookup>> lookup_bases(Query* q, const std::vector<Occurrence>& occurrences,
                                                               const std::vector<Source>& sources, std::size_t bases);

}  // namespace ivm::pg
