# Misbehaving submissions end to end (included from tests/local.mk): every
# tree under tests/fixtures/hostile/ through pqprof kat, bench and mem,
# checking the verdicts and that pqprof itself is unharmed.  The CI
# scripts beside it run make check under ASan+UBSan and the end-to-end
# tests as an unprivileged user (called from .ci/run).
TESTS += tests/e2e/hostile.sh
EXTRA_DIST += tests/e2e/hostile.sh tests/ci/sanitizers.sh tests/ci/unprivileged.sh
