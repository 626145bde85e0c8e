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
RUNS=${RUNS:-10}
W=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-leak-rates.XXXXXX")
trap 'rm -rf "$W"' EXIT
for t in leaky constant-time; do
	"$PQPROF" build "$top_srcdir/tests/fixtures/leak/$t" -o "$W/$t.so" -q >"$W/build.out" 2>&1 ||
		{ cat "$W/build.out"; exit 1; }
done

# tally NAME ARGS...: RUNS runs, counting exit statuses 30 / 31 / 0 / other.
tally() {
	local name=$1 i rc leak=0 unsure=0 clean=0 other=0 t0 t1
	shift
	t0=$(date +%s)
	i=1
	while [ "$i" -le "$RUNS" ]; do
		"$PQPROF" leak "$@" --records "$W/rec" >"$W/out" 2>&1
		rc=$?
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
