#!/bin/sh
# End-to-end: the toy scheme's quick campaign gives the same report as the
# one recorded in tests/fixtures/campaign/golden/ once every measured figure
# is masked (tests/json_mask.c, rules in report.mask): the records a
# campaign writes, the order its steps run in, the unit labels, verdicts,
# step states, sizes, sections and wording.  What the machine decides (its
# description and caveats, the counter, the compiler, the sampler) is
# masked too, so the expected file holds on any machine.  The report must
# also read at a glance (tests/e2e/glance.sh).  After a change
# meant to alter the campaign's output, regenerate the expected file with
#   PQPROF_GOLDEN_UPDATE=1 make check TESTS=tests/e2e/campaign_golden.sh
# and read the diff.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/glance.sh"
MASK="$top_builddir/tests/json_mask"
G="$top_srcdir/tests/fixtures/campaign/golden"
SRC=$(cd "$top_srcdir" && pwd -P)
# The campaign is named by its physical path, the one masked below (make
# distcheck's VPATH build spells top_srcdir with ../).
FIX="$SRC/tests/fixtures"
# The campaign as `pqprof run` runs it by default: with the interposition check.
PQPROF_INTERPOSITION_CHECK=on
export PQPROF_INTERPOSITION_CHECK

expect_rc 0 "toy quick campaign" -- "$PQPROF" run "$FIX/campaign/toy.json" --quick --trials 2 --target 0.05 \
	--out "$WORK/c"
cp "$WORK/out" "$WORK/stdout"
cp "$WORK/err" "$WORK/stderr"
D="$WORK/c"

# Without perf sampling or uprobes the profile records are failures, and
# the report another one: nothing to compare on such a machine.
if grep -q '"status": "failed"' "$D"/profile/*.json 2>/dev/null; then
	echo "SKIP: profiling is unavailable here (the profile step failed)"
	exit 77
fi

{
	echo "## files"
	(cd "$D" && find . -type f | LC_ALL=C sort)
	echo "## steps, in the order they ran"
	sed -n 's/^progress done=\([0-9]*\) total=\([0-9]*\) \(step=[^ ]* unit=[^ ]*\)\( op=[^ ]*\)\{0,1\} .*/\1\/\2 \3\4/p' \
		"$WORK/stderr"
	sed -n 's/^progress campaign .*: \([0-9]*\) units done in .*/\1 units done/p' "$WORK/stderr"
	echo "## summary table: rows and KAT verdicts"
	sed -n '2,$s/^\([^ ][^ ]*\) *\([a-z][a-z]*\) .*  \(KAT [^;]*\).*/\1 \2 \3/p' "$WORK/stdout"
	echo "## report.json"
	"$MASK" "$G/report.mask" "$D/report.json" "$D=<out>" "$SRC=<src>"
	for f in "$D"/interposition/*.json; do
		echo "## ${f#"$D"/}"
		"$MASK" "$G/interposition.mask" "$f" "$D=<out>" "$SRC=<src>"
	done
} >"$WORK/actual"

# The same report read at a glance (the rules of tests/e2e/report_glance.sh,
# which make check-heavy also runs on a two-level package).
glance "$D" toy

if [ -n "${PQPROF_GOLDEN_UPDATE:-}" ]; then
	cp "$WORK/actual" "$G/toy-quick.expected" && pass "wrote $G/toy-quick.expected"
elif diff -u "$G/toy-quick.expected" "$WORK/actual" >"$WORK/diff"; then
	pass "masked campaign output equals tests/fixtures/campaign/golden/toy-quick.expected"
else
	fail "masked campaign output differs from the expected file ('-' expected, '+' now):"
	head -n 80 "$WORK/diff"
fi
finish
