# Submission trees as they come: trees whose observed build serves several
# instances by -D switches, instruction-set checks.
TESTS += tests/e2e/submission_flags.sh
# Observed builds: the tree's own make or cmake, contained, recorded by the compiler wrapper.
TESTS += tests/e2e/observe.sh
# NIST signature trees whose API takes a context string (FIPS 204 / 205 style crypto_sign_ctx).
TESTS += tests/e2e/ctx_api.sh

check_PROGRAMS += tests/test_flag_list
TESTS += tests/test_flag_list
tests_test_flag_list_SOURCES = tests/test_flag_list.c
tests_test_flag_list_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_flag_list_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
