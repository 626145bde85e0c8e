#!/bin/sh
# leak_rates: how reliably `pqprof leak` tells the leak fixtures apart on
# this machine, at the default time budget and floor, while a `make -j2`
# build loads the machine.  Runs the leaky fixture's sign RUNS times
# (default 20) and the constant-time fixture's every operation RUNS times,
# and prints per operation how often each verdict came out, with the
# largest |t| of any class pair and of any A/A control, and the load.
# Targets: the leaky fixture "leak likely" in at least 19 of 20 runs (95%);
# the constant-time fixture "leak likely" in 0 runs for every operation.
# Exits 1 when a target is missed.
#   RUNS=N   runs per fixture (default 20)
#   LOAD=0   no background build (default 1: make -j2 of a copy of pqprof, over and over)
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
# The fixtures share sources outside their own trees: let them resolve anywhere in the source tree.
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
RUNS=${RUNS:-20}
LOAD=${LOAD:-1}
W=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-leak-rates.XXXXXX")
LOADPID=
cleanup() {
	if [ -n "$LOADPID" ]; then
		kids=$(pgrep -P "$LOADPID" 2>/dev/null)
		kill "$LOADPID" 2>/dev/null
		[ -n "$kids" ] && kill $kids 2>/dev/null
		wait "$LOADPID" 2>/dev/null
		sleep 1
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
for t in leaky constant-time; do
	"$PQPROF" build "$top_srcdir/tests/fixtures/leak/$t" -o "$W/$t.so" -q >"$W/build.out" 2>&1 ||
		{ cat "$W/build.out"; exit 1; }
done

# The load: a copy of pqprof's sources configured once, then built with
# make -j2 and cleaned, over and over, until the runs are done.
start_load() {
	mkdir -p "$W/load"
	(cd "$top_srcdir" && tar -cf - configure.ac Makefile.am m4 src tests/*.mk tests/*.c doc kat schemes \
		README.md 2>/dev/null) | (cd "$W/load" && tar -xf -) || return 1
	(cd "$W/load" && autoreconf -fi && ./configure) >"$W/load.log" 2>&1 || {
		echo "(no load: configuring the copy failed, see below)"; tail -5 "$W/load.log"; return 1; }
	(
		cd "$W/load" || exit 1
		while :; do
			make -j2 >/dev/null 2>&1
			make clean >/dev/null 2>&1
		done
	) &
	LOADPID=$!
	sleep 10  # let the build get going
}

JGET=$top_builddir/tests/profile_jget
# largest KEY: the largest value of pairs[k].KEY over the records of the last run, into MAX_<KEY>.
largest() {
	local key=$1 f n k v cur
	[ -x "$JGET" ] || return 0
	eval "cur=\$MAX_$2"
	for f in "$W"/rec/*.json; do
		n=$("$JGET" "$f" 'pairs#' 2>/dev/null) || continue
		k=0
		while [ "$k" -lt "$n" ]; do
			v=$("$JGET" "$f" "pairs[$k].$key" 2>/dev/null)
			[ -n "$v" ] && awk -v a="$v" -v b="$cur" 'BEGIN { exit !(a > b) }' && cur=$v
			k=$((k + 1))
		done
	done
	eval "MAX_$2=\$cur"
}

# tally NAME ARGS...: RUNS runs; per operation, the count of each verdict.
tally() {
	local name=$1 i rc t0 t1 errors=0
	shift
	t0=$(date +%s)
	MAX_t=0
	MAX_c=0
	: >"$W/ops"
	: >"$W/pairs"
	i=1
	while [ "$i" -le "$RUNS" ]; do
		rm -rf "$W/rec"
		"$PQPROF" leak "$@" --records-dir "$W/rec" >"$W/out" 2>&1
		rc=$?
		case $rc in
		0 | 30 | 31) ;;
		*) errors=$((errors + 1)); sed 's/^/  | /' "$W/out" ;;
		esac
		largest max_abs_t t
		largest control.max_abs_t c
		# "CT-Toy keygen: no leak detected" -> "keygen no leak detected"
		sed -n 's/^[^ ].* \([a-z]*\): \(leak likely\|inconclusive\|no leak detected\|no leak above the floor\)$/\1 \2/p' \
			"$W/out" >>"$W/ops"
		grep '^  ' "$W/out" | grep -Eo ': (leak likely|no leak detected|no leak above the floor|inconclusive \([^;]*\))' |
			sed -e 's/^: //' -e 's/ at [0-9]* measurements/ at N measurements/g' -e 's/from [0-9]* measurements/from N measurements/' \
				-e 's/reached [0-9.]*/reached X/' -e 's/above [0-9.]*)/above T)/' -e 's/[0-9][0-9]*%/P%/g' >>"$W/pairs"
		i=$((i + 1))
	done
	t1=$(date +%s)
	echo "$name: $RUNS runs in $((t1 - t0)) s, load average now $(cut -d' ' -f1-3 /proc/loadavg), $errors errors"
	for op in $(cut -d' ' -f1 "$W/ops" | sort -u); do
		printf '  %-7s leak likely %2d/%d  inconclusive %2d  no leak above the floor %2d  no leak detected %2d\n' "$op" \
			"$(grep -c "^$op leak likely$" "$W/ops")" "$RUNS" "$(grep -c "^$op inconclusive$" "$W/ops")" \
			"$(grep -c "^$op no leak above the floor$" "$W/ops")" "$(grep -c "^$op no leak detected$" "$W/ops")"
	done
	echo "  largest final |t| of any class pair: $MAX_t; largest |t| of any A/A control: $MAX_c"
	echo "  verdicts of the class pairs:"
	sort "$W/pairs" | uniq -c | sed 's/^/  /'
}

if [ "$LOAD" = 1 ]; then
	start_load && echo "load: make -j2 of a copy of pqprof, rebuilt over and over (pid $LOADPID)"
fi
echo "pqprof leak, default time budget and floor, $RUNS runs each ($(nproc) CPUs)"
tally "leaky fixture, sign" "$W/leaky.so" --op sign
leaky=$(grep -c '^sign leak likely$' "$W/ops")
tally "constant-time fixture, every operation" "$W/constant-time.so"
status=0
need=$(((RUNS * 19 + 19) / 20))
if [ "$leaky" -ge "$need" ]; then echo "leaky detection rate: $leaky/$RUNS (target >= $need): ok"; else
	echo "leaky detection rate: $leaky/$RUNS (target >= $need): MISSED"; status=1; fi
for op in $(cut -d' ' -f1 "$W/ops" | sort -u); do
	fp=$(grep -c "^$op leak likely$" "$W/ops")
	if [ "$fp" -eq 0 ]; then echo "constant-time $op false positives: 0/$RUNS: ok"; else
		echo "constant-time $op false positives: $fp/$RUNS: MISSED"; status=1; fi
done
exit $status
