#!/bin/sh
# End-to-end: `pqprof compare` on records the real binary wrote for the
# NIST fixture -- the same records against themselves, a TOY_ROUNDS-heavier
# build against a light one, and two counter backends whose units differ
# (which must be refused).
. "$top_srcdir/tests/e2e/lib.sh"

build_fixture "$FIX/nist-toy" "$WORK/a.so" || { finish; exit 1; }
for d in A B; do
	expect_rc 0 "bench into $d" -- "$PQPROF" bench "$WORK/a.so" --trials 3 --iters 200 --backend clock --records "$WORK/$d"
done
expect_rc 0 "mem into A" -- "$PQPROF" mem "$WORK/a.so" --records "$WORK/A"
expect_rc 0 "mem into B" -- "$PQPROF" mem "$WORK/a.so" --records "$WORK/B"
expect_rc 0 "sizes into A" -- "$PQPROF" sizes "$WORK/a.so" --records "$WORK/A"

expect_rc 0 "compare A B" -- "$PQPROF" compare "$WORK/A" "$WORK/B" --out "$WORK/cmp" --resamples 200
expect_grep "$WORK/out" '^\| instance \| operation \| unit \| A mean \| B mean \| ratio B/A \(95% interval\) \| verdict \|$' "timing table header"
expect_grep "$WORK/out" '^\| `Toy-96` \| sign \| ns \| ' "sign row in ns"
expect_grep "$WORK/out" '^\| `Toy-96` \| verify \| ' "verify row"
expect_grep "$WORK/out" 'peak RSS A' "memory table"
[ -s "$WORK/cmp/compare.md" ] && pass "compare.md written" || fail "compare.md missing"
expect_grep "$WORK/cmp/compare.json" '"schema": "pqprof.compare/1"' "compare.json schema"
expect_grep "$WORK/cmp/compare.json" '"verdict": ' "compare.json verdicts"

expect_rc 0 "compare --json" -- "$PQPROF" compare "$WORK/A" "$WORK/A" --json --resamples 200
expect_grep "$WORK/out" '"verdict": "no significant change"' "a set against itself: no significant change"

# Different units are refused, naming both.
expect_rc 0 "bench with tsc into C" -- "$PQPROF" bench "$WORK/a.so" --op sign --trials 2 --iters 50 --backend tsc --records "$WORK/C"
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
