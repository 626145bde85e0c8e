# lib.sh: shared helpers for pqprof's end-to-end tests (sourced, not run).
# Each test runs the real pqprof binary on real fixture trees in a scratch
# directory and fails with a message saying what was expected.
set -u
: "${top_srcdir:?run through make check}"
: "${PQPROF:=$top_builddir/pqprof}"
# The fixtures link to each other (../toy): let links resolve anywhere in the source tree.
: "${PQPROF_SOURCE_ROOT:=$top_srcdir}"
export PQPROF_SOURCE_ROOT
FIX="$top_srcdir/tests/fixtures"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-e2e.XXXXXX")
trap '[ -n "${PQPROF_E2E_KEEP:-}" ] || rm -rf "$WORK"' EXIT   # PQPROF_E2E_KEEP=1 keeps it for a look
FAILS=0
PASSES=0

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; PASSES=$((PASSES + 1)); }

# expect_rc WANT DESCRIPTION -- command...
expect_rc() {
	local want=$1 what=$2
	shift 3
	"$@" >"$WORK/out" 2>"$WORK/err"
	local rc=$?
	if [ "$rc" -eq "$want" ]; then pass "$what (exit $rc)"; else
		fail "$what: exit $rc, wanted $want"; sed 's/^/  | /' "$WORK/err" | head -20; fi
}

# expect_grep FILE PATTERN DESCRIPTION
expect_grep() {
	if grep -Eq -- "$2" "$1"; then pass "$3"; else
		fail "$3: /$2/ not in $1"; sed 's/^/  | /' "$1" | head -20; fi
}

build_fixture() {   # build_fixture TREE OUT.so [extra args]
	local tree=$1 out=$2
	shift 2
	"$PQPROF" build "$tree" -o "$out" -q "$@" >"$WORK/build.out" 2>&1 || {
		fail "build $tree"; cat "$WORK/build.out"; return 1; }
}

finish() {
	echo "$PASSES passed, $FAILS failed"
	[ "$FAILS" -eq 0 ]
}

# jnum FILE KEY: the first number stored under "KEY" in an indented JSON file.
jnum() {
	sed -n "s/^ *\"$2\": \([0-9.eE+-]*\),\{0,1\}$/\1/p" "$1" | head -n 1
}

# expect_between VALUE LO HI DESCRIPTION (integers)
expect_between() {
	if [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; then pass "$4 ($1 in [$2, $3))"; else
		fail "$4: '$1' not in [$2, $3)"; fi
}
