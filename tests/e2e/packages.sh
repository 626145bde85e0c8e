#!/bin/sh
# End-to-end: whole submission packages.  `pqprof scan` on an NGCC and a
# NIST package fixture (instances, implementation versions, API, KAT file
# and the rule that matched it, what was passed over), the descriptor it
# writes, `run --dry-run`, a package with missing and ambiguous KAT files,
# and full `pqprof run PACKAGE` campaigns whose records and report carry
# the instance names, implementation versions and KAT verdicts.
. "$top_srcdir/tests/e2e/lib.sh"
P="$FIX/pkg"
Q="--quick --steps build,kat,bench,report --trials 2 --target 0.05 --timeout 20 --timeout kat=20"

# --- scan: NGCC package ---
expect_rc 0 "scan an NGCC package" -- "$PQPROF" scan "$P/ngcc" --write-descriptor "$WORK/ngcc.json"
cp "$WORK/out" "$WORK/scan-ngcc.out"
o="$WORK/scan-ngcc.out"
expect_grep "$o" "ngcc: NGCC layout, 3 instances" "NGCC layout and instance count"
expect_grep "$o" "^instance Toy-NGCC-64 \(reference\)$" "reference Toy-NGCC-64 found"
expect_grep "$o" "^instance Toy-NGCC-64 \(optimized\)$" "optimized Toy-NGCC-64 found as its own implementation version"
expect_grep "$o" "^instance Toy-NGCC-96 \(reference\)$" "second parameter set found"
expect_grep "$o" "API: +NGCC signature API: SIG_AlgorithmInstance.h \(api.h is there too: the NGCC API wins\)" "API and the header that chose it"
expect_grep "$o" "name: +ALGORITHM_INSTANCE \"Toy-NGCC-96\" in SIG_AlgorithmInstance.h line [0-9]+" "instance name from ALGORITHM_INSTANCE"
expect_grep "$o" "KAT: +KAT/Toy-NGCC-64/KAT_SIG_Toy-NGCC-64.txt \(rule: the official name KAT_SIG_<ALGORITHM_INSTANCE>.txt\)" "KAT file and the rule that matched it"
expect_grep "$o" "skipped Supporting_Documentation: not an implementation or KAT folder" "passed-over folder named with the reason"
expect_grep "$o" "^summary: 3 instances \(2 reference, 1 optimized\); KAT files: 3 matched, 0 missing, 0 ambiguous" "summary line"
expect_grep "$o" "descriptor written to $WORK/ngcc.json" "descriptor written"
d="$WORK/ngcc.json"
expect_grep "$d" '"implementation": "optimized"' "descriptor: implementation version"
expect_grep "$d" '"tree": "[./]*.*pkg/ngcc/Optimized_Implementation/Toy-NGCC-64"' "descriptor: relative tree path"
expect_grep "$d" '"vectors": "[./]*.*KAT/Toy-NGCC-96/KAT_SIG_Toy-NGCC-96.txt"' "descriptor: KAT file"
expect_grep "$d" '"api": "ngcc"' "descriptor: API"
# The written descriptor is a descriptor the campaign reads.
expect_rc 0 "run --dry-run on the written descriptor" -- "$PQPROF" run "$d" --dry-run --source-root "$top_srcdir"
expect_grep "$WORK/out" "^  Toy-NGCC-64__optimized__harness-default: instance Toy-NGCC-64 \(optimized\)" "written descriptor plans the optimized unit"

# --- scan: NIST package ---
expect_rc 0 "scan a NIST package" -- "$PQPROF" scan "$P/nist"
o="$WORK/out"
expect_grep "$o" "nist: NIST layout, 4 instances" "NIST layout and instance count"
expect_grep "$o" "^instance toy96 \(additional-bad\)$" "Additional_Implementations/bad: implementation version additional-bad"
expect_grep "$o" "tree: +Optimized_Implementation/crypto_sign/toy96" "optimized tree under crypto_sign"
expect_grep "$o" "KAT: +KAT/toy64/PQCsignKAT_64.rsp \(rule: the only PQCsignKAT_\*.rsp in the KAT folder named after the instance\)" "NIST KAT folder rule"
expect_grep "$o" "implementation folder Reference_Implementation/: implementation version reference, 2 instances" "implementation folder listed"

# --- run --dry-run on a package: the same plan, nothing written ---
expect_rc 0 "run --dry-run on a package" -- "$PQPROF" run "$P/nist" --dry-run --out "$WORK/dry"
expect_grep "$WORK/out" "^summary: 4 instances \(2 reference, 1 optimized, 1 additional-bad\)" "dry run prints the scan"
expect_grep "$WORK/out" "^  toy96__optimized__harness-default: instance toy96 \(optimized\), profile harness-default" "dry run lists the units"
[ ! -e "$WORK/dry" ] && pass "dry run writes nothing" || fail "dry run made $WORK/dry"

# --- missing, ambiguous and unused KAT files, directories without an API ---
S="$WORK/pkg"
mkdir -p "$S/Reference_Implementation/crypto_sign" "$S/Reference_Implementation/crypto_sign/notes" "$S/KAT/toy64" "$S/KAT/old"
cp -rL "$P/nist/Reference_Implementation/crypto_sign/toy64" "$S/Reference_Implementation/crypto_sign/toy64"
cp -rL "$P/nist/Reference_Implementation/crypto_sign/toy64" "$S/Reference_Implementation/crypto_sign/toy80"
echo "# one" > "$S/KAT/toy64/PQCsignKAT_1.rsp"
echo "# two" > "$S/KAT/toy64/PQCsignKAT_2.rsp"
echo "# old" > "$S/KAT/old/PQCsignKAT_7.rsp"
expect_rc 0 "scan with missing and ambiguous KAT files" -- "$PQPROF" scan "$S" --source-root "$S"
o="$WORK/out"
expect_grep "$o" "KAT: +ambiguous: the KAT folder named after the instance matches 2 different files \(KAT/toy64/PQCsignKAT_1.rsp, KAT/toy64/PQCsignKAT_2.rsp\)" "ambiguous KAT files listed for their instance"
expect_grep "$o" "KAT: +none: no PQCsignKAT_64.rsp in KAT/ or in the instance tree; the KAT verdict will be NOKAT" "missing KAT file reported for its instance"
expect_grep "$o" "unused KAT file KAT/old/PQCsignKAT_7.rsp: no instance matched it" "unused KAT file"
expect_grep "$o" "skipped Reference_Implementation/crypto_sign/notes: no SIG_AlgorithmInstance.h, KEM_AlgorithmInstance.h or api.h" "directory without an API header skipped"
expect_grep "$o" "KAT files: 0 matched, 1 missing, 1 ambiguous" "summary counts missing and ambiguous"
expect_rc 0 "run a package without KAT files" -- "$PQPROF" run "$S" --out "$WORK/nokat" --source-root "$S" --steps build,kat
expect_grep "$WORK/nokat/kat/toy80__reference__harness-default.json" '"verdict": "NOKAT"' "missing KAT file: NOKAT"
expect_grep "$WORK/nokat/kat/toy64__reference__harness-default.json" '"verdict": "NOKAT"' "ambiguous KAT file: not guessed, NOKAT"
expect_rc 0 "scan of a single tree: its plan" -- "$PQPROF" scan "$FIX/toy"
expect_grep "$WORK/out" "^tree .*/toy: one implementation tree, ngcc signature" "scan of a tree says it is one tree"
mkdir -p "$WORK/empty" && echo "notes" >"$WORK/empty/README"
expect_rc 2 "scan of a directory with no tree" -- "$PQPROF" scan "$WORK/empty"
expect_grep "$WORK/err" "not a submission package: no implementation tree in it" "not-a-package error says why"
expect_rc 1 "scan without a directory" -- "$PQPROF" scan

# --- full campaign: NGCC package ---
expect_rc 0 "run an NGCC package" -- "$PQPROF" run "$P/ngcc" --out "$WORK/n" $Q
expect_grep "$WORK/out" "^Toy-NGCC-64 \(optimized\) +sign .*KAT PASS" "summary: optimized instance with its verdict"
expect_grep "$WORK/out" "^Toy-NGCC-64 \(reference\) +sign .*KAT PASS" "summary: reference instance with its verdict"
c="$WORK/n"
expect_grep "$c/campaign.json" '"implementation": "optimized"' "campaign.json carries the implementation version"
expect_grep "$c/kat/Toy-NGCC-64__optimized__harness-default.json" '"verdict": "PASS"' "optimized KAT record: PASS"
expect_grep "$c/kat/Toy-NGCC-96__reference__harness-default.json" '"verdict": "PASS"' "Toy-NGCC-96 KAT record: PASS"
expect_grep "$c/records/Toy-NGCC-64__optimized__harness-default__sign.json" '"implementation": "optimized"' "timing record names the implementation version"
expect_grep "$c/records/Toy-NGCC-64__reference__harness-default__sign.json" '"name": "Toy-NGCC-64"' "timing record names the instance the library reports"
expect_grep "$c/report.md" "Implementations measured: reference, optimized$" "report: implementations"
expect_grep "$c/report.md" "Parameter sets: Toy-NGCC-64, Toy-NGCC-96" "report: parameter sets"
expect_grep "$c/report.md" '^\| `Toy-NGCC-64 \(optimized\)` \| harness-default \| PASS \|' "report: KAT row of the optimized version"
expect_grep "$c/report.md" '^\| `Toy-NGCC-64 \(reference\)` \| harness-default \| sign \|' "report: timing row of the reference version"

# --- full campaign: NIST package, one implementation that does not build ---
# (no timings: the NGCC campaign above checks those)
expect_rc 0 "run a NIST package (one implementation fails to build)" -- "$PQPROF" run "$P/nist" --out "$WORK/s" \
	--steps build,kat,report --timeout 20 --timeout kat=20
c="$WORK/s"
expect_grep "$WORK/out" "^toy96 \(additional-bad\) +build failed: toy_sign.c" "summary: build failure of the broken implementation"
expect_grep "$c/report.md" '^\| `toy96 \(optimized\)` \| harness-default \| PASS \|' "report: the campaign went on after the failed build"
expect_grep "$c/build/toy96__additional-bad__harness-default.json" '"status": "failed"' "build record of the broken implementation"
for l in toy64__reference toy96__reference toy96__optimized; do
	expect_grep "$c/kat/${l}__harness-default.json" '"verdict": "PASS"' "$l: KAT PASS"
done
expect_grep "$c/report.md" '^\| `toy96 \(additional-bad\)` \| harness-default \| BUILD \[1\] \|' "report: BUILD verdict"
expect_grep "$c/report.md" "Implementations measured: reference, optimized, additional-bad$" "report: three implementations"
expect_grep "$c/report.json" '"implementation": "additional-bad"' "report.json: implementation version"
# --- an NGCC package whose instance trees are one -D-switched source set ---
# Each Reference_Implementation/<instance>/ is a copy of one tree that serves
# four parameter sets by -D switches; the directory name picks the switch.
m="$WORK/multi"
mkdir -p "$m/Reference_Implementation" "$m/KAT"
for i in Toyla-192f Toyla-128s; do cp -RL "$top_srcdir/tests/fixtures/multi-instance/toyla" "$m/Reference_Implementation/$i"; done
expect_rc 0 "scan a package of -D-switched trees" -- env PQPROF_SOURCE_ROOT="$WORK" "$PQPROF" scan "$m"
expect_grep "$WORK/out" "^instance Toyla-192f \(reference\)$" "scan: Toyla-192f found"
expect_grep "$WORK/out" "^  links:   4 KAT programs \\(.*\\); this directory builds Toyla-192f$" "scan: the observed build links 4 KAT programs; this directory builds Toyla-192f"
expect_rc 0 "run a package of -D-switched trees" -- env PQPROF_SOURCE_ROOT="$WORK" "$PQPROF" run "$m" --out "$WORK/mo" --no-baseline \
	--quick --steps build,kat,profile,report --timeout 20 --timeout kat=20
expect_grep "$WORK/mo/report.md" "^Survey verdict: not applicable — no hash/XOF function ran in the profiled operations$" \
	"section 7: survey verdict of a scheme without hash functions"
expect_grep "$WORK/mo/report.md" "^Keccak/SHAKE, SHA-2, SM3, AES: n/a \\(no such function\\) in any instance\\.$" \
	"section 7: the families the toy lacks are n/a"
for i in Toyla-192f Toyla-128s; do
	expect_grep "$WORK/mo/report.md" "^\\| \`$i\` \\| harness-default \\| keygen \\| n/a \\(no such function\\) \\| [0-9.]+% \\(" \
		"section 7: $i keygen: no placeholder hash (n/a), a measured DRNG share"
done
for i in Toyla-192f Toyla-128s; do
	b="$WORK/mo/build/${i}__reference__harness-default.json"
	expect_grep "$b" "instance: $i \\(named by the (directory|descriptor)\\), linked by the build as KAT_SIG_$i" "$i: the KAT program the tree's own build linked for it"
	expect_grep "$WORK/mo/kat/${i}__reference__harness-default.json" '"verdict": "PASS"' "$i: KAT PASS with its own parameter set"
done
finish
