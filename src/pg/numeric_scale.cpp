#include "pg/numeric_scale.hpp"

#include "pg/boundary.hpp"

extern "C" {
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
}

namespace ivm::pg {
namespace {

// Past this the arithmetic might round (NUMERIC_DSCALE_MAX); far past any
// column's scale.
constexpr int largest_scale = 1000;

// The scale of typmod `typmod` of numeric (its low 11 bits, signed), or
// none for an unconstrained numeric or a negative scale.
std::optional<int> typmod_scale(int32 typmod) {
    if (typmod < static_cast<int32>(VARHDRSZ)) return std::nullopt;
    const int scale = (((typmod - static_cast<int32>(VARHDRSZ)) & 0x7ff) ^ 1024) - 1024;
    if (scale < 0) return std::nullopt;
    return scale;
}

std::optional<int> const_scale(const Const* c) {
    if (c->constisnull) return std::nullopt;
    return call([&]() -> std::optional<int> {
        Numeric value = DatumGetNumeric(c->constvalue);
        if (numeric_is_nan(value) || numeric_is_inf(value)) return std::nullopt;
        return DatumGetInt32(DirectFunctionCall1(numeric_scale, c->constvalue));
    });
}

std::optional<int> operator_scale(Oid function, const List* args) {
    const int n = list_length(args);
    auto arg = [&](int i) { return fixed_numeric_scale(static_cast<const Node*>(list_nth(args, i))); };
    if ((function == F_NUMERIC_UMINUS || function == F_NUMERIC_UPLUS) && n == 1) return arg(0);
    if ((function == F_NUMERIC_ADD || function == F_NUMERIC_SUB || function == F_NUMERIC_MUL) && n == 2) {
        const std::optional<int> left = arg(0), right = arg(1);
        if (!left || !right) return std::nullopt;
        const int scale = function == F_NUMERIC_MUL ? *left + *right : std::max(*left, *right);
        if (scale > largest_scale) return std::nullopt;
        return scale;
    }
    return std::nullopt;
}

}  // namespace

std::optional<int> fixed_numeric_scale(const Node* expr) {
    if (expr == nullptr) return std::nullopt;
    const Oid type = call([&] { return exprType(expr); });
    if (type != NUMERICOID) return std::nullopt;
    if (const std::optional<int> declared = typmod_scale(call([&] { return exprTypmod(expr); }))) return declared;
    switch (nodeTag(expr)) {
        case T_Const: return const_scale(reinterpret_cast<const Const*>(expr));
        case T_RelabelType: return fixed_numeric_scale(reinterpret_cast<const Node*>(reinterpret_cast<const RelabelType*>(expr)->arg));
        case T_FuncExpr: {
            const FuncExpr* f = reinterpret_cast<const FuncExpr*>(expr);
            // integers made numeric
            if ((f->funcid == F_NUMERIC_INT2 || f->funcid == F_NUMERIC_INT4 || f->funcid == F_NUMERIC_INT8) &&
                list_length(f->args) == 1)
                return 0;
            return operator_scale(f->funcid, f->args);
        }
        case T_OpExpr: {
            const OpExpr* op = reinterpret_cast<const OpExpr*>(expr);
            const Oid function = call([&] { return get_opcode(op->opno); });
            return operator_scale(function, op->args);
        }
        default: return std::nullopt;
    }
}

}  // namespace ivm::pg
