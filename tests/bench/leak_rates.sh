#!/bin/sh
# leak_rates: how reliably `pqprof leak` tells the leak fixtures apart on
# this machine, with the default time budget.  Runs the leaky fixture's
# sign RUNS times (default 10) and the constant-time fixture (all its
# operations) RUNS times, and prints how often each was reported "leak
# likely", "inconclusive" or "no leak detected", with the load average.
# Targets: leaky >= 9 of 10 "leak likely"; constant-time 0 "leak likely".
# Exits 1 when a target is missed.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
# The fixtures share sources outside their own trees: let them resolve anywhere in the source tree.
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
RUNS=${RUNS:-10}
W=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-leak-rates.XXXXXX")
trap 'rm -rf "$W"' EXIT
for t in leaky constant-time; do
	"$PQPROF" build "$top_srcdir/tests/fixtures/leak/$t" -o "$W/$t.so" -q >"$W/build.out" 2>&1 ||
		{ cat "$W/build.out"; exit 1; }
done

JGET=$top_builddir/tests/profile_jget
# largest_t: the largest final |t| of any pair in the records of the last run.
largest_t() {
	local f n k v
	[ -x "$JGET" ] || return 0
	for f in "$W"/rec/*.json; do
		n=$("$JGET" "$f" 'pairs#' 2>/dev/null) || continue
		k=0
		while [ "$k" -lt "$n" ]; do
			v=$("$JGET" "$f" "pairs[$k].max_abs_t" 2>/dev/null)
			[ -n "$v" ] && awk -v a="$v" -v b="$MAXT" 'BEGIN { exit !(a > b) }' && MAXT=$v
			k=$((k + 1))
		done
	done
}

# tally NAME ARGS...: RUNS runs, counting exit statuses 30 / 31 / 0 / other.
tally() {
	local name=$1 i rc leak=0 unsure=0 clean=0 other=0 t0 t1
	shift
	t0=$(date +%s)
	MAXT=0
	: >"$W/verdicts"
	i=1
	while [ "$i" -le "$RUNS" ]; do
		rm -rf "$W/rec"
		"$PQPROF" leak "$@" --records "$W/rec" >"$W/out" 2>&1
		rc=$?
		largest_t
		grep '^  ' "$W/out" | grep -Eo ': (leak likely|no leak detected|inconclusive \((machine too noisy: (\|t\| reached|the measuring process|[0-9]+% of measurements)|too few))' |
			sed -e 's/^: //' -e 's/the measuring process$/the CPU share was too low/' \
				-e 's/|t| reached$/|t| crossed 4.5 and fell back/' -e 's/% of measurements$/ dropped calls/' -e '/^inconclusive/s/$/)/' >>"$W/verdicts"
		case $rc in
		30) leak=$((leak + 1)) ;;
		31) unsure=$((unsure + 1)) ;;
		0) clean=$((clean + 1)) ;;
		*) other=$((other + 1)); sed 's/^/  | /' "$W/out" ;;
		esac
		i=$((i + 1))
	done
	t1=$(date +%s)
	printf '%-34s leak likely %2d/%d  inconclusive %2d  no leak detected %2d  errors %d  (%d s, load %s)\n' \
		"$name" "$leak" "$RUNS" "$unsure" "$clean" "$other" $((t1 - t0)) "$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "  largest final |t| of any class pair in any run: $MAXT; verdicts of the class pairs:"
	sort "$W/verdicts" | uniq -c | sed 's/^/  /'
	LAST_LEAK=$leak
}

echo "pqprof leak, default time budget, $RUNS runs each ($(nproc) CPUs)"
tally "leaky fixture, sign" "$W/leaky.so" --op sign
leaky=$LAST_LEAK
tally "constant-time fixture, all ops" "$W/constant-time.so"
ct=$LAST_LEAK
status=0
need=$(((RUNS * 9 + 9) / 10))
if [ "$leaky" -ge "$need" ]; then echo "leaky detection rate: $leaky/$RUNS (target >= $need): ok"; else
	echo "leaky detection rate: $leaky/$RUNS (target >= $need): MISSED"; status=1; fi
if [ "$ct" -eq 0 ]; then echo "constant-time false positives: 0/$RUNS: ok"; else
	echo "constant-time false positives: $ct/$RUNS: MISSED"; status=1; fi
exit $status
