#!/bin/sh
# End-to-end: pqprof annotate through the real binary on the twoloops
# fixture, built at -O0 and at -O2.  Its twoloops_work runs two loops of
# the same body with 19:1 iteration counts (lines marked HEAVY / LIGHT in
# the source): the annotation must find both loops and put at least 80% of
# the function's samples in the heavy loop's lines, and in its
# instructions.  The assembly routine is annotated by instruction alone;
# --diff lines the two builds up by source line; the profile record
# carries the annotations.  On the in-tree SPHINCS+ the hottest function's
# lines add up to its samples, and -O2 and -O3 line up by source line.
. "$top_srcdir/tests/e2e/lib.sh"

JGET="$top_builddir/tests/profile_jget"
SRC="$FIX/annotate/twoloops"
C="$SRC/twoloops.c"

# Line range of a marker in the fixture's source: "first last".
range_of() { grep -n "/\* $1 \*/" "$C" | cut -d: -f1 | awk 'NR == 1 { f = $1 } { l = $1 } END { print f, l }'; }
set -- $(range_of HEAVY); H0=$1 H1=$2
set -- $(range_of LIGHT); L0=$1 L1=$2

# within "file:a-b" LO HI: the source range lies inside [LO, HI]
within() {
	echo "$1" | awk -F'[:-]' -v lo="$2" -v hi="$3" '{ a = $2; b = NF > 2 ? $3 : $2; exit !(a >= lo && b <= hi) }'
}

for o in O0 O2; do
	build_fixture "$SRC" "$WORK/tl-$o.so" --cflags "-$o -g" || { finish; exit 1; }
	expect_rc 0 "profile sign at -$o" -- "$PQPROF" profile "$WORK/tl-$o.so" --op sign --min-samples 300 \
		--call-graph fp --no-counts --no-report -o "$WORK/$o.pqt" -q
	expect_rc 0 "annotate -$o (hottest function)" -- "$PQPROF" annotate "$WORK/$o.pqt" --op sign
	A="$WORK/ann-$o"
	cp "$WORK/out" "$A"
	expect_grep "$A" "^== sign, [a-z:-]+: twoloops_work \(tl-$o.so, " "-$o: the hottest function is twoloops_work"
	expect_grep "$A" "^   skid: " "-$o: the header says how samples skid"
	expect_grep "$A" "^-- Disassembly" "-$o: disassembly shown"
	expect_grep "$A" "\| imul " "-$o: the multiply is in the disassembly"
	total=$(sed -n 's/^   \([0-9]*\) of [0-9]* samples in its code.*/\1/p' "$A")
	# Samples of the source lines inside each loop.
	lines=$(awk -v h0="$H0" -v h1="$H1" -v l0="$L0" -v l1="$L1" '
		/^-- Source lines/ { on = 1; next } /^-- / { on = 0 }
		on && $3 ~ /^twoloops\.c:[0-9]+$/ { split($3, p, ":"); n = p[2] + 0
			if (n >= h0 && n <= h1) h += $2; if (n >= l0 && n <= l1) l += $2; s += $2 }
		END { print h + 0, l + 0, s + 0 }' "$A")
	set -- $lines
	heavy=$1 light=$2 sum=$3
	[ "${total:-0}" -ge 100 ] && pass "-$o: $total samples in the function" || fail "-$o: too few samples (${total:-none})"
	[ "$sum" = "$total" ] && pass "-$o: the lines add up to the function's samples ($sum)" ||
		fail "-$o: lines sum to $sum, function has $total"
	[ $((heavy * 100)) -ge $((total * 80)) ] && pass "-$o: heavy loop's lines hold $heavy of $total samples (>= 80%)" ||
		fail "-$o: heavy loop's lines hold only $heavy of $total"
	# Loops: the hottest is the heavy one, and the light one is found too.
	awk '/^-- Hottest loops/ { on = 1; next } /^-- / { on = 0 } on' "$A" >"$WORK/loops-$o"
	nloops=$(grep -c 'depth' "$WORK/loops-$o")
	[ "$nloops" -ge 2 ] && pass "-$o: $nloops loops found" || fail "-$o: $nloops loop(s) found, want both"
	first=$(head -n 1 "$WORK/loops-$o")
	src=$(echo "$first" | awk '{ print $NF }')
	within "$src" "$H0" "$H1" && pass "-$o: hottest loop is the heavy one ($src)" || fail "-$o: hottest loop at $src, heavy is $H0-$H1"
	ls=$(sed -n 2p "$WORK/loops-$o" | awk '{ print $NF }')
	within "$ls" "$L0" "$L1" && pass "-$o: second loop is the light one ($ls)" || fail "-$o: second loop at $ls, light is $L0-$L1"
	ins=$(echo "$first" | awk '{ print $2 }')
	[ $((ins * 100)) -ge $((total * 80)) ] && pass "-$o: heavy loop's instructions hold $ins of $total samples" ||
		fail "-$o: heavy loop's instructions hold only $ins of $total"
	expect_rc 0 "annotate -$o --json" -- "$PQPROF" annotate "$WORK/$o.pqt" --op sign --json
	cp "$WORK/out" "$WORK/ann-$o.json"
	[ "$("$JGET" "$WORK/ann-$o.json" schema)" = pqprof.annotate/1 ] && pass "-$o: JSON schema" || fail "-$o: JSON schema"
done

# ---- an assembly routine: no DWARF, by instruction alone ----
expect_rc 0 "annotate the assembly routine" -- "$PQPROF" annotate "$WORK/O2.pqt" --function twoloops_asm_spin
expect_grep "$WORK/out" "annotated by instruction alone" "no DWARF: said so"
expect_grep "$WORK/out" "depth 1\)  \(no line info\)" "its loop found without line info"
expect_grep "$WORK/out" "\| ret$" "its disassembly ends at its ret"
if grep -q "pqprof_shim" "$WORK/out"; then fail "routine runs into the next function"; else pass "routine ends before the next function"; fi

# ---- two builds side by side ----
expect_rc 0 "annotate --diff -O0 -O2" -- "$PQPROF" annotate --diff "$WORK/O0.pqt" "$WORK/O2.pqt" --function twoloops_work --op sign
D="$WORK/out"
expect_grep "$D" "^== twoloops_work, sign: before vs after" "diff header"
matched=$(sed -n 's/^   lines lined up: \([0-9]*\).*/\1/p' "$D")
[ "${matched:-0}" -ge 3 ] && pass "diff lined up $matched source lines" || fail "diff lined up ${matched:-no} lines"
hl=$((H0 + 1))
expect_grep "$D" "^  twoloops\.c:$hl +[0-9.]+ [kMG]? +[0-9.]+ [kMG]? +[+-][0-9.]+%" "heavy line $hl in both builds with its change"
expect_grep "$D" "^-- Hottest loops, after" "loops of both builds"
expect_rc 0 "annotate --diff --json" -- "$PQPROF" annotate --diff "$WORK/O0.pqt" "$WORK/O2.pqt" --function twoloops_work --json
[ "$("$JGET" "$WORK/out" schema)" = pqprof.annotate-diff/1 ] && pass "diff JSON schema" || fail "diff JSON schema"

# ---- the profile record carries the annotations of the top functions ----
expect_rc 0 "report --record" -- "$PQPROF" report "$WORK/O2.pqt" --record "$WORK/rec.json"
R="$WORK/rec.json"
[ "$("$JGET" "$R" 'annotate[0].function')" = twoloops_work ] && pass "record: hottest function annotated first" ||
	fail "record: annotate[0] is '$("$JGET" "$R" 'annotate[0].function')'"
n=$("$JGET" "$R" 'annotate[function=twoloops_work].loops#')
[ "${n:-0}" -ge 2 ] && pass "record: its $n loops" || fail "record: loops ${n:-missing}"
n=$("$JGET" "$R" 'annotate[function=twoloops_work].instructions#')
[ "${n:-0}" -ge 5 ] && pass "record: its $n instructions" || fail "record: instructions ${n:-missing}"
"$JGET" "$R" 'annotate[function=twoloops_work].lines[0].text' >/dev/null && pass "record: lines carry their source text" ||
	fail "record: no source text"

# ---- the in-tree SPHINCS+ at -O2 and -O3: lines add up, --diff lines them up ----
SPX="$top_srcdir/schemes/sphincsplus/nist"
for o in O2 O3; do
	build_fixture "$SPX" "$WORK/spx-$o.so" -D PARAMS=sphincs-shake-128f --cflags "-$o -g" || { finish; exit 1; }
	expect_rc 0 "profile SPHINCS+ sign at -$o" -- "$PQPROF" profile "$WORK/spx-$o.so" --op sign --min-samples 400 \
		--call-graph fp --no-counts --no-report -o "$WORK/spx-$o.pqt" -q
done
expect_rc 0 "annotate SPHINCS+ -O2 (hottest function)" -- "$PQPROF" annotate "$WORK/spx-O2.pqt" --json
cp "$WORK/out" "$WORK/spx.json"
fn=$("$JGET" "$WORK/spx.json" function)
code=$("$JGET" "$WORK/spx.json" samples)
self=$("$JGET" "$WORK/spx.json" self_samples)
sum=$("$PQPROF" annotate "$WORK/spx-O2.pqt" --no-asm | awk '/^-- Source lines/ { on = 1; next } /^-- / { on = 0 } on { s += $2 } END { print s + 0 }')
[ "$sum" = "$code" ] && pass "SPHINCS+ $fn: its lines add up to its samples ($sum)" || fail "SPHINCS+ $fn: lines $sum, function $code"
"$PQPROF" report "$WORK/spx-O2.pqt" --record "$WORK/spx-rec.json" >/dev/null 2>&1
rself=$("$JGET" "$WORK/spx-rec.json" "functions[name=$fn].self")
[ "$rself" = "$self" ] && pass "SPHINCS+ $fn: annotated self samples = the report's self ($self)" ||
	fail "SPHINCS+ $fn: annotate self $self, report self '$rself'"
expect_rc 0 "annotate --diff SPHINCS+ -O2 -O3" -- "$PQPROF" annotate --diff "$WORK/spx-O2.pqt" "$WORK/spx-O3.pqt" --function "$fn" --json
m=$("$JGET" "$WORK/out" lines_matched)
nb=$("$JGET" "$WORK/out" lines_before)
na=$("$JGET" "$WORK/out" lines_after)
[ "${m:-0}" -ge 3 ] && [ $((m * 10)) -ge $((nb * 8)) ] && [ $((m * 10)) -ge $((na * 8)) ] &&
	pass "SPHINCS+ -O2/-O3: $m source lines lined up (before $nb, after $na)" ||
	fail "SPHINCS+ -O2/-O3: ${m:-no} lines lined up (before $nb, after $na)"

# ---- errors ----
expect_rc 1 "a function the library lacks" -- "$PQPROF" annotate "$WORK/O2.pqt" --function no_such_function
expect_rc 1 "an op the trace lacks" -- "$PQPROF" annotate "$WORK/O2.pqt" --op verify
expect_rc 1 "--diff with one trace" -- "$PQPROF" annotate --diff "$WORK/O2.pqt"
printf 'junk' >"$WORK/junk.pqt"
expect_rc 2 "not a trace" -- "$PQPROF" annotate "$WORK/junk.pqt"

finish
