#!/bin/sh
# bench_profile_vs_perf: pqprof's sampling profiler against Linux perf on
# the same workload (SPHINCS+-shake-128f sign) at the same rate and event:
#   - top functions by self share, side by side (pqprof profile vs
#     perf record -e cpu-clock / perf report --stdio), fp and dwarf;
#   - bytes per sample of the .pqt trace vs perf.data (plain and -z);
#   - time to analyse (pqprof report vs perf report --stdio), as a ratio;
#   - exact calls per op from uprobes vs the known loop count of the hot90
#     fixture.
# Figures for people to read, not a pass/fail test.  perf samples the
# whole runner child (set-up included, where pqprof samples only the
# calls), and perf report charges inlined helpers to the function they
# were inlined into where pqprof charges the helper (store64_le inside
# spx_shake256_short3), so small differences are expected.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
# The fixtures link to each other (../toy): let links resolve anywhere in the source tree.
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
JGET=$top_builddir/tests/profile_jget
FREQ=${PQPROF_BENCH_FREQ:-1999}
SAMPLES=${PQPROF_BENCH_SAMPLES:-4000}
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-vsperf.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x "$JGET" ] || make -C "$top_builddir" tests/profile_jget >/dev/null
have_perf=1
command -v perf >/dev/null 2>&1 && perf record -q -o "$work/probe.data" -e cpu-clock -- true >/dev/null 2>&1 || have_perf=0

now() { date +%s.%N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
size() { wc -c <"$1" | tr -d ' '; }

"$PQPROF" build "$top_srcdir/schemes/sphincsplus/nist" -o "$work/spx.so" -D PARAMS=sphincs-shake-128f -q >/dev/null
echo "workload: SPHINCS+-shake-128f-simple sign, event cpu-clock, $FREQ Hz, about $SAMPLES samples"
[ $have_perf -eq 1 ] || echo "perf is not usable here: perf columns left out"

for mode in fp dwarf; do
	echo
	echo "-- call graph $mode --"
	"$PQPROF" profile "$work/spx.so" --op sign --event cpu-clock --freq "$FREQ" --call-graph $mode \
		--min-samples "$SAMPLES" --no-counts --no-report -q -o "$work/$mode.pqt" --record "$work/$mode.json" >/dev/null
	ops=$("$JGET" "$work/$mode.json" ops)
	psamples=$("$JGET" "$work/$mode.json" trace_samples)
	t0=$(now)
	"$PQPROF" report "$work/$mode.pqt" >/dev/null
	t1=$(now)
	pq_report_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	pq_bps=$(awk -v b="$(size "$work/$mode.pqt")" -v n="$psamples" 'BEGIN { printf "%.1f", b / n }')

	if [ $have_perf -eq 1 ]; then
		# The same number of signs as pqprof sampled, in one bench child.
		g="-g"
		[ $mode = dwarf ] && g="--call-graph dwarf,16384"
		for z in plain z; do
			zf=""
			[ $z = z ] && zf="-z"
			# shellcheck disable=SC2086
			perf record -q $zf -F "$FREQ" -e cpu-clock $g -o "$work/$mode-$z.data" -- \
				"$PQPROF" bench "$work/spx.so" --op sign --trials 1 --iters "$ops" --records-dir "" >/dev/null 2>&1
		done
		t0=$(now)
		perf report --stdio -i "$work/$mode-plain.data" >/dev/null 2>&1
		t1=$(now)
		perf_report_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		perf report --stdio -i "$work/$mode-plain.data" --comm pqprof-runner --no-children -g none \
			--percentage relative --sort sym -q 2>/dev/null >"$work/$mode-perf.txt" || true
		nperf=$(perf script -i "$work/$mode-plain.data" -F tid 2>/dev/null | grep -c . || true)
		perf_bps=$(awk -v b="$(size "$work/$mode-plain.data")" -v n="$nperf" 'BEGIN { if (n) printf "%.1f", b / n; else printf "-" }')
		perfz_bps=$(awk -v b="$(size "$work/$mode-z.data")" -v n="$nperf" 'BEGIN { if (n) printf "%.1f", b / n; else printf "-" }')
	fi

	printf '  %-34s %10s %10s\n' "function (self share)" pqprof perf
	i=0
	while [ $i -lt 8 ]; do
		name=$("$JGET" "$work/$mode.json" "functions[$i].name" 2>/dev/null) || break
		share=$("$JGET" "$work/$mode.json" "functions[$i].self_share")
		ps="-"
		if [ $have_perf -eq 1 ]; then
			ps=$(awk -v f="$name" '$NF == f { sub("%", "", $1); print $1 "%"; exit }' "$work/$mode-perf.txt")
			[ -n "$ps" ] || ps="-"
		fi
		printf '  %-34s %9.2f%% %10s\n' "$name" "$(awk -v s="$share" 'BEGIN { print 100 * s }')" "$ps"
		i=$((i + 1))
	done
	echo "  samples: pqprof $psamples in $ops signs${nperf:+, perf $nperf (whole child, set-up included)}"
	echo "  bytes per sample: .pqt $pq_bps${perf_bps:+, perf.data $perf_bps (ratio $(ratio "$perf_bps" "$pq_bps")), perf.data -z $perfz_bps (ratio $(ratio "$perfz_bps" "$pq_bps"))}"
	echo "  time to analyse: pqprof report ${pq_report_s} s${perf_report_s:+, perf report --stdio ${perf_report_s} s (ratio perf/pqprof $(ratio "$perf_report_s" "$pq_report_s"))}"
done

echo
echo "-- exact calls per op (uprobes) against a known loop count --"
cc=${CC:-cc}
mkdir -p "$work/lib2"
"$cc" -O2 -g -shared -fPIC -o "$work/lib2/libhot2.so" "$top_srcdir/tests/fixtures/profile/hot90-lib2/lib2.c"
"$PQPROF" build "$top_srcdir/tests/fixtures/profile/hot90" -o "$work/hot90.so" -q \
	--ldflags "-L$work/lib2 -lhot2 -Wl,-rpath,$work/lib2" >/dev/null
"$PQPROF" profile "$work/hot90.so" --op sign --count hot90_counted --count hot90_heavy --count-iters 5 \
	--min-samples 200 --no-report -q -o "$work/hot90.pqt" --record "$work/hot90.json" >/dev/null
if [ "$("$JGET" "$work/hot90.json" calls.available)" = true ]; then
	echo "  hot90_counted: $("$JGET" "$work/hot90.json" 'calls.functions[name=hot90_counted].calls_per_op') calls per sign (loop count 37)"
	echo "  hot90_heavy:   $("$JGET" "$work/hot90.json" 'calls.functions[name=hot90_heavy].calls_per_op') calls per sign (called once)"
else
	echo "  counts unavailable: $("$JGET" "$work/hot90.json" calls.reason)"
fi
