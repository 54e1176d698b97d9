// The C/C++ boundary.  PostgreSQL reports errors by longjmp, C++ by
// exceptions, and neither may cross the other:
//  - pg::call(fn) runs PostgreSQL API calls under PG_TRY and turns an error
//    into a pg::PgError exception that keeps the ErrorData (SQLSTATE and all);
//  - pg::boundary(fn) wraps every SQL-callable function's C++ body: it
//    catches any exception, copies it to plain data, leaves the catch block
//    and only then raises it with ereport/ReThrowError.
// Inside fn given to call(): PostgreSQL calls on plain values only, no C++
// object whose destructor a longjmp would skip.
#pragma once
#include "pg/pg.hpp"
// (pg.hpp first: PostgreSQL's port.h must see the C library before C++'s headers do)
#include "core/error.hpp"

#include <exception>
#include <string>
#include <type_traits>

namespace ivm::pg {

class PgError : public std::exception {
public:
    explicit PgError(ErrorData* data) : data_(data) {}
    ErrorData* data() const { return data_; }
    const char* what() const noexcept override;

private:
    ErrorData* data_;  // palloc'd in the context current when call() began
};

// Runs thunk(arg) under PG_TRY; returns the error it raised (copied out of
// ErrorContext into the caller's memory context), or null.  The only place
// with a setjmp, so no C++ frame's locals live across one.
ErrorData* run_guarded(void (*thunk)(void*), void* arg);

// A C++ exception thrown by fn (a std::bad_alloc, an ivm::Error) is caught
// inside the guarded call, before run_guarded's PG_TRY ends, and thrown
// again once it has: unwinding through PG_TRY would leave PostgreSQL's
// error handler pointing into a dead frame.
template <typename Fn>
auto call(Fn&& fn) -> decltype(fn()) {
    using Result = decltype(fn());
    using F = std::remove_reference_t<Fn>;
    using Kept = std::conditional_t<std::is_void_v<Result>, char, Result>;
    struct Frame {
        F* fn;
        Kept result;
        std::exception_ptr thrown;
    } frame{&fn, Kept{}, nullptr};
    ErrorData* error = run_guarded(
        [](void* p) {
            auto* fr = static_cast<Frame*>(p);
            try {
                if constexpr (std::is_void_v<Result>)
                    (*fr->fn)();
                else
                    fr->result = (*fr->fn)();
            } catch (...) {
                fr->thrown = std::current_exception();
            }
        },
        &frame);
    if (error != nullptr) throw PgError(error);
    if (frame.thrown) std::rethrow_exception(frame.thrown);
    if constexpr (!std::is_void_v<Result>) return frame.result;
}

// Sends the client a NOTICE.
inline void notice(const std::string& message) {
    const char* text = message.c_str();
    call([&] { ereport(NOTICE, (errmsg_internal("%s", text))); });
}

// Argument n of an SQL-callable function, a text, as a C string.
inline const char* text_argument(FunctionCallInfo fcinfo, int n) {
    return call([&] { return text_to_cstring(PG_GETARG_TEXT_PP(n)); });
}

// The TriggerData of a function called as a trigger; 39P01 otherwise.
inline TriggerData* trigger_data(FunctionCallInfo fcinfo) {
    if (!CALLED_AS_TRIGGER(fcinfo)) throw ivm::Error("39P01", "ivm trigger functions can only be called as triggers");
    return reinterpret_cast<TriggerData*>(fcinfo->context);
}

// A C++ exception flattened to plain data, so it can outlive its catch block.
struct CaughtError {
    ErrorData* pg = nullptr;   // a PostgreSQL error to re-throw as it was
    char sqlstate[6] = {0};
    char message[1024] = {0};
    char detail[1024] = {0};
    char hint[512] = {0};
};

void catch_current(CaughtError& out) noexcept;  // call only inside catch (...)
[[noreturn]] void raise(const CaughtError& error);

template <typename Fn>
Datum boundary(Fn&& fn) {
    CaughtError error;
    try {
        return fn();
    } catch (...) {
        catch_current(error);
    }
    raise(error);
}

}  // namespace ivm::pg

// Defines an SQL-callable C function whose body is C++ run inside the boundary.
#define IVM_SQL_FUNCTION(name)                                                         \
    extern "C" {                                                                       \
    PG_FUNCTION_INFO_V1(name);                                                         \
    }                                                                                  \
    static Datum name##_body(FunctionCallInfo fcinfo);                                 \
    extern "C" Datum name(PG_FUNCTION_ARGS) {                                          \
        return ivm::pg::boundary([&]() -> Datum { return name##_body(fcinfo); });     \
    }                                                                                  \
    static Datum name##_body(FunctionCallInfo fcinfo)
