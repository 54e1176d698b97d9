# PGXS build of the ivm extension.  src/core is plain C++17 and is compiled
# without the PostgreSQL include path, so an #include "postgres.h" there is a
# compile-time error; src/pg is the only code that sees server headers.

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config

EXTENSION  = ivm
MODULE_big = ivm
DATA       = $(wildcard ivm--*.sql)
PGFILEDESC = "ivm - incrementally maintained views"

CORE_SRCS = $(wildcard src/core/*.cpp)
PG_SRCS   = $(wildcard src/pg/*.cpp)
CORE_OBJS = $(CORE_SRCS:.cpp=.o)
OBJS      = $(CORE_OBJS) $(PG_SRCS:.cpp=.o)

REGRESS = setup create key_hash joins outer_joins subqueries from_subqueries transactions refusals direct_writes operability recursive general_recursion alter aggregates unions views_over_views ddl partitions security plain_views rebuild keyed lookups faults constants scalar_subqueries windows no_equality names deferred swap large_statements replicated backward_forward
REGRESS_OPTS = --load-extension=ivm
# The tests that read ivm.stats, which needs ivm in shared_preload_libraries;
# run.sh runs the others again on a cluster without it.
REGRESS_NEEDS_PRELOAD = operability rebuild
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation

PG_CXXFLAGS = -std=c++17 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-register -Wno-cast-function-type -Werror=return-type -Isrc -MMD -MP
SHLIB_LINK  = -lstdc++

# The server's JIT inlining would compile every file to LLVM bitcode with
# clang and the C flags; our functions spend their time in SPI, so inlining
# them buys nothing.  Keep the C++17 build independent of that step.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# src/core: no server include directories at all.
$(CORE_OBJS): override CPPFLAGS := -Isrc

# Header dependencies, written by -MMD.
-include $(OBJS:.o=.d)
EXTRA_CLEAN = $(OBJS:.o=.d) results regression.diffs regression.out output_iso

.PHONY: unit regress-without-preload print-regress
regress-without-preload:
	@echo $(filter-out $(REGRESS_NEEDS_PRELOAD),$(REGRESS))

print-regress:
	@echo $(REGRESS)

unit:
	$(MAKE) -C test/unit
