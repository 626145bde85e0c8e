#!/bin/sh
# End-to-end: a library with a large generated read-only table (the
# large-image fixture, its table generated here at 16 MiB to keep make
# check fast; tests/bench/large_image.sh runs it at 64 MiB and prints the
# times).  The KAT passes, the image and .rodata sizes count the table,
# the sizes record and report section 6 name it as the largest .rodata
# object.
. "$top_srcdir/tests/e2e/lib.sh"
JGET="$top_builddir/tests/profile_jget"
MIB=16

cp -RL "$FIX/large-image" "$WORK/tree"
# The table is made by the tree's own build step, which pqprof build runs (observed build).
sed "s/^TABLE_MIB = .*/TABLE_MIB = $MIB/" "$FIX/large-image/Makefile" >"$WORK/tree/Makefile"
build_fixture "$WORK/tree" "$WORK/big.so" || { finish; exit 1; }
[ ! -e "$WORK/tree/big_table.c" ] && pass "the table was generated in the build's copy, not in the tree" ||
	fail "the tree's own build wrote into the tree"
expect_rc 0 "kat on the large library" -- "$PQPROF" kat "$WORK/big.so" --records-dir ""
expect_grep "$WORK/out" "^RESULT Toy-NGCC-96 PASS" "KAT passes"
expect_rc 0 "sizes on the large library" -- "$PQPROF" sizes "$WORK/big.so" --records-dir "$WORK/rec"
expect_grep "$WORK/out" "^ +$((MIB << 20)) +rodata toy_big_table$" "largest symbol is the table, in .rodata"
R=$(ls "$WORK"/rec/*.json | head -n 1)
img=$("$JGET" "$R" elf.image_memsz)
ro=$("$JGET" "$R" elf.sections.rodata)
[ "$img" -ge $((MIB << 20)) ] && pass "image size counts the table ($img bytes)" || fail "image $img < $MIB MiB"
[ "$ro" -ge $((MIB << 20)) ] && pass ".rodata counts the table ($ro bytes)" || fail ".rodata $ro < $MIB MiB"
[ "$("$JGET" "$R" 'elf.top_symbols[0].name')" = toy_big_table ] && pass "record: top symbol toy_big_table" ||
	fail "record: top symbol is $("$JGET" "$R" 'elf.top_symbols[0].name')"

expect_rc 0 "campaign sizes and report" -- "$PQPROF" run "$WORK/big.so" --steps build,sizes,report --quick --out "$WORK/c"
expect_grep "$WORK/c/report.md" "^- \`?Toy-NGCC-96\`?: [0-9]+ bytes of read-only data \(.rodata\) in a static image of [0-9]+ bytes; largest tables: toy_big_table $((MIB << 20)) bytes" \
	"report section 6 names the largest .rodata table"
finish
