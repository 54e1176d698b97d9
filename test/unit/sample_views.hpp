// Shared by the unit tests: models of small views.
#pragma once
#include "core/view_model.hpp"

// r JOIN s: two bases, one occurrence each.
inline ivm::CountingView join_view() {
    ivm::CountingView v;
    v.storage = "public.v__ivm_data";
    v.columns = {{"a", "OPERATOR(pg_catalog.=)", true}, {"c", "OPERATOR(pg_catalog.=)", true}};
    v.bases = {"public.r", "public.s"};
    v.blocks = {{{ivm::Source{0, true}, ivm::Source{1, true}},  // FROM ONLY r, ONLY s
                 "SELECT r.a, s.c, r.__ivm_cnt AS __ivm_c1, s.__ivm_cnt AS __ivm_c2 FROM __ivm_src_1 r, __ivm_src_2 s"}};
    return v;
}
