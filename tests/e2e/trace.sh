#!/bin/sh
# e2e: "pqprof trace info|dump|check" on the seed traces of the fuzz
# corpus: a clean trace passes check, an incomplete or damaged one fails
# it with a message naming the readable prefix.
set -u
: "${PQPROF:?PQPROF must name the pqprof binary}"
: "${top_srcdir:?}"
C="$top_srcdir/tests/fuzz/corpus/trace"
T=$(mktemp -d) || exit 99
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$PQPROF" trace -h >/dev/null 2>&1 || { echo "SKIP: pqprof has no trace command"; exit 77; }

"$PQPROF" trace check "$C/valid_frames.pqt" >"$T/out" 2>&1 || fail "check of a clean trace: $(cat "$T/out")"
grep -q "ok (15 frames, 386 records, 200 samples)" "$T/out" || fail "check output: $(cat "$T/out")"

"$PQPROF" trace info "$C/valid_small.pqt" >"$T/info" 2>&1 || fail "info: $(cat "$T/info")"
grep -q "status: *complete" "$T/info" || fail "info status: $(cat "$T/info")"
grep -q "SAMPLE 60" "$T/info" || fail "info counts: $(cat "$T/info")"
grep -q "instance *toy" "$T/info" || fail "info header: $(cat "$T/info")"

"$PQPROF" trace dump "$C/valid_small.pqt" >"$T/dump" 2>&1 || fail "dump"
[ "$(grep -c ' SAMPLE ' "$T/dump")" -eq 60 ] || fail "dump has not 60 SAMPLE lines"

# Format 2.0 (SAMPLES blocks) and 2.1 (SAMPLES_B, escaped stack codes) both read.
"$PQPROF" trace check "$C/valid_v2.pqt" >"$T/out" 2>&1 || fail "check of a 2.0 trace: $(cat "$T/out")"
grep -q "ok (2 frames, .* 200 samples)" "$T/out" || fail "2.0 check output: $(cat "$T/out")"
"$PQPROF" trace check "$C/valid_v21.pqt" >"$T/out" 2>&1 || fail "check of a 2.1 trace: $(cat "$T/out")"
grep -q "ok (2 frames, 307 records, 420 samples)" "$T/out" || fail "2.1 check output: $(cat "$T/out")"
"$PQPROF" trace info "$C/valid_v21.pqt" >"$T/info" 2>&1 || fail "info of a 2.1 trace"
grep -q "format 2\.1" "$T/info" || fail "2.1 format not shown: $(cat "$T/info")"
grep -q "SAMPLES_B 1" "$T/info" || fail "2.1 record counts: $(cat "$T/info")"

if "$PQPROF" trace check "$C/incomplete.pqt" >"$T/out" 2>&1; then fail "incomplete trace passed check"; fi
grep -q "incomplete (no end marker); 2 frames / 40 samples readable" "$T/out" || fail "incomplete: $(cat "$T/out")"
"$PQPROF" trace info "$C/incomplete.pqt" >"$T/out" 2>&1 || fail "info of an incomplete trace failed"

head -c 300 "$C/valid_frames.pqt" >"$T/cut.pqt"
if "$PQPROF" trace check "$T/cut.pqt" >"$T/out" 2>&1; then fail "truncated trace passed check"; fi
grep -q "truncated frame .* samples readable" "$T/out" || fail "truncated: $(cat "$T/out")"

if "$PQPROF" trace check "$C/raw_small.bin" >"$T/out" 2>&1; then fail "raw records passed check"; fi
grep -q "not a pqprof trace" "$T/out" || fail "bad magic: $(cat "$T/out")"
exit 0
