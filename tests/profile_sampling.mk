# profile sampling tests: sampler, unwind, groups, uprobe counts.  The
# fixture library is compiled by the test itself with $(CC).
check_PROGRAMS += tests/test_sampling
TESTS += tests/test_sampling
tests_test_sampling_SOURCES = tests/test_sampling.c
tests_test_sampling_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_sampling_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
AM_TESTS_ENVIRONMENT += CC='$(CC)'; export CC;
EXTRA_DIST += tests/fixtures/profile/hotcold.c
