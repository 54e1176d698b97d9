// ivm.copies(n): the rows 1..n, used by a view to repeat each stored tuple
// by its derivation count.  Unlike generate_series it tells the planner to
// expect one row per call (most tuples have one derivation), so queries over
// a view are planned for its real size.  Plain C over PostgreSQL's SRF
// protocol: no C++ runs here, so no boundary is needed.
#include "pg/pg.hpp"

extern "C" {
PG_FUNCTION_INFO_V1(ivm_copies);

Datum ivm_copies(PG_FUNCTION_ARGS) {
    FuncCallContext* call;
    if (SRF_IS_FIRSTCALL()) {
        call = SRF_FIRSTCALL_INIT();
        int64 n = PG_GETARG_INT64(0);
        call->max_calls = n > 0 ? static_cast<uint64>(n) : 0;
    }
    call = SRF_PERCALL_SETUP();
    if (call->call_cntr < call->max_calls)
        SRF_RETURN_NEXT(call, Int64GetDatum(static_cast<int64>(call->call_cntr) + 1));
    SRF_RETURN_DONE(call);
}
}
