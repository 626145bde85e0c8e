# alloc_fail: pqprof and its runner with an allocator that fails at the Nth
# call (tests/alloc_fail.c, PQPROF_FAIL_ALLOC_AT=N), and the script that
# runs `pqprof build` and `pqprof kat` once per N (tests/e2e/alloc_fail.sh).
# make check runs a sample of the N; `make check-alloc-fail` runs every N of
# kat and build and stepped sweeps of an observed build and a whole kat
# (about two minutes; .ci/run runs it, and
# tests/ci/sanitizers.sh runs it under ASan, where a leak also fails it).
ALLOC_FAIL_WRAP = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup,--wrap=vasprintf

check_PROGRAMS += tests/pqprof-allocfail tests/pqprof-runner-allocfail
tests_pqprof_allocfail_SOURCES = src/main.c tests/alloc_fail.c
tests_pqprof_allocfail_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_pqprof_allocfail_LDFLAGS = $(AM_LDFLAGS) $(ALLOC_FAIL_WRAP)
tests_pqprof_allocfail_LDADD = libpqprof_cmd.a libpqprof.a $(DEP_LIBS)

# The runner's own objects, linked again around the failing allocator.
tests_pqprof_runner_allocfail_SOURCES = tests/alloc_fail.c
tests_pqprof_runner_allocfail_CFLAGS = $(AM_CFLAGS) -DALLOC_FAIL_WHO='"runner"' -DALLOC_FAIL_ENV='"PQPROF_RUNNER_FAIL_ALLOC_AT"'
tests_pqprof_runner_allocfail_LDFLAGS = $(AM_LDFLAGS) -rdynamic $(ALLOC_FAIL_WRAP)
tests_pqprof_runner_allocfail_LDADD = $(pqprof_runner_OBJECTS) libpqprof.a $(DEP_LIBS)
tests_pqprof_runner_allocfail_DEPENDENCIES = $(pqprof_runner_OBJECTS) libpqprof.a

TESTS += tests/e2e/alloc_fail.sh
check-alloc-fail: all tests/pqprof-allocfail$(EXEEXT) tests/pqprof-runner-allocfail$(EXEEXT)
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' PQPROF_SOURCE_ROOT='$(abs_top_srcdir)' \
	  PQPROF_ALLOC_FAIL_FULL=1 $(SHELL) $(top_srcdir)/tests/e2e/alloc_fail.sh
.PHONY: check-alloc-fail
