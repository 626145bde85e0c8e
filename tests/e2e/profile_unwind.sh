#!/bin/sh
# End-to-end: dwarf-mode stacks reach the scheme's entry frame through a
# large stack frame (about 50 KiB of arrays between the entry and the
# leaf) and through an assembly leaf without CFI.  The deepstack fixture
# spends about half its sign in deep_frame's own loops, a quarter in
# deep_asm_mix and a quarter in deep_asm_fp (assembly without .cfi
# directives, the second keeping a frame pointer), all under deep_middle
# and crypto_sign; so every stack must reach the entry, and crypto_sign must
# hold (nearly) all of the inclusive share.  A run with the old fixed
# 16 KiB stack copy is the control: its stacks do not reach the entry and
# the report must say so.
. "$top_srcdir/tests/e2e/lib.sh"

JGET="$top_builddir/tests/profile_jget"

# at_least VALUE MIN DESCRIPTION (decimals)
at_least() {
	if [ -n "$1" ] && awk -v v="$1" -v m="$2" 'BEGIN { exit !(v >= m) }'; then
		pass "$3 ($1 >= $2)"
	else
		fail "$3: got '${1:-missing}', want >= $2"
	fi
}

case $(uname -m) in
x86_64) ;;
*) echo "dwarf unwinding is x86-64 only; skipped"; exit 77 ;;
esac

build_fixture "$FIX/profile/deepstack" "$WORK/deep.so" || { finish; exit 1; }

# cpu-clock delivers fewer samples than asked for when enabled only around
# calls: ask for plenty, the time cap is generous.
expect_rc 0 "profile sign (dwarf, stack copy sized from the measured depth)" -- \
	"$PQPROF" profile "$WORK/deep.so" --op sign --call-graph dwarf --min-samples 1500 \
	--budget 60 --no-counts -o "$WORK/t.pqt" --record "$WORK/rec.json"
cp "$WORK/out" "$WORK/profile.out"
R="$WORK/rec.json"
stacks=$("$JGET" "$R" unwind.stacks)
complete=$("$JGET" "$R" unwind.complete)
[ "${stacks:-0}" -ge 1000 ] && pass "at least 1000 stacks unwound ($stacks)" || fail "only ${stacks:-0} stacks unwound"
at_least "$(awk -v c="${complete:-0}" -v s="${stacks:-0}" 'BEGIN { if (s > 0) printf "%.4f", c / s }')" 0.99 \
	"share of stacks that reach the entry frame"
at_least "$("$JGET" "$R" 'functions[name=crypto_sign].incl_share')" 0.99 "crypto_sign (the entry) inclusive share"
at_least "$("$JGET" "$R" 'functions[name=deep_frame].incl_share')" 0.95 "deep_frame (under the 40 KiB frame) inclusive share"
fd=$("$JGET" "$R" 'tree[name=deep_frame].depth')
for leaf in deep_asm_mix deep_asm_fp; do
	at_least "$("$JGET" "$R" "functions[name=$leaf].self_share")" 0.1 "the CFI-less assembly leaf $leaf gets its samples"
	ad=$("$JGET" "$R" "tree[name=$leaf].depth")
	[ -n "$fd" ] && [ "$ad" = "$((fd + 1))" ] && pass "$leaf sits under deep_frame in the call tree" ||
		fail "$leaf at depth '${ad:-missing}', deep_frame at '${fd:-missing}'"
done
scan=$("$JGET" "$R" unwind.frames.scan)
fp=$("$JGET" "$R" unwind.frames.frame_pointer)
[ "${scan:-0}" -gt 0 ] && pass "frames without CFI or frame pointer recovered by the stack scan ($scan)" ||
	fail "no frame recovered by the stack scan"
[ "${fp:-0}" -gt 0 ] && pass "frames without CFI recovered through the frame pointer ($fp)" ||
	fail "no frame recovered through the frame pointer"
[ "$("$JGET" "$R" unwind.frames.stitched)" -gt 0 ] && pass "runner frames stitched above the entry" ||
	fail "no runner frames stitched"
expect_grep "$WORK/profile.out" "incomplete stacks: [0-9]+ of [0-9]+ \([0-9.]+%\) did not reach the entry frame; frames by CFI" "report says how stacks were unwound"
grep -q "did not reach the scheme's entry frame" "$WORK/profile.out" &&
	fail "incomplete-stack warning printed for complete stacks" || pass "no incomplete-stack warning"
expect_rc 0 "trace dump" -- "$PQPROF" trace dump "$WORK/t.pqt"
expect_grep "$WORK/out" "UNWIND_STATS op=[0-9]+ stacks=[0-9]+ complete=" "UNWIND_STATS record in the trace"
expect_rc 0 "report on the trace file" -- "$PQPROF" report "$WORK/t.pqt" --record "$WORK/rec2.json"
same_complete=$("$JGET" "$WORK/rec2.json" unwind.complete)
[ "$same_complete" = "$complete" ] && pass "offline report reads the unwinding counts back" ||
	fail "offline report: complete '$same_complete', recording said '$complete'"

# ---- control: a 16 KiB stack copy cannot reach the entry ----
expect_rc 0 "profile sign with a 16 KiB stack copy" -- \
	"$PQPROF" profile "$WORK/deep.so" --op sign --call-graph dwarf --stack 16384 --min-samples 300 \
	--budget 30 --no-counts -o "$WORK/small.pqt" --record "$WORK/small.json"
inc=$("$JGET" "$WORK/small.json" unwind.incomplete_share)
at_least "$inc" 0.5 "most stacks incomplete with a 16 KiB copy"
expect_grep "$WORK/out" "did not reach the scheme's entry frame" "report warns about incomplete stacks"

finish
