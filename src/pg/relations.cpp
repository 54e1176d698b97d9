#include "pg/relations.hpp"

#include "core/error.hpp"
#include "pg/boundary.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "utils/rls.h"
}

namespace ivm::pg {

std::string qualified_name(Oid relid) {
    const char* text = call([&] {
        char* rel = get_rel_name(relid);
        char* nsp = get_namespace_name(get_rel_namespace(relid));
        if (rel == nullptr || nsp == nullptr) elog(ERROR, "cache lookup failed for relation %u", relid);
        return quote_qualified_identifier(nsp, rel);
    });
    return text;
}

Oid relation_owner(Oid relid) {
    return call([&] {
        HeapTuple tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for relation %u", relid);
        Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tup))->relowner;
        ReleaseSysCache(tup);
        return owner;
    });
}

void execute_as_owner_of(Oid relid, const std::vector<std::string>& statements) {
    Oid owner = relation_owner(relid);
    Oid saved_user;
    int saved_context;
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE);
    for (const std::string& sql : statements) spi::execute(sql);
    SetUserIdAndSecContext(saved_user, saved_context);  // on error, the abort restores it
}

std::vector<Oid> with_descendants(Oid relid) {
    List* all = call([&] { return find_all_inheritors(relid, NoLock, nullptr); });
    std::vector<Oid> out;
    ListCell* lc;
    foreach (lc, all) out.push_back(lfirst_oid(lc));  // (plain list reads: outside the guard)
    return out;
}

std::vector<Oid> with_descendants(const std::vector<Oid>& relids) {
    std::vector<Oid> out;
    for (Oid relid : relids)
        for (Oid t : with_descendants(relid))
            if (!contains(out, t)) out.push_back(t);
    return out;
}

bool holds_rows(Oid relid) {
    return spi::query_int("SELECT pg_catalog.count(*) FROM (SELECT FROM ONLY " + qualified_name(relid) +
                          " LIMIT 1) __ivm_any") > 0;
}

void require_trigger_privilege(Oid relid, Oid role) {
    if (call([&] { return pg_class_aclcheck(relid, role, ACL_TRIGGER); }) == ACLCHECK_OK) return;
    const char* role_name = call([&] { return GetUserNameFromId(role, false); });
    const std::string table = qualified_name(relid);
    throw Error("42501", "permission denied to maintain a view over table " + table,
                "ivm maintains a view through triggers on its base tables, which needs the TRIGGER privilege on "
                "each of them or their ownership.",
                "The table's owner can run: GRANT TRIGGER ON " + table + " TO " +
                    call([&] { return quote_identifier(role_name); }) + ";");
}

void refuse_row_security(Oid relid, Oid role) {
    if (call([&] { return check_enable_rls(relid, role, true); }) != RLS_ENABLED) return;
    const char* role_name = call([&] { return GetUserNameFromId(role, false); });
    throw Error(sqlstate::feature_not_supported,
                "incrementally maintained views do not support the base table " + qualified_name(relid) +
                    " with row-level security",
                "Its policies apply to role " + std::string(role_name) +
                    ", but the changes that maintain the view would not be filtered by them.",
                "Let a role that bypasses row-level security own the view, or disable it on the table.");
}

}  // namespace ivm::pg
