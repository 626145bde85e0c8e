#!/bin/sh
# run_all: pqprof's self-benchmarks, printed as figures (`make bench`).
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
echo "== counter read overhead per backend =="
"$top_builddir/tests/bench/counter_overhead"
echo
echo "== repeatability of pqprof bench =="
sh "$top_srcdir/tests/bench/bench_spread.sh"
echo
echo "== timing-leak detection rates =="
sh "$top_srcdir/tests/bench/leak_rates.sh" || echo "(a detection-rate target was missed)"
echo
echo "== comparisons on a noisy machine (pqprof compare) =="
sh "$top_srcdir/tests/bench/compare_noise.sh" || echo "(a comparison claim was missed)"
for extra in "$top_srcdir"/tests/bench/bench_*.sh; do
	case "$extra" in */bench_spread.sh) continue ;; esac
	echo
	echo "== $(basename "$extra" .sh) =="
	sh "$extra"
done
echo
echo "== trace size and report time against perf =="
sh "$top_srcdir/tests/bench/trace_size.sh"
echo
echo "== large images (a generated 64 MiB .rodata table) =="
sh "$top_srcdir/tests/bench/large_image.sh"
echo
echo "== a heavy package (Sable: CMake levels, a 64 MiB generated basis, a keygen of seconds) =="
sh "$top_srcdir/tests/bench/heavy_package.sh"
echo
echo "== flag-study sensitivity: paired studies of -O2 against -O3, and a planted 3% =="
sh "$top_srcdir/tests/bench/flag_sensitivity.sh"
PQPROF_BENCH_PAIR=planted sh "$top_srcdir/tests/bench/flag_sensitivity.sh"
