#!/bin/sh
# trace_size: how big a pqprof trace is, and how fast `pqprof report`
# reads it, against Linux perf on the same workload.
#   - records SPHINCS+-shake-128f sign with DWARF call graphs through
#     `pqprof profile`, and the same number of signs under
#     `perf record [-z] --call-graph dwarf`; then the same with frame
#     pointers (`--call-graph fp` against `perf record [-z] -g`);
#   - prints bytes per sample of both and the ratios; the targets: the
#     pqprof DWARF trace <= 2 bytes per sample and >= 5x smaller than
#     `perf record -z -g` (frame-pointer call graphs, perf's smallest);
#   - times `pqprof report` against `perf report --stdio --no-children`
#     on those traces, interleaved repeats, medians (target: pqprof no
#     slower).
# Figures for people to read, not a pass/fail test.  Knobs:
# PQPROF_BENCH_SAMPLES (default 12000), PQPROF_BENCH_FREQ (1999),
# PQPROF_BENCH_REPEATS (5), PQPROF_BENCH_MODES ("dwarf fp").
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
FREQ=${PQPROF_BENCH_FREQ:-1999}
SAMPLES=${PQPROF_BENCH_SAMPLES:-12000}
REPEATS=${PQPROF_BENCH_REPEATS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-tracesize.XXXXXX")
trap 'rm -rf "$work"' EXIT

have_perf=1
command -v perf >/dev/null 2>&1 && perf record -q -o "$work/probe.data" -e cpu-clock -- true >/dev/null 2>&1 || have_perf=0

size() { wc -c <"$1" | tr -d ' '; }
now() { date +%s.%N; }
# Seconds a command takes, its output thrown away.
timed() {
	t0=$(now)
	"$@" >/dev/null 2>&1 || true
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"$PQPROF" build "$top_srcdir/schemes/sphincsplus/nist" -o "$work/spx.so" -D PARAMS=sphincs-shake-128f -q >/dev/null
echo "workload: SPHINCS+-shake-128f-simple sign, cpu-clock at $FREQ Hz, about $SAMPLES samples"
[ $have_perf -eq 1 ] || echo "perf is not usable here (apt-get install linux-perf): perf columns left out"

# One call-graph mode: sizes, then report times.
run_mode() {
	mode=$1
	echo
	echo "-- call graph $mode --"
	"$PQPROF" profile "$work/spx.so" --op sign --event cpu-clock --freq "$FREQ" --call-graph "$mode" \
		--min-samples "$SAMPLES" --no-counts --no-report -q -o "$work/$mode.pqt" >"$work/profile.out"
	cat "$work/profile.out"
	psamples=$("$PQPROF" trace info "$work/$mode.pqt" | awk '/^samples:/ { print $2 }')
	ops=$(awk '/ sign / { for (i = 1; i <= NF; i++) if ($i == "calls") print $(i - 1) }' "$work/profile.out" | head -n 1)
	pbytes=$(size "$work/$mode.pqt")
	pq_bps=$(awk -v b="$pbytes" -v n="$psamples" 'BEGIN { printf "%.2f", b / n }')

	perf_bps=- perfz_bps=- ratio=- nperf=0
	if [ $have_perf -eq 1 ]; then
		g="-g"
		[ "$mode" = dwarf ] && g="--call-graph dwarf"
		for z in plain z; do
			zf=""
			[ $z = z ] && zf="-z"
			# shellcheck disable=SC2086
			perf record -q $zf -F "$FREQ" -e cpu-clock $g -o "$work/perf-$mode-$z.data" -- \
				"$PQPROF" bench "$work/spx.so" --op sign --trials 1 --iters "${ops:-50}" --records-dir "" \
				>/dev/null 2>"$work/perf.err" || echo "perf record $zf $g failed: $(tail -n 2 "$work/perf.err")"
		done
		nperf=$(perf script -i "$work/perf-$mode-plain.data" -F tid 2>/dev/null | grep -c . || true)
		perf_bps=$(awk -v b="$(size "$work/perf-$mode-plain.data")" -v n="$nperf" 'BEGIN { if (n) printf "%.2f", b / n; else printf "-" }')
		perfz_bps=$(awk -v b="$(size "$work/perf-$mode-z.data")" -v n="$nperf" 'BEGIN { if (n) printf "%.2f", b / n; else printf "-" }')
		ratio=$(awk -v a="$perfz_bps" -v b="$pq_bps" 'BEGIN { if (a != "-" && b > 0) printf "%.1f", a / b; else printf "-" }')
	fi
	printf '%-24s %12s %12s %12s\n' "" "pqprof" "perf" "perf -z"
	printf '%-24s %12s %12s %12s\n' "samples" "$psamples" "$nperf" "$nperf"
	printf '%-24s %12s %12s %12s\n' "bytes per sample" "$pq_bps" "$perf_bps" "$perfz_bps"
	echo "perf -z / pqprof, both $mode: ${ratio}x"
	echo "$pq_bps" >"$work/bps-$mode"
	echo "$perfz_bps" >"$work/perfz-bps-$mode"

	# Report time, interleaved so that machine noise hits both alike.
	: >"$work/t-pq"
	: >"$work/t-perf"
	i=0
	while [ $i -lt "$REPEATS" ]; do
		timed "$PQPROF" report "$work/$mode.pqt" >>"$work/t-pq"
		if [ $have_perf -eq 1 ]; then
			timed perf report --stdio --no-children -i "$work/perf-$mode-z.data" >>"$work/t-perf"
		fi
		i=$((i + 1))
	done
	pq_med=$(median <"$work/t-pq")
	if [ $have_perf -eq 1 ]; then
		perf_med=$(median <"$work/t-perf")
		echo "report time (median of $REPEATS): pqprof report $pq_med s, perf report --stdio --no-children $perf_med s" \
			"(pqprof/perf $(awk -v a="$pq_med" -v b="$perf_med" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'); target <= 1)"
	else
		echo "report time (median of $REPEATS): pqprof report $pq_med s"
	fi
}

for mode in ${PQPROF_BENCH_MODES:-dwarf fp}; do
	run_mode "$mode"
done

# The targets: a pqprof trace with DWARF call graphs at <= 2 bytes per
# sample, and >= 5x smaller than `perf record -z -g` (perf's frame-pointer
# call graphs, its smallest traces) on the same workload.
echo
if [ -f "$work/bps-dwarf" ]; then
	d=$(cat "$work/bps-dwarf")
	echo "pqprof, DWARF call graphs: $d bytes per sample (target <= 2): $(awk -v d="$d" 'BEGIN { print (d <= 2 ? "met" : "NOT met") }')"
	if [ -f "$work/perfz-bps-fp" ] && [ "$(cat "$work/perfz-bps-fp")" != "-" ]; then
		g=$(cat "$work/perfz-bps-fp")
		awk -v d="$d" -v g="$g" 'BEGIN { r = g / d; printf "perf record -z -g: %s bytes per sample, %.1fx the pqprof DWARF trace (target >= 5x): %s\n", g, r, (r >= 5 ? "met" : "NOT met") }'
	fi
fi
