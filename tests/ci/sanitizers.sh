#!/bin/sh
# sanitizers.sh: build pqprof with AddressSanitizer + UBSan
# (./configure --enable-sanitizers) in a separate copy of the source tree and
# run "make check" there.  The checkout itself is left as it is (it may be
# configured in-tree, which rules out a VPATH build from it).
#
#   tests/ci/sanitizers.sh [DIR]     DIR: where to build (default: a temporary
#                                    directory, removed when everything passes)
#
# Notes on what runs sanitized: pqprof, pqprof-runner and the test programs
# are; instance libraries that `pqprof build` compiles are not (they are
# scheme code), and the ASan runner loads them as they are.  In this build
# the runner has no malloc hooks (ASan owns malloc) and is not put under
# RLIMIT_AS (ASan reserves terabytes of address space): its memory is capped
# through ASAN_OPTIONS instead (src/supervise/child.h).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
keep=1
if [ $# -ge 1 ]; then
	dir=$1
	mkdir -p "$dir"
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-sanitizers.XXXXXX")
	keep=0
fi
dir=$(cd "$dir" && pwd)
echo "sanitizers: building in $dir"

# Sources only: from git when this is a checkout (tracked and untracked,
# not ignored), else everything but the usual build products.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard) |
		(cd "$src" && xargs -0 tar cf - --no-recursion) | (cd "$dir" && tar xf -)
else
	(cd "$src" && tar cf - --exclude=.git --exclude='*.o' --exclude='*.a' --exclude=Makefile \
		--exclude=config.status --exclude=config.h --exclude=config.log --exclude=autom4te.cache .) |
		(cd "$dir" && tar xf -)
fi

cd "$dir"
[ -f doc/pqprof.1 ] || touch doc/pqprof.1
autoreconf -fi >/dev/null
./configure --enable-sanitizers >/dev/null
make -j"$(nproc)" >/dev/null
# Leaks in pqprof or the test programs fail the run; UB aborts
# (-fno-sanitize-recover); abort_on_error gives Check a signal to report.
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	make -j"$(nproc)" check || {
	# The failing tests' own logs, so that CI's output says what failed.
	# (The summary lines only: test-suite.log also holds the logs, whose own
	# "FAIL: ..." lines are checks, not tests.)
	grep -E '^(FAIL|ERROR): ' test-suite.log 2>/dev/null | sed 's/^[A-Z]*: //' | sort -u |
		while read -r t; do
			[ -f "$t.log" ] || continue
			echo "== $t.log: the failed checks =="
			grep -E '^(FAIL|not ok)' "$t.log" | head -n 40
			echo "== $t.log (last 60 lines) =="
			tail -n 60 "$t.log"
		done
	echo "sanitizers: make check failed; logs under $dir (tests/**/*.log)"
	exit 1
}
echo "sanitizers: make check passed with ASan + UBSan"
# Every allocation failing in turn: each error path must leave no leak either.
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	make check-alloc-fail || { echo "sanitizers: make check-alloc-fail failed; build under $dir"; exit 1; }
echo "sanitizers: make check-alloc-fail passed with ASan + UBSan"
[ "$keep" = 1 ] || rm -rf "$dir"
