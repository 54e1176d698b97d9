// ivm.count_at_max(value, weight) and ivm.count_at_min(value, weight): the
// sum of the weights of the rows whose value is the greatest (least) of all
// rows aggregated; 0 over no rows.  A min/max view's delta needs, per group,
// how many derivations came (or went) at the extreme: with only the standard
// aggregates that takes a window over the sorted delta, which cost a large
// change more than the whole rest of its aggregation (docs/benchmarks.md,
// "Measurements behind design decisions").
//
// In a parallel aggregation each worker's state is sent to the leader as
// bytes (its type, collation, weight and value) and the states combined:
// the greater (lesser) extreme wins, equal ones add their weights.
//
// Values compare by the sort support of their type's default B-tree
// operator class (its comparator called directly, not through fmgr: a
// third of the aggregate's cost per row), under the call's collation,
// which is the ordering pg_catalog.max and pg_catalog.min use for every
// type they are defined on.
// Plain C over PostgreSQL's aggregate protocol: no C++ object lives here, so
// an error raised by a comparison or by the overflow check unwinds safely.
#include "pg/pg.hpp"

extern "C" {
#include "common/int.h"
#include "utils/datum.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"
}

namespace {

struct ExtremeCount {
    SortSupportData order;  // the type's B-tree ordering
    Oid type;
    Oid collation;
    int16 typlen;
    bool typbyval;
    Datum value;  // the extreme so far, copied into the aggregate's context
    int64 weight;
};

ExtremeCount* start_of(Oid type, Oid collation, MemoryContext context) {
    TypeCacheEntry* entry = lookup_type_cache(type, TYPECACHE_LT_OPR);
    if (!OidIsValid(entry->lt_opr))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                        errmsg("could not identify a comparison function for type %s", format_type_be(type))));
    auto* state = static_cast<ExtremeCount*>(MemoryContextAllocZero(context, sizeof(ExtremeCount)));
    state->order.ssup_cxt = context;
    state->order.ssup_collation = collation;
    PrepareSortSupportFromOrderingOp(entry->lt_opr, &state->order);
    state->type = type;
    state->collation = collation;
    get_typlenbyval(type, &state->typlen, &state->typbyval);
    return state;
}

ExtremeCount* start(FunctionCallInfo fcinfo, MemoryContext context) {
    // (argument 0 is the state)
    return start_of(get_fn_expr_argtype(fcinfo->flinfo, 1), PG_GET_COLLATION(), context);
}

MemoryContext aggregate_context(FunctionCallInfo fcinfo) {
    MemoryContext context;
    if (!AggCheckCallContext(fcinfo, &context))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("ivm.count_at_max and ivm.count_at_min can only be called as aggregates")));
    return context;
}

// The state outlives the call: the value is copied into the aggregate's
// context, not the per-row one the call runs in.
void keep(ExtremeCount* state, Datum value, int64 weight, MemoryContext context) {
    const MemoryContext old = MemoryContextSwitchTo(context);
    state->value = datumCopy(value, state->typbyval, state->typlen);
    MemoryContextSwitchTo(old);
    state->weight = weight;
}

// `value` with `weight` taken into `state` (sign: 1 keeps the greatest
// value, -1 the least).
void add(ExtremeCount* state, Datum value, int64 weight, int sign, MemoryContext context) {
    const int compared = ApplySortComparator(value, false, state->value, false, &state->order);
    const int order = sign * ((compared > 0) - (compared < 0));  // a comparator may return any int
    if (order > 0) {
        if (!state->typbyval) pfree(DatumGetPointer(state->value));
        keep(state, value, weight, context);
    } else if (order == 0 && pg_add_s64_overflow(state->weight, weight, &state->weight)) {
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("bigint out of range")));
    }
}

Datum step(FunctionCallInfo fcinfo, int sign) {
    MemoryContext context = aggregate_context(fcinfo);
    auto* state = PG_ARGISNULL(0) ? nullptr : reinterpret_cast<ExtremeCount*>(PG_GETARG_POINTER(0));
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2)) {  // like max, NULL values are left out
        if (state == nullptr) PG_RETURN_NULL();
        PG_RETURN_POINTER(state);
    }
    const Datum value = PG_GETARG_DATUM(1);
    const int64 weight = PG_GETARG_INT64(2);
    if (state == nullptr) {
        state = start(fcinfo, context);
        keep(state, value, weight, context);
        PG_RETURN_POINTER(state);
    }
    add(state, value, weight, sign, context);
    PG_RETURN_POINTER(state);
}

// Parallel aggregation: two workers' states combined, the first's updated.
Datum combine(FunctionCallInfo fcinfo, int sign) {
    MemoryContext context = aggregate_context(fcinfo);
    auto* state = PG_ARGISNULL(0) ? nullptr : reinterpret_cast<ExtremeCount*>(PG_GETARG_POINTER(0));
    const auto* other = PG_ARGISNULL(1) ? nullptr : reinterpret_cast<const ExtremeCount*>(PG_GETARG_POINTER(1));
    if (other == nullptr) {
        if (state == nullptr) PG_RETURN_NULL();
        PG_RETURN_POINTER(state);
    }
    if (state == nullptr) {  // a copy, in this aggregate's context
        state = start_of(other->type, other->collation, context);
        keep(state, other->value, other->weight, context);
        PG_RETURN_POINTER(state);
    }
    add(state, other->value, other->weight, sign, context);
    PG_RETURN_POINTER(state);
}

// A state as bytes, for a worker to send: its type, collation, weight and
// value (datumSerialize's form).
struct SentState {
    Oid type;
    Oid collation;
    int64 weight;
};

}  // namespace

extern "C" {
PG_FUNCTION_INFO_V1(ivm_count_at_max_step);
PG_FUNCTION_INFO_V1(ivm_count_at_min_step);
PG_FUNCTION_INFO_V1(ivm_count_at_extreme_final);
PG_FUNCTION_INFO_V1(ivm_count_at_max_combine);
PG_FUNCTION_INFO_V1(ivm_count_at_min_combine);
PG_FUNCTION_INFO_V1(ivm_count_at_extreme_serialize);
PG_FUNCTION_INFO_V1(ivm_count_at_extreme_deserialize);

Datum ivm_count_at_max_step(PG_FUNCTION_ARGS) { return step(fcinfo, 1); }
Datum ivm_count_at_min_step(PG_FUNCTION_ARGS) { return step(fcinfo, -1); }
Datum ivm_count_at_max_combine(PG_FUNCTION_ARGS) { return combine(fcinfo, 1); }
Datum ivm_count_at_min_combine(PG_FUNCTION_ARGS) { return combine(fcinfo, -1); }

Datum ivm_count_at_extreme_serialize(PG_FUNCTION_ARGS) {
    aggregate_context(fcinfo);
    const auto* state = reinterpret_cast<const ExtremeCount*>(PG_GETARG_POINTER(0));
    const Size value_size = datumEstimateSpace(state->value, false, state->typbyval, state->typlen);
    bytea* sent = static_cast<bytea*>(palloc(VARHDRSZ + sizeof(SentState) + value_size));
    SET_VARSIZE(sent, VARHDRSZ + sizeof(SentState) + value_size);
    const SentState head{state->type, state->collation, state->weight};
    memcpy(VARDATA(sent), &head, sizeof(SentState));
    char* at = VARDATA(sent) + sizeof(SentState);
    datumSerialize(state->value, false, state->typbyval, state->typlen, &at);
    PG_RETURN_BYTEA_P(sent);
}

Datum ivm_count_at_extreme_deserialize(PG_FUNCTION_ARGS) {
    MemoryContext context = aggregate_context(fcinfo);
    bytea* sent = PG_GETARG_BYTEA_PP(0);
    SentState head;
    memcpy(&head, VARDATA_ANY(sent), sizeof(SentState));
    char* at = VARDATA_ANY(sent) + sizeof(SentState);
    bool isnull;
    const Datum value = datumRestore(&at, &isnull);
    ExtremeCount* state = start_of(head.type, head.collation, context);
    keep(state, value, head.weight, context);
    PG_RETURN_POINTER(state);
}

Datum ivm_count_at_extreme_final(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) PG_RETURN_INT64(0);
    PG_RETURN_INT64(reinterpret_cast<ExtremeCount*>(PG_GETARG_POINTER(0))->weight);
}
}
