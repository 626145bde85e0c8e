#!/bin/sh
# End-to-end: flag studies through the real binary on the smallest
# fixture.  Two --profile builds and an A/A copy (--aa) in one campaign:
# their bench trials interleave round-robin (visible in each trial's seq),
# every record names its profile and the copy's records carry aa_of.  A
# profile whose flags do not compile gets BUILD while the other is
# measured (exit 4); refused flags and unknown names are errors naming
# them; a descriptor's profiles table with a compiler; a prebuilt library
# keeps its own name and, with --manifest, its KAT gate.
. "$top_srcdir/tests/e2e/lib.sh"
T="$FIX/nist-toy"
Q="--trials 2 --target 0.02 --timeout 30 --timeout kat=60"

# seqs FILE: the trials' seq values, space-separated.
seqs() { sed -n 's/^ *"seq": \([0-9]*\),\{0,1\}$/\1/p' "$1" | tr '\n' ' '; }

# Two profiles and an A/A copy, interleaved.
expect_rc 0 "two --profile builds and --aa" -- "$PQPROF" run "$T" --out "$WORK/a" --profile o1=-O1 \
	--profile o2="-O2 -fno-inline" --aa --steps build,kat,bench $Q
expect_grep "$WORK/out" "^nist-toy/o2 +sign .*KAT PASS" "summary row names instance/profile"
expect_grep "$WORK/out" "^nist-toy/o1-aa +verify .*KAT PASS" "the A/A copy is measured and KAT-gated"
R="$WORK/a/records"
for op in keygen sign verify; do
	s1=$(seqs "$R/nist-toy__o1__$op.json"); s2=$(seqs "$R/nist-toy__o2__$op.json"); s3=$(seqs "$R/nist-toy__o1-aa__$op.json")
	if [ "$s1" = "0 3 " ] && [ "$s2" = "1 4 " ] && [ "$s3" = "2 5 " ]; then pass "$op trials ran A,B,C,A,B,C"; else
		fail "$op trials not round-robin: o1 [$s1] o2 [$s2] o1-aa [$s3]"; fi
done
expect_grep "$R/nist-toy__o2__sign.json" '"position": 1' "record gives its place in the round-robin"
expect_grep "$R/nist-toy__o2__sign.json" '"nist-toy__o1-aa"' "record lists the units it was interleaved with"
expect_grep "$R/nist-toy__o2__sign.json" '"cflags": "-O2 -fno-inline -g -fPIC -fno-semantic-interposition"' "built with the profile's flags"
expect_grep "$R/nist-toy__o2__sign.json" '"trials_flagged": [0-9]' "contention: flagged trials counted"
expect_grep "$R/nist-toy__o2__sign.json" '"involuntary_switches": [0-9]' "contention evidence per trial"
expect_grep "$R/nist-toy__o2__sign.json" '"median_units": [0-9]' "headline median recorded"
for f in build/nist-toy__o1-aa.json kat/nist-toy__o1-aa.json records/nist-toy__o1-aa__sign.json; do
	expect_grep "$WORK/a/$f" '^  "aa_of": "o1",?$' "$f carries aa_of at its top level"
done
expect_grep "$WORK/a/kat/nist-toy__o2.json" '^  "profile": "o2",?$' "kat record names its profile"
if grep -q '"aa_of"' "$R/nist-toy__o1__sign.json"; then fail "baseline record carries aa_of"; else pass "only the copy carries aa_of"; fi
[ -f "$WORK/a/compare/o1_vs_o1-aa/compare.json" ] && pass "A/A comparison written" || fail "no compare/o1_vs_o1-aa"
[ -f "$WORK/a/compare/o1_vs_o2/compare.json" ] && pass "profile comparison written" || fail "no compare/o1_vs_o2"
expect_grep "$WORK/a/report.md" '^\| instance \| profile \| operation \| median ' "report: profile column, median first"
expect_grep "$WORK/a/report.md" '^\| `nist-toy` \| o1-aa \| sign \|' "report row of the A/A copy"

# Flags that do not compile: BUILD for that profile only, the other completes.
expect_rc 4 "a profile whose flags fail" -- "$PQPROF" run "$T" --out "$WORK/b" --profile good=-O1 \
	--profile bad="-O2 -fno-such-flag-pqprof" --steps build,kat,bench --no-report $Q
expect_grep "$WORK/err" "partial: flag profile bad \(see .*build/nist-toy__bad.json\) did not build \(BUILD\)" "exit message names the profile"
expect_grep "$WORK/b/build/nist-toy__bad.json" '"verdict": "BUILD"' "BUILD verdict in the build record"
expect_grep "$WORK/out" "^nist-toy/bad +build failed: .*fno-such-flag-pqprof" "summary names the failing profile"
expect_grep "$WORK/b/records/nist-toy__good__sign.json" '"status": "complete"' "the other profile is measured"
expect_grep "$WORK/b/kat/nist-toy__good.json" '"verdict": "PASS"' "the other profile passes its KAT"

# Profile flags go through the flag check; unknown names list the valid ones.
expect_rc 0 "refused profile flags (one profile: a verdict, exit 0)" -- "$PQPROF" run "$T" --out "$WORK/c" --profile w="-O2 -wrapper /bin/true" \
	--steps build --no-report
expect_grep "$WORK/c/build/nist-toy__w.json" "'-wrapper /bin/true' refused" "refused flag named in the build record"
expect_grep "$WORK/c/build/nist-toy__w.json" '"verdict": "BUILD"' "refused flags: BUILD verdict"
expect_rc 1 "unknown profile name" -- "$PQPROF" run "$T" --out "$WORK/d" --profile o1=-O1 --profiles o1,fast
expect_grep "$WORK/err" "unknown flag profile 'fast' \(valid: harness-default, reference, performance, resource, debug, o1\)" \
	"the valid names are listed"
expect_rc 1 "--profile without NAME=" -- "$PQPROF" run "$T" --out "$WORK/d" --profile -O3
expect_rc 1 "a built-in name cannot be redefined" -- "$PQPROF" run "$T" --out "$WORK/d" --profile reference=-O1
expect_rc 1 "--cc for an unknown profile" -- "$PQPROF" run "$T" --out "$WORK/d" --cc nope=clang

# A descriptor's profiles table, one profile with its own compiler.
cat > "$WORK/scheme.json" <<JSON
{ "name": "toyflags",
  "profiles": { "O1": { "cflags": "-O1" }, "clang-O2": { "cflags": "-O2", "cc": "clang" } },
  "instances": [ { "name": "Toy-96", "tree": "$T", "api": "nist" } ] }
JSON
if command -v clang >/dev/null 2>&1; then
	expect_rc 0 "descriptor profiles table" -- "$PQPROF" run "$WORK/scheme.json" --out "$WORK/e" --steps build,kat --no-report
	expect_grep "$WORK/e/build/Toy-96__clang-O2.json" '"compiler": ".*clang' "per-profile compiler from the descriptor"
	expect_grep "$WORK/e/build/Toy-96__O1.json" '"cflags": "-O1 -g -fPIC -fno-semantic-interposition"' "table flags used"
	expect_grep "$WORK/e/kat/Toy-96__clang-O2.json" '"verdict": "PASS"' "the clang build passes its KAT"
else
	echo "skip: no clang"
fi

# A prebuilt library: its own instance name, and the KAT gate through --manifest.
cp -rL "$FIX/ngcc-toy" "$WORK/tree"
find "$WORK/tree" \( -name 'KAT_SIG_*.txt' -o -name '*.rsp' \) -exec rm -f {} +
build_fixture "$WORK/tree" "$WORK/my-O3-build.so" --cflags -O3
"$PQPROF" manifest "$FIX/toy/Test_Vectors/KAT_SIG_Toy-NGCC-96.txt" --label Toy-NGCC-96 > "$WORK/kat.sha256"
expect_rc 0 "prebuilt library without vectors" -- "$PQPROF" run "$WORK/my-O3-build.so" --out "$WORK/f" --steps build,kat --no-report
expect_grep "$WORK/f/kat/Toy-NGCC-96__prebuilt.json" '"verdict": "NOKAT"' "no vectors: NOKAT, under the library's own name"
expect_rc 0 "prebuilt library with --manifest" -- "$PQPROF" run "$WORK/my-O3-build.so" --out "$WORK/g" \
	--manifest "$WORK/kat.sha256" --steps build,kat,bench $Q
expect_grep "$WORK/g/kat/Toy-NGCC-96__prebuilt.json" '"verdict": "PASS"' "--manifest keeps the KAT gate: PASS"
expect_grep "$WORK/out" "^Toy-NGCC-96 +sign .*KAT PASS" "summary under the library's own name"
expect_rc 1 "--profile on a prebuilt library" -- "$PQPROF" run "$WORK/my-O3-build.so" --out "$WORK/h" --profile o1=-O1
finish
