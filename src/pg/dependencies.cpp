#include "pg/dependencies.hpp"

#include "pg/boundary.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "catalog/dependency.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
}

namespace ivm::pg {
namespace {

bool recorded(Oid objid, Oid refclass, Oid refobjid) {
    return spi::query_int("SELECT pg_catalog.count(*) FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_class'::regclass "
                          "AND objid = $1::oid AND refclassid = $2::oid AND refobjid = $3::oid AND deptype = 'n'",
                          {std::to_string(objid), std::to_string(refclass), std::to_string(refobjid)}) > 0;
}

void depend(Oid objid, Oid refclass, Oid refobjid) {
    if (objid == InvalidOid || recorded(objid, refclass, refobjid)) return;
    call([&] {
        ObjectAddress depender{RelationRelationId, objid, 0};
        ObjectAddress referenced{refclass, refobjid, 0};
        recordDependencyOn(&depender, &referenced, DEPENDENCY_NORMAL);
        CommandCounterIncrement();
    });
}

// Whether the view's rule reads the relation.
bool reads(Oid view, Oid relid) {
    return relid != InvalidOid &&
           spi::query_int("SELECT pg_catalog.count(*) FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid "
                          "WHERE d.classid = 'pg_catalog.pg_rewrite'::regclass AND r.ev_class = $1::oid "
                          "AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid = $2::oid",
                          {std::to_string(view), std::to_string(relid)}) > 0;
}

}  // namespace

void record_dependencies(const catalog::Entry& e) {
    const Oid extension = call([] { return get_extension_oid("ivm", false); });
    depend(e.storage, RelationRelationId, e.query_view);
    // A recursive program's query view reads the table of its items: the
    // table must not depend on it in turn (pg_dump cannot order a cycle),
    // it goes with the extension instead.
    if (reads(e.query_view, e.recursive_storage))
        depend(e.recursive_storage, ExtensionRelationId, extension);
    else
        depend(e.recursive_storage, RelationRelationId, e.query_view);
    depend(e.query_view, ExtensionRelationId, extension);
    depend(e.storage, ExtensionRelationId, extension);
}

void forget_definition_dependencies(const catalog::Entry& e) {
    call([&] {
        for (Oid objid : {e.storage, e.recursive_storage})
            if (objid != InvalidOid)
                deleteDependencyRecordsForSpecific(RelationRelationId, objid, DEPENDENCY_NORMAL, RelationRelationId,
                                                   e.query_view);
        CommandCounterIncrement();
    });
}

}  // namespace ivm::pg
