#include "core/counting.hpp"
#include "core/error.hpp"
#include "core/sql_text.hpp"

#include "sample_views.hpp"
#include "text_count.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using ivm::Column;
using ivm::CountingView;
using ivm::Source;

// r x JOIN r y: one base read twice.
CountingView self_join_view() {
    CountingView v = join_view();
    v.bases = {"public.r"};
    v.blocks[0].sources = {Source{0, false}, Source{0, true}};
    return v;
}

TEST(CountingDelta, OneChangedTableGivesOneTerm) {
    std::string sql = ivm::counting::delta_query(join_view(), {true, false});
    EXPECT_EQ(occurrences(sql, "WITH __ivm_src_1"), 1u);
    EXPECT_NE(sql.find("FROM ivm_new_1"), std::string::npos);
    EXPECT_NE(sql.find("FROM ivm_old_1"), std::string::npos);
    EXPECT_EQ(sql.find("ivm_new_2"), std::string::npos);  // s is read as it is now
    EXPECT_NE(sql.find("FROM ONLY public.s"), std::string::npos);
    EXPECT_NE(sql.find("HAVING pg_catalog.sum(__ivm_cnt) OPERATOR(pg_catalog.<>) 0"), std::string::npos);
}

TEST(CountingDelta, TwoChangedTablesTelescope) {
    std::string sql = ivm::counting::delta_query(join_view(), {true, true});
    // term 1: dR x S(now); term 2: R(before) x dS
    EXPECT_EQ(occurrences(sql, " UNION ALL SELECT __ivm_t."), 1u);
    // R before the statement = now - inserted + deleted, the transition
    // tables as subqueries a parameterized plan can rescan
    EXPECT_NE(sql.find("FROM ONLY public.r __ivm_r UNION ALL SELECT __ivm_r.*, -1::bigint AS __ivm_cnt FROM (SELECT * "
                       "FROM ivm_new_1 OFFSET 0) __ivm_r UNION ALL SELECT __ivm_r.*, 1::bigint AS __ivm_cnt FROM (SELECT "
                       "* FROM ivm_old_1 OFFSET 0)"),
              std::string::npos);
    // counts multiply for occurrences not read as they are now
    EXPECT_NE(sql.find("__ivm_t.__ivm_c1 OPERATOR(pg_catalog.*) __ivm_t.__ivm_c2"), std::string::npos);
}

TEST(CountingDelta, FewerChangedRowsAreReadAsTheyWere) {
    const std::string r_before = "FROM ONLY public.r __ivm_r UNION ALL SELECT __ivm_r.*, -1::bigint AS __ivm_cnt FROM (SELECT * "
                                 "FROM ivm_new_1 OFFSET 0)";
    const std::string s_before = "FROM ONLY public.s __ivm_r UNION ALL SELECT __ivm_r.*, -1::bigint AS __ivm_cnt FROM (SELECT * "
                                 "FROM ivm_new_2 OFFSET 0)";
    // r changed by fewer rows: r taken first, s's term reads r as it was
    const std::string r_fewer = ivm::counting::delta_query(join_view(), {true, true}, false, {10, 1000});
    EXPECT_NE(r_fewer.find(r_before), std::string::npos);
    EXPECT_EQ(r_fewer.find(s_before), std::string::npos);
    // s changed by fewer: s first, r's term reads s as it was, never r
    const std::string s_fewer = ivm::counting::delta_query(join_view(), {true, true}, false, {1000, 10});
    EXPECT_NE(s_fewer.find(s_before), std::string::npos);
    EXPECT_EQ(s_fewer.find(r_before), std::string::npos);
}

// r WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.b = r.b): s is read by a subquery.
CountingView anti_join_view() {
    CountingView v = join_view();
    v.blocks[0].spj_template = "SELECT r.a, r.c, r.__ivm_cnt AS __ivm_c1 FROM __ivm_src_1 r WHERE NOT EXISTS (SELECT 1 FROM __ivm_src_2 s WHERE s.b = r.b)";
    Source& s = v.blocks[0].sources[1];
    s.role = Source::Role::Nested;
    s.columns = {"b"};
    s.row = {{"b", "OPERATOR(pg_catalog.=)", true}};
    s.filtered_template = v.blocks[0].spj_template + " AND EXISTS (SELECT 1 FROM __ivm_chg_2 s WHERE s.b = r.b)";
    return v;
}

TEST(CountingDelta, ASubqueryChangeIsTheDifferenceOfTwoLimitedEvaluations) {
    std::string sql = ivm::counting::delta_query(anti_join_view(), {false, true});
    // now minus before, both limited to the outer rows the changed rows concern
    EXPECT_EQ(occurrences(sql, "__ivm_chg_2 AS ("), 2u);
    EXPECT_EQ(occurrences(sql, "EXISTS (SELECT 1 FROM __ivm_chg_2 s"), 2u);
    EXPECT_NE(sql.find("1::bigint AS __ivm_cnt FROM (WITH"), std::string::npos);
    EXPECT_NE(sql.find("-1::bigint AS __ivm_cnt FROM (WITH"), std::string::npos);
    // s as it was: true rows (inserted ones taken out by a hash lookup, a
    // column that may be NULL compared as an array; the deleted ones added),
    // not signed counts; the subquery adds no factor
    EXPECT_NE(sql.find("NOT (ARRAY[__ivm_r.b] IN (SELECT ARRAY[__ivm_i.b] FROM ivm_new_2 __ivm_i)"), std::string::npos);
    EXPECT_NE(sql.find("FROM (SELECT * FROM ivm_old_2 OFFSET 0)"), std::string::npos);
    EXPECT_EQ(sql.find("__ivm_c2"), std::string::npos);
    // without a unique key, equal rows are taken out one for one
    EXPECT_NE(sql.find("pg_catalog.row_number() OVER (PARTITION BY ARRAY[__ivm_i.b])"), std::string::npos);
    CountingView keyed = anti_join_view();
    keyed.blocks[0].sources[1].unique = true;
    EXPECT_EQ(ivm::counting::delta_query(keyed, {false, true}).find("row_number"), std::string::npos);
}

TEST(CountingDelta, ALargeChangeTakesInsertedRowsOutByAnAntiJoin) {
    CountingView v = anti_join_view();
    const std::string sql = ivm::counting::delta_query(v, {false, true}, true);
    EXPECT_NE(sql.find("FROM ONLY public.s __ivm_r WHERE NOT EXISTS (SELECT 1 FROM (SELECT __ivm_i.b, "
                       "pg_catalog.row_number() OVER (PARTITION BY ARRAY[__ivm_i.b])"),
              std::string::npos);
    EXPECT_NE(sql.find("ARRAY[__ivm_r.b] OPERATOR(pg_catalog.=) ARRAY[__ivm_i.b] AND __ivm_i.__ivm_rank"), std::string::npos);
    EXPECT_EQ(sql.find(" IN (SELECT"), std::string::npos);
    // with a unique key, by the key alone, compared plainly (never NULL)
    Source& s = v.blocks[0].sources[1];
    s.row.push_back({"k", "OPERATOR(pg_catalog.=)", true});
    s.row.back().not_null = true;
    s.unique = true;
    s.key = {s.row.back()};
    const std::string keyed = ivm::counting::delta_query(v, {false, true}, true);
    EXPECT_NE(keyed.find("NOT EXISTS (SELECT 1 FROM ivm_new_2 __ivm_i WHERE __ivm_r.k OPERATOR(pg_catalog.=) __ivm_i.k)"),
              std::string::npos);
    EXPECT_NE(ivm::counting::delta_query(v, {false, true}).find("NOT (__ivm_r.k IN (SELECT __ivm_i.k FROM ivm_new_2 __ivm_i))"),
              std::string::npos);
}

TEST(CountingDelta, TheOuterRelationOfASubqueryChangesByDelta) {
    std::string sql = ivm::counting::delta_query(anti_join_view(), {true, false});
    EXPECT_EQ(sql.find("__ivm_chg_"), std::string::npos);
    EXPECT_NE(sql.find("FROM ivm_new_1"), std::string::npos);
}

// r, s WHERE r.b > s.b: s is read by WHERE alone, so its delta term may
// read the crossing template.
TEST(CountingDelta, AReplacedRowOfARelationReadByWhereAloneReadsTheCrossingTemplate) {
    CountingView v = join_view();
    v.blocks[0].spj_template += " WHERE r.b > s.b";
    v.blocks[0].sources[1].crossing_template = v.blocks[0].spj_template + " AND crossing";
    const std::string sql = ivm::counting::delta_query(v, {false, true});
    EXPECT_NE(sql.find("__ivm_pair AS (SELECT pg_catalog.count(*) OPERATOR(pg_catalog.=) 2 AND pg_catalog.sum(__ivm_cnt) "
                       "OPERATOR(pg_catalog.=) 0 AND pg_catalog.min(__ivm_cnt) OPERATOR(pg_catalog.<) 0 AS __ivm_ok FROM __ivm_src_2)"),
              std::string::npos);
    EXPECT_EQ(occurrences(sql, " AND crossing"), 1u);
    // r's change (and r's term when both change) reads the plain template
    EXPECT_EQ(ivm::counting::delta_query(v, {true, false}).find("crossing"), std::string::npos);
    const std::string both = ivm::counting::delta_query(v, {true, true});
    EXPECT_EQ(occurrences(both, " AND crossing"), 1u);
    EXPECT_EQ(occurrences(both, "FROM (WITH "), 2u);
    // a keyed view's change is written without netting: never
    // nor where groups are recomputed from their rows
    CountingView grouped = v;
    grouped.aggregate = true;
    grouped.group_keys = {v.columns[0]};
    EXPECT_EQ(ivm::counting::delta_query(grouped, {false, true}).find("crossing"), std::string::npos);
    v.keying = {true, false};
    EXPECT_EQ(ivm::counting::keyed_delta_query(v, 1).find("crossing"), std::string::npos);
}

TEST(CountingDelta, SelfJoinChangesBothOccurrences) {
    std::string sql = ivm::counting::delta_query(self_join_view(), {true});
    EXPECT_EQ(occurrences(sql, "FROM (WITH "), 2u);
    EXPECT_NE(sql.find("public.r __ivm_r"), std::string::npos);
}

TEST(CountingDelta, UnionArmsEachContributeTheirTerms) {
    CountingView v = join_view();
    v.columns[0].type = "integer";
    v.columns[1].type = "text";
    v.blocks.push_back({{Source{1, true}}, "SELECT s.a, s.c, s.__ivm_cnt AS __ivm_c1 FROM __ivm_src_1 s"});
    std::string sql = ivm::counting::delta_query(v, {false, true});  // s changed: both arms read it
    EXPECT_EQ(occurrences(sql, "FROM (WITH "), 2u);
    EXPECT_NE(sql.find("(__ivm_t.a)::integer AS a"), std::string::npos);
    sql = ivm::counting::delta_query(v, {true, false});  // r changed: only the first arm
    EXPECT_EQ(occurrences(sql, "FROM (WITH "), 1u);
}

// A column type with a collation of its own: written as a postfix cast,
// which takes a COLLATE clause after the type (CAST (.. AS ..) does not).
TEST(CountingDelta, UnionArmsCastToATypeWithItsCollation) {
    CountingView v = join_view();
    v.columns[0].type = "integer";
    v.columns[1].type = "text COLLATE pg_catalog.\"C\"";
    v.blocks.push_back({{Source{1, true}}, "SELECT s.a, s.c, s.__ivm_cnt AS __ivm_c1 FROM __ivm_src_1 s"});
    const std::string sql = ivm::counting::delta_query(v, {false, true});
    EXPECT_NE(sql.find("(__ivm_t.c)::text COLLATE pg_catalog.\"C\" AS c"), std::string::npos);
    EXPECT_EQ(sql.find("CAST(__ivm_t."), std::string::npos);
}

TEST(CountingDelta, AnotherViewsStorageCountsItsMultiplicity) {
    CountingView v = join_view();
    v.blocks[0].sources[1].multiplicity = "__ivm_count";  // s is another view's storage
    std::string sql = ivm::counting::delta_query(v, {true, false});
    EXPECT_NE(sql.find("__ivm_t.__ivm_c1 OPERATOR(pg_catalog.*) __ivm_t.__ivm_c2"), std::string::npos);
    EXPECT_NE(sql.find("(1::bigint OPERATOR(pg_catalog.*) __ivm_r.__ivm_count) AS __ivm_cnt FROM ONLY public.s"),
              std::string::npos);
    sql = ivm::counting::refresh_delta_query(v);  // all read as now: s still multiplies
    EXPECT_NE(sql.find("__ivm_t.__ivm_c2 AS __ivm_cnt"), std::string::npos);
}

TEST(CountingDelta, UnchangedViewIsAnError) {
    EXPECT_THROW(ivm::counting::delta_query(join_view(), {false, false}), ivm::Error);
}

TEST(CountingMerge, MatchesByKeyAndNullSafeEquality) {
    std::string sql = ivm::counting::merge_statement(join_view(), "SELECT 1");
    // the delta's key is computed once and the delta sorted by it
    EXPECT_NE(sql.find("SELECT __ivm_x.*, pg_catalog.hash_record_extended(ROW(__ivm_x.a, __ivm_x.c), 0::bigint) AS __ivm_h "
                       "FROM (SELECT 1) __ivm_x ORDER BY __ivm_h"),
              std::string::npos);
    EXPECT_NE(sql.find("__ivm_s.__ivm_key OPERATOR(pg_catalog.=) __ivm_d.__ivm_h"), std::string::npos);
    EXPECT_NE(sql.find("ROW(__ivm_s.a, __ivm_s.c) IS NOT DISTINCT FROM ROW(__ivm_d.a, __ivm_d.c)"), std::string::npos);
    // a user-defined equality cannot be named by IS NOT DISTINCT FROM: column by column
    CountingView custom = join_view();
    custom.columns[1].equality = "OPERATOR(public.=)";
    sql = ivm::counting::merge_statement(custom, "SELECT 1");
    EXPECT_NE(sql.find("(__ivm_s.c OPERATOR(public.=) __ivm_d.c OR (__ivm_s.c IS NULL AND __ivm_d.c IS NULL))"),
              std::string::npos);
    EXPECT_NE(sql.find("DELETE FROM public.v__ivm_data"), std::string::npos);
    EXPECT_NE(sql.find("UPDATE public.v__ivm_data"), std::string::npos);
    // the key is written with the tuple, as the delta carries it
    EXPECT_NE(sql.find("INSERT INTO public.v__ivm_data (a, c, __ivm_count, __ivm_key) SELECT a, c, __ivm_cnt, "
                       "__ivm_m.__ivm_h FROM __ivm_m"),
              std::string::npos);
}

TEST(CountingMerge, UnhashableColumnsStayOutOfTheKey) {
    CountingView v = join_view();
    v.columns[1].hashable = false;
    std::string sql = ivm::counting::merge_statement(v, "SELECT 1");
    EXPECT_NE(sql.find("hash_record_extended(ROW(__ivm_x.a), 0::bigint) AS __ivm_h"), std::string::npos);
    v.columns[0].hashable = false;
    sql = ivm::counting::merge_statement(v, "SELECT 1");
    EXPECT_EQ(sql.find("__ivm_key"), std::string::npos);
    EXPECT_EQ(sql.find("__ivm_h"), std::string::npos);  // nothing to sort by
    auto ddl = ivm::counting::storage_ddl(v, "public.v__ivm_query");
    ASSERT_EQ(ddl.size(), 1u);  // no key column, no index
    EXPECT_EQ(ddl[0].find("__ivm_key"), std::string::npos);
}

// A column without equality (json) is matched and grouped by its text.
TEST(CountingMerge, ColumnsWithoutEqualityGoByTheirText) {
    CountingView v = join_view();
    v.columns[1].image = true;
    v.columns[1].hashable = false;
    v.columns[1].equality.clear();
    v.columns[1].type = "json";
    const std::string sql = ivm::counting::merge_statement(v, ivm::counting::delta_query(v, {true, false}));
    const std::string text = "(CAST(__ivm_s.c AS pg_catalog.text) COLLATE pg_catalog.\"C\")";
    EXPECT_NE(sql.find(text + " IS NOT DISTINCT FROM"), std::string::npos);
    EXPECT_NE(sql.find("GROUP BY 1, (CAST(c AS pg_catalog.text) COLLATE pg_catalog.\"C\")"), std::string::npos);
    EXPECT_NE(sql.find("(pg_catalog.min(CAST(c AS pg_catalog.text) COLLATE pg_catalog.\"C\"))::json AS c"),
              std::string::npos);
}

// A new storage is filled by one INSERT and indexed after it; a keyed
// view's tuples are not even grouped.
TEST(CountingStorage, FirstFillInsertsThenIndexes) {
    CountingView v = join_view();
    const auto ddl = ivm::counting::storage_ddl(v, "public.v__ivm_query", true);
    for (const std::string& d : ddl) EXPECT_EQ(d.find("CREATE INDEX"), std::string::npos);
    ASSERT_EQ(ivm::counting::storage_index_ddl(v).size(), 1u);
    std::string sql = ivm::counting::first_fill_statement(v);
    EXPECT_NE(sql.find("INSERT INTO public.v__ivm_data"), std::string::npos);
    EXPECT_EQ(occurrences(sql, "public.v__ivm_data"), 1u);  // written, not read
    EXPECT_NE(sql.find("GROUP BY"), std::string::npos);
    EXPECT_EQ(sql.find("RETURNING"), std::string::npos);  // the rows are not kept twice
    EXPECT_FALSE(ivm::counting::first_fill_writes_view_rows(v));  // counts add up to the view's rows
    // nor where groups are recomputed from their rows
    CountingView grouped = v;
    grouped.aggregate = true;
    grouped.group_keys = {v.columns[0]};
    EXPECT_EQ(ivm::counting::delta_query(grouped, {false, true}).find("crossing"), std::string::npos);
    v.keying = {true, false};
    sql = ivm::counting::first_fill_statement(v);
    EXPECT_EQ(sql.find("GROUP BY"), std::string::npos);
    EXPECT_TRUE(ivm::counting::first_fill_writes_view_rows(v));  // one each
}

// New ids come in order: the key index takes them at its right end.
TEST(CountingMerge, KeyLedByTheFirstIntegerColumn) {
    CountingView v = join_view();
    v.columns[1].leads_key = true;
    std::string sql = ivm::counting::merge_statement(v, "SELECT 1");
    EXPECT_NE(sql.find("SELECT __ivm_x.*, ((COALESCE(__ivm_x.c::bigint, 0) OPERATOR(pg_catalog.<<) 24) OPERATOR(pg_catalog.|) "
                       "(pg_catalog.hash_record_extended(ROW(__ivm_x.a, __ivm_x.c), 0::bigint) OPERATOR(pg_catalog.&) "
                       "16777215)) AS __ivm_h FROM (SELECT 1) __ivm_x ORDER BY __ivm_h"),
              std::string::npos);
    // a column that is not hashed does not lead
    v.columns[1].hashable = false;
    sql = ivm::counting::merge_statement(v, "SELECT 1");
    EXPECT_EQ(sql.find("COALESCE(__ivm_x.c"), std::string::npos);
    EXPECT_NE(sql.find("SELECT __ivm_x.*, pg_catalog.hash_record_extended(ROW(__ivm_x.a), 0::bigint) AS __ivm_h "),
              std::string::npos);
}

TEST(CountingMerge, PerTupleLookupOnlyWithAKey) {
    using ivm::counting::Lookup;
    std::string sql = ivm::counting::merge_statement(join_view(), "SELECT 1", Lookup::PerTuple);
    EXPECT_NE(sql.find("LEFT JOIN LATERAL (SELECT __ivm_s.ctid AS __ivm_tid"), std::string::npos);
    EXPECT_NE(sql.find("LIMIT 1) __ivm_s ON true"), std::string::npos);
    EXPECT_EQ(ivm::counting::merge_statement(join_view(), "SELECT 1").find("LATERAL"), std::string::npos);
    CountingView v = join_view();
    v.columns[0].hashable = v.columns[1].hashable = false;  // no key: a lookup per tuple would scan
    EXPECT_EQ(ivm::counting::merge_statement(v, "SELECT 1", Lookup::PerTuple).find("LATERAL"), std::string::npos);
}

// SELECT [g,] count(*), max(x) FROM r [GROUP BY g], kept from partial state.
CountingView extreme_view(bool grouped) {
    using Kind = CountingView::Partial::Kind;
    CountingView v;
    v.storage = "public.m__ivm_data";
    v.aggregate = true;
    v.bases = {"public.r"};
    if (grouped) {
        v.columns.push_back({"g", "OPERATOR(pg_catalog.=)", true, "integer"});
        v.group_keys = {{"__ivm_gk1", "OPERATOR(pg_catalog.=)", true, "integer"}};
        v.partial.push_back({Kind::Key, 0});
    }
    v.columns.push_back({"n", "OPERATOR(pg_catalog.=)", true, "bigint"});
    v.columns.push_back({"top", "OPERATOR(pg_catalog.=)", true, "integer"});
    v.partial.push_back({Kind::CountStar, 0});
    v.partial.push_back({Kind::Max, 0});
    v.blocks = {{{Source{0, false}}, "SELECT r.x AS __ivm_arg" + std::to_string(v.partial.size()) + ", r.__ivm_cnt AS __ivm_c1 FROM __ivm_src_1 r"}};
    return v;
}

TEST(CountingPartial, MaxKeepsItsValueAndHowManyRowsHoldIt) {
    CountingView v = extreme_view(true);
    std::string sql = ivm::counting::merge_statement(v, ivm::counting::delta_query(v, {true}));
    // the extreme of what came and of what went, and the derivations at
    // each, per group, with no window over the delta
    EXPECT_NE(sql.find("pg_catalog.max(__ivm_arg3) FILTER (WHERE __ivm_cnt OPERATOR(pg_catalog.>) 0) AS __ivm_dx3"),
              std::string::npos);
    EXPECT_NE(sql.find("ivm.count_at_max(__ivm_arg3, OPERATOR(pg_catalog.-) __ivm_cnt) FILTER (WHERE __ivm_cnt "
                       "OPERATOR(pg_catalog.<) 0) AS __ivm_rxn3"),
              std::string::npos);
    EXPECT_EQ(sql.find(" OVER "), std::string::npos);
    // a group left with no row at its extreme is written without it and
    // counted (the report's __ivm_stale), not recomputed by the merge
    EXPECT_NE(sql.find("WHEN __ivm_p.__ivm_cxn3 OPERATOR(pg_catalog.<=) 0 THEN NULL"), std::string::npos);
    EXPECT_NE(sql.find("FILTER (WHERE (__ivm_m.__ivm_n3 OPERATOR(pg_catalog.>) 0 AND __ivm_m.__ivm_xn3 "
                       "OPERATOR(pg_catalog.<=) 0)) AS __ivm_stale FROM __ivm_m"),
              std::string::npos);
    EXPECT_EQ(sql.find("__ivm_f"), std::string::npos);
    // the second statement recomputes exactly the groups so left
    std::string fix = ivm::counting::extremes_statement(v);
    EXPECT_NE(fix.find("WHERE (__ivm_s.__ivm_n3 OPERATOR(pg_catalog.>) 0 AND __ivm_s.__ivm_xn3 "
                       "OPERATOR(pg_catalog.<=) 0)), __ivm_f AS"),
              std::string::npos);
    EXPECT_NE(fix.find("THEN (SELECT __ivm_f.__ivm_dx3 FROM __ivm_f WHERE"), std::string::npos);
    EXPECT_NE(fix.find("SET top = __ivm_m.__ivm_x3, __ivm_x3 = __ivm_m.__ivm_x3, __ivm_xn3 = __ivm_m.__ivm_xn3"),
              std::string::npos);
    auto ddl = ivm::counting::storage_ddl(v, "public.m__ivm_query");
    EXPECT_NE(ddl[0].find("__ivm_x3 integer, __ivm_xn3 bigint NOT NULL"), std::string::npos);
}

// max(x) over a type whose equal values may show otherwise (numeric 1.5 =
// 1.50): what came and went is compared by its text, a self-join's rows
// are netted by it, and rows gone at the stored extreme leave none known
// at it (the group is recomputed).
TEST(CountingPartial, AnExtremeShownOtherwiseGoesByItsText) {
    CountingView v = extreme_view(true);
    v.partial.back().shows_alike = false;
    v.blocks[0].sources.push_back(Source{0, false});  // r joined to itself: its changes are netted
    const std::string delta = ivm::counting::delta_query(v, {true});
    EXPECT_NE(delta.find("(CAST(__ivm_arg3 AS pg_catalog.text) COLLATE pg_catalog.\"C\") AS __ivm_img3"),
              std::string::npos);
    EXPECT_NE(delta.find("(CAST(pg_catalog.max(__ivm_arg3) FILTER (WHERE __ivm_cnt OPERATOR(pg_catalog.>) 0) AS "
                         "pg_catalog.text) COLLATE pg_catalog.\"C\") IS DISTINCT FROM"),
              std::string::npos);
    const std::string gone = "WHEN CASE WHEN __ivm_d.__ivm_rx3 OPERATOR(pg_catalog.=) __ivm_s.__ivm_x3 THEN "
                             "__ivm_d.__ivm_rxn3 ELSE 0 END OPERATOR(pg_catalog.>) 0 THEN 0";
    EXPECT_NE(ivm::counting::merge_statement(v, delta).find(gone), std::string::npos);
    CountingView alike = extreme_view(true);
    const std::string plain = ivm::counting::delta_query(alike, {true});
    EXPECT_EQ(ivm::counting::merge_statement(alike, plain).find(gone), std::string::npos);
    EXPECT_EQ(plain.find("__ivm_img"), std::string::npos);
}

TEST(CountingPartial, IntegerSumsInBigintNumericOtherwise) {
    CountingView v = extreme_view(true);
    v.columns.push_back({"total", "OPERATOR(pg_catalog.=)", true, "bigint"});
    v.partial.push_back({CountingView::Partial::Kind::Sum, 0});
    v.partial.back().narrow = true;  // sum(integer): value times count fits a bigint
    v.columns.push_back({"big", "OPERATOR(pg_catalog.=)", true, "numeric"});
    v.partial.push_back({CountingView::Partial::Kind::Sum, 0});  // sum(bigint): the product may not
    std::string sql = ivm::counting::delta_query(v, {true});
    EXPECT_NE(sql.find("pg_catalog.sum(__ivm_arg4::bigint OPERATOR(pg_catalog.*) __ivm_cnt)::numeric AS __ivm_ds4"),
              std::string::npos);
    // (negated, not multiplied, for the counts of rows of tables)
    EXPECT_NE(sql.find("pg_catalog.sum(CASE WHEN __ivm_cnt OPERATOR(pg_catalog.=) 1 THEN __ivm_arg5::numeric WHEN __ivm_cnt "
                       "OPERATOR(pg_catalog.=) -1 THEN OPERATOR(pg_catalog.-) __ivm_arg5::numeric ELSE __ivm_arg5::numeric "
                       "OPERATOR(pg_catalog.*) __ivm_cnt END)::numeric AS __ivm_ds5"),
              std::string::npos)
        << sql;
}

// sum(x) over numeric: the largest scale of its values kept like a max, and
// NaN and the infinities counted, unless its type fixes the scale
// (numeric(12, 2)): then only NaN, and the scale is the type's.
TEST(CountingPartial, NumericSumOfAFixedScale) {
    CountingView v = extreme_view(true);
    v.columns.push_back({"total", "OPERATOR(pg_catalog.=)", true, "numeric"});
    v.partial.push_back({CountingView::Partial::Kind::Sum, 0});
    v.partial.back().numeric = true;
    const std::string tracked = ivm::counting::storage_ddl(v, "public.m__ivm_query")[0];
    EXPECT_NE(tracked.find("__ivm_s4 numeric, __ivm_x4 integer, __ivm_xn4 bigint NOT NULL, __ivm_nan4 bigint NOT NULL, "
                           "__ivm_pinf4 bigint NOT NULL, __ivm_ninf4 bigint NOT NULL"),
              std::string::npos)
        << tracked;
    CountingView fixed = v;
    fixed.partial.back().scale = 2;
    const std::string ddl = ivm::counting::storage_ddl(fixed, "public.m__ivm_query")[0];
    EXPECT_NE(ddl.find("__ivm_s4 numeric, __ivm_nan4 bigint NOT NULL, __ivm_key"), std::string::npos) << ddl;
    const std::string sql = ivm::counting::merge_statement(fixed, ivm::counting::delta_query(fixed, {true}));
    for (const char* gone : {"scale(__ivm_arg4)) FILTER", "count_at_max(pg_catalog.scale", "__ivm_pinf4", "__ivm_x4"})
        EXPECT_EQ(sql.find(gone), std::string::npos) << gone;
    EXPECT_NE(sql.find("total = CASE WHEN __ivm_m.__ivm_n4 OPERATOR(pg_catalog.>) 0 THEN (CASE WHEN __ivm_m.__ivm_nan4 "
                       "OPERATOR(pg_catalog.>) 0 THEN 'NaN'::numeric ELSE pg_catalog.round(__ivm_m.__ivm_s4, 2) END)::numeric END"),
              std::string::npos)
        << sql;
    // a storage made with the tracked columns (0.9) is kept as it was made
    std::vector<std::string> names;
    for (const auto& c : ivm::counting::partial_state_columns(v)) names.push_back(c.first);
    auto has = [&](const std::vector<std::string>& in) {
        return [&in](const std::string& c) { return std::find(in.begin(), in.end(), c) != in.end(); };
    };
    CountingView old_storage = fixed;
    ivm::counting::use_storage_shape(old_storage, has(names));
    EXPECT_EQ(old_storage.partial.back().scale, -1);
    std::vector<std::string> lean;
    for (const auto& c : ivm::counting::partial_state_columns(fixed)) lean.push_back(c.first);
    CountingView new_storage = fixed;
    ivm::counting::use_storage_shape(new_storage, has(lean));
    EXPECT_EQ(new_storage.partial.back().scale, 2);
    EXPECT_FALSE(new_storage.partial.empty());
}

// SELECT g, count(*), max(x), sum(x), avg(x), max(x), sum(y): the aggregates
// over x share its count of non-NULL values, its sum and its maximum.
TEST(CountingPartial, OneArgumentOneState) {
    using Kind = CountingView::Partial::Kind;
    CountingView v = extreme_view(true);
    for (const char* name : {"total", "mean", "top2", "other"})
        v.columns.push_back({name, "OPERATOR(pg_catalog.=)", true, "bigint"});
    for (Kind kind : {Kind::Sum, Kind::Avg, Kind::Max}) {
        v.partial.push_back({kind, 0});
        v.partial.back().narrow = true;
        v.partial.back().same_argument = 2;  // max(x), the third output column
    }
    v.partial.push_back({Kind::Sum, 0});  // over another argument
    v.partial.back().narrow = true;
    const std::string ddl = ivm::counting::storage_ddl(v, "public.m__ivm_query")[0];
    EXPECT_NE(ddl.find("__ivm_count bigint NOT NULL, __ivm_n3 bigint NOT NULL, __ivm_x3 integer, __ivm_xn3 bigint NOT "
                       "NULL, __ivm_s4 numeric, __ivm_n7 bigint NOT NULL, __ivm_s7 numeric, __ivm_key"),
              std::string::npos)
        << ddl;
    const std::string sql = ivm::counting::merge_statement(v, ivm::counting::delta_query(v, {true}));
    for (const char* shared : {"__ivm_dn4", "__ivm_dn5", "__ivm_ds5", "__ivm_dn6", "__ivm_dx6", "__ivm_n5 ="})
        EXPECT_EQ(sql.find(shared), std::string::npos) << shared;
    // avg(x) from the sum and count max(x) and sum(x) keep; the second max is the first
    EXPECT_NE(sql.find("mean = CASE WHEN __ivm_m.__ivm_n3 OPERATOR(pg_catalog.>) 0 THEN ((__ivm_m.__ivm_s4 "
                       "OPERATOR(pg_catalog./) __ivm_m.__ivm_n3::numeric))::bigint END, top2 = __ivm_m.__ivm_x3"),
              std::string::npos);
    // the recompute of a lost maximum writes both columns that show it
    const std::string fix = ivm::counting::extremes_statement(v);
    EXPECT_NE(fix.find("top = __ivm_m.__ivm_x3"), std::string::npos);
    EXPECT_NE(fix.find("top2 = __ivm_m.__ivm_x3"), std::string::npos);
    EXPECT_EQ(fix.find("__ivm_x6"), std::string::npos);
}

TEST(CountingPartial, WithoutGroupByTheOneRowStays) {
    CountingView v = extreme_view(false);
    std::string sql = ivm::counting::merge_statement(v, ivm::counting::delta_query(v, {true}));
    EXPECT_NE(sql.find("ivm.count_at_max(__ivm_arg2, __ivm_cnt) FILTER"), std::string::npos);
    EXPECT_EQ(sql.find(" GROUP BY 1) "), std::string::npos);  // one group: no GROUP BY
    EXPECT_NE(sql.find("__ivm_m.__ivm_tid AND false), __ivm_upd"), std::string::npos);  // never deleted
    // no group keys: the one row is the one recomputed
    EXPECT_NE(ivm::counting::extremes_statement(v).find("UPDATE public.m__ivm_data __ivm_s SET"), std::string::npos);
    // a refresh computes the row also over no input: no HAVING
    std::string refresh = ivm::counting::refresh_statement(v);
    const std::size_t delta_end = refresh.find("), __ivm_m AS");
    ASSERT_NE(delta_end, std::string::npos);
    EXPECT_EQ(refresh.substr(0, delta_end).rfind(" __ivm_u HAVING"), std::string::npos);
}

TEST(CountingStorage, KeyIsIndexedAndSaysWhatItHashes) {
    auto ddl = ivm::counting::storage_ddl(join_view(), "public.v__ivm_query");
    ASSERT_EQ(ddl.size(), 3u);
    EXPECT_EQ(ddl[2].rfind("COMMENT ON COLUMN public.v__ivm_data.__ivm_key IS 'the key by which maintenance finds a "
                           "stored row: a hash of (", 0), 0u);
    EXPECT_NE(ddl[0].find("LIKE public.v__ivm_query"), std::string::npos);
    // a plain column every insert writes (a generated one costs each statement its preparation)
    EXPECT_NE(ddl[0].find("__ivm_key bigint NOT NULL"), std::string::npos);
    EXPECT_EQ(ddl[0].find("GENERATED"), std::string::npos);
    EXPECT_EQ(ddl[1], "CREATE INDEX ON public.v__ivm_data (__ivm_key) WITH (deduplicate_items = off)");
}

// __ivm_key is not generated: every statement that inserts into a storage
// with a key must write it.
TEST(CountingStorage, EveryInsertWritesTheKey) {
    using ivm::counting::KeyedRows;
    CountingView tuples = join_view(), extremes = extreme_view(true);
    const std::vector<std::string> statements{
        ivm::counting::merge_statement(tuples, "SELECT 1"),
        ivm::counting::merge_statement(tuples, "SELECT 1", ivm::counting::Lookup::PerTuple),
        ivm::counting::refresh_statement(tuples),
        ivm::counting::rebuild_statement(tuples),
        ivm::counting::merge_statement(extremes, "SELECT 1"),
        ivm::counting::refresh_statement(extremes),
        ivm::counting::keyed_merge_statement(tuples, "SELECT 1", KeyedRows::Inserted),
        ivm::counting::keyed_merge_statement(tuples, "SELECT 1", KeyedRows::Both),
    };
    for (const std::string& sql : statements) {
        ASSERT_GE(occurrences(sql, "INSERT INTO "), 1u) << sql;
        EXPECT_EQ(occurrences(sql, "INSERT INTO "), occurrences(sql, ", __ivm_key) SELECT ")) << sql;
    }
    // the group's key for an aggregate view
    EXPECT_NE(statements[4].find("__ivm_key) SELECT __ivm_m.__ivm_gk1, "), std::string::npos);
    EXPECT_NE(statements[4].find(", pg_catalog.hash_record_extended(ROW(__ivm_m.__ivm_gk1), 0::bigint) FROM __ivm_m WHERE"),
              std::string::npos);
}

TEST(CountingStorage, BagViewRepeatsTuplesDistinctViewDoesNot) {
    CountingView v = join_view();
    EXPECT_NE(ivm::counting::user_view_ddl(v, "public.v", true).find("ivm.copies(__ivm_s.__ivm_count)"),
              std::string::npos);
    v.distinct = true;
    EXPECT_EQ(ivm::counting::user_view_ddl(v, "public.v", true).find("ivm.copies"), std::string::npos);
    EXPECT_NE(ivm::counting::row_count_query(v).find("count(*)"), std::string::npos);
}

TEST(CountingStorage, PopulatedViewChecksItsReadersSnapshotsOncePerQuery) {
    using ivm::counting::ViewDdl;
    CountingView v = join_view();
    const std::string checked = ivm::counting::user_view_ddl(v, "public.v", true);
    const std::string check = " WHERE ivm.snapshot_sees_storage('" + v.storage + "'::pg_catalog.regclass)";
    ASSERT_GE(checked.size(), check.size());
    EXPECT_EQ(checked.substr(checked.size() - check.size()), check);  // no column in it: a one-time filter
    EXPECT_EQ(ivm::counting::user_view_ddl(v, "public.v", true, ViewDdl::Create, false).find("snapshot_sees_storage"),
              std::string::npos);  // objects older than 0.5
    EXPECT_EQ(ivm::counting::user_view_ddl(v, "public.v", false).find("snapshot_sees_storage"), std::string::npos);
}

TEST(CountingStorage, UnpopulatedViewKeepsTheColumnsAndRefusesReads) {
    CountingView v = join_view();
    v.columns[0].type = "integer";
    v.columns[1].type = "text COLLATE \"C\"";
    std::string ddl = ivm::counting::user_view_ddl(v, "public.v", false, ivm::counting::ViewDdl::Replace);
    EXPECT_EQ(ddl, "CREATE OR REPLACE VIEW public.v AS SELECT NULL::integer AS a, NULL::text COLLATE \"C\" AS c "
                   "FROM ivm.unpopulated('public.v')");
}

TEST(SqlText, LiteralsAreQuotedLikeQuoteLiteral) {
    EXPECT_EQ(ivm::sql::literal("it's"), "'it''s'");
    EXPECT_EQ(ivm::sql::literal("a\\b"), "E'a\\\\b'");
}

TEST(CountingRefresh, ComparesQueryWithStorage) {
    std::string sql = ivm::counting::refresh_delta_query(join_view());
    EXPECT_NE(sql.find("OPERATOR(pg_catalog.-) __ivm_count)::bigint FROM public.v__ivm_data"), std::string::npos);
    EXPECT_EQ(sql.find("ivm_new_"), std::string::npos);
}

}  // namespace

namespace {

// Every merge reports the same named columns, in ivm::counting::Report's order.
TEST(CountingMerge, EveryMergeReportsTheSameColumns) {
    const std::vector<std::string> names{"__ivm_added", "__ivm_removed", "__ivm_inserted", "__ivm_deleted",
                                         "__ivm_negative"};
    CountingView distinct = join_view();
    distinct.distinct = true;
    for (const std::string& sql : {ivm::counting::merge_statement(join_view(), "<delta>"),
                                   ivm::counting::merge_statement(distinct, "<delta>"),
                                   ivm::counting::rebuild_statement(join_view())}) {
        std::size_t at = 0;
        for (const std::string& name : names) {
            const std::size_t found = sql.find(" AS " + name, at);
            ASSERT_NE(found, std::string::npos) << name << " in " << sql;
            at = found;
        }
    }
    EXPECT_EQ(ivm::counting::report_select({"a", "r", "i", "d", "n", ""}),
              "SELECT a AS __ivm_added, r AS __ivm_removed, i AS __ivm_inserted, d AS __ivm_deleted, n AS __ivm_negative");
}

}  // namespace
