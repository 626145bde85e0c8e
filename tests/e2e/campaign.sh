#!/bin/sh
# End-to-end: pqprof run on a fixture scheme (NGCC + NIST), on a set of
# misbehaving submissions (every one gets its verdict and the campaign
# completes), and a kill-and-resume run that must end with the same record
# set as an uninterrupted one.
. "$top_srcdir/tests/e2e/lib.sh"
C="$FIX/campaign"
Q="--quick --trials 2 --target 0.05 --timeout 20 --timeout kat=20"

records() {  # records DIR: the record set, without timings
	(cd "$1" && find build kat records memory sizes profile -type f -name '*.json' | sort)
	for f in "$1"/kat/*.json; do sed -n 's/.*"verdict": "\([A-Z]*\)".*/\1/p' "$f"; done
	for f in "$1"/records/*.json; do sed -n 's/^  "status": "\(.*\)".*/\1/p' "$f"; done
}

expect_rc 0 "run on the toy scheme" -- "$PQPROF" run "$C/toy.json" --out "$WORK/a" $Q
expect_grep "$WORK/out" "^Toy-96 +sign .*KAT PASS" "summary table with the KAT verdict (NIST)"
expect_grep "$WORK/out" "^Toy-NGCC-96 +verify .*KAT PASS" "summary table with the KAT verdict (NGCC)"
expect_grep "$WORK/err" "^progress done=[0-9]+ total=[0-9]+ step=bench" "machine-readable progress when not a terminal"
expect_grep "$WORK/a/campaign.json" '"status": "complete"' "campaign state complete"
for f in build/Toy-96__harness-default.json kat/Toy-96__harness-default.log records/Toy-96__harness-default__sign.json \
	memory/Toy-NGCC-96__harness-default__verify.json sizes/Toy-96__harness-default.json; do
	[ -f "$WORK/a/$f" ] && pass "record $f" || fail "missing record $f"
done

# A second run resumes: every step is already done.
expect_rc 0 "rerun resumes" -- "$PQPROF" run "$C/toy.json" --out "$WORK/a" $Q
expect_grep "$WORK/err" "units done in [0-2] s" "finished steps are skipped"
if grep -q "^progress done=" "$WORK/err"; then fail "resumed run: progress names finished steps"; grep "^progress done=" "$WORK/err" | head -3
else pass "resumed run: no progress line for finished steps"; fi

# Kill part-way through, resume, and compare with the uninterrupted run.
"$PQPROF" run "$C/toy.json" --out "$WORK/b" $Q >/dev/null 2>"$WORK/b.err" &
pid=$!
for i in $(seq 1 100); do
	grep -q "step=bench" "$WORK/b.err" 2>/dev/null && break
	sleep 0.1
done
kill -INT $pid
wait $pid 2>/dev/null
grep -q '"status": "incomplete"' "$WORK/b/campaign.json" && pass "interrupted campaign marked incomplete" ||
	fail "interrupted campaign not marked incomplete"
[ -z "$(pgrep -f "pqprof-runner .*$WORK/b/")" ] && pass "no runner left after Ctrl-C" || fail "runner children left after Ctrl-C"
expect_rc 0 "resume after Ctrl-C" -- "$PQPROF" run "$C/toy.json" --out "$WORK/b" $Q
records "$WORK/a" > "$WORK/a.set"
records "$WORK/b" > "$WORK/b.set"
if cmp -s "$WORK/a.set" "$WORK/b.set"; then pass "resumed record set equals the uninterrupted one"; else
	fail "record sets differ"; diff "$WORK/a.set" "$WORK/b.set" | head; fi

# Misbehaving submissions: each gets its verdict, the campaign completes.
expect_rc 0 "run over misbehaving submissions" -- "$PQPROF" run "$C/hostile.json" --out "$WORK/h" $Q --timeout 3 --timeout kat=3 --steps build,kat,bench
k="$WORK/h/kat"
expect_grep "$k/segv-in-sign__harness-default.json" '"verdict": "CRASH"' "segv-in-sign: CRASH"
expect_grep "$k/exit-in-keygen__harness-default.json" '"reason": "scheme called exit' "exit-in-keygen: exit named"
expect_grep "$k/endless-loop__harness-default.json" '"verdict": "TIMEOUT"' "endless-loop: TIMEOUT"
expect_grep "$k/overflow-by-one__harness-default.json" '"verdict": "OVERFLOW"' "overflow-by-one: OVERFLOW"
expect_grep "$k/mismatch__harness-default.json" '"verdict": "MISMATCH"' "mismatch: MISMATCH"
expect_grep "$k/ignore-drng__harness-default.json" 'keygen does not draw from the DRNG' "ignore-drng: deviation named"
expect_grep "$k/reject-own__harness-default.json" '"verdict": "CRYPTOFAIL"' "reject-own: CRYPTOFAIL"
expect_grep "$WORK/h/build/broken-build__harness-default.json" '"status": "failed"' "broken build recorded"
expect_grep "$WORK/out" "^broken-build +build failed: .*sign.c" "broken build in the summary"
expect_grep "$WORK/out" "^mismatch +sign .*KAT MISMATCH \(output not validated\)" "KAT failure still timed, marked not validated"
expect_grep "$WORK/h/records/segv-in-sign__harness-default__sign.json" '"kind": "CRASH"' "bench of the crashing sign recorded as a crash"
expect_grep "$WORK/h/campaign.json" '"status": "complete"' "hostile campaign completes"
# Progress names only the steps that run: those --steps selects (the
# interposition check comes with bench, unless turned off, as make check
# does), and nothing after a failed build.
per=6 skipped="mem|sizes|profile|leak"
case "${PQPROF_INTERPOSITION_CHECK:-on}" in off | 0) per=5 skipped="$skipped|interposition" ;; esac
if grep -Eq "^progress .* step=($skipped) " "$WORK/err"; then
	fail "--steps build,kat,bench: progress names steps that do not run"; grep -E "step=($skipped) " "$WORK/err" | head -3
else pass "--steps build,kat,bench: progress names only selected steps"; fi
expect_grep "$WORK/err" "^progress done=0 total=$((8 * per)) step=build " "--steps: the total counts the selected steps (8 units x $per)"
if grep -Eq "^progress .* step=(kat|bench|interposition) unit=broken-build__" "$WORK/err"; then
	fail "progress names steps of a unit whose build failed"; else pass "no progress line for the steps of a failed build"; fi
finish
