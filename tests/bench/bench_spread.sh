#!/bin/sh
# bench_spread: how repeatable is `pqprof bench`?  Runs the same operation
# (sign of the NIST fixture) in 5 back-to-back pqprof bench invocations and
# prints each median trial and the spread of the medians.  A figure for
# people to read, not a pass/fail test: shared machines vary.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
# The fixtures link to each other (../toy): let links resolve anywhere in the source tree.
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-spread.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$PQPROF" build "$top_srcdir/tests/fixtures/nist-toy" -o "$work/toy.so" -q >/dev/null
cpu=${PQPROF_BENCH_CPU:-0}
echo "median of 5 back-to-back 'pqprof bench --op sign' runs (CPU $cpu):"
for i in 1 2 3 4 5; do
	"$PQPROF" bench "$work/toy.so" --op sign --cpu "$cpu" --target 0.5 --records-dir "$work/r$i" >/dev/null 2>&1
	f=$(ls "$work/r$i"/*__sign.json)
	unit=$(sed -n 's/.*"unit": "\(.*\)".*/\1/p' "$f" | head -n 1)
	med=$(sed -n 's/.*"median_trial_units": \([0-9.e+-]*\).*/\1/p' "$f" | head -n 1)
	echo "$med" >>"$work/medians"
	printf '  run %d: median trial %.0f %s\n' "$i" "$med" "$unit"
done
sort -g "$work/medians" | awk '
	{ v[NR] = $1 }
	END {
		med = v[3]; spread = (v[5] - v[1]) / med * 100
		printf "spread of the medians: min %.0f, max %.0f, (max-min)/median = %.2f%%\n", v[1], v[5], spread
	}'
