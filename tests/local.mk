# tests: Check suites, end-to-end scripts, fixtures.  Module suites keep
# their lists in tests/<module>.mk.

check_PROGRAMS += tests/test_instance
TESTS += tests/test_instance
tests_test_instance_SOURCES = tests/test_instance.c
tests_test_instance_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_instance_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)

# End-to-end tests: the real binary on real fixture trees.
TESTS += tests/e2e/build_bench.sh tests/e2e/kat_gate.sh tests/e2e/memory.sh tests/e2e/campaign.sh
TESTS += tests/e2e/shard_merge.sh tests/e2e/lab.sh tests/e2e/flag_profiles.sh tests/e2e/paired.sh tests/e2e/baseline.sh
# Whole submission packages: pqprof scan, run --dry-run and package campaigns.
TESTS += tests/e2e/packages.sh
# A package found by what its folders hold: per-level CMake projects, vectors under names of its own.
TESTS += tests/e2e/pkg_content.sh
# Campaigns of whole packages and rounds, each a minute or more, run in `make check-heavy`
# (which .ci/run runs once), keeping make check near ten minutes:
# - a heavy package as the reference reports have them (SQIsign2D-shaped), run --quick end to
#   end: about three minutes, most of it a keygen of seconds;
# - the in-tree SPHINCS+ campaign with its ML-DSA baseline and the interposition check;
# - a whole round of submissions: one campaign per package and one index (pqprof run ROUND/).
# - reports read at a glance: the toy campaign with equal interposition factors, and a two-level package.
HEAVY_TESTS = tests/e2e/heavy_package.sh tests/e2e/sphincs_campaign.sh tests/e2e/round.sh tests/e2e/report_glance.sh
check-heavy: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(HEAVY_TESTS)'
.PHONY: check-heavy
# make distcheck-quick: make distcheck (the tarball built, configured out of
# tree, checked, installed, uninstalled) with the tests that show what a
# VPATH build and the tarball could lose: the unit tests and fuzz replays,
# the end-to-end tests that read the shipped schemes, vectors and fixtures,
# and a campaign.  make check runs them all in the tree; .ci/run runs both.
DISTCHECK_TESTS = $(filter tests/test_% tests/fuzz/%,$(TESTS)) \
	tests/e2e/mldsa_kat.sh tests/e2e/mlkem_kat.sh tests/e2e/sphincs_kat.sh tests/e2e/build_bench.sh \
	tests/e2e/campaign.sh tests/e2e/runtime.sh tests/e2e/readers.sh tests/e2e/baseline.sh
distcheck-quick:
	$(MAKE) $(AM_MAKEFLAGS) distcheck TESTS='$(DISTCHECK_TESTS)'
.PHONY: distcheck-quick
EXTRA_DIST += tests/e2e tests/fixtures
# CI scripts (.ci/run calls them).
EXTRA_DIST += tests/ci

# Self-benchmarks print figures; they are not pass/fail tests.
EXTRA_DIST += tests/bench
bench: all tests/bench/counter_overhead$(EXEEXT)
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(top_srcdir)/tests/bench/run_all.sh
.PHONY: bench

include tests/measure.mk
include tests/kat.mk
include tests/memory.mk
include tests/profile_symbols.mk
include tests/profile_sampling.mk
include tests/trace.mk
include tests/report.mk
include tests/profile_e2e.mk
include tests/annotate.mk
include tests/fuzz.mk
include tests/hostile.mk
include tests/supervise.mk
include tests/cmd.mk
include tests/leak.mk
include tests/reliability.mk
include tests/core.mk
include tests/submission.mk
include tests/interposition.mk
include tests/campaign.mk
include tests/alloc_fail.mk

# In-tree scheme known answers: SPHINCS+'s first records in make check (every
# record in check-kat-full); ML-KEM's and ML-DSA's whole files (seconds).
TESTS += tests/e2e/sphincs_kat.sh tests/e2e/mlkem_kat.sh tests/e2e/mldsa_kat.sh
EXTRA_DIST += tests/kat schemes kat
check-kat-full: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' PQPROF='$(abs_top_builddir)/pqprof' \
	  $(SHELL) $(top_srcdir)/tests/kat/sphincs_full.sh
.PHONY: check-kat-full

check_PROGRAMS += tests/test_campaign
TESTS += tests/test_campaign
tests_test_campaign_SOURCES = tests/test_campaign.c
tests_test_campaign_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_campaign_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)

# In a VPATH build (make distcheck) the harness writes the scripts' logs
# beside them in the build tree: the directory must exist first.
check_DATA += tests/e2e/.dirstamp
tests/e2e/.dirstamp:
	$(MKDIR_P) tests/e2e && touch $@
CLEANFILES += tests/e2e/.dirstamp

# Directories listed whole in EXTRA_DIST may hold what an in-tree build
# left there (test logs, stamps, the bench program): keep those out of the
# tarball, or a VPATH build would find them in the source tree.
dist-hook:
	find $(distdir)/tests $(distdir)/schemes $(distdir)/kat \
	  \( -name '*.log' -o -name '*.trs' -o -name '.dirstamp' -o -name '*.o' \) -exec rm -f {} +
	rm -f $(distdir)/tests/bench/counter_overhead
