// ivm.count_at_max(value, weight) and ivm.count_at_min(value, weight): the
// sum of the weights of the rows whose value is the greatest (least) of all
// rows aggregated; 0 over no rows.  A min/max view's delta needs, per group,
// how many derivations came (or went) at the extreme: with only the standard
// aggregates that takes a window over the sorted delta, which cost a large
// change more than the whole rest of its aggregation (docs/benchmarks.md,
// "Measurements behind design decisions").
//
// Values compare with the comparison function of their type's default
// B-tree operator class, under the call's collation, which is the ordering
// pg_catalog.max and pg_catalog.min use for every type they are defined on.
// Plain C over PostgreSQL's aggregate protocol: no C++ object lives here, so
// an error raised by a comparison or by the overflow check unwinds safely.
#include "pg/pg.hpp"

extern "C" {
#include "common/int.h"
#include "utils/datum.h"
#include "utils/typcache.h"
}

namespace {

struct ExtremeCount {
    FmgrInfo compare;  // the type's B-tree comparison
    Oid collation;
    int16 typlen;
    bool typbyval;
    Datum value;  // the extreme so far, copied into the aggregate's context
    int64 weight;
};

ExtremeCount* start(FunctionCallInfo fcinfo, MemoryContext context) {
    const Oid type = get_fn_expr_argtype(fcinfo->flinfo, 1);  // argument 0 is the state
    TypeCacheEntry* entry = lookup_type_cache(type, TYPECACHE_CMP_PROC_FINFO);
    if (!OidIsValid(entry->cmp_proc_finfo.fn_oid))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                        errmsg("could not identify a comparison function for type %s", format_type_be(type))));
    auto* state = static_cast<ExtremeCount*>(MemoryContextAllocZero(context, sizeof(ExtremeCount)));
    fmgr_info_cxt(entry->cmp_proc_finfo.fn_oid, &state->compare, context);
    state->collation = PG_GET_COLLATION();
    get_typlenbyval(type, &state->typlen, &state->typbyval);
    return state;
}

// The state outlives the call: the value is copied into the aggregate's
// context, not the per-row one the call runs in.
void keep(ExtremeCount* state, Datum value, int64 weight, MemoryContext context) {
    const MemoryContext old = MemoryContextSwitchTo(context);
    state->value = datumCopy(value, state->typbyval, state->typlen);
    MemoryContextSwitchTo(old);
    state->weight = weight;
}

// sign: 1 keeps the greatest value, -1 the least.
Datum step(FunctionCallInfo fcinfo, int sign) {
    MemoryContext context;
    if (!AggCheckCallContext(fcinfo, &context))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("ivm.count_at_max and ivm.count_at_min can only be called as aggregates")));
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
    const int order = sign * DatumGetInt32(FunctionCall2Coll(&state->compare, state->collation, value, state->value));
    if (order > 0) {
        if (!state->typbyval) pfree(DatumGetPointer(state->value));
        keep(state, value, weight, context);
    } else if (order == 0 && pg_add_s64_overflow(state->weight, weight, &state->weight)) {
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("bigint out of range")));
    }
    PG_RETURN_POINTER(state);
}

}  // namespace

extern "C" {
PG_FUNCTION_INFO_V1(ivm_count_at_max_step);
PG_FUNCTION_INFO_V1(ivm_count_at_min_step);
PG_FUNCTION_INFO_V1(ivm_count_at_extreme_final);

Datum ivm_count_at_max_step(PG_FUNCTION_ARGS) { return step(fcinfo, 1); }
Datum ivm_count_at_min_step(PG_FUNCTION_ARGS) { return step(fcinfo, -1); }

Datum ivm_count_at_extreme_final(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) PG_RETURN_INT64(0);
    PG_RETURN_INT64(reinterpret_cast<ExtremeCount*>(PG_GETARG_POINTER(0))->weight);
}
}
