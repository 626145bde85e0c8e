# measure module: Check suite and the counter self-benchmark.
check_PROGRAMS += tests/test_measure
TESTS += tests/test_measure
tests_test_measure_SOURCES = tests/test_measure.c
tests_test_measure_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_measure_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)

# Paired in-process flag studies: estimates, planner, A/A verdict rule.
check_PROGRAMS += tests/test_paired
TESTS += tests/test_paired
tests_test_paired_SOURCES = tests/test_paired.c
tests_test_paired_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_paired_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)

# Built on demand ("make bench"), never installed.
EXTRA_PROGRAMS += tests/bench/counter_overhead
tests_bench_counter_overhead_SOURCES = tests/bench/counter_overhead.c
tests_bench_counter_overhead_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_bench_counter_overhead_LDADD = libpqprof.a $(DEP_LIBS)
CLEANFILES += tests/bench/counter_overhead$(EXEEXT)

# Operations of seconds: --budget, the n reached, the report's n column.
TESTS += tests/e2e/op_budget.sh
EXTRA_DIST += tests/e2e/op_budget.sh

# Large images: a generated read-only table named in sizes and the report
# (16 MiB here; tests/bench/large_image.sh times the 64 MiB case, and
# tests/bench/heavy_package.sh the Sable package's 64 MiB level).
TESTS += tests/e2e/large_image.sh
EXTRA_DIST += tests/e2e/large_image.sh
