#!/bin/sh
# End-to-end: a whole submission package shaped like the heavy ones of the
# reference reports (SQIsign2D, sign-26), through the real binary: the
# Sable fixture (tests/fixtures/heavy/README).  One CMake tree builds three
# levels from several subdirectories; its build step generates level 5's
# 64 MiB walk basis into .rodata; level 5's keygen takes seconds; the
# level-3 KAT file is spliced from level-1 records; hashing goes through a
# glue file into the ICCS pseudoXOF.  `pqprof run PACKAGE --quick` (with
# the harness's manifest; two trials, an operation budget and no
# interposition check keep make check near two minutes, most of it level
# 5's keygen of seconds, run once per job) must complete, and its report
# must say what the reference report says about such a package: the KAT
# verdicts with the splice footnote, the n column of the seconds-long
# keygen, the table in the sizes section, and the survey verdict naming
# the glue file.
. "$top_srcdir/tests/e2e/lib.sh"
JGET="$top_builddir/tests/profile_jget"
command -v cmake >/dev/null 2>&1 || { echo "SKIP: cmake not installed (the package is a CMake tree)"; exit 77; }

P="$FIX/heavy/Sable"
L5=Sable-lvl5__reference__harness-default
expect_rc 0 "run the heavy package --quick" -- "$PQPROF" run "$P" --quick --trials 2 --budget op=4 --no-interposition-check \
	--no-baseline --manifest "$FIX/heavy/Sable.kat.sha256" --out "$WORK/run"
R="$WORK/run/report.md"
[ -s "$R" ] || { fail "no report"; sed 's/^/  | /' "$WORK/err" | tail -20; finish; exit 1; }
expect_grep "$WORK/out" "^Sable-lvl5 \(reference\) +keygen .* KAT PASS$" "run summary: level 5 timed, KAT PASS"

# The build: the tree's own CMake build ran, its generator wrote the basis into the build directory only.
B="$WORK/run/build/$L5.json"
expect_grep "$B" '"how": "cmake .*targets sable_kat_lvl1, sable_kat_lvl3, sable_kat_lvl5"' \
	"build record: the per-level KAT targets of the observed CMake build"
expect_grep "$B" 'kept: \.pqprof-cmake/src/precomp/basis_lvl5\.c \(as the build compiled it' \
	"build record: the generated basis is a unit of the level-5 library"
if find "$P" -name 'basis_lvl*.c' | grep -q .; then fail "the generated basis was written into the package"; else
	pass "the generated basis stayed out of the package"; fi

# Section 3: PASS, PASS, MISMATCH with the footnote naming the records and the level they came from.
expect_grep "$R" '^\| `Sable-lvl1` \| harness-default \| PASS \|$' "section 3: Sable-lvl1 PASS"
expect_grep "$R" '^\| `Sable-lvl5` \| harness-default \| PASS \|$' "section 3: Sable-lvl5 PASS (its keygen pinned)"
expect_grep "$R" '^\| `Sable-lvl3` \| harness-default \| MISMATCH \[1\] \|$' "section 3: Sable-lvl3 MISMATCH"
expect_grep "$R" '^\[1\] .*KAT_SIG_Sable-lvl3\.txt: records 1–8 \(8 of 10\) differ; records 0, 9 match\.' \
	"footnote: the differing and matching records"
expect_grep "$R" '^\[1\] .*Records 1–8 are Sable-lvl1 records \(PK_Len 40, this instance declares 56; SK_Len 56, this instance declares 80; Sn_Len 560, this instance declares 1224; they equal Sable-lvl1.s own vectors\): the file mixes two parameter sets, so no Sable-lvl3 build can reproduce it' \
	"footnote: the records are Sable-lvl1's, by their lengths and its own vectors"
expect_grep "$WORK/run/kat/Sable-lvl3__reference__harness-default.json" '"expected": ".*/Sable\.kat\.sha256"' \
	"KAT record: the harness's manifest decided, the submitted file explained"

# Section 4: the keygen of seconds, its n what the budget allowed.
K="$WORK/run/records/${L5}__keygen.json"
call_ns=$("$JGET" "$K" calibration.call_ns)
iters=$("$JGET" "$K" summary.iters)
trials=$("$JGET" "$K" summary.trials)
n=$("$JGET" "$K" summary.n)
awk -v c="$call_ns" 'BEGIN { exit !(c >= 5e8) }' && pass "level-5 keygen takes seconds (${call_ns} ns)" ||
	fail "level-5 keygen took ${call_ns} ns, not seconds"
[ "$iters" = 1 ] && [ "$n" -eq "$trials" ] && pass "one call per trial: n = $n ($trials × 1)" ||
	fail "n $n, trials $trials, iters $iters"
expect_grep "$R" "^\| \`Sable-lvl5\` \| harness-default \| keygen \| .* \| $n \($trials × 1\) \|$" \
	"report n column of the seconds-long keygen: $n ($trials × 1)"
expect_grep "$R" "^Each operation had a budget of 4 s for all its trials" "section 4 names the budget"

# Sections 5 and 6: the 64 MiB table in the image, the sizes record and the report.
S="$WORK/run/sizes/$L5.json"
img=$("$JGET" "$S" elf.image_memsz)
[ "$img" -ge 67108864 ] && pass "level-5 static image counts the basis ($img bytes)" || fail "image $img < 64 MiB"
[ "$("$JGET" "$S" 'elf.top_symbols[0].name')" = sable_basis ] && [ "$("$JGET" "$S" 'elf.top_symbols[0].size')" = 67108864 ] &&
	pass "sizes record: the largest symbol is the 64 MiB basis" || fail "sizes record: top symbol $("$JGET" "$S" 'elf.top_symbols[0].name')"
# Section 5 prints sizes in binary units to three significant figures, trailing zeros dropped.
img_mib=$(awk -v b="$img" 'BEGIN { m = b / 1048576; s = sprintf(m >= 100 ? "%.0f" : m >= 10 ? "%.1f" : "%.2f", m)
	if (s ~ /\./) sub(/\.?0+$/, "", s); print s }')
expect_grep "$R" "^\| \`Sable-lvl5\` \| harness-default \| keygen \| $img_mib MiB \| " "section 5: the static image of level 5 ($img_mib MiB)"
expect_grep "$R" "^- \`?Sable-lvl5\`?: [0-9]+ bytes of read-only data \(.rodata\) in a static image of $img bytes; largest tables: sable_basis 67108864 bytes" \
	"section 6 names the basis as the largest .rodata table"
M="$WORK/run/memory/${L5}__keygen.json"
grow=$(( ($("$JGET" "$M" memory.peak_rss) - $("$JGET" "$M" memory.baseline_rss)) >> 20 ))
[ "$grow" -ge 32 ] && pass "the walk pages the basis in: peak RSS grows by $grow MiB" || fail "peak RSS grew by $grow MiB only"

# Section 7: the survey verdict names the glue file, found in the library's code.
# (Without uprobes nothing is counted: the verdict then names the whole group.)
expect_grep "$R" '^Survey verdict: ICCS-only — xof glue in src/iccs/xof_glue\.c \((pseudoXOF|pseudohash/pseudoXOF/sm3hash)\); own Keccak/SHAKE present but unused$' \
	"survey verdict names the glue file; the helper files' SM3 is not the scheme's own"
PR="$WORK/run/profile/${L5}__sign.json"
expect_grep "$PR" '"file": "src/iccs/xof_glue.c"' "profile record: the glue file of the hash group's callers"
expect_grep "$PR" '"src/iccs/auxfunc.c"' "profile record: where the placeholder functions are defined"
finish
