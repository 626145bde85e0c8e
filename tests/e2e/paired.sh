#!/bin/sh
# End-to-end: a flag study's paired step through the real binary.  The
# NGCC toy fixture built three ways: a baseline, a build doing more work
# per call with the same outputs (-DTOY_EXTRA_ROUNDS, about 15%), and an
# A/A copy.  Every build of the instance runs in one runner per process,
# round by round; the study plans its processes and rounds, stops at the
# precision or the budget and says which; the comparison and the report
# use its ratios and verdicts, with what the run could have detected.
# --pairing per-process keeps the interleaved trials; a build that
# crashes makes that study a failed record, and the others go on.
. "$top_srcdir/tests/e2e/lib.sh"
T="$FIX/ngcc-toy"
Q="--quick --trials 2 --target 0.02 --timeout 60 --timeout kat=60"

expect_rc 0 "a flag study with the paired step" -- "$PQPROF" run "$T" --out "$WORK/a" --profile base=-O2 \
	--profile more="-O2 -DTOY_EXTRA_ROUNDS=60" --aa --steps build,kat,bench,paired --budget 24 $Q
P="$WORK/a/paired"
for op in keygen sign verify; do
	f="$P/ngcc-toy__base__$op.json"
	[ -s "$f" ] && pass "paired record for $op" || { fail "no paired record for $op"; continue; }
	expect_grep "$f" '"schema": "pqprof.paired/1"' "$op: schema"
	expect_grep "$f" '"stop": "(precision reached|budget spent)"' "$op: says why it stopped"
	expect_grep "$f" '"var_process": [0-9]' "$op: between-process variance kept"
	expect_grep "$f" '"var_round": [0-9]' "$op: between-round variance kept"
	expect_grep "$f" '"role": "aa"' "$op: the A/A copy is an arm of the study"
done
S="$P/ngcc-toy__base__sign.json"
python3 - "$S" >"$WORK/sign.check" 2>&1 <<'EOF' && pass "sign study: structure and figures" || fail "sign study: $(cat "$WORK/sign.check")"
import json, sys
r = json.load(open(sys.argv[1]))
roles = [b["role"] for b in r["builds"]]
assert roles == ["baseline", "candidate", "aa"], roles
assert len(r["processes"]) >= 3, "fewer than three processes"
for p in r["processes"]:
    assert p["rounds"] >= 2 and len(p["data"]) == p["rounds"]
    for d in p["data"]:
        assert sorted(d["order"]) == [0, 1, 2] and all(v > 0 for v in d["cpu_ns"])
orders = {tuple(d["order"]) for p in r["processes"] for d in p["data"]}
assert len(orders) > 1, "the order never changed between rounds"
c = {x["candidate"]: x for x in r["comparisons"]}
m = c["more"]
assert m["verdict"] == "slower", m["verdict"]
assert 1.05 < m["ratio"] < 1.4 and m["lo"] < m["ratio"] < m["hi"], m
assert "vs_aa" in m and m["vs_aa"]["aa"] == "base-aa"
assert m["detectable"].startswith("this run would have detected a change of"), m["detectable"]
assert c["base-aa"]["role"] == "aa" and 0.9 < c["base-aa"]["ratio"] < 1.1
# Per-function deltas from the same runs: the extra rounds are toy_hash's, and it grew.
fns = m["functions"]
assert fns and fns[0]["function"] == "toy_hash", [f["function"] for f in fns]
assert fns[0]["delta"] > 0 and fns[0]["delta_lo"] > 0, fns[0]
assert fns[0]["candidate_samples"] > 50 and fns[0]["baseline_samples"] > 50, fns[0]
EOF
C="$WORK/a/compare/base_vs_more/compare.json"
expect_grep "$C" '"runs": "paired in-process"' "the comparison uses the paired study"
expect_grep "$C" '"resampled": "processes"' "its interval resamples processes"
expect_grep "$WORK/out" 'CPU time, paired in-process: slower' "the closing comparison: paired, slower"
expect_grep "$WORK/out" 'this run would have detected a change of' "the closing comparison says what the run could see"
expect_grep "$WORK/out" 'functions: +toy_hash \+[0-9]+ ' "the paired summary names the function that grew"
expect_grep "$WORK/a/report.md" 'paired in-process' "the report's comparison section names the pairing"
expect_grep "$WORK/out" "^paired studies \(ratio to the baseline profile base" "the paired studies summarised after the run"

# Resumed: a finished study is not run again.
expect_rc 0 "the same command again" -- "$PQPROF" run "$T" --out "$WORK/a" --profile base=-O2 \
	--profile more="-O2 -DTOY_EXTRA_ROUNDS=60" --aa --steps paired --budget 24 $Q --no-report
if grep -q '^progress paired ' "$WORK/err"; then fail "a finished study ran again"; else pass "finished studies kept"; fi

# Per-process mode: the bench step's interleaved trials make the comparison.
expect_rc 0 "--pairing per-process" -- "$PQPROF" run "$T" --out "$WORK/b" --profile base=-O2 \
	--profile more="-O2 -DTOY_EXTRA_ROUNDS=60" --steps build,kat,bench,paired --pairing per-process $Q
[ -d "$WORK/b/paired" ] && [ -z "$(ls "$WORK/b/paired")" ] && pass "no paired study in per-process mode" ||
	fail "per-process mode ran a paired study"
expect_grep "$WORK/b/compare/base_vs_more/compare.json" '"runs": "interleaved"' "per-process: interleaved trials"

# A build that crashes in sign: that study's record says so, the others complete.
expect_rc 0 "a flag study with a crashing build" -- "$PQPROF" run "$T" --out "$WORK/c" --profile base=-O2 \
	--profile crash="-O2 -DTOY_SEGV_IN_SIGN" --steps build,paired --budget 12 $Q --no-report
expect_grep "$WORK/c/paired/ngcc-toy__base__sign.json" '"status": "failed"' "sign study: failed record"
expect_grep "$WORK/c/paired/ngcc-toy__base__sign.json" '"kind": "CRASH"' "sign study: the crash is its verdict"
expect_grep "$WORK/c/paired/ngcc-toy__base__sign.json" '"failed_build": "crash"' "sign study: names the build that crashed"
expect_grep "$WORK/c/paired/ngcc-toy__base__sign.json" '"reason": "crashed with SIGSEGV.*in build crash' "the reason names it too"
expect_grep "$WORK/c/paired/ngcc-toy__base__keygen.json" '"status": "ok"' "keygen study still measured"

# The runner's paired job reads its seed as a 64-bit integer: seeds 2^53 and
# 2^53 + 1 (one number as a double) shuffle the rounds differently; a seed
# that is not an unsigned integer is an error that says so.
R="${PQPROF_RUNNER:-$top_builddir/pqprof-runner}"
if build_fixture "$T" "$WORK/seed-a.so"; then
	cp "$WORK/seed-a.so" "$WORK/seed-b.so"
	for s in 9007199254740992 9007199254740993; do
		"$R" paired "$WORK/seed-a.so" --lib "$WORK/seed-b.so" --op keygen --rounds 40 --iters 1 --warmup 1 \
			--sample-hz 0 --seed $s 3>"$WORK/seed-$s.nd" >/dev/null 2>&1 || fail "paired job with --seed $s"
	done
	orders() { python3 -c 'import json, sys
print([d["order"] for e in map(json.loads, open(sys.argv[1])) if e.get("ev") == "done" for d in e["data"]])' "$1"; }
	oa=$(orders "$WORK/seed-9007199254740992.nd") ob=$(orders "$WORK/seed-9007199254740993.nd")
	[ -n "$oa" ] && [ "$oa" != "[]" ] && [ "$oa" != "$ob" ] && pass "seeds 2^53 and 2^53 + 1 shuffle differently" ||
		fail "seeds 2^53 and 2^53 + 1 gave the same rounds: $oa"
	expect_rc 1 "a seed that is not an integer" -- "$R" paired "$WORK/seed-a.so" --lib "$WORK/seed-b.so" --op keygen \
		--seed 1e3 3>"$WORK/seed-bad.nd"
	expect_grep "$WORK/seed-bad.nd" "--seed: '1e3' is not an unsigned 64-bit integer" "the error names the seed"
fi

expect_rc 1 "--precision out of range" -- "$PQPROF" run "$T" --out "$WORK/d" --profile a=-O1 --profile b=-O2 --precision 2
expect_grep "$WORK/err" 'precision must lie in' "the error names the option"
expect_rc 1 "--pairing unknown" -- "$PQPROF" run "$T" --out "$WORK/d" --profile a=-O1 --profile b=-O2 --pairing sometimes
finish
