# leak module: Check suite, the end-to-end test on the leaky and the
# constant-time fixtures, and the detection-rate benchmark (make bench).
check_PROGRAMS += tests/test_leak
TESTS += tests/test_leak tests/e2e/leak.sh
tests_test_leak_SOURCES = tests/test_leak.c
tests_test_leak_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_leak_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
