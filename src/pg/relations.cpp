#include "pg/relations.hpp"

#include "pg/boundary.hpp"

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

}  // namespace ivm::pg
