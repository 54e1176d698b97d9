#include "pg/boundary.hpp"

#include "core/error.hpp"

#include <cstdio>
#include <cstring>
#include <new>

namespace ivm::pg {
namespace {

void copy_text(char* to, std::size_t size, const char* from) {
    if (from == nullptr) from = "";
    std::snprintf(to, size, "%s", from);
}

}  // namespace

const char* PgError::what() const noexcept {
    return data_ != nullptr && data_->message != nullptr ? data_->message : "PostgreSQL error";
}

ErrorData* run_guarded(void (*thunk)(void*), void* arg) {
    MemoryContext caller_context = CurrentMemoryContext;
    ErrorData* volatile error = nullptr;
    PG_TRY();
    {
        thunk(arg);
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller_context);
        error = CopyErrorData();
        FlushErrorState();
    }
    PG_END_TRY();
    return error;
}

void catch_current(CaughtError& out) noexcept {
    try {
        throw;
    } catch (const PgError& e) {
        out.pg = e.data();
    } catch (const ivm::Error& e) {
        copy_text(out.sqlstate, sizeof out.sqlstate, e.code());
        copy_text(out.message, sizeof out.message, e.what());
        copy_text(out.detail, sizeof out.detail, e.detail().c_str());
        copy_text(out.hint, sizeof out.hint, e.hint().c_str());
    } catch (const std::bad_alloc&) {
        copy_text(out.sqlstate, sizeof out.sqlstate, "53200");
        copy_text(out.message, sizeof out.message, "out of memory");
    } catch (const std::exception& e) {
        copy_text(out.sqlstate, sizeof out.sqlstate, "XX000");
        copy_text(out.message, sizeof out.message, e.what());
    } catch (...) {
        copy_text(out.sqlstate, sizeof out.sqlstate, "XX000");
        copy_text(out.message, sizeof out.message, "unknown C++ exception in ivm");
    }
}

void raise(const CaughtError& error) {
    if (error.pg != nullptr) ReThrowError(error.pg);
    const char* s = error.sqlstate;
    ereport(ERROR, (errcode(MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4])),
                    errmsg_internal("%s", error.message),
                    error.detail[0] ? errdetail_internal("%s", error.detail) : 0,
                    error.hint[0] ? errhint("%s", error.hint) : 0));
    pg_unreachable();
}

}  // namespace ivm::pg
