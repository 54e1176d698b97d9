// The DDL event triggers (ivm.on_sql_drop, ivm.on_ddl_command_end) keep
// views whole when their tables change shape.  ivm's own DDL (creating,
// altering, dropping views) fires them too; they ignore it.
#pragma once

namespace ivm::pg {

// Marks ivm's own DDL for as long as it lives (also during unwinding).
class OwnDdl {
public:
    OwnDdl();
    ~OwnDdl();
    OwnDdl(const OwnDdl&) = delete;
    OwnDdl& operator=(const OwnDdl&) = delete;
};

// At transaction end: no DDL of ours is running.
void reset_own_ddl();

}  // namespace ivm::pg
