#!/bin/sh
# End-to-end: report.md reads at a glance.  For the in-tree quick campaign
# (the toy scheme, NIST and NGCC instances) and a multi-level package
# (Bramble, one CMake project per level) the report must:
#  1. open with the summary within its first 40 lines;
#  2. say no sentence twice (see sentences in glance.sh for what counts);
#  3. number its sections 1..k without a gap;
#  4. give every figure in a table its unit, in the cell or in the column
#     header (see unitless in glance.sh for the rule).
# PQPROF_GLANCE_DIRS="DIR ..." checks existing campaign directories
# instead of running the two campaigns (to try the rules on old reports).
. "$top_srcdir/tests/e2e/lib.sh"
Q="--quick --trials 2 --target 0.05 --timeout 20 --timeout kat=20"

. "$top_srcdir/tests/e2e/glance.sh"

if [ -n "${PQPROF_GLANCE_DIRS:-}" ]; then
	for d in $PQPROF_GLANCE_DIRS; do glance "$d" "$d"; done
	finish
	exit
fi

# The in-tree quick campaign: two instances, every default step.
expect_rc 0 "the toy scheme's quick campaign" -- "$PQPROF" run "$FIX/campaign/toy.json" --out "$WORK/toy" $Q
glance "$WORK/toy" toy

# Two instances whose interposition factors read the same share one line in
# section 4 (else the same sentence would stand twice under two names).
# make check runs campaigns without the check (PQPROF_INTERPOSITION_CHECK=off),
# so the two records are made up here, equal, and the report written again.
cp -r "$WORK/toy" "$WORK/same"
mkdir -p "$WORK/same/interposition"
python3 - "$WORK/same/interposition" <<'PY'
import json, os, sys
ops = {op: {"factor": f, "lo": f - 0.02, "hi": f + 0.02, "rounds": 6, "measure": "CPU time per call",
            "beyond_noise": False} for op, f in (("keygen", 0.99), ("sign", 1.00), ("verify", 1.01))}
for label in ("Toy-96__harness-default", "Toy-NGCC-96__harness-default"):
    json.dump({"schema": "pqprof.interposition/1", "measured": "local", "noise": 0.1, "flagged": False,
               "ops": ops}, open(os.path.join(sys.argv[1], label + ".json"), "w"))
PY
expect_rc 0 "the campaign with equal factors, resumed (its report written again)" -- \
	"$PQPROF" run "$FIX/campaign/toy.json" --out "$WORK/same" $Q
expect_grep "$WORK/same/report.md" '^- Toy-96 / harness-default, Toy-NGCC-96 / harness-default: plain / local ' \
	"equal interposition factors: one line names both instances"
[ "$(grep -c '^- Toy[-A-Z]*96 / harness-default.*: plain / local ' "$WORK/same/report.md")" -eq 1 ] &&
	pass "equal interposition factors: said once" || fail "equal interposition factors said more than once"

# A multi-level package: two security levels, each its own CMake project.
expect_rc 0 "the Bramble package (two levels)" -- "$PQPROF" run "$FIX/pkg-impl-levels/Bramble" --out "$WORK/bramble" $Q
glance "$WORK/bramble" bramble
finish
