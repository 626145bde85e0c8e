# Misbehaving submissions end to end (included from tests/local.mk): every
# tree under tests/fixtures/hostile/ through pqprof kat, bench and mem,
# checking the verdicts and that pqprof itself is unharmed; contain.sh
# runs the trees that try to reach past their job (daemons, the caller's
# files, /etc/shadow, hostile flags, FIFOs, devices, links out of the tree).  The CI
# scripts beside it run make check under ASan+UBSan and the end-to-end
# tests as an unprivileged user (called from .ci/run).
TESTS += tests/e2e/hostile.sh tests/e2e/contain.sh tests/e2e/runtime.sh tests/e2e/readers.sh
EXTRA_DIST += tests/e2e/hostile.sh tests/e2e/contain.sh tests/e2e/runtime.sh tests/e2e/readers.sh tests/ci/sanitizers.sh tests/ci/unprivileged.sh
