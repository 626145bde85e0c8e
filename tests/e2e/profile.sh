#!/bin/sh
# End-to-end: pqprof profile, report and export through the real binary on
# the hot90 fixture, whose sign spends 90% in hot90_heavy (2/3 of that in
# the always-inline hot90_mix_round), 5% in lib2_spin of a second library
# built here, 4% in an assembly routine with an untyped symbol and an
# internal label, and calls hot90_counted exactly 37 times.  Shares are
# checked within sampling error; exports must parse.
. "$top_srcdir/tests/e2e/lib.sh"

JGET="$top_builddir/tests/profile_jget"
CC=${CC:-cc}
PF="$FIX/profile"

# near VALUE WANT TOL DESCRIPTION: |VALUE - WANT| <= TOL
near() {
	if [ -n "$1" ] && awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= t) }'; then
		pass "$4 ($1, want $2 +- $3)"
	else
		fail "$4: got '${1:-missing}', want $2 +- $3"
	fi
}

# same A B DESCRIPTION
same() {
	if [ "$1" = "$2" ]; then pass "$3 ($1)"; else fail "$3: '$1' vs '$2'"; fi
}

mkdir -p "$WORK/lib2"
"$CC" -O2 -g -shared -fPIC -o "$WORK/lib2/libhot2.so" "$PF/hot90-lib2/lib2.c" || { fail "build libhot2.so"; finish; exit 1; }
build_fixture "$PF/hot90" "$WORK/hot90.so" --ldflags "-L$WORK/lib2 -lhot2 -Wl,-rpath,$WORK/lib2" || { finish; exit 1; }

# ---- one sampled op, dwarf unwinding, exact counts of one extra function ----
expect_rc 0 "profile sign (dwarf)" -- "$PQPROF" profile "$WORK/hot90.so" --op sign --call-graph dwarf \
	--min-samples 1500 --count hot90_counted -o "$WORK/t.pqt" --record "$WORK/rec.json" \
	--flamegraph "$WORK/rec.svg" --folded "$WORK/rec.folded" -q
cp "$WORK/out" "$WORK/profile.out"
expect_grep "$WORK/profile.out" "bytes per sample" "bytes per sample printed after writing"
expect_grep "$WORK/profile.out" "lost 0([,;]|$)" "lost samples reported (0)"
expect_grep "$WORK/profile.out" "^Top functions by self share" "report printed after recording"
R="$WORK/rec.json"
same "$("$JGET" "$R" schema)" "pqprof.profile/1" "record schema"
same "$("$JGET" "$R" lost)" 0 "record: no samples lost"
samples=$("$JGET" "$R" samples)
[ "${samples:-0}" -ge 1000 ] && pass "at least 1000 samples kept ($samples)" || fail "only ${samples:-0} samples"
event=$("$JGET" "$R" event)
unit=$("$JGET" "$R" unit)
case "$event" in
cycles | cycles:*) same "$unit" cycles "cycles are labelled cycles" ;;
*) same "$unit" ns "$event samples are labelled ns, not cycles" ;;
esac
[ "$("$JGET" "$R" ops)" -ge 1 ] 2>/dev/null && pass "op count recorded" || fail "no op count"

near "$("$JGET" "$R" 'functions[name=hot90_heavy].incl_share')" 0.90 0.07 "hot90_heavy inclusive share"
near "$("$JGET" "$R" 'functions[name=hot90_mix_round].self_share')" 0.60 0.07 "inlined hot90_mix_round self share"
near "$("$JGET" "$R" 'functions[name=lib2_spin].incl_share')" 0.05 0.03 "lib2_spin share"
near "$("$JGET" "$R" 'functions[name=hot90_asm_spin].self_share')" 0.04 0.03 "assembly routine share"
same "$("$JGET" "$R" 'functions[name=lib2_spin].module')" libhot2.so "lib2_spin attributed to libhot2.so"
same "$("$JGET" "$R" 'functions[name=hot90_mix_round].module')" hot90.so "inlined helper attributed to the instance"
hd=$("$JGET" "$R" 'tree[name=hot90_heavy].depth')
md=$("$JGET" "$R" 'tree[name=hot90_mix_round].depth')
same "$md" "$((${hd:-0} + 1))" "inlined helper sits under hot90_heavy in the call tree"
grep -q hot90_asm_inner "$R" "$WORK/profile.out" && fail "internal asm label named a routine" || pass "asm label never names the routine"

if [ "$("$JGET" "$R" calls.available)" = true ]; then
	same "$("$JGET" "$R" 'calls.functions[name=hot90_counted].calls_per_op')" 37 "exact calls of hot90_counted per sign"
	upc=$("$JGET" "$R" 'calls.functions[name=hot90_counted].units_per_call')
	[ -n "$upc" ] && [ "$upc" != null ] && pass "units per call given ($upc $unit)" || fail "no units per call"
else
	reason=$("$JGET" "$R" calls.reason)
	[ -n "$reason" ] && pass "call counts unavailable, with the reason: $reason" || fail "counts unavailable without a reason"
fi

# Sample times are kept in units of the nominal sampling interval, and
# the header does not repeat the mappings the MMAP records carry.
"$PQPROF" trace info "$WORK/t.pqt" >"$WORK/tinfo" 2>&1 || fail "trace info of the recorded trace"
freq=$(awk '$1 == "freq" { print $2 }' "$WORK/tinfo")
if [ "${freq:-0}" -gt 0 ] 2>/dev/null; then
	"$PQPROF" trace dump "$WORK/t.pqt" >"$WORK/tdump" 2>&1 || fail "trace dump of the recorded trace"
	off=$(awk -v u=$((1000000000 / freq)) '$2 == "SAMPLE" { n++; for (i = 3; i <= NF; i++) if ($i ~ /^time=/) { t = substr($i, 6); if (t % u) bad++ } }
		END { print n + 0, bad + 0 }' "$WORK/tdump")
	case "$off" in
	0\ *) fail "no SAMPLE in the dump" ;;
	*\ 0) pass "sample times in units of the sampling interval ($off)" ;;
	*) fail "sample times not in units of the interval (samples, off: $off)" ;;
	esac
else
	fail "no sampling frequency in the trace header"
fi
grep -q '^  modules ' "$WORK/tinfo" && fail "header repeats the mappings" || pass "header leaves the mappings to MMAP records"

# ---- offline report reproduces the recording's report ----
expect_rc 0 "report on the trace file" -- "$PQPROF" report "$WORK/t.pqt" --record "$WORK/rec2.json"
for i in 0 1 2 3; do
	same "$("$JGET" "$WORK/rec2.json" "functions[$i].name") $("$JGET" "$WORK/rec2.json" "functions[$i].self")" \
		"$("$JGET" "$R" "functions[$i].name") $("$JGET" "$R" "functions[$i].self")" "offline report function $i"
done
expect_rc 0 "report --json" -- "$PQPROF" report "$WORK/t.pqt" --json --op sign
"$JGET" "$WORK/out" . >/dev/null && pass "report --json parses" || fail "report --json does not parse"

# ---- a library that is gone falls back to [lib+offset], and says so ----
mv "$WORK/lib2" "$WORK/lib2.gone"
expect_rc 0 "report with libhot2.so missing" -- "$PQPROF" report "$WORK/t.pqt" --no-tree
expect_grep "$WORK/out" "not verified: $WORK/lib2/libhot2.so" "missing library named"
expect_grep "$WORK/out" "\[libhot2.so\+0x[0-9a-f]+\]" "its addresses shown as [lib+offset]"
mv "$WORK/lib2.gone" "$WORK/lib2"

# ---- exports ----
for fmt in folded speedscope callgrind svg; do
	expect_rc 0 "export $fmt" -- "$PQPROF" export "$WORK/t.pqt" --format $fmt --op sign -o "$WORK/t.$fmt"
done
if grep -Evq '^[^ ]+ [0-9]+$' "$WORK/t.folded"; then fail "folded lines are 'stack weight'"; else pass "folded lines are 'stack weight'"; fi
expect_grep "$WORK/t.folded" "^crypto_sign;hot90_heavy;hot90_mix_round_\\[i\\] [0-9]+$" "folded stack with the inlined frame, marked _[i]"
"$JGET" "$WORK/t.speedscope" . >/dev/null && pass "speedscope parses" || fail "speedscope does not parse"
n=$("$JGET" "$WORK/t.speedscope" 'shared.frames#')
[ "${n:-0}" -ge 5 ] && pass "speedscope has $n frames" || fail "speedscope frames: ${n:-none}"
expect_grep "$WORK/t.callgrind" "^events: " "callgrind events line"
expect_grep "$WORK/t.callgrind" "^fn=hot90_heavy" "callgrind function block"
expect_grep "$WORK/t.svg" "<svg" "flame graph is SVG"
expect_grep "$WORK/t.svg" "hot90_mix_round" "flame graph names the functions"
expect_grep "$WORK/rec.svg" "hot90_heavy" "profile --flamegraph drew the graph"
expect_grep "$WORK/rec.folded" "^crypto_sign;hot90_heavy [0-9]+$" "profile --folded wrote the stacks"
same "$("$JGET" "$R" folded)" "$WORK/rec.folded" "record names its folded stacks"

# ---- every op into one trace, fp call graph ----
expect_rc 0 "profile all ops (fp)" -- "$PQPROF" profile "$WORK/hot90.so" --op all --min-samples 300 \
	--call-graph fp --no-counts --no-report -o "$WORK/all.pqt" --record "$WORK/all.json" -q
same "$("$JGET" "$WORK/all.json" '#')" 3 "one record per op"
same "$("$JGET" "$WORK/all.json" '[2].op')" verify "records in op order"
same "$("$JGET" "$WORK/all.json" '[0].calls.reason')" "not measured (--no-counts)" "skipped counts say why"
expect_grep "$WORK/all.json" "fp call graph of code built without -fno-omit-frame-pointer" \
	"fp on a build without frame pointers is flagged"
expect_rc 0 "profile with the default call graph" -- "$PQPROF" profile "$WORK/hot90.so" --op keygen \
	--min-samples 100 --no-counts --no-report -o "$WORK/k.pqt" --record "$WORK/k.json" -q
same "$("$JGET" "$WORK/k.json" callgraph)" dwarf "auto call graph is dwarf without frame pointers"
expect_rc 0 "report one op of a multi-op trace" -- "$PQPROF" report "$WORK/all.pqt" --op keygen --top 3
expect_grep "$WORK/out" "^== Hot90 keygen" "keygen section"
expect_rc 0 "differential flame graph" -- "$PQPROF" export --diff "$WORK/all.pqt" "$WORK/t.pqt" --op sign -o "$WORK/diff.svg"
expect_grep "$WORK/diff.svg" "<svg" "diff flame graph is SVG"

# ---- errors ----
expect_rc 1 "profile without -o" -- "$PQPROF" profile "$WORK/hot90.so"
expect_rc 1 "report of an op the trace lacks" -- "$PQPROF" report "$WORK/t.pqt" --op verify
expect_rc 1 "unknown export format" -- "$PQPROF" export "$WORK/t.pqt" --format pdf -o "$WORK/x"
printf 'junk' >"$WORK/junk.pqt"
expect_rc 2 "report of a non-trace" -- "$PQPROF" report "$WORK/junk.pqt"

finish
