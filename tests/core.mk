# core module: Check suite for the shared helpers.
check_PROGRAMS += tests/test_core
TESTS += tests/test_core
tests_test_core_SOURCES = tests/test_core.c
tests_test_core_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_core_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
