# supervise: Check suite for the parent side of the runner.  It spawns the
# real pqprof-runner ($PQPROF_RUNNER) on libraries it builds from the
# fixture trees, and stand-in runner scripts for the result channel.
check_PROGRAMS += tests/test_supervise
TESTS += tests/test_supervise
tests_test_supervise_SOURCES = tests/test_supervise.c
tests_test_supervise_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_supervise_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
