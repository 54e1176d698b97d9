// The one exception type core code throws.  It carries a SQLSTATE so the
// C boundary in src/pg can raise it with PostgreSQL's own error code.
#pragma once
#include "core/no_postgres.hpp"

#include <stdexcept>
#include <string>

namespace ivm {

namespace sqlstate {
inline constexpr const char* feature_not_supported = "0A000";
inline constexpr const char* invalid_parameter_value = "22023";
inline constexpr const char* undefined_object = "42704";
inline constexpr const char* wrong_object_type = "42809";
inline constexpr const char* name_too_long = "42622";
inline constexpr const char* duplicate_column = "42701";
inline constexpr const char* object_not_in_prerequisite_state = "55000";
inline constexpr const char* internal_error = "XX000";
inline constexpr const char* data_corrupted = "XX001";
}  // namespace sqlstate

class Error : public std::runtime_error {
public:
    Error(const char* code, std::string message, std::string detail = {}, std::string hint = {})
        : std::runtime_error(std::move(message)), code_(code), detail_(std::move(detail)),
          hint_(std::move(hint)) {}

    const char* code() const { return code_; }
    const std::string& detail() const { return detail_; }
    const std::string& hint() const { return hint_; }

private:
    const char* code_;
    std::string detail_;
    std::string hint_;
};

// A view shape ivm cannot maintain: SQLSTATE 0A000 naming the construct.
inline Error unsupported(const std::string& construct, std::string hint = {}) {
    return Error(sqlstate::feature_not_supported,
                 "incrementally maintained views do not support " + construct, {}, std::move(hint));
}

}  // namespace ivm
