# instance: tree classification, shim generation, building, loading.
libpqprof_a_SOURCES += \
	src/instance/pqprof_abi.h \
	src/instance/tree_scan.c src/instance/tree_scan.h \
	src/instance/kat_drivers.c src/instance/kat_drivers.h \
	src/instance/shim.c src/instance/shim.h \
	src/instance/tool_run.c src/instance/tool_run.h \
	src/instance/observe.c src/instance/observe.h src/instance/observe_int.h \
	src/instance/observe_sandbox.c src/instance/observe_steps.c src/instance/observe_model.c \
	src/instance/observe_name.c \
	src/instance/builder.c src/instance/builder.h src/instance/build_stage.h \
	src/instance/build_plan_stage.c src/instance/build_flags.c src/instance/build_compile.c \
	src/instance/link_scope.c src/instance/link_scope.h \
	src/instance/flag_check.c src/instance/flag_check.h \
	src/instance/flag_list.c src/instance/flag_list.h \
	src/instance/isa_check.c src/instance/isa_check.h \
	src/instance/runpath.c src/instance/runpath.h \
	src/instance/loader.c src/instance/loader.h \
	src/instance/api_category.c src/instance/api_category.h
# package_scan: the instances, implementation versions and KAT files of a whole package.
libpqprof_a_SOURCES += src/instance/package_scan.c src/instance/package_scan.h
nodist_libpqprof_a_SOURCES = src/instance/abi_text.c
BUILT_SOURCES += src/instance/abi_text.c
CLEANFILES += src/instance/abi_text.c

# The shim compiles against the ABI header as text embedded in pqprof.
src/instance/abi_text.c: $(top_srcdir)/src/instance/pqprof_abi.h
	$(AM_V_GEN)mkdir -p src/instance && { \
	  echo '/* Generated from pqprof_abi.h: the header text the shim compiles against. */'; \
	  echo '#include "config.h"'; \
	  echo '#include "instance/shim.h"'; \
	  echo 'const char pq_abi_header_text[] ='; \
	  $(SED) -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $(top_srcdir)/src/instance/pqprof_abi.h; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@

# The compiler wrapper a tree's own build runs while pqprof observes it.
pkglibexec_PROGRAMS += pqprof-ccwrap
pqprof_ccwrap_SOURCES = src/instance/ccwrap_main.c src/core/path_name.c src/core/path_name.h
# Never sanitized: it runs inside a tree's build under its address-space
# limit, where ASan cannot reserve its shadow memory.
pqprof_ccwrap_CFLAGS = -std=gnu11 -Wall -Wextra -g
pqprof_ccwrap_LDFLAGS =
