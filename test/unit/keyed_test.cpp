// The merges of changes that only insert into, or only delete from, a base
// keying the view, and the indexes of a recursive relation's storage.
#include "core/counting.hpp"
#include "core/dred.hpp"
#include "core/error.hpp"

#include "text_count.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

using ivm::Column;
using ivm::CountingView;
using ivm::Source;
using ivm::counting::KeyedRows;

// r JOIN s where r's key keys the view.
CountingView keyed_view() {
    CountingView v;
    v.storage = "public.v__ivm_data";
    v.columns = {{"a", "OPERATOR(pg_catalog.=)", true}, {"c", "OPERATOR(pg_catalog.=)", true}};
    v.bases = {"public.r", "public.s"};
    v.blocks = {{{Source{0, true}, Source{1, true}},
                 "SELECT r.a, s.c, r.__ivm_cnt AS __ivm_c1, s.__ivm_cnt AS __ivm_c2 FROM __ivm_src_1 r, __ivm_src_2 s"}};
    v.keying = {true, false};
    return v;
}

TEST(KeyedDelta, ReadsTheChangeOfTheKeyingBaseUnsummed) {
    const std::string sql = ivm::counting::keyed_delta_query(keyed_view(), 0);
    EXPECT_NE(sql.find("FROM ivm_new_1"), std::string::npos);
    EXPECT_NE(sql.find("FROM ivm_old_1"), std::string::npos);
    EXPECT_EQ(sql.find("ivm_new_2"), std::string::npos);
    EXPECT_EQ(sql.find("GROUP BY"), std::string::npos);
    EXPECT_EQ(sql.find("pg_catalog.sum"), std::string::npos);
}

TEST(KeyedDelta, AnyTableReadOnceOfAKeyedView) {
    EXPECT_TRUE(ivm::counting::keyed_change(keyed_view(), 0));
    EXPECT_TRUE(ivm::counting::keyed_change(keyed_view(), 1));
    const std::string sql = ivm::counting::keyed_delta_query(keyed_view(), 1);
    EXPECT_NE(sql.find("FROM ivm_new_2"), std::string::npos);
    EXPECT_EQ(sql.find("ivm_new_1"), std::string::npos);
}

TEST(KeyedDelta, NotForATableReadTwiceNorAViewNotKeyed) {
    CountingView v = keyed_view();
    v.bases.push_back("public.t");
    v.blocks[0].sources = {Source{0, true}, Source{1, true}, Source{1, true}};
    v.keying = {true, false, false};
    EXPECT_FALSE(ivm::counting::keyed_change(v, 1));
    EXPECT_THROW(ivm::counting::keyed_delta_query(v, 1), ivm::Error);
    v = keyed_view();
    v.keying = {false, false};
    EXPECT_FALSE(ivm::counting::keyed_change(v, 0));
    v.keying.clear();
    EXPECT_THROW(ivm::counting::keyed_delta_query(v, 0), ivm::Error);
}

TEST(KeyedMerge, InsertsWithoutLookupInKeyOrder) {
    const std::string sql = ivm::counting::keyed_merge_statement(keyed_view(), "<delta>", KeyedRows::Inserted);
    EXPECT_EQ(sql.rfind("INSERT INTO public.v__ivm_data (a, c, __ivm_count, __ivm_key) SELECT a, c, 1::bigint AS __ivm_count, "
                        "__ivm_d.__ivm_h AS __ivm_key FROM (SELECT __ivm_x.*, pg_catalog.hash_record_extended(ROW(__ivm_x.a, "
                        "__ivm_x.c), 0::bigint) AS __ivm_h FROM (<delta>) __ivm_x",
                        0),
              0u);
    // The same rows as a query, named as the storage's columns (for bulk_insert).
    EXPECT_EQ(sql, "INSERT INTO public.v__ivm_data (a, c, __ivm_count, __ivm_key) " +
                       ivm::counting::keyed_insert_query(keyed_view(), "<delta>"));
    EXPECT_NE(sql.find("WHERE __ivm_d.__ivm_cnt OPERATOR(pg_catalog.>) 0 ORDER BY __ivm_d.__ivm_h"), std::string::npos);
    EXPECT_EQ(sql.find("__ivm_s"), std::string::npos);  // no stored row is read
}

TEST(KeyedMerge, DeletesLookUpEachTupleAndCheckItsCount) {
    const std::string sql = ivm::counting::keyed_merge_statement(keyed_view(), "<delta>", KeyedRows::Deleted);
    EXPECT_EQ(occurrences(sql, "DELETE FROM public.v__ivm_data"), 1u);
    EXPECT_EQ(sql.find("UPDATE "), std::string::npos);
    EXPECT_EQ(sql.find("INSERT "), std::string::npos);
    // one index probe per deleted tuple, deleting it where found; its count
    // is checked on what was deleted, not in the join (where a guess of its
    // selectivity made the join a nested loop over the whole storage)
    EXPECT_NE(sql.find("DELETE FROM public.v__ivm_data __ivm_s USING __ivm_d WHERE __ivm_d.__ivm_cnt OPERATOR(pg_catalog.<) 0 "
                       "AND __ivm_s.__ivm_key OPERATOR(pg_catalog.=) ANY (ARRAY[__ivm_d.__ivm_h]) AND ROW(__ivm_s.a, "
                       "__ivm_s.c) IS NOT DISTINCT FROM ROW(__ivm_d.a, __ivm_d.c) RETURNING __ivm_s.__ivm_count)"),
              std::string::npos);
    // a deleted tuple not deleted so (or two stored for one, or one stored
    // with another count) is reported
    EXPECT_NE(sql.find("pg_catalog.abs(__ivm_n.went OPERATOR(pg_catalog.-) __ivm_n.deleted) OPERATOR(pg_catalog.+) "
                       "__ivm_n.miscounted"),
              std::string::npos);
    EXPECT_NE(sql.find("(SELECT pg_catalog.count(*) FROM __ivm_del WHERE __ivm_del.__ivm_count OPERATOR(pg_catalog.<>) 1) "
                       "AS miscounted"),
              std::string::npos);
    EXPECT_NE(sql.find("SELECT 0::bigint AS came, "), std::string::npos);
}

TEST(KeyedMerge, BothDeletesAndInsertsInOneStatement) {
    const std::string sql = ivm::counting::keyed_merge_statement(keyed_view(), "<delta>", KeyedRows::Both);
    EXPECT_EQ(occurrences(sql, "<delta>"), 1u);  // the delta computed once
    EXPECT_EQ(occurrences(sql, "DELETE FROM public.v__ivm_data"), 1u);
    EXPECT_NE(sql.find("INSERT INTO public.v__ivm_data (a, c, __ivm_count, __ivm_key) SELECT a, c, 1::bigint, "
                       "__ivm_d.__ivm_h FROM __ivm_d WHERE __ivm_d.__ivm_cnt OPERATOR(pg_catalog.>) 0"),
              std::string::npos);
    EXPECT_EQ(sql.find("UPDATE "), std::string::npos);
}

ivm::RecursiveRelation closure(bool fixed_width) {
    ivm::RecursiveRelation r;
    r.storage = "public.tc__ivm_rec";
    r.columns = {{"x", "OPERATOR(pg_catalog.=)", true}, {"y", "OPERATOR(pg_catalog.=)", true}};
    r.fixed_width = fixed_width;
    return r;
}

// The closure of e(x, y): an exit rule over e, a recursive rule joining it.
ivm::RecursiveRelation closure_of_e() {
    ivm::RecursiveRelation r = closure(true);
    r.bases = {"public.e"};
    r.rules = {{"SELECT x, y FROM __ivm_src_1 e", {ivm::RuleSource{false, 0}}},
               {"SELECT tc.x, e.y FROM __ivm_src_1 tc JOIN __ivm_src_2 e ON tc.y = e.x",
                {ivm::RuleSource{true}, ivm::RuleSource{false, 0}}}};
    return r;
}

TEST(DRedStorage, FixedWidthColumnsGetOneIndexOverAll) {
    const std::vector<std::string> ddl = ivm::dred::storage_index_ddl(closure(true));
    ASSERT_EQ(ddl.size(), 3u);
    EXPECT_EQ(ddl[0], "CREATE INDEX ON public.tc__ivm_rec (__ivm_key) WITH (deduplicate_items = off)");
    EXPECT_EQ(ddl[1], "CREATE INDEX ON public.tc__ivm_rec (x, y)");
    EXPECT_EQ(ddl[2], "CREATE INDEX ON public.tc__ivm_rec (y)");
}

TEST(DRedStorage, OtherColumnsOneIndexEach) {
    const std::vector<std::string> ddl = ivm::dred::storage_index_ddl(closure(false));
    ASSERT_EQ(ddl.size(), 3u);
    EXPECT_EQ(ddl[1], "CREATE INDEX ON public.tc__ivm_rec (x)");
    EXPECT_EQ(ddl[2], "CREATE INDEX ON public.tc__ivm_rec (y)");
}

// The table first, filled by one INSERT of R evaluated now; indexes after.
TEST(DRedStorage, FilledBeforeItIsIndexed) {
    ivm::RecursiveRelation r = closure(true);
    r.definition = "SELECT x, y FROM e";
    const std::string table = ivm::dred::storage_ddl(r);
    EXPECT_EQ(table.rfind("CREATE TABLE public.tc__ivm_rec (", 0), 0u);
    EXPECT_EQ(table.find("INDEX"), std::string::npos);
    const std::string fill = ivm::dred::first_fill_statement(r);
    EXPECT_EQ(fill.rfind("INSERT INTO public.tc__ivm_rec (x, y) SELECT __ivm_f.x, __ivm_f.y FROM (", 0), 0u);
    EXPECT_NE(fill.find(r.definition), std::string::npos);
}

// Derived tuples are checked against R one by one (a key probe each; the
// planner, left to itself, hashes all of R), or in one pass when many.
TEST(DRedApply, DerivedTuplesLookedUpOneByOneUnlessMany) {
    const std::string one_by_one = ivm::dred::apply_statement(closure(true));
    // an over-deleted tuple found again is known to be in R: not looked up
    // (set apart first, below a fence the lookup cannot be pushed under)
    const std::size_t known = one_by_one.find("__ivm_n WHERE NOT EXISTS (SELECT 1 FROM ivm_dred_deleted __ivm_d WHERE "
                                              "__ivm_d.__ivm_key OPERATOR(pg_catalog.=) __ivm_n.__ivm_key");
    ASSERT_NE(known, std::string::npos);
    EXPECT_NE(one_by_one.find(" OFFSET 0) __ivm_i WHERE NOT EXISTS (SELECT 1 FROM public.tc__ivm_rec __ivm_t WHERE "
                              "__ivm_t.__ivm_key OPERATOR(pg_catalog.=) __ivm_i.__ivm_key",
                              known),
              std::string::npos);
    EXPECT_EQ(occurrences(one_by_one, " OFFSET 0)"), 2u);
    const std::string at_once = ivm::dred::apply_statement(closure(true), false, true);
    EXPECT_EQ(at_once.find("OFFSET 0"), std::string::npos);
}

// Tuples that go are found one by one through the key index and deleted by
// TID (a join hashed all 170,000 pairs of W3's closure to delete 2,190), or
// joined with R when many.
TEST(DRedApply, GoneTuplesDeletedByTidUnlessMany) {
    const std::string one_by_one = ivm::dred::apply_statement(closure(true));
    EXPECT_NE(one_by_one.find("__ivm_gone AS (DELETE FROM public.tc__ivm_rec __ivm_t WHERE __ivm_t.ctid "
                              "OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT (SELECT __ivm_k.ctid FROM public.tc__ivm_rec "
                              "__ivm_k WHERE __ivm_k.__ivm_key OPERATOR(pg_catalog.=) __ivm_g.__ivm_key"),
              std::string::npos);
    const std::string at_once = ivm::dred::apply_statement(closure(true), true);
    EXPECT_NE(at_once.find("__ivm_gone AS (DELETE FROM public.tc__ivm_rec __ivm_t USING __ivm_g __ivm_g WHERE"), std::string::npos);
}

// Over-deleted tuples are rederived one by one through the rules' indexes;
// past the kept plan's few tuples, a rule over base tables alone is left to
// the planner (it may hash the rule once), the recursive rule never is.
TEST(DRedRederive, BaseRulesLeftToThePlannerForManyTuples) {
    const ivm::RecursiveRelation r = closure_of_e();
    const std::string lookups = ivm::dred::rederive_query(r);
    EXPECT_EQ(occurrences(lookups, " OFFSET 0)"), 2u);
    const std::string planned = ivm::dred::rederive_query(r, ivm::dred::Rederive::Planned);
    ASSERT_EQ(occurrences(planned, " OFFSET 0)"), 1u);
    // the fence left is the recursive rule's, which reads R
    EXPECT_GT(planned.find(" OFFSET 0)"), planned.find("FROM public.tc__ivm_rec"));
    EXPECT_EQ(occurrences(planned, " OR EXISTS "), 1u);
    const std::string at_once = ivm::dred::rederive_query(r, ivm::dred::Rederive::SetAtATime);
    EXPECT_EQ(at_once.find("OFFSET 0"), std::string::npos);
    EXPECT_EQ(occurrences(at_once, " UNION SELECT "), 1u);
}

// A statement that inserted no base rows can only shrink R: the insert step
// follows the rederived tuples only through over-deleted ones (no lookups in
// R, no seeds from inserted rows), and the apply step inserts nothing.
TEST(DRedOnlyDeletes, NothingInsertedNorLookedUpInR) {
    const ivm::RecursiveRelation r = closure_of_e();
    const std::string both = ivm::dred::insert_query(r, {true});
    EXPECT_NE(both.find("ivm_new_1"), std::string::npos);
    EXPECT_NE(both.find("FROM public.tc__ivm_rec __ivm_k"), std::string::npos);
    const std::string insert = ivm::dred::insert_query(r, {true}, true);
    EXPECT_EQ(insert.find("ivm_new_1"), std::string::npos);
    EXPECT_EQ(insert.find("public.tc__ivm_rec"), std::string::npos);
    // a hashed subplan, not a semi-join (kept plans have no hash joins)
    EXPECT_NE(insert.find(" IN (SELECT __ivm_x.__ivm_key FROM ivm_dred_deleted __ivm_x)) IS TRUE"), std::string::npos);
    const std::string apply = ivm::dred::apply_statement(r, false, false, true);
    EXPECT_EQ(apply.find("INSERT"), std::string::npos);
    EXPECT_NE(apply.find("__ivm_gone AS (DELETE FROM public.tc__ivm_rec"), std::string::npos);
    EXPECT_NE(apply.find("SELECT (SELECT pg_catalog.count(*) FROM __ivm_gone), 0::bigint"), std::string::npos);
}

// Where the recursive rule passes x through, deletions factor: what a
// deletion reaches is found from the seeds' y alone, x NULL (and nothing
// factors where every column, or none, passes through).
TEST(DRedFactored, ReachFollowsTheOtherColumnsAlone) {
    ivm::RecursiveRelation r = closure_of_e();
    for (ivm::Column& c : r.columns) c.type = "integer";
    EXPECT_FALSE(ivm::dred::deletions_factor(r));  // (not analyzed)
    r.rules[1].passes_through = {true, false};
    ASSERT_TRUE(ivm::dred::deletions_factor(r));
    EXPECT_EQ(ivm::dred::passed_columns(r), std::vector<std::size_t>{0});
    const std::string reach = ivm::dred::reach_query(r, {true});
    EXPECT_EQ(reach.rfind("WITH RECURSIVE __ivm_src_1(x, y) AS (SELECT NULL::integer AS x, __ivm_s.y FROM (", 0), 0u);
    EXPECT_NE(reach.find("ivm_old_1"), std::string::npos);  // seeds from the deleted rows
    EXPECT_NE(reach.find(" UNION SELECT "), std::string::npos);
    EXPECT_EQ(reach.find("__ivm_key"), std::string::npos);
    r.rules[1].passes_through = {true, true};
    EXPECT_FALSE(ivm::dred::deletions_factor(r));
    // Many tuples looked up at once: each followed laterally (a join with
    // the rule's subquery would evaluate the rule in full), numbered for
    // the premises
    const std::string premises = ivm::dred::premises_batch_query(r);
    EXPECT_EQ(premises.rfind("SELECT __ivm_b.__ivm_i, __ivm_x.* FROM ROWS FROM (pg_catalog.unnest($1), "
                             "pg_catalog.unnest($2)) WITH ORDINALITY AS __ivm_b(x, y, __ivm_i) CROSS JOIN LATERAL (", 0),
              0u);
    EXPECT_NE(premises.find("SELECT __ivm_b.x AS x, __ivm_b.y AS y"), std::string::npos);
    EXPECT_EQ(premises.find("$1::"), std::string::npos);
    const std::string consequences = ivm::dred::consequences_batch_query(r);
    EXPECT_EQ(consequences.rfind("SELECT __ivm_x.* FROM ROWS FROM (", 0), 0u);
    EXPECT_NE(consequences.find("CROSS JOIN LATERAL"), std::string::npos);
    r.rules[1].passes_through = {false, false};
    EXPECT_FALSE(ivm::dred::deletions_factor(r));
}

// closure_of_e with one more exit rule, over s.
ivm::RecursiveRelation closure_of_e_and_s() {
    ivm::RecursiveRelation r = closure_of_e();
    r.bases = {"public.s", "public.e"};
    for (ivm::Rule& rule : r.rules)
        for (ivm::RuleSource& s : rule.sources) s.base = 1;
    r.rules.insert(r.rules.begin() + 1, ivm::Rule{"SELECT x, y FROM __ivm_src_1 s", {ivm::RuleSource{false, 0}}});
    return r;
}

// Redefinition: rules match by template and the tables they read, wherever
// those stand in the lists of bases.
TEST(DRedRedefinition, RulesWithoutRAddedAndRemoved) {
    const std::optional<ivm::RuleDifference> added = ivm::dred::rule_difference(closure_of_e(), closure_of_e_and_s());
    ASSERT_TRUE(added.has_value());
    EXPECT_TRUE(added->removed.empty());
    EXPECT_EQ(added->added, std::vector<std::size_t>{1});
    const std::optional<ivm::RuleDifference> removed = ivm::dred::rule_difference(closure_of_e_and_s(), closure_of_e());
    ASSERT_TRUE(removed.has_value());
    EXPECT_EQ(removed->removed, std::vector<std::size_t>{1});
    EXPECT_TRUE(removed->added.empty());
    // the same template over another table is another rule
    ivm::RecursiveRelation other = closure_of_e();
    other.bases = {"public.f"};
    other.rules.pop_back();
    ivm::RecursiveRelation mine = closure_of_e();
    mine.rules.pop_back();
    const std::optional<ivm::RuleDifference> replaced = ivm::dred::rule_difference(mine, other);
    ASSERT_TRUE(replaced.has_value());
    EXPECT_EQ(replaced->removed, std::vector<std::size_t>{0});
    EXPECT_EQ(replaced->added, std::vector<std::size_t>{0});
}

// Another recursive rule, or other columns: R is not redefined by rules.
TEST(DRedRedefinition, NotForAnotherRecursiveRuleOrOtherColumns) {
    ivm::RecursiveRelation filtered = closure_of_e();
    filtered.rules[1].spj_template += " WHERE e.y < 9";
    EXPECT_FALSE(ivm::dred::rule_difference(closure_of_e(), filtered).has_value());
    ivm::RecursiveRelation renamed = closure_of_e();
    renamed.columns[1].name = "z";
    EXPECT_FALSE(ivm::dred::rule_difference(closure_of_e(), renamed).has_value());
}

// A rule that lets R's columns hold NULLs keeps R (stored without NULLs, it
// matches either way); the rule taken away, R is made anew, as the NULLs
// it holds would escape the plain equalities of NOT NULL columns.
TEST(DRedRedefinition, KeptWhereColumnsMayNowBeNull) {
    ivm::RecursiveRelation not_null = closure_of_e();
    for (ivm::Column& c : not_null.columns) c.not_null = true;
    ivm::RecursiveRelation nullable = closure_of_e_and_s();
    for (ivm::Column& c : nullable.columns) c.not_null = false;
    const std::optional<ivm::RuleDifference> added = ivm::dred::rule_difference(not_null, nullable);
    ASSERT_TRUE(added.has_value());
    EXPECT_EQ(added->added, std::vector<std::size_t>{1});
    EXPECT_FALSE(ivm::dred::rule_difference(nullable, not_null).has_value());
    nullable.columns[0].type = "bigint";  // (anything else still differs)
    EXPECT_FALSE(ivm::dred::rule_difference(not_null, nullable).has_value());
}

// Over-deleted: what the removed rule derives, followed through the old
// recursive rule; inserted: the rederived tuples and what the added rule
// derives that R lacks, followed through the new one.
TEST(DRedRedefinition, SeededByTheRulesRemovedAndAdded) {
    const std::string overdelete = ivm::dred::overdelete_by_rules_query(closure_of_e_and_s(), {1});
    EXPECT_NE(overdelete.find("FROM public.s __ivm_r"), std::string::npos);
    EXPECT_EQ(overdelete.find("FROM public.e __ivm_r) SELECT x, y FROM __ivm_src_1 e"), std::string::npos);
    EXPECT_NE(overdelete.find("JOIN __ivm_src_2 e"), std::string::npos);
    EXPECT_EQ(overdelete.find("ivm_old_"), std::string::npos);
    const std::string insert = ivm::dred::insert_by_rules_query(closure_of_e_and_s(), {1});
    EXPECT_NE(insert.find("FROM ivm_dred_rederived"), std::string::npos);
    EXPECT_NE(insert.find("FROM public.s __ivm_r"), std::string::npos);
    EXPECT_EQ(insert.find("ivm_new_"), std::string::npos);
    EXPECT_EQ(occurrences(insert, "NOT EXISTS (SELECT 1 FROM public.tc__ivm_rec __ivm_k"), 2u);
}

}  // namespace
