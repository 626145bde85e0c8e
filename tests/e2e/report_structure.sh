#!/bin/sh
# End-to-end: `pqprof compare` on records the real binary wrote for the
# NIST fixture -- the same records against themselves, a TOY_ROUNDS-heavier
# build against a light one, and two counter backends whose units differ
# (which must be refused).
. "$top_srcdir/tests/e2e/lib.sh"

build_fixture "$FIX/nist-toy" "$WORK/a.so" || { finish; exit 1; }
for d in A B; do
	expect_rc 0 "bench into $d" -- "$PQPROF" bench "$WORK/a.so" --trials 3 --iters 200 --backend clock --records-dir "$WORK/$d"
done
expect_rc 0 "mem into A" -- "$PQPROF" mem "$WORK/a.so" --records-dir "$WORK/A"
expect_rc 0 "mem into B" -- "$PQPROF" mem "$WORK/a.so" --records-dir "$WORK/B"
expect_rc 0 "sizes into A" -- "$PQPROF" sizes "$WORK/a.so" --records-dir "$WORK/A"

expect_rc 0 "compare A B" -- "$PQPROF" compare "$WORK/A" "$WORK/B" --out "$WORK/cmp" --resamples 200
expect_grep "$WORK/out" '^\| instance \| operation \| measure \| A median \| B median \| ratio B/A \(95% interval\) \| runs \| verdict \|$' "timing table header"
expect_grep "$WORK/out" '^\| `Toy-96` \| sign \| CPU ns \| ' "sign row measured in CPU ns (the clock backend is a wall clock)"
expect_grep "$WORK/out" '^\| `Toy-96` \| verify \| ' "verify row"
expect_grep "$WORK/out" 'peak RSS A' "memory table"
[ -s "$WORK/cmp/compare.md" ] && pass "compare.md written" || fail "compare.md missing"
expect_grep "$WORK/cmp/compare.json" '"schema": "pqprof.compare/1"' "compare.json schema"
expect_grep "$WORK/cmp/compare.json" '"verdict": ' "compare.json verdicts"

expect_rc 0 "compare --json" -- "$PQPROF" compare "$WORK/A" "$WORK/A" --json --resamples 200
expect_grep "$WORK/out" '"verdict": "no significant change"' "a set against itself: no significant change"

# Two separate bench runs of one library: never reported as a difference,
# and said to be separate runs, resampled by trial.  Separate runs count
# only beyond --separate-factor (default 1.25 for CPU time); on a shared
# machine under a parallel sanitizer build two runs seconds apart can drift
# further than that, so the factor here is what noise cannot reach.
expect_rc 0 "compare separate runs --json" -- "$PQPROF" compare "$WORK/A" "$WORK/B" --json --resamples 200 --separate-factor 5
expect_grep "$WORK/out" '"runs": "separate"' "separate runs are recognised"
expect_grep "$WORK/out" '"resampled": "trials"' "trials are what is resampled"
if grep -q '"verdict": "faster"\|"verdict": "slower"' "$WORK/out"; then
	fail "the same library in two runs was reported as different"
else
	pass "the same library in two runs is not reported as different"
fi
expect_grep "$WORK/A/Toy-96__sign.json" '"host": ' "bench records say which host"
# An A/A arm given by hand adds its ratio to every row.
expect_rc 0 "compare --aa" -- "$PQPROF" compare "$WORK/A" "$WORK/B" --aa "$WORK/A" --resamples 200
expect_grep "$WORK/out" '\| A/A \(95% interval\) \|$' "A/A column"
expect_grep "$WORK/out" '^- A/A \(a second copy of A\): ' "A/A set named"
# Records from another host are not comparable: a ratio, no verdict.
mkdir -p "$WORK/D"
for f in "$WORK/B"/*.json; do
	sed 's/"host": "[^"]*"/"host": "elsewhere-host"/' "$f" >"$WORK/D/$(basename "$f")"
done
expect_rc 0 "compare with another host" -- "$PQPROF" compare "$WORK/A" "$WORK/D" --resamples 200
expect_grep "$WORK/out" '\| not comparable \|' "another host: not comparable"
expect_grep "$WORK/out" 'host differs \(.* vs elsewhere-host\)' "the reason names both hosts"
expect_rc 1 "compare --separate-factor below 1" -- "$PQPROF" compare "$WORK/A" "$WORK/B" --separate-factor 0.5
expect_rc 2 "compare --aa missing directory" -- "$PQPROF" compare "$WORK/A" "$WORK/B" --aa "$WORK/nonexistent"
expect_grep "$WORK/err" "nonexistent" "a missing A/A directory is named"

# Different units are refused, naming both.
expect_rc 0 "bench with tsc into C" -- "$PQPROF" bench "$WORK/a.so" --op sign --trials 2 --iters 50 --backend tsc --records-dir "$WORK/C"
if grep -q '"unit": "TSC ticks"' "$WORK/C"/*__sign.json 2>/dev/null; then
	expect_rc 2 "compare ns with TSC ticks is refused" -- "$PQPROF" compare "$WORK/A" "$WORK/C"
	expect_grep "$WORK/err" "A counts ns, B counts TSC ticks" "unit mismatch message names both units"
else
	pass "no TSC on this machine: unit mismatch check skipped"
fi

# Bad input names the file.
mkdir -p "$WORK/bad" && printf '{"schema": ' >"$WORK/bad/x__sign.json"
expect_rc 2 "compare with invalid JSON" -- "$PQPROF" compare "$WORK/A" "$WORK/bad"
expect_grep "$WORK/err" "x__sign.json: invalid JSON" "invalid JSON names the file"
expect_rc 1 "compare with one argument" -- "$PQPROF" compare "$WORK/A"
finish
