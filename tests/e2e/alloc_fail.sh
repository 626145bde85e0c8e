#!/bin/sh
# End-to-end: pqprof runs out of memory at every allocation in turn.
# `pqprof build` and `pqprof kat` run on the nist-toy fixture with the test
# binaries tests/pqprof-allocfail and tests/pqprof-runner-allocfail, whose
# Nth allocation fails (tests/alloc_fail.c: PQPROF_FAIL_ALLOC_AT=N in
# pqprof, PQPROF_RUNNER_FAIL_ALLOC_AT=N in the runner).  Whenever the
# failure fired, the run must end with "pqprof CMD: ... out of memory" and
# exit 8 (pqprof(1), EXIT STATUS): no crash or signal, no hang, no
# sanitizer report (under ./configure --enable-sanitizers a leak is one),
# no output left behind, and no result printed as if nothing happened.
#
# make check runs a sample of the N (about 12 per sweep); make
# check-alloc-fail (PQPROF_ALLOC_FAIL_FULL=1) runs every N of kat, pqprof's
# and the runner's, and of build, and stepped sweeps of an observed build
# (a tree with a Makefile, tests/fixtures/observe/crlf-nist) and of a whole
# default kat (100 records).  PQPROF_ALLOC_FAIL_ONLY="build observe kat runner kat100" (the
# default) chooses among the sweeps.  The summary says how many N ran and how many
# distinct places in pqprof's code the failures were refused at.
. "$top_srcdir/tests/e2e/lib.sh"

BIN=$top_builddir/tests/pqprof-allocfail
RUNNER_BIN=$top_builddir/tests/pqprof-runner-allocfail
for b in "$BIN" "$RUNNER_BIN"; do
	[ -x "$b" ] || { echo "FAIL: $b not built (make $(basename "$b"))"; exit 1; }
done
# The runner, and the compiler wrapper pqprof finds beside it (an observed build).
mkdir -p "$WORK/bin"
ln -s "$RUNNER_BIN" "$WORK/bin/pqprof-runner"
ln -s "$top_builddir/pqprof-ccwrap" "$WORK/bin/pqprof-ccwrap"
PQPROF_RUNNER=$WORK/bin/pqprof-runner
export PQPROF_RUNNER
FULL=${PQPROF_ALLOC_FAIL_FULL:-}
LOG=$WORK/alloc.log
export PQPROF_ALLOC_LOG="$LOG"
chmod 755 "$WORK"   # the runner runs as another user and appends to the log
RUNS=0
: >"$WORK/sites"
: >"$WORK/messages"

fresh_log() { rm -f "$LOG"; : >"$LOG"; chmod 666 "$LOG"; }

# total WHO: the allocations WHO (pqprof, runner: the most of its processes) made in the last run.
total() { awk -v w="$1" '$1 == w && $2 == "total" && $3 > m { m = $3 } END { print m + 0 }' "$LOG"; }

# The fixture, built and judged once without failures; the counts of allocations.
fresh_log
expect_rc 0 "build with the counting allocator" -- "$BIN" build "$FIX/nist-toy" -o "$WORK/nist.so" -q
BUILD_TOTAL=$(total pqprof)
# A tree with a Makefile: its build is run and observed (instance/observe.h).
OBS_TREE=$FIX/observe/crlf-nist
fresh_log
expect_rc 0 "observed build with the counting allocator" -- "$BIN" build "$OBS_TREE" -o "$WORK/obs.so" -q
OBS_TOTAL=$(total pqprof)
# Three records of the shipped file: every allocation of a whole kat run, in seconds.
awk '/^count = 3$/ { exit } { print }' "$FIX/nist-toy/KAT/PQCsignKAT_64.rsp" >"$WORK/three.rsp"
KAT_SMALL="$WORK/nist.so --vectors $WORK/three.rsp --first 3"
fresh_log
expect_rc 0 "kat with the counting allocator" -- "$BIN" kat $KAT_SMALL --records-dir "$WORK/rec0"
KAT_TOTAL=$(total pqprof)
# The runner's own allocations: with containment off, so that it keeps the test's environment
# (PQPROF_ALLOC_LOG, PQPROF_RUNNER_FAIL_ALLOC_AT) and can append to the log outside its scratch.
fresh_log
export PQPROF_CONTAIN=off
expect_rc 0 "kat with the counting allocator (runner)" -- "$BIN" kat $KAT_SMALL --records-dir "$WORK/rec0"
unset PQPROF_CONTAIN
RUNNER_TOTAL=$(total runner)
fresh_log
expect_rc 0 "kat of the whole file with the counting allocator" -- "$BIN" kat "$WORK/nist.so" --records-dir "$WORK/rec0"
KAT_FULL_TOTAL=$(total pqprof)
echo "allocations: build $BUILD_TOTAL, observed build $OBS_TOTAL, kat $KAT_TOTAL (runner $RUNNER_TOTAL), kat of 100 records $KAT_FULL_TOTAL"
for t in "$BUILD_TOTAL" "$KAT_TOTAL" "$RUNNER_TOTAL"; do
	[ "$t" -gt 0 ] || { fail "no allocations counted: is tests/alloc_fail.c linked in?"; finish; exit; }
done

# one WHO VAR N CMD OUT ARGS...: run with allocation N of WHO failing; judge the outcome.
# OUT: what the command writes, which must not exist when it failed.
one() {
	local who=$1 var=$2 n=$3 cmd=$4 out=$5
	shift 5
	fresh_log
	rm -rf "$out"
	RUNS=$((RUNS + 1))
	env "$var=$n" timeout -k 5 120 "$BIN" "$cmd" "$@" >"$WORK/out" 2>"$WORK/err"
	local rc=$?
	local what="$cmd, $who allocation $n"
	local site
	site=$(awk -v w="$who" -v n="$n" '$1 == w && $2 == "fail" && $3 == n { print $4; exit }' "$LOG")
	if grep -Eq 'Sanitizer|runtime error:|Segmentation|Aborted|core dumped' "$WORK/err"; then
		fail "$what: sanitizer report or crash (exit $rc)"; sed 's/^/  | /' "$WORK/err" | head -30; return
	fi
	if [ "$rc" -ge 124 ]; then
		fail "$what: exit $rc (signal or time limit)"; sed 's/^/  | /' "$WORK/err" | head -10; return
	fi
	if [ -z "$site" ]; then   # this run made fewer allocations: it must have succeeded
		[ "$rc" -eq 0 ] || { fail "$what (not reached): exit $rc"; sed 's/^/  | /' "$WORK/err" | head -10; }
		return
	fi
	echo "$who $site" >>"$WORK/sites"
	if [ "$rc" -ne 8 ] || ! grep -q "^pqprof $cmd: .*out of memory" "$WORK/err"; then
		fail "$what (at $(addr2line -f -i -e "$( [ "$who" = runner ] && echo "$RUNNER_BIN" || echo "$BIN")" "$site" 2>/dev/null | tr '\n' ' ')): exit $rc, wanted 8 with 'pqprof $cmd: ... out of memory'"
		sed 's/^/  | /' "$WORK/err" | head -10; sed 's/^/  > /' "$WORK/out" | head -5
		return
	fi
	if grep -Eq '^RESULT .* PASS|^built ' "$WORK/out"; then
		fail "$what: exit 8 but a result was printed as if nothing happened"; return
	fi
	if [ -e "$out" ] && [ -n "$(find "$out" -type f 2>/dev/null)" ]; then
		fail "$what: exit 8 but $out was written"; find "$out" | sed 's/^/  | /' | head; return
	fi
	grep "^pqprof $cmd: .*out of memory" "$WORK/err" | tail -n 1 |
		sed "s|$WORK|WORK|g; s|/tmp/pqprof-[a-z]*\.[A-Za-z0-9]*|TMP|g; s/[0-9][0-9]*/N/g" >>"$WORK/messages"
}

# sweep WHO VAR TOTAL CMD OUT ARGS...: every N (full) or a sample of them;
# SWEEP_MAX_RUNS, when set, steps so that about that many run even in full.
sweep() {
	local who=$1 var=$2 tot=$3 step=1
	shift 3
	[ -n "$FULL" ] || step=$(( (tot + 11) / 12 ))
	[ -z "${SWEEP_MAX_RUNS:-}" ] || [ "$step" -ge $(( (tot + SWEEP_MAX_RUNS - 1) / SWEEP_MAX_RUNS )) ] ||
		step=$(( (tot + SWEEP_MAX_RUNS - 1) / SWEEP_MAX_RUNS ))
	local n=1 before=$FAILS
	while [ "$n" -le "$tot" ]; do
		one "$who" "$var" "$n" "$@"
		n=$((n + step))
	done
	[ "$tot" -eq 0 ] && return
	[ "$step" -eq 1 ] || one "$who" "$var" "$tot" "$@"   # the last allocation too
	[ "$FAILS" -eq "$before" ] && pass "$1 $who: every failed allocation (1..$tot, step $step) ended in exit 8"
}

ONLY=${PQPROF_ALLOC_FAIL_ONLY:-build observe kat runner kat100}   # a part of the sweeps, when looking into one
case " $ONLY " in *" build "*) ;; *) BUILD_TOTAL=0 ;; esac
case " $ONLY " in *" observe "*) ;; *) OBS_TOTAL=0 ;; esac
case " $ONLY " in *" kat "*) ;; *) KAT_TOTAL=0 ;; esac
case " $ONLY " in *" runner "*) ;; *) RUNNER_TOTAL=0 ;; esac
case " $ONLY " in *" kat100 "*) ;; *) KAT_FULL_TOTAL=0 ;; esac
sweep pqprof PQPROF_FAIL_ALLOC_AT "$BUILD_TOTAL" build "$WORK/b.so" "$FIX/nist-toy" -o "$WORK/b.so" -q
# About a second a run: every few N, so that some 120 run.
SWEEP_MAX_RUNS=120 sweep pqprof PQPROF_FAIL_ALLOC_AT "$OBS_TOTAL" build "$WORK/o.so" "$OBS_TREE" -o "$WORK/o.so" -q
sweep pqprof PQPROF_FAIL_ALLOC_AT "$KAT_TOTAL" kat "$WORK/rec" $KAT_SMALL --records-dir "$WORK/rec"
export PQPROF_CONTAIN=off
sweep runner PQPROF_RUNNER_FAIL_ALLOC_AT "$RUNNER_TOTAL" kat "$WORK/rec" $KAT_SMALL --records-dir "$WORK/rec"
unset PQPROF_CONTAIN
if [ -n "$FULL" ] && [ "$KAT_FULL_TOTAL" -gt 0 ]; then
	# A whole default kat: the same code many times over; every 13th N and the last.
	n=1
	before=$FAILS
	while [ "$n" -le "$KAT_FULL_TOTAL" ]; do
		one pqprof PQPROF_FAIL_ALLOC_AT "$n" kat "$WORK/rec" "$WORK/nist.so" --records-dir "$WORK/rec"
		n=$((n + 13))
	done
	one pqprof PQPROF_FAIL_ALLOC_AT "$KAT_FULL_TOTAL" kat "$WORK/rec" "$WORK/nist.so" --records-dir "$WORK/rec"
	[ "$FAILS" -eq "$before" ] && pass "kat of 100 records: every 13th failed allocation ended in exit 8"
fi
sort -u "$WORK/sites" >"$WORK/sites.u"
echo "alloc_fail: $RUNS runs, $(wc -l <"$WORK/sites") with the failure reached; refused at" \
	"$(grep -c '^pqprof' "$WORK/sites.u") distinct places in pqprof and $(grep -c '^runner' "$WORK/sites.u") in the runner;" \
	"$(sort -u "$WORK/messages" | wc -l) distinct messages"
finish
