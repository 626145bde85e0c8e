# pqprof profile / report / export end to end on the hot90 fixture (a
# scheme with a known cost structure, a second library built by the test,
# an assembly routine and a function called a known number of times).
# profile_jget reads values out of the records and exports for the script.
check_PROGRAMS += tests/profile_jget
tests_profile_jget_SOURCES = tests/profile_jget.c
tests_profile_jget_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_profile_jget_LDADD = $(JANSSON_LIBS)
TESTS += tests/e2e/profile.sh
EXTRA_DIST += tests/e2e/profile.sh tests/fixtures/profile/hot90 tests/fixtures/profile/hot90-lib2 \
	tests/bench/bench_profile_vs_perf.sh doc/profile-report.md

# Dwarf stacks reach the entry frame through a large stack frame and a
# CFI-less assembly leaf (the deepstack fixture).
TESTS += tests/e2e/profile_unwind.sh
EXTRA_DIST += tests/e2e/profile_unwind.sh tests/fixtures/profile/deepstack

# The offline attribution rules on traces with known stacks (exact figures).
check_PROGRAMS += tests/test_analysis
TESTS += tests/test_analysis
tests_test_analysis_SOURCES = tests/test_analysis.c
tests_test_analysis_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_analysis_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)

# pprof export: the in-tree SPHINCS+ profiled, exported as pprof and read
# back by an independent protobuf-c reader (and by go tool pprof when
# installed); the top functions must be the report's.
check_PROGRAMS += tests/pprof_top
tests_pprof_top_SOURCES = tests/pprof_top.c
nodist_tests_pprof_top_SOURCES = src/profile/pprof_profile.pb-c.c
tests_pprof_top_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
tests_pprof_top_LDADD = $(PROTOBUF_C_LIBS)
TESTS += tests/e2e/pprof_export.sh
EXTRA_DIST += tests/e2e/pprof_export.sh
