# pqprof's own reliability end to end (included from tests/local.mk):
# campaign lock, interruption and resume, disk full, file labels, blame of
# verify hangs, truncated libraries and bad vector files, repeated profiles.
TESTS += tests/e2e/reliability.sh
EXTRA_DIST += tests/e2e/reliability.sh tests/fixtures/verdicts
