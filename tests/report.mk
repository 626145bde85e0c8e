# report module: Check suite (synthetic campaigns and record sets under
# /tmp; reports, evidence hashes, compare), the end-to-end script that
# runs `pqprof compare` on real records, and the one that checks the
# summary and the section numbers of reports from small real campaigns, and
# the one that checks a report reads at a glance (each sentence once, units).
check_PROGRAMS += tests/test_report
TESTS += tests/test_report
tests_test_report_SOURCES = tests/test_report.c
tests_test_report_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_report_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
TESTS += tests/e2e/report_structure.sh
TESTS += tests/e2e/report_summary.sh
# tests/e2e/report_glance.sh (the glance rules on a two-level package) runs in make check-heavy;
# campaign_golden.sh applies the same rules to the in-tree quick campaign.
