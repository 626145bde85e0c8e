# pqprof annotate: loops, blocks, disassembly and --diff without samples
# (Check), and end to end on the twoloops fixture at -O0 and -O2.
check_PROGRAMS += tests/test_annotate
TESTS += tests/test_annotate
tests_test_annotate_SOURCES = tests/test_annotate.c
tests_test_annotate_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_annotate_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
TESTS += tests/e2e/annotate.sh
EXTRA_DIST += tests/e2e/annotate.sh tests/fixtures/annotate/twoloops
