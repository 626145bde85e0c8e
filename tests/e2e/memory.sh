#!/bin/sh
# End-to-end: memory and size figures of fixtures with known behaviour
# must land within the bounds documented in doc/memory.md.
. "$top_srcdir/tests/e2e/lib.sh"
M="$FIX/mem"
MiB=1048576

build_fixture "$M/big_heap" "$WORK/heap.so"
expect_rc 0 "mem of a sign that allocates 10 MiB" -- "$PQPROF" mem "$WORK/heap.so" --op sign --json --records-dir ""
cp "$WORK/out" "$WORK/heap.json"
# Runners built with AddressSanitizer have no malloc hooks (ASan owns malloc).
heap=1
nm "${PQPROF_RUNNER:-$top_builddir/pqprof-runner}" 2>/dev/null | grep -q __asan_init && heap=0
if [ "$heap" = 1 ]; then
	expect_between "$(jnum "$WORK/heap.json" peak_live_bytes)" $((10 * MiB)) $((10 * MiB + MiB / 2)) "heap peak of the 10 MiB sign"
else
	pass "heap figures skipped: runner built with AddressSanitizer"
fi
base=$(jnum "$WORK/heap.json" baseline_rss)
peak=$(jnum "$WORK/heap.json" peak_rss)
expect_between $((peak - base)) $((9 * MiB)) $((12 * MiB)) "peak RSS growth of the 10 MiB sign"
[ "$heap" = 0 ] || expect_between "$(jnum "$WORK/heap.json" allocs)" 1 16 "allocation count of sign"

build_fixture "$M/big_stack" "$WORK/stack.so"
expect_rc 0 "mem of a verify with a 64 KiB stack array" -- "$PQPROF" mem "$WORK/stack.so" --op verify --json --records-dir ""
expect_between "$(jnum "$WORK/out" used)" 65536 $((65536 + 16384)) "stack high-water mark of verify"

build_fixture "$M/big_static" "$WORK/static.so"
expect_rc 0 "mem of an instance with a 1 MiB static table" -- "$PQPROF" mem "$WORK/static.so" --op keygen --json --records-dir ""
expect_between "$(jnum "$WORK/out" static_image_bytes)" $MiB $((MiB + 65536)) "static ELF image of the 1 MiB table"

expect_rc 0 "table output" -- "$PQPROF" mem "$WORK/heap.so" --records-dir "$WORK/rec"
expect_grep "$WORK/out" "^MemHeap-10M +sign " "mem table row"
[ "$(ls "$WORK/rec" | wc -l)" -eq 3 ] && pass "one memory record per operation" || fail "memory records: $(ls "$WORK/rec")"

# Sizes: declared vs produced, and the audit line when they disagree.
expect_rc 0 "sizes of a well-behaved instance" -- "$PQPROF" sizes "$WORK/heap.so" --records-dir ""
expect_grep "$WORK/out" "^static ELF image" "sizes prints the static image"
build_fixture "$FIX/hostile/sizes-too-small" "$WORK/small.so"
expect_rc 6 "sizes of an instance producing more than it declares" -- "$PQPROF" sizes "$WORK/small.so" --records-dir ""
expect_grep "$WORK/out" "size audit: signature: produced up to 96 bytes, declared 64 \(error" "size audit names the signature"
finish
