// ivm.key_hash(VARIADIC "any"): the key of a tuple, the very value
// pg_catalog.hash_record_extended(ROW(<the arguments>), 0) gives, computed
// from the arguments themselves.  hash_record_extended first forms the ROW
// as a record (a heap tuple) and takes it apart again; this skips both,
// about a fifth of the time per row (docs/benchmarks.md).  Stored keys made
// either way are the same, so views made before this function existed keep
// theirs, and SQL written for an extension without it (keys.cpp) uses
// hash_record_extended.
//
// Each argument is hashed with its type's extended hash function under its
// own collation (as the ROW's column would be), NULL as 0, and the hashes
// are combined as hash_record_extended combines its columns'.  Plain C over
// the function-call protocol: no C++ object lives here, so an error raised
// by a type's hash function unwinds safely.
#include "pg/key_hash.hpp"

#include "core/tuples.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "parser/parse_func.h"
}

namespace {

// What each argument is hashed with, kept across calls in fn_extra.
struct ArgumentHash {
    FmgrInfo hash;
    Oid collation;
};

ArgumentHash* argument_hashes(FunctionCallInfo fcinfo) {
    FmgrInfo* flinfo = fcinfo->flinfo;
    if (flinfo->fn_extra != nullptr) return static_cast<ArgumentHash*>(flinfo->fn_extra);
    if (flinfo->fn_expr == nullptr || !IsA(flinfo->fn_expr, FuncExpr))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("ivm.key_hash can only be called in an expression")));
    List* args = castNode(FuncExpr, flinfo->fn_expr)->args;
    const int n = PG_NARGS();
    if (list_length(args) != n || get_fn_expr_variadic(flinfo))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("ivm.key_hash takes its values as separate arguments, not as a VARIADIC array")));
    auto* hashes = static_cast<ArgumentHash*>(MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(ArgumentHash) * (n > 0 ? n : 1)));
    for (int i = 0; i < n; ++i) {
        const Oid type = get_fn_expr_argtype(flinfo, i);
        TypeCacheEntry* entry = lookup_type_cache(type, TYPECACHE_HASH_EXTENDED_PROC_FINFO);
        if (!OidIsValid(entry->hash_extended_proc_finfo.fn_oid))
            ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                            errmsg("could not identify an extended hash function for type %s", format_type_be(type))));
        fmgr_info_cxt(entry->hash_extended_proc_finfo.fn_oid, &hashes[i].hash, flinfo->fn_mcxt);
        hashes[i].collation = exprCollation(static_cast<Node*>(list_nth(args, i)));
    }
    flinfo->fn_extra = hashes;
    return hashes;
}

}  // namespace

extern "C" {
PG_FUNCTION_INFO_V1(ivm_key_hash);

Datum ivm_key_hash(PG_FUNCTION_ARGS) {
    const ArgumentHash* hashes = argument_hashes(fcinfo);
    uint64 result = 0;
    for (int i = 0; i < PG_NARGS(); ++i) {
        uint64 element = 0;
        if (!PG_ARGISNULL(i)) {
            LOCAL_FCINFO(call, 2);
            InitFunctionCallInfoData(*call, const_cast<FmgrInfo*>(&hashes[i].hash), 2, hashes[i].collation, nullptr, nullptr);
            call->args[0].value = PG_GETARG_DATUM(i);
            call->args[0].isnull = false;
            call->args[1].value = Int64GetDatum(0);
            call->args[1].isnull = false;
            element = DatumGetUInt64(FunctionCallInvoke(call));
            if (call->isnull) elog(ERROR, "function %u returned NULL", call->flinfo->fn_oid);
        }
        result = (result << 5) - result + element;  // as hash_record_extended combines its columns
    }
    PG_RETURN_INT64(static_cast<int64>(result));
}
}

namespace ivm::pg {
namespace {

// Whether ivm.key_hash exists, as last looked up; forgotten whenever
// pg_proc changes (an ALTER EXTENSION UPDATE adds it, a DROP EXTENSION
// takes it away).
enum class KeyHash { Unknown, Installed, Missing };
KeyHash key_hash = KeyHash::Unknown;

void forget_key_hash(Datum, int, uint32) { key_hash = KeyHash::Unknown; }

bool key_hash_installed() {
    if (key_hash == KeyHash::Unknown) {
        const bool found = call([] {
            Oid any = ANYOID;
            List* name = list_make2(makeString(pstrdup("ivm")), makeString(pstrdup("key_hash")));
            return OidIsValid(LookupFuncName(name, 1, &any, true));
        });
        key_hash = found ? KeyHash::Installed : KeyHash::Missing;
    }
    return key_hash == KeyHash::Installed;
}

}  // namespace

void use_installed_key_hash() {
    CacheRegisterSyscacheCallback(PROCOID, forget_key_hash, 0);
    tuples::set_key_hash_probe(key_hash_installed);
}

}  // namespace ivm::pg
