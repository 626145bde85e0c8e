# tests: Check suites, end-to-end scripts, fixtures.  Module suites keep
# their lists in tests/<module>.mk.
