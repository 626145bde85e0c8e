# tests: Check suites, end-to-end scripts, fixtures.
