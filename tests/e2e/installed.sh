#!/bin/sh
# installed.sh PREFIX BINDIR PKGLIBEXECDIR PKGDATADIR: check an installed
# pqprof with nothing but its installed files.  The installed files are
# copied to a new prefix in a scratch directory (a moved install), and from
# an empty working directory outside any source tree the copy must find its
# runner and data directory under the new prefix, list and run the in-tree
# schemes by name (SPHINCS+'s quick campaign, output where it is told;
# ML-KEM's build and KAT gate), create nothing in the working directory,
# and answer a missing runner with the tool's own error (exit 10) rather
# than a scheme verdict.
# Run by `make installcheck` (so by `make distcheck`) and tests/ci/install.sh.
# PQPROF_INSTALLCHECK_STEPS limits the campaign's steps (default: all).
set -u
[ $# -eq 4 ] || { echo "usage: $0 PREFIX BINDIR PKGLIBEXECDIR PKGDATADIR" >&2; exit 1; }
prefix=$1 bindir=$2 libexecdir=$3 datadir=$4
unset PQPROF_RUNNER PQPROF_DATADIR PQPROF top_srcdir top_builddir
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-installed.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }

# Where each installed directory lies below the prefix.
rel() { case $1 in "$prefix"/*) echo "${1#"$prefix"}" ;; *) echo "" ;; esac; }
rb=$(rel "$bindir") rl=$(rel "$libexecdir") rd=$(rel "$datadir")
if [ -z "$rb" ] || [ -z "$rl" ] || [ -z "$rd" ]; then
	echo "SKIP: bindir, pkglibexecdir or pkgdatadir is not below the prefix; no moved copy to check"
	exit 0
fi
M="$WORK/moved prefix"   # a space on the way, on purpose
mkdir -p "$M$rb" "$M$rl" "$M$rd" "$WORK/cwd"
cp -p "$bindir/pqprof" "$M$rb/" && cp -Rp "$libexecdir/." "$M$rl/" && cp -Rp "$datadir/." "$M$rd/" ||
	{ echo "FAIL: cannot copy the installed files"; exit 1; }
PQ="$M$rb/pqprof"
cd "$WORK/cwd" || exit 1

"$PQ" schemes --paths > "$WORK/paths" 2>&1
grep -qF "runner   $M$rl/pqprof-runner" "$WORK/paths" && pass "runner found in the moved prefix" ||
	{ fail "runner not found in the moved prefix"; cat "$WORK/paths"; }
grep -qF "datadir  $M$rd" "$WORK/paths" && pass "data directory found in the moved prefix" ||
	{ fail "data directory not found in the moved prefix"; cat "$WORK/paths"; }
"$PQ" schemes > "$WORK/schemes" 2>&1
grep -qF "$M$rd/schemes/sphincsplus" "$WORK/schemes" && pass "schemes lists the installed sphincsplus" ||
	{ fail "schemes does not list the installed sphincsplus"; cat "$WORK/schemes"; }
grep -qF "$M$rd/schemes/mlkem" "$WORK/schemes" && pass "schemes lists the installed mlkem" ||
	{ fail "schemes does not list the installed mlkem"; cat "$WORK/schemes"; }
grep -qF "$M$rd/schemes/mldsa" "$WORK/schemes" && pass "schemes lists the installed mldsa" ||
	{ fail "schemes does not list the installed mldsa"; cat "$WORK/schemes"; }
for f in schemes/sphincsplus/scheme.json kat/sphincsplus/kat.sha256 schemes/mlkem/scheme.json \
	schemes/mlkem/nist/params/params-ml-kem-1024.h kat/mlkem/kat.sha256 schemes/mldsa/scheme.json \
	schemes/mldsa/nist/params/params-ml-dsa-87.h kat/mldsa/kat.sha256 doc/records.md doc/slurm.md README.md; do
	[ -f "$M$rd/$f" ] && pass "installed $f" || fail "not installed: $f"
done

steps=${PQPROF_INSTALLCHECK_STEPS:+--steps $PQPROF_INSTALLCHECK_STEPS}
"$PQ" run sphincsplus --quick --cpu 0 --out "$WORK/out" $steps > "$WORK/run.out" 2> "$WORK/run.err"
rc=$?
[ $rc -eq 0 ] && pass "run sphincsplus --quick from the moved prefix" ||
	{ fail "run sphincsplus --quick: exit $rc"; tail -20 "$WORK/run.err"; }
grep -q '"status": "complete"' "$WORK/out/campaign.json" 2>/dev/null && pass "campaign complete" ||
	fail "campaign not complete"
n=$(grep -l '"verdict": "PASS"' "$WORK/out"/kat/*.json 2>/dev/null | wc -l)
[ "$n" -eq 3 ] && pass "both quick instances and their baseline ML-DSA-44 PASS their KAT gate" ||
	fail "$n KAT PASS verdicts, wanted 3 (two SPHINCS+ instances, the installed ML-DSA-44 baseline)"
grep -q '"verdict": "PASS"' "$WORK/out/kat/baseline__ML-DSA-44__harness-default.json" 2>/dev/null &&
	pass "the baseline is built from the installed mldsa" || fail "no passing baseline ML-DSA-44 unit"
[ -f "$WORK/out/report.md" ] && pass "report written where told" || fail "no report.md in --out"
# The in-tree KEM: built and gated from the installed copy (a few seconds).
"$PQ" run mlkem --quick --cpu 0 --out "$WORK/mlkem" --steps build,kat > "$WORK/mlkem.out" 2> "$WORK/mlkem.err"
rc=$?
n=$(grep -l '"verdict": "PASS"' "$WORK/mlkem"/kat/*.json 2>/dev/null | wc -l)
[ $rc -eq 0 ] && [ "$n" -eq 3 ] && pass "run mlkem --steps build,kat: all three sets PASS" ||
	{ fail "run mlkem --steps build,kat: exit $rc, $n KAT PASS verdicts, wanted 3"; tail -20 "$WORK/mlkem.err"; }
[ -z "$(ls -A "$WORK/cwd")" ] && pass "nothing created in the working directory" ||
	{ fail "files appeared in the working directory:"; ls -A "$WORK/cwd"; }

# A missing runner is pqprof's own fault: exit 10, naming where it looked.
rm -f "$M$rl/pqprof-runner"
"$PQ" run sphincsplus --quick --out "$WORK/out2" > "$WORK/nr.out" 2> "$WORK/nr.err"
rc=$?
[ $rc -eq 10 ] && pass "missing runner: exit 10" || fail "missing runner: exit $rc, wanted 10"
grep -qF "pqprof-runner not found (looked in" "$WORK/nr.err" && grep -qF "$M$rl/pqprof-runner" "$WORK/nr.err" &&
	pass "missing runner: message names where it looked" || { fail "missing runner message"; cat "$WORK/nr.err"; }
[ ! -e "$WORK/out2/kat" ] && pass "missing runner: no scheme verdicts written" || fail "verdicts written without a runner"

[ $FAILS -eq 0 ] && echo "installed copy: all checks passed" || echo "installed copy: $FAILS checks failed"
[ $FAILS -eq 0 ]
