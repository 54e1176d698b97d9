// ivm.single_value(value): the value of the one row aggregated, NULL over
// no rows; a second row raises 21000, as a scalar subquery that returns two
// rows does.  A scalar subquery that does not aggregate,
// `(SELECT c.name FROM customers c WHERE c.id = o.customer_id)`, is
// maintained as `(SELECT ivm.single_value(c.name) ...)`: an aggregate over
// the rows of each key, which the scalar subquery rewrite keeps as a part
// (src/pg/scalar_subqueries.cpp).  A change that gives a key a second row
// fails as reading the view's query would.
//
// Plain C over PostgreSQL's aggregate protocol: no C++ object lives here.
#include "pg/pg.hpp"

extern "C" {
#include "utils/datum.h"
}

namespace {

struct SingleValue {
    Datum value;  // copied into the aggregate's context
    bool isnull;
};

}  // namespace

extern "C" {
PG_FUNCTION_INFO_V1(ivm_single_value_step);
PG_FUNCTION_INFO_V1(ivm_single_value_final);

Datum ivm_single_value_step(PG_FUNCTION_ARGS) {
    MemoryContext context;
    if (!AggCheckCallContext(fcinfo, &context))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("ivm.single_value can only be called as an aggregate")));
    if (!PG_ARGISNULL(0))
        ereport(ERROR, (errcode(ERRCODE_CARDINALITY_VIOLATION),
                        errmsg("more than one row returned by a subquery used as an expression")));
    auto* state = static_cast<SingleValue*>(MemoryContextAllocZero(context, sizeof(SingleValue)));
    state->isnull = PG_ARGISNULL(1);
    if (!state->isnull) {
        int16 typlen;
        bool typbyval;
        get_typlenbyval(get_fn_expr_argtype(fcinfo->flinfo, 1), &typlen, &typbyval);
        const MemoryContext old = MemoryContextSwitchTo(context);
        state->value = datumCopy(PG_GETARG_DATUM(1), typbyval, typlen);
        MemoryContextSwitchTo(old);
    }
    PG_RETURN_POINTER(state);
}

// (argument 1, always NULL, only gives the result its type)
Datum ivm_single_value_final(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    const auto* state = reinterpret_cast<const SingleValue*>(PG_GETARG_POINTER(0));
    if (state->isnull) PG_RETURN_NULL();
    PG_RETURN_DATUM(state->value);
}
}
