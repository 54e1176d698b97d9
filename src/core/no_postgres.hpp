// Included first by every src/core header: core code is plain C++ and must
// never see PostgreSQL's headers (their longjmp-based error handling and
// macros do not mix with C++ exceptions).  The Makefile also compiles
// src/core without the server include path, so including postgres.h there
// fails to compile; this check catches the opposite order in src/pg.
#pragma once
#if defined(POSTGRES_H) && !defined(IVM_PG_SIDE)
#error "src/core must not include postgres.h"
#endif
