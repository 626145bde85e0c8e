# command layer tests (included from tests/local.mk).
check_PROGRAMS += tests/test_cmd
TESTS += tests/test_cmd
tests_test_cmd_SOURCES = tests/test_cmd.c
tests_test_cmd_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_cmd_LDADD = libpqprof_cmd.a libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
