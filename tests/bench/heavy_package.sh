#!/bin/sh
# heavy_package: pqprof on a whole heavy package, the Sable fixture
# (tests/fixtures/heavy/README): the CMake tree's own build generates
# level 5's 64 MiB walk basis, and level 5's keygen takes seconds.  Prints
# the wall time of building Sable-lvl5 (the observed CMake build of every
# level, then the instance's compile), then KAT, sizes, mem, profile
# (keygen: the walk over the basis) and `pqprof report` on its 64 MiB
# library (tests/bench/image_times.sh, as tests/bench/large_image.sh does
# for a single tree), then a whole `pqprof run PACKAGE --quick
# --budget op=S` (PQPROF_BENCH_OP_BUDGET, default 10; 0 skips the run)
# and the time of each of its steps.  Figures for people to read, not a
# pass/fail test.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
REPEATS=${PQPROF_BENCH_REPEATS:-5}
BUDGET=${PQPROF_BENCH_OP_BUDGET:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-heavy.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$top_srcdir/tests/bench/image_times.sh"
command -v cmake >/dev/null 2>&1 || { echo "cmake not installed: the Sable package is a CMake tree (skipped)"; exit 0; }

P="$top_srcdir/tests/fixtures/heavy/Sable"
timed "build Sable-lvl5 (observed CMake build)" "$PQPROF" build "$P/Reference_Implementation" --instance Sable-lvl5 \
	-o "$work/Sable-lvl5.so" -q
image_times "$work/Sable-lvl5.so" keygen sable_basis "$P/Test_Vectors/KAT_SIG_Sable-lvl5.txt" "$BUDGET"

[ "$BUDGET" != 0 ] || exit 0
# The whole package, every step but leak, as an evaluator would start it.
timed "run PACKAGE --quick --budget op=$BUDGET" "$PQPROF" run "$P" --quick --budget op="$BUDGET" \
	--manifest "$top_srcdir/tests/fixtures/heavy/Sable.kat.sha256" --out "$work/run"
# Step times from the progress lines: each step lasts until the next one starts.
awk '/^progress / && /elapsed_s=/ {
	step = ""; el = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^step=/) step = substr($i, 6)
		if ($i ~ /^elapsed_s=/) el = substr($i, 11)
	}
	if (prev != "") spent[prev] += el - last
	if (!(step in spent)) order[n++] = step
	prev = step; last = el
}
/^progress campaign / { for (i = 1; i <= NF; i++) if ($i == "in") total = $(i + 1); if (prev != "") spent[prev] += total - last }
END { for (i = 0; i < n; i++) printf "  %-38s %6d s\n", order[i], spent[order[i]] }' "$work/last.out"
grep -E "^Sable-lvl5 .*keygen" "$work/last.out" || true
