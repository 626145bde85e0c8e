#!/bin/sh
# End-to-end: `pqprof leak` on the two leak fixtures.  The leaky one
# (secret-dependent loop count in sign) must be reported "leak likely"
# within the default time budget; the constant-time one must never be,
# whatever the load of the machine or its CPU ("no leak detected", "no
# leak above the floor" or "inconclusive"): only these verdicts hold on
# any x86 machine.  Each verdict gives the effect with its 95% interval,
# the floor and the A/A control's largest |t|, and names what was
# compared, the counter and the contention evidence; the record holds the
# t trace and the control's, and a |t| plot is written.
# Detection and false-positive rates over 20 runs each, under load:
# tests/bench/leak_rates.sh.
. "$top_srcdir/tests/e2e/lib.sh"

L="$FIX/leak"
build_fixture "$L/leaky" "$WORK/leaky.so" || { finish; exit 1; }
build_fixture "$L/constant-time" "$WORK/ct.so" || { finish; exit 1; }

# Two runs of each, sign only, default budget.
for run in 1 2; do
	"$PQPROF" leak "$WORK/leaky.so" --op sign --records-dir "$WORK/leaky$run" >"$WORK/leaky$run.out" 2>"$WORK/leaky$run.err"
	rc=$?
	if [ "$rc" -eq 30 ]; then pass "leaky run $run: exit 30 (leak likely)"; else
		fail "leaky run $run: exit $rc, wanted 30"; cat "$WORK/leaky$run.out" "$WORK/leaky$run.err"; fi
	expect_grep "$WORK/leaky$run.out" '^Leaky-Toy sign: leak likely$' "leaky run $run: operation verdict"
	expect_grep "$WORK/leaky$run.out" \
		'fixed-vs-random-key: leak likely \(\|t\| > [0-9]+\.[0-9], at [0-9]+ measurements, crop [a-z0-9.-]+\); effect \(fixed minus random, [a-z0-9., -]+\): [-+][0-9.]+ [A-Za-z ]+ \(95% interval [-+][0-9.]+ to [-+][0-9.]+\)[^;]*; floor [0-9.e+]+ .*; A/A control.s largest \|t\| [0-9.]+; compared: sign with a fixed vs a random secret key' \
		"leaky run $run: the secret-key pair leaks, with N and the crop"
	expect_grep "$WORK/leaky$run.out" 'counter: (perf-rdpmc|perf-read|tsc|clock) .*; contention: [0-9]+ involuntary context switches .*CPU [0-9]+% of wall time, load average' \
		"leaky run $run: counter and contention evidence named"

	"$PQPROF" leak "$WORK/ct.so" --op sign --records-dir "$WORK/ct$run" >"$WORK/ct$run.out" 2>"$WORK/ct$run.err"
	rc=$?
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 31 ]; then pass "constant-time run $run: exit $rc (no leak reported)"; else
		fail "constant-time run $run: exit $rc, wanted 0 or 31"; cat "$WORK/ct$run.out" "$WORK/ct$run.err"; fi
	if grep -q "leak likely" "$WORK/ct$run.out"; then
		fail "constant-time run $run: reported as leaking"; cat "$WORK/ct$run.out"
	else
		pass "constant-time run $run: never 'leak likely'"
	fi
	expect_grep "$WORK/ct$run.out" \
		'fixed-vs-random-key: (no leak detected after [0-9]+ measurements \(max \|t\| = [0-9.]+\)|no leak above the floor \(\|t\| > [0-9.]+ from [0-9]+ measurements, crop [a-z0-9.-]+, but the whole difference lies within the floor of [0-9.e+]+ [A-Za-z ]+\)|inconclusive \(machine too noisy: .*\)|inconclusive \(too few measurements: .*\)|inconclusive \(\|t\| > .* may lie on either side of the floor .*\)); effect ' \
		"constant-time run $run: verdict in the documented words"
	# The verdict line gives the effect with its interval (counter units and ns), the floor and the control.
	expect_grep "$WORK/ct$run.out" \
		'fixed-vs-random-key: [^;]*; effect \((fixed minus random), (uncropped|p[0-9.]+|RMS deviation, second order)\): [-+][0-9.]+ [A-Za-z ]+ \(95% interval [-+][0-9.]+ to [-+][0-9.]+\), (about )?[-+][0-9.]+ ns \([-+][0-9.]+ to [-+][0-9.]+\); floor [0-9.e+]+ [A-Za-z ]+ \(the larger of 1 [A-Za-z ]+ and 0\.05% of the mean, [0-9.]+\); A/A control.s largest \|t\| [0-9.]+; compared: ' \
		"constant-time run $run: effect with interval, floor and the A/A control's largest |t|"
done

# The record: schema, verdict, the t trace per pair, and the plot.
R="$WORK/leaky1/Leaky-Toy__sign.json"
J="$top_builddir/tests/profile_jget"
jv() { "$J" "$R" "$1" 2>/dev/null; }
[ "$(jv schema)" = pqprof.leak/1 ] && [ "$(jv op)" = sign ] && [ "$(jv status)" = complete ] &&
	[ "$(jv verdict)" = "leak likely" ] && pass "record: schema, op, status, verdict" ||
	fail "record $R: schema/op/status/verdict"
[ "$(jv 'pairs[0].classes')" = fixed-vs-random-key ] && [ "$(jv 'pairs[1].classes')" = fixed-vs-random-message ] &&
	[ "$(jv 'pairs[0].verdict')" = "leak likely" ] && pass "record: both sign pairs, the key pair leaking" ||
	fail "record: pairs"
npts=$(jv 'pairs[0].trace#')
ntests=$(jv 'pairs[0].tests#')
expect_between "$npts" 3 257 "record: t trace points of the key pair"
[ "$(jv "pairs[0].trace[$((npts - 1))].t#")" = "$ntests" ] && pass "record: one t per test at each point" ||
	fail "record: trace point has $(jv "pairs[0].trace[$((npts - 1))].t#") values for $ntests tests"
[ "$(jv "pairs[0].trace[$((npts - 1))].n")" = "$(jv 'pairs[0].measurements')" ] &&
	pass "record: the last point is at the final measurement count" || fail "record: last trace point"
[ -n "$(jv 'pairs[0].counter.backend')" ] && [ -n "$(jv 'pairs[0].contention.wall_s')" ] &&
	[ -n "$(jv 'pairs[0].deciding_test')" ] && [ -n "$(jv 'pairs[0].at_measurements')" ] &&
	pass "record: counter, contention, deciding test and N" || fail "record: evidence fields"
# The A/A control: its own t trace at the pair's points, its largest |t| the threshold's floor.
cpts=$(jv 'pairs[0].control.trace#')
[ "$cpts" = "$npts" ] && [ "$(jv "pairs[0].control.trace[$((cpts - 1))].t#")" = "$ntests" ] &&
	[ "$(jv 'pairs[0].control.classes')" = random-vs-random ] && [ -n "$(jv 'pairs[0].control.max_abs_t')" ] &&
	pass "record: the A/A control's trace, at every point of the pair's" || fail "record: control trace ($cpts points of $npts)"
thr=$(jv 'pairs[0].threshold')
cmax=$(jv 'pairs[0].control.max_abs_t')
awk -v t="$thr" -v c="$cmax" 'BEGIN { exit !(t >= 4.5 && t >= c) }' &&
	pass "record: threshold $thr is 4.5 or the control's largest |t| ($cmax)" || fail "record: threshold $thr, control $cmax"
# Practical significance: the leaky pair's whole interval lies beyond the floor.
lo=$(jv 'pairs[0].effect.low'); hi=$(jv 'pairs[0].effect.high'); fl=$(jv 'pairs[0].floor.units')
awk -v l="$lo" -v h="$hi" -v f="$fl" 'BEGIN { exit !((l > f) || (h < -f)) }' &&
	pass "record: effect ($lo to $hi) beyond the floor ($fl)" || fail "record: effect ($lo to $hi), floor $fl"
[ -n "$(jv 'pairs[0].effect.ns')" ] &&
	awk -v u="$(jv 'pairs[0].floor.floor_units')" -v s="$(jv 'pairs[0].floor.floor_share')" 'BEGIN { exit !(u == 1 && s == 0.0005) }' && pass "record: effect in ns, the default floor" ||
	fail "record: effect.ns '$(jv 'pairs[0].effect.ns')', floor $(jv 'pairs[0].floor.floor_units') / $(jv 'pairs[0].floor.floor_share')"
expect_grep "$WORK/leaky1/Leaky-Toy__sign.svg" '^<svg .*</svg>$|polyline' "|t| plot written"
expect_grep "$WORK/leaky1/Leaky-Toy__sign.svg" 'A/A controls' "|t| plot shows the A/A controls"

# All operations of the constant-time instance, shorter budget: none leaks.
"$PQPROF" leak "$WORK/ct.so" --budget 2 --records-dir "$WORK/ctall" >"$WORK/ctall.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 31 ] && pass "constant-time, all operations: exit $rc" ||
	{ fail "constant-time, all operations: exit $rc"; cat "$WORK/ctall.out"; }
for op in keygen sign verify; do
	expect_grep "$WORK/ctall.out" "^CT-Toy $op: (no leak detected|no leak above the floor|inconclusive)$" \
		"constant-time $op verdict"
done

# The campaign step: off by default, on through the descriptor's "leak" key;
# the report gains the timing-leak section with its plots.
mkdir -p "$WORK/camp"
cat >"$WORK/camp/scheme.json" <<JSON
{ "name": "leakpair", "instances": [
  { "name": "Leaky-Toy", "tree": "$L/leaky", "api": "nist" },
  { "name": "CT-Toy", "tree": "$L/constant-time", "api": "nist" } ],
  "leak": { "time_budget": 1.5, "floor": "1,0.05%" } }
JSON
"$PQPROF" run "$WORK/camp" --steps build,report -o "$WORK/c0" >"$WORK/c0.out" 2>&1
if [ -d "$WORK/c0/leak" ] && ls "$WORK/c0/leak" | grep -q json; then fail "leak step ran without being asked for"; else
	pass "--steps without leak: no leak records"; fi
"$PQPROF" run "$WORK/camp" -o "$WORK/c1" --steps build,leak,report >"$WORK/c1.out" 2>&1 ||
	{ fail "campaign with the leak step"; tail -5 "$WORK/c1.out"; }
for f in Leaky-Toy__harness-default__sign CT-Toy__harness-default__sign CT-Toy__harness-default__keygen; do
	[ -f "$WORK/c1/leak/$f.json" ] && [ -f "$WORK/c1/leak/$f.svg" ] && pass "campaign: leak/$f record and plot" ||
		fail "campaign: leak/$f missing"
done
expect_grep "$WORK/c1/report.md" '^## 9\. Timing leaks$' "report: timing-leak section, after the hotspots"
expect_grep "$WORK/c1/report.md" '"Leak likely" means both statistically and practically significant' \
	"report: the leak section says what 'leak likely' means"
expect_grep "$WORK/c1/report.md" '^## 10\. Raw evidence index$' "report: the evidence index follows, last"
expect_grep "$WORK/c1/report.md" '^\| `Leaky-Toy / harness-default` \| sign \| sign with a fixed vs a random secret key, same message \| leak likely .* \| [-+][0-9.e+]+ [A-Za-z ]+ \([-+][0-9.e+]+ to [-+][0-9.e+]+\)' \
	"report: the leaky pair's effect with its interval"
expect_grep "$WORK/c1/report.md" '^\| `Leaky-Toy / harness-default` \| sign \| leak likely \|' "report: leaky sign verdict"
if grep -Eq '^\| `CT-Toy / harness-default` \| [a-z]+ \| leak likely' "$WORK/c1/report.md"; then
	fail "report: constant-time instance reported as leaking"; else pass "report: constant-time instance not leaking"; fi
expect_grep "$WORK/c1/report.html" '<iframe class="flame"[^>]*title="Leak test of Leaky-Toy sign' "report: |t| plot embedded"
# The leak records and plots are in report.json, report.csv and the evidence index too.
RJ="$WORK/c1/report.json"
LS='instances[instance=Leaky-Toy].ops[op=sign]'
[ "$("$J" "$RJ" "$LS.leak.verdict")" = "leak likely" ] &&
	[ "$("$J" "$RJ" "$LS.leak_plot")" = leak/Leaky-Toy__harness-default__sign.svg ] &&
	pass "report.json: leak record and plot per operation" || fail "report.json: no leak record for Leaky-Toy sign"
[ "$("$J" "$RJ" 'evidence[item=leak test sign].file')" = leak/Leaky-Toy__harness-default__sign.json ] &&
	[ "$("$J" "$RJ" 'evidence[item=leak plot sign].file')" = leak/Leaky-Toy__harness-default__sign.svg ] &&
	pass "report.json: leak records and plots in the evidence index" || fail "report.json: leak evidence missing"
expect_grep "$WORK/c1/report.md" '^\| `Leaky-Toy` \| harness-default \| leak test sign \| `leak/Leaky-Toy__harness-default__sign\.json` \|' \
	"report.md: evidence index lists the leak record"
expect_grep "$WORK/c1/report.csv" '^Leaky-Toy,harness-default,Leaky-Toy__harness-default,sign,leak,verdict,leak likely,' \
	"report.csv: leak verdict row"
expect_grep "$WORK/c1/report.csv" '^Leaky-Toy,harness-default,Leaky-Toy__harness-default,sign,leak,fixed-vs-random-key_measurements,[0-9]+,calls' \
	"report.csv: measurements per class pair"
# A merge keeps the leak records, and its report shows them.
expect_rc 0 "merge of the campaign with leak records" -- "$PQPROF" merge "$WORK/m1" "$WORK/c1"
cmp -s "$WORK/c1/leak/Leaky-Toy__harness-default__sign.json" "$WORK/m1/leak/Leaky-Toy__harness-default__sign.json" &&
	[ -f "$WORK/m1/leak/Leaky-Toy__harness-default__sign.svg" ] && pass "merge: leak records and plots copied" ||
	fail "merge: leak records missing in the merged campaign"
[ "$("$J" "$WORK/m1/report.json" "$LS.leak.verdict")" = "leak likely" ] &&
	pass "merge: the merged report has the leak record" || fail "merge: no leak record in the merged report"
printf '{ "name": "x", "instances": [ { "name": "a", "tree": "%s" } ], "leak": { "budget": 3 } }\n' "$L/leaky" \
	>"$WORK/camp/bad.json"
expect_rc 2 "descriptor with a bad leak key" -- "$PQPROF" run "$WORK/camp/bad.json" -o "$WORK/c2"
expect_grep "$WORK/err" "leak: unknown key 'budget'" "bad leak key named"
printf '{ "name": "x", "instances": [ { "name": "a", "tree": "%s" } ], "leak": { "floor": "two" } }\n' "$L/leaky" \
	>"$WORK/camp/badfloor.json"
expect_rc 2 "descriptor with a bad leak floor" -- "$PQPROF" run "$WORK/camp/badfloor.json" -o "$WORK/c3"
expect_grep "$WORK/err" "leak.floor: 'two' is not" "bad leak floor named"

# Bad input: documented exit codes and a message naming the problem.
expect_rc 1 "unknown class pair" -- "$PQPROF" leak "$WORK/ct.so" --classes bogus
expect_grep "$WORK/err" "unknown class pair 'bogus'" "unknown class pair named"
expect_rc 1 "KEM operation on a signature instance" -- "$PQPROF" leak "$WORK/ct.so" --op dec
expect_rc 1 "pair of another operation" -- "$PQPROF" leak "$WORK/ct.so" --op keygen --classes key
expect_rc 1 "bad floor" -- "$PQPROF" leak "$WORK/ct.so" --floor 1,2x
expect_grep "$WORK/err" "floor: '2x' is not" "bad floor part named"
expect_rc 5 "not a library" -- "$PQPROF" leak "$top_srcdir/README.md"
finish
