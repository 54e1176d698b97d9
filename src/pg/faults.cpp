#include "pg/faults.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"

#include <cstring>
#include <new>
#include <string>

namespace ivm::pg::faults {
namespace {

char* fail_at = nullptr;  // ivm.test_fail_at

}  // namespace

void define_setting() {
    DefineCustomStringVariable("ivm.test_fail_at", "Makes a step of ivm fail, for tests.",
                               "STEP:error (a PostgreSQL error), STEP:throw (a C++ exception) or STEP:alloc "
                               "(std::bad_alloc), raised inside ivm's guard; empty: none.",
                               &fail_at, "", PGC_SUSET, GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
}

void point(const char* step) {
    if (fail_at == nullptr || fail_at[0] == '\0') return;
    const std::size_t n = std::strlen(step);
    if (std::strncmp(fail_at, step, n) != 0 || fail_at[n] != ':') return;
    const char* how = fail_at + n + 1;
    if (std::strcmp(how, "error") == 0)
        call([&] { ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("ivm test fault at %s", step))); });
    else if (std::strcmp(how, "throw") == 0)
        call([&] { throw Error(sqlstate::internal_error, std::string("ivm test exception at ") + step); });
    else if (std::strcmp(how, "alloc") == 0)
        call([] { throw std::bad_alloc(); });
}

}  // namespace ivm::pg::faults
