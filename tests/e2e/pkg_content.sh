#!/bin/sh
# End-to-end: a package found by what its folders hold, not by their names.
# The Bramble fixture (tests/fixtures/pkg-impl-levels/README) keeps one CMake
# project per security level in Implementations/bramble_lvl1 and _lvl3, no
# build file at its top, no Reference_Implementation or KAT folder, and its
# vectors in Test_Vectors/ under names that name neither instance.  `pqprof
# scan` must find both levels, and tie each vector file to its level by its
# first record: the public key the level's own KAT program derives from the
# first seed.  `pqprof run PACKAGE` must pass both levels' known answers with
# the switches each level's CMakeLists.txt sets, and a copy whose level-3
# file has one bad signature must fail that level only.
. "$top_srcdir/tests/e2e/lib.sh"
command -v cmake >/dev/null 2>&1 || { echo "SKIP: cmake not installed (each level is a CMake project)"; exit 77; }
mkdir -p "$WORK/tmp" && chmod 755 "$WORK" "$WORK/tmp"
TMPDIR=$WORK/tmp
export TMPDIR

P=$(cd "$FIX/pkg-impl-levels/Bramble" && pwd -P)
L1=Bramble-128__implementations-bramble_lvl1__harness-default
L3=Bramble-192__implementations-bramble_lvl3__harness-default

# --- scan: both levels, each with its vectors found by content ---
expect_rc 0 "scan the package" -- "$PQPROF" scan "$P"
cp "$WORK/out" "$WORK/scan.out"
o="$WORK/scan.out"
expect_grep "$o" "Bramble: NGCC layout, 2 instances" "two instances, NGCC"
expect_grep "$o" "implementation tree Implementations/bramble_lvl1/: CMakeLists.txt with SIG_AlgorithmInstance.h and KAT_SIG.c" \
	"level 1's tree, and what made it one"
expect_grep "$o" "implementation tree Implementations/bramble_lvl3/: CMakeLists.txt with SIG_AlgorithmInstance.h and KAT_SIG.c" \
	"level 3's tree"
expect_grep "$o" "^instance Bramble-128 \(implementations-bramble_lvl1\)$" "level 1: its name and the label its path gives"
expect_grep "$o" "^instance Bramble-192 \(implementations-bramble_lvl3\)$" "level 3: its name and label"
expect_grep "$o" "KAT folder Test_Vectors/" "the vectors' folder, found by its files"
expect_grep "$o" "skipped Supporting_Documentation: not an implementation or KAT folder" "the documentation passed over"
expect_grep "$o" "KAT: +Test_Vectors/Bramble_level_I_vectors.txt \(rule: found by content: its first record holds the public key that the tree.s own KAT program" \
	"level 1's vectors: the file holding the key its own KAT program derives"
expect_grep "$o" "KAT: +Test_Vectors/Bramble_level_III_vectors.txt \(rule: found by content: its first record holds the public key" \
	"level 3's vectors, likewise"
expect_grep "$o" "KAT files: 2 matched, 0 missing, 0 ambiguous" "summary"
# Without running the levels' programs nothing ties a file to a level: both are listed, none is guessed.
expect_rc 0 "scan without observing the builds" -- env PQPROF_OBSERVE=off "$PQPROF" scan "$P"
expect_grep "$WORK/out" "KAT: +ambiguous: 2 different files start the NGCC seed sequence .* Test_Vectors/Bramble_level_III_vectors.txt, Test_Vectors/Bramble_level_I_vectors.txt" \
	"no-observe: ambiguous, with both candidates"
# One level on its own is a tree, not a package.
expect_rc 0 "scan one level" -- "$PQPROF" scan "$P/Implementations/bramble_lvl1"
expect_grep "$WORK/out" "^tree .*/bramble_lvl1: one implementation tree, ngcc signature" "a level is one tree"
expect_grep "$WORK/out" "^  links:   one KAT program: Bramble-128" "its observed build links Bramble-128's KAT program"

# --- run: both levels build with their own switches and pass ---
expect_rc 0 "run the package" -- "$PQPROF" run "$P" --quick --steps build,kat,sizes --out "$WORK/run"
c="$WORK/run"
for l in $L1 $L3; do
	expect_grep "$c/kat/$l.json" '"verdict": "PASS"' "${l%%__*}: KAT PASS"
done
expect_grep "$c/kat/$L1.json" '"expected": ".*/Test_Vectors/Bramble_level_I_vectors.txt"' "level 1 judged against its own file"
expect_grep "$c/kat/$L3.json" '"expected": ".*/Test_Vectors/Bramble_level_III_vectors.txt"' "level 3 judged against its own file"
expect_grep "$c/build/$L3.json" '"flag": "-DBRAMBLE_LEVEL=3"' "level 3 built with its level switch"
expect_grep "$c/build/$L3.json" '"flag": "-DRADIX=64"' "... and the word size its sources require"
expect_grep "$c/build/$L1.json" '"flag": "-DBRAMBLE_LEVEL=1"' "level 1 built with its own level switch"

# --- negative: one bad signature in the level-3 file ---
B="$WORK/bad"
cp -RL "$P" "$B"
chmod -R u+w "$B"
f="$B/Test_Vectors/Bramble_level_III_vectors.txt"
awk '/^Count = 4$/ { r = 1 } r && /^Sn = / { sub(/^Sn = ./, "Sn = " (substr($3, 1, 1) == "0" ? "1" : "0")); r = 0 } { print }' \
	"$P/Test_Vectors/Bramble_level_III_vectors.txt" >"$f"
if cmp -s "$f" "$P/Test_Vectors/Bramble_level_III_vectors.txt"; then fail "the corrupted copy is unchanged"; fi
expect_rc 0 "run the copy with a corrupted level-3 file" -- env PQPROF_SOURCE_ROOT="$B" "$PQPROF" run "$B" --quick \
	--steps build,kat --out "$WORK/runbad"
expect_grep "$WORK/runbad/kat/$L3.json" '"verdict": "MISMATCH"' "level 3: MISMATCH"
expect_grep "$WORK/runbad/kat/$L3.json" '"reason": "record 4: Sn differs' "level 3: the record and field that differ"
expect_grep "$WORK/runbad/kat/$L1.json" '"verdict": "PASS"' "level 1 still passes"
finish
