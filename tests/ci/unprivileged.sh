#!/bin/sh
# unprivileged.sh: run the end-to-end scripts and the Check suites of a
# built tree as an ordinary user at perf_event_paranoid 2, the setting of a
# stock Debian lab machine, so that nothing in pqprof silently depends on
# root (perf events, uprobes, /proc/sys, files under /root).
#
#   tests/ci/unprivileged.sh [BUILD_DIR]   (default: the source tree, built in-tree)
#
# As root it creates the user $PQPROF_TEST_USER (default pqprof-ci) when
# missing, sets kernel.perf_event_paranoid to 2 when /proc/sys is writable
# (and restores the old value on exit), and runs every test through
# runuser.  When the tree is not readable by that user (a checkout under
# /root), the tests, fixtures and binaries are copied to a world-readable
# scratch directory first.  Run as a non-root user it just runs the tests.
# The tests run side by side in as many lanes as there are CPUs
# (PQPROF_TEST_JOBS=1 runs them one at a time); PQPROF_TEST_ONLY="e2e/x.sh
# tests/test_y" runs only those.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src}" && pwd)
user=${PQPROF_TEST_USER:-pqprof-ci}
scratch=
results=
restore_paranoid=
cleanup() {
	if [ -n "$restore_paranoid" ]; then
		echo "$restore_paranoid" >/proc/sys/kernel/perf_event_paranoid 2>/dev/null ||
			echo "unprivileged: could not restore perf_event_paranoid to $restore_paranoid" >&2
	fi
	[ -z "$scratch" ] || rm -rf "$scratch"
	[ -z "$results" ] || rm -rf "$results"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for f in "$build/pqprof" "$build/pqprof-runner"; do
	[ -x "$f" ] || { echo "unprivileged: $f missing: build first (make)" >&2; exit 2; }
done

run_as() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
	if ! id "$user" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/sh "$user"
		echo "unprivileged: created user $user"
	fi
	if command -v runuser >/dev/null 2>&1; then
		run_as() { runuser -u "$user" -- "$@"; }
	else
		run_as() {
			q=
			for a in "$@"; do q="$q '$(printf %s "$a" | sed "s/'/'\\\\''/g")'"; done
			su -s /bin/sh "$user" -c "$q"
		}
	fi
	old=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo "")
	if [ -n "$old" ] && [ "$old" != 2 ]; then
		if echo 2 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null; then
			restore_paranoid=$old
			echo "unprivileged: perf_event_paranoid $old -> 2 (restored on exit)"
		else
			echo "unprivileged: /proc/sys is read-only here; running at perf_event_paranoid $old"
		fi
	fi
	# The user must be able to read the fixtures and run the binaries.
	if ! run_as test -r "$src/tests/e2e/lib.sh" -a -x "$build/pqprof" -a -x "$build/tests"; then
		scratch=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-unpriv.XXXXXX")
		mkdir -p "$scratch/src" "$scratch/build/tests"
		cp -a "$src/tests" "$src/schemes" "$src/kat" "$scratch/src/" 2>/dev/null || cp -a "$src/tests" "$scratch/src/"
		cp -a "$build/pqprof" "$build/pqprof-runner" "$scratch/build/"
		for t in "$build"/tests/test_* "$build"/tests/fuzz/fuzz_*_replay; do
			[ -f "$t" ] && [ -x "$t" ] || continue
			d="$scratch/build/${t#$build/}"
			mkdir -p "$(dirname "$d")"
			cp -a "$t" "$d"
		done
		chmod -R a+rX "$scratch"
		src=$scratch/src
		build=$scratch/build
		echo "unprivileged: tree not readable by $user; testing a copy in $scratch"
	fi
	echo "unprivileged: running as $user (uid $(id -u "$user"))"
else
	echo "unprivileged: already running as $(id -un); perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"
fi

# Tests run in $PQPROF_TEST_JOBS lanes at once (default: the number of CPUs,
# as make -j would); each lane runs its share in turn and notes failures.
jobs=${PQPROF_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
results=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-unpriv-res.XXXXXX")
chmod 755 "$results"
run_test() {   # run_test NAME command...
	name=$1
	shift
	log=$(mktemp "${TMPDIR:-/tmp}/pqprof-unpriv-log.XXXXXX")
	chmod 644 "$log"
	if run_as env top_srcdir="$src" top_builddir="$build" PQPROF="$build/pqprof" PQPROF_SOURCE_ROOT="$src" \
		PQPROF_RUNNER="$build/pqprof-runner" CK_DEFAULT_TIMEOUT=120 TMPDIR=/tmp HOME=/tmp \
		"$@" >"$log" 2>&1; then
		echo "PASS: $name"
	else
		rc=$?
		if [ "$rc" -eq 77 ]; then
			echo "SKIP: $name"
		else
			# One block, so that lanes running side by side do not interleave it.
			{ echo "FAIL: $name (exit $rc)"; grep -v '^ok: ' "$log" | sed 's/^/  | /' | tail -n 40; } >"$log.fail"
			cat "$log.fail"
			rm -f "$log.fail"
			echo "$name" >>"$results/failed"
		fi
	fi
	echo "$name" >>"$results/run"
	rm -f "$log"
}

list=$results/list
# The end-to-end scripts make check runs (its TESTS), not every file in
# tests/e2e: some are helpers the tests source or run (lib.sh, glance.sh,
# round_fixture.sh), installed.sh checks an installed prefix (make
# installcheck), and make check-heavy's scripts (heavy_package.sh,
# sphincs_campaign.sh, round.sh) run once, as root.
e2e=$(printf 'pqprof-print-tests:\n\t@echo $(TESTS)\n' |
	make -s --no-print-directory -C "$build" -f Makefile -f - pqprof-print-tests) || {
	echo "unprivileged: cannot read the list of tests from $build/Makefile"; exit 1; }
for t in $e2e; do
	case "$t" in tests/e2e/*.sh) ;; *) continue ;; esac
	echo "e2e/$(basename "$t") sh $src/$t" >>"$list"
done
[ -s "$list" ] || { echo "unprivileged: no end-to-end test in $build/Makefile's TESTS"; exit 1; }
for t in "$build"/tests/test_* "$build"/tests/fuzz/fuzz_*_replay; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	case "$t" in *.c | *.o | *.log | *.trs) continue ;; esac
	echo "${t#$build/} $t" >>"$list"
done
if [ -n "${PQPROF_TEST_ONLY:-}" ]; then   # names as listed, e.g. "e2e/leak.sh tests/test_kat"
	for n in $PQPROF_TEST_ONLY; do awk -v n="$n" '$1 == n' "$list"; done >"$list.only"
	mv "$list.only" "$list"
	[ -s "$list" ] || { echo "unprivileged: PQPROF_TEST_ONLY names no test"; exit 1; }
fi
lane() {   # lane K: every jobs-th test of the list, from the K-th
	awk -v k="$1" -v n="$jobs" 'NR % n == k' "$list" | while read -r name cmd; do
		# shellcheck disable=SC2086 # the command's words were written unquoted above (paths without blanks)
		run_test "$name" $cmd
	done
}
k=0
while [ "$k" -lt "$jobs" ]; do
	lane "$k" &
	k=$((k + 1))
done
wait

total=$(wc -l <"$results/run")
failed=$(cat "$results/failed" 2>/dev/null | tr '\n' ' ')
if [ -n "$failed" ]; then
	echo "unprivileged: failed: $failed($total run)"
	exit 1
fi
echo "unprivileged: all $total passed"
