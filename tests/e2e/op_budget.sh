#!/bin/sh
# End-to-end: operations of seconds under a per-operation budget.  The toy
# scheme is built slow (TOY_ROUNDS large: tens of ms per call, standing in
# for seconds); with --budget the calibration gives fewer calls per
# trial (and fewer trials when one call per trial does not fit), the
# record says what n was planned and reached, and the report's n column
# reads "n (trials × iters)" with a note on the budget.
. "$top_srcdir/tests/e2e/lib.sh"
JGET="$top_builddir/tests/profile_jget"

build_fixture "$FIX/ngcc-toy" "$WORK/slow.so" -D TOY_ROUNDS=3000000 || { finish; exit 1; }

# A budget below one call: one trial of one call.
expect_rc 0 "bench under a budget smaller than a call" -- "$PQPROF" bench "$WORK/slow.so" --op keygen \
	--budget 0.001 --records-dir "$WORK/r1"
expect_grep "$WORK/out" "keygen .* 1 \(1 x 1\)" "n is 1 (1 x 1)"
R="$WORK/r1/Toy-NGCC-96__keygen.json"
[ "$("$JGET" "$R" calibration.budget_limited)" = true ] && pass "record: budget_limited" || fail "record lacks budget_limited"
[ "$("$JGET" "$R" calibration.n_planned)" = 1 ] && pass "record: n_planned 1" || fail "n_planned is not 1"
[ "$("$JGET" "$R" summary.n)" = 1 ] && pass "record: n reached 1" || fail "summary.n is not 1"

# A budget of a few calls: trials x iterations x one call fits it.
expect_rc 0 "bench under a budget of a few calls" -- "$PQPROF" bench "$WORK/slow.so" --op keygen \
	--budget 0.5 --records-dir "$WORK/r2"
R="$WORK/r2/Toy-NGCC-96__keygen.json"
planned=$("$JGET" "$R" calibration.n_planned)
call_ns=$("$JGET" "$R" calibration.call_ns)
fits=$(awk -v n="$planned" -v c="$call_ns" 'BEGIN { print (n >= 1 && n * c <= 0.5e9) ? "yes" : "no" }')
[ "$fits" = yes ] && pass "planned calls fit the budget ($planned x $call_ns ns)" || fail "$planned calls of $call_ns ns exceed 0.5 s"
n=$("$JGET" "$R" summary.n); t=$("$JGET" "$R" summary.trials); i=$("$JGET" "$R" summary.iters)
[ "$n" -eq $((t * i)) ] && pass "n = trials x iters ($n = $t x $i)" || fail "n $n is not $t x $i"
expect_grep "$WORK/out" "keygen .* $n \($t x $i\)" "the table's n column"

# The size sampling under a budget: two runs at least, then no more once it is spent.
expect_rc 0 "sizes under a budget" -- "$PQPROF" sizes "$WORK/slow.so" --budget 0.001 --records-dir "$WORK/s1"
expect_grep "$WORK/out" "over 2 of 20 runs: the 0.001 s budget ran out" "sizes says how many runs the budget allowed"
R=$(ls "$WORK"/s1/*.json | head -n 1)
[ "$("$JGET" "$R" runs)" = 2 ] && [ "$("$JGET" "$R" runs_planned)" = 20 ] && pass "record: 2 of 20 runs" ||
	fail "record: runs $("$JGET" "$R" runs) of $("$JGET" "$R" runs_planned)"

# A campaign with --budget op=S: the report's n column and its note; the size sampling keeps to the budget too.
expect_rc 0 "campaign with --budget op=S" -- "$PQPROF" run "$WORK/slow.so" --steps build,bench,sizes,report --budget op=0.2 \
	--quick --out "$WORK/c"
expect_grep "$WORK/c/report.md" "\| [0-9]+ \([0-9]+ × [0-9]+\) \|$" "report n column reads n (trials × iters)"
expect_grep "$WORK/c/report.md" "Each operation had a budget of 0.2 s for all its trials" "report names the budget"
R=$(ls "$WORK"/c/sizes/*.json | head -n 1)
runs=$("$JGET" "$R" runs)
[ "$("$JGET" "$R" budget_s)" = 0.2 ] && [ -n "$runs" ] && [ "$runs" -lt 20 ] &&
	pass "sizes record: $runs runs within the 0.2 s budget" || fail "sizes record: runs '$runs', budget '$("$JGET" "$R" budget_s)'"
finish
