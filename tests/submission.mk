# Submission trees as they come: flags from the tree's build files, trees
# serving several instances by -D switches, instruction-set checks.
TESTS += tests/e2e/submission_flags.sh
# Observed builds: the tree's own make or cmake, contained, recorded by the compiler wrapper.
TESTS += tests/e2e/observe.sh

check_PROGRAMS += tests/test_tree_flags
TESTS += tests/test_tree_flags
tests_test_tree_flags_SOURCES = tests/test_tree_flags.c
tests_test_tree_flags_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_tree_flags_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
