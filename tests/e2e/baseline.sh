#!/bin/sh
# End-to-end: every candidate is benched beside the standard baseline of
# its NIST security category, in the same interleaved rounds, and the
# report gives its times and sizes as multiples of the baseline's.
#  - the toy NIST signature with --category 1: ML-DSA-44 is built, passes
#    its KAT, runs in every bench round of the toy, and the summary and
#    report.json give the ratios with lo <= ratio <= hi;
#  - a copy of it whose api.h states NIST_SECURITY_LEVEL 3: ML-DSA-65,
#    with the macro named as the category's source;
#  - --no-baseline: no baseline unit; no category known: no baseline, and
#    the summary says so once, naming --category N;
#  - the in-tree ML-DSA itself: no unit added, its own instances serve;
#  - the category from a name: a folder named Wren128f (token 128f), and
#    --category NAME=N for one instance; a folder named Falcon-512 states
#    none, and its row says "no baseline: category unknown";
#  - --baseline 1=LIB: a built ML-DSA-44 replaces the in-tree one, is
#    KAT-gated on the published digest and named, with its flags and its
#    own medians, next to the summary; a baseline that fails the gate
#    gives no ratio, and the row says why;
#  - --baseline 1=TREE: the tree built with the first profile, gated and
#    named with its path;
#  - a round of two packages whose names state 128-bit and level 1: a
#    number in every ratio column of its index.
. "$top_srcdir/tests/e2e/lib.sh"
# The in-tree baselines, wherever the build tree is.
PQPROF_DATADIR=$top_srcdir
export PQPROF_DATADIR
Q="--quick --trials 3 --target 0.05 --timeout 60 --steps build,kat,bench,sizes"

# check_run DIR CAND BASE CATEGORY FROM: the contract of report.json and the records.
check_run() {
	python3 - "$@" <<'EOF'
import json, os, sys
d, cand, base, cat, frm = sys.argv[1:6]
cat = int(cat)
bl = "baseline__%s__harness-default" % base
cl = "%s__harness-default" % cand
def load(p):
    with open(os.path.join(d, p)) as f:
        return json.load(f)
errs = []
b = load("build/%s.json" % bl)
if b.get("status") != "complete":
    errs.append("baseline build status %r" % b.get("status"))
k = load("kat/%s.json" % bl)
if k.get("outcome", {}).get("verdict") != "PASS":
    errs.append("baseline KAT verdict %r" % k.get("outcome", {}).get("verdict"))
for op in ("keygen", "sign", "verify"):
    for lab in (cl, bl):
        r = load("records/%s__%s.json" % (lab, op))
        units = r.get("interleave", {}).get("units", [])
        if cl not in units or bl not in units:
            errs.append("%s %s: interleave.units %r lacks the candidate or the baseline" % (lab, op, units))
    if load("records/%s__%s.json" % (bl, op)).get("role") != "baseline":
        errs.append("%s: the baseline's record has no role baseline" % op)
    if os.path.exists(os.path.join(d, "memory/%s__%s.json" % (bl, op))):
        errs.append("a memory record for the baseline")
rows = load("report.json")["summary"]["rows"]
byi = {r["instance"]: r for r in rows}
c, br = byi.get(cand), byi.get(base)
if not c or not br:
    errs.append("rows %r lack %s or %s" % (list(byi), cand, base))
else:
    if c.get("role") != "candidate" or br.get("role") != "baseline":
        errs.append("roles %r, %r" % (c.get("role"), br.get("role")))
    if c.get("category") != cat or c.get("category_from") != frm:
        errs.append("candidate category %r from %r" % (c.get("category"), c.get("category_from")))
    if br.get("category_from") != "descriptor":
        errs.append("baseline category from %r" % br.get("category_from"))
    bo = c.get("baseline") or {}
    if bo.get("instance") != base or bo.get("label") != bl:
        errs.append("baseline object %r" % {k: bo.get(k) for k in ("instance", "label")})
    ops = bo.get("ops", {})
    for op in ("keygen", "sign", "verify"):
        o = ops.get(op)
        if not o or not (0 < o["lo"] <= o["ratio"] <= o["hi"]) or o.get("trials") != 3:
            errs.append("%s ratio %r" % (op, o))
    if sorted(bo.get("sizes", {})) != ["pk", "sig", "sk"]:
        errs.append("size ratios %r" % bo.get("sizes"))
    elif abs(bo["sizes"]["pk"] * byi[base]["sizes"]["pk"] - c["sizes"]["pk"]) > 1e-6:
        errs.append("pk ratio %r is not %r / %r" % (bo["sizes"]["pk"], c["sizes"]["pk"], byi[base]["sizes"]["pk"]))
if errs:
    print("; ".join(errs))
    sys.exit(1)
EOF
}

# 1. --category 1: ML-DSA-44.
expect_rc 0 "toy with --category 1" -- "$PQPROF" run "$FIX/nist-toy" --category 1 $Q --out "$WORK/a"
check_run "$WORK/a" nist-toy ML-DSA-44 1 --category >"$WORK/chk" 2>&1 &&
	pass "category 1: ML-DSA-44 built, KAT PASS, interleaved, ratios in report.json" ||
	fail "category 1: $(cat "$WORK/chk")"
expect_grep "$WORK/a/report.md" '^\| instance \| profile \| KAT \| keygen \| sign \| verify \| keygen × ML-DSA-44 \| sign × ML-DSA-44 \| verify × ML-DSA-44 \| pk / sk / sig × ML-DSA-44 \|' \
	"the summary names the baseline in its ratio columns"
expect_grep "$WORK/a/report.md" '^\| `nist-toy` \| harness-default \| PASS \|.* [0-9.e-]+× \([0-9.e-]+–[0-9.e-]+\) \|' \
	"the candidate's row gives a ratio with its interval"
expect_grep "$WORK/a/report.md" '^\| `ML-DSA-44 \(baseline, FIPS 204\)`' "the baseline's row is marked"
grep -q 'no security category known' "$WORK/a/report.md" && fail "category 1: a no-category warning" ||
	pass "category 1: no no-category warning"

# 2. The category from api.h: a copy of the toy whose header states level 3.
mkdir -p "$WORK/src"
cp -RL "$FIX/nist-toy" "$WORK/src/lvl3-toy"
printf '\n#define NIST_SECURITY_LEVEL 3\n' >>"$WORK/src/lvl3-toy/api.h"
expect_rc 0 "toy whose api.h states level 3" -- "$PQPROF" run "$WORK/src/lvl3-toy" --source-root "$WORK/src" $Q \
	--out "$WORK/b"
check_run "$WORK/b" lvl3-toy ML-DSA-65 3 "api.h NIST_SECURITY_LEVEL" >"$WORK/chk" 2>&1 &&
	pass "api.h level 3: ML-DSA-65, category from the macro" || fail "api.h level 3: $(cat "$WORK/chk")"

# 3. --no-baseline, and no category at all.
expect_rc 0 "plan with --no-baseline" -- "$PQPROF" run "$FIX/nist-toy" --category 1 --no-baseline --dry-run
grep -q 'baseline__\|ML-DSA' "$WORK/out" && fail "--no-baseline still plans a baseline unit" ||
	pass "--no-baseline: no baseline unit"
expect_rc 0 "toy with no category" -- "$PQPROF" run "$FIX/nist-toy" --quick --steps build,kat --out "$WORK/c"
ls "$WORK/c/build" | grep -q baseline && fail "no category: a baseline was built" || pass "no category: no baseline unit"
n=$(grep -c 'no security category known for nist-toy.*--category N' "$WORK/c/report.md")
[ "$n" -eq 1 ] && pass "no category: the summary warns once, naming --category N" ||
	fail "no category: the warning appears $n times in report.md"

# A descriptor whose trees must stay inside --source-root: the baseline, outside it, is built under
# its own descriptor's rules.
expect_rc 0 "toy descriptor, --category 1, --source-root the fixtures" -- env -u PQPROF_SOURCE_ROOT "$PQPROF" run \
	"$FIX/campaign/toy.json" --category 1 --source-root "$FIX" --quick --steps build,kat --out "$WORK/d"
grep -q '"verdict": "PASS"' "$WORK/d/kat/baseline__ML-DSA-44__harness-default.json" 2>/dev/null &&
	pass "the baseline builds outside the candidate's source root" ||
	{ fail "no passing baseline outside the source root"; tail -5 "$WORK/err"; }

# 4. The in-tree ML-DSA is its own baseline: no unit added.
expect_rc 0 "plan for schemes/mldsa" -- "$PQPROF" run "$top_srcdir/schemes/mldsa" --quick --dry-run
grep -q '^plan for .*: 3 units' "$WORK/out" && ! grep -q 'baseline__' "$WORK/out" &&
	pass "schemes/mldsa: three units, none added" || { fail "schemes/mldsa: extra units planned"; cat "$WORK/out"; }
# 5. The category from a name: the instance's folder states 128 (as Wren128f), one instance named on the
# command line, and a folder named Falcon-512, which states none.
cp -RL "$FIX/nist-toy" "$WORK/src/Wren128f"
expect_rc 0 "plan for a tree named Wren128f" -- "$PQPROF" run "$WORK/src/Wren128f" --source-root "$WORK/src" --dry-run
expect_grep "$WORK/out" 'category 1 \((name|folder) Wren128f: token 128f\), baseline baseline__ML-DSA-44' \
	"Wren128f: category 1 from the token 128f, baseline ML-DSA-44"
cp -RL "$FIX/nist-toy" "$WORK/src/Falcon-512"
expect_rc 0 "plan for a tree named Falcon-512" -- "$PQPROF" run "$WORK/src/Falcon-512" --source-root "$WORK/src" --dry-run
grep -q 'baseline__' "$WORK/out" && fail "Falcon-512: a category read from 512" || pass "Falcon-512: no category, no baseline"
expect_rc 0 "plan with --category Falcon-512=5" -- "$PQPROF" run "$WORK/src/Falcon-512" --source-root "$WORK/src" \
	--category Falcon-512=5 --dry-run
expect_grep "$WORK/out" 'category 5 \(--category Falcon-512=5\), baseline baseline__ML-DSA-87' \
	"--category NAME=N sets that instance's category"
expect_rc 2 "--category for an instance the campaign does not have" -- "$PQPROF" run "$WORK/src/Falcon-512" \
	--source-root "$WORK/src" --category Falcon-1024=5 --dry-run
expect_grep "$WORK/err" 'Falcon-1024=5: this campaign has no instance of that name' "the unknown name is named"
expect_rc 1 "--category 7" -- "$PQPROF" run "$WORK/src/Falcon-512" --category 7 --dry-run
expect_rc 0 "Falcon-512 campaign, no category" -- "$PQPROF" run "$WORK/src/Falcon-512" --source-root "$WORK/src" \
	--quick --steps build,kat --out "$WORK/f"
expect_grep "$WORK/f/report.json" '"no_baseline": "category unknown \(say --category NAME=N\)"' \
	"report.json says why the row has no baseline"

# 6. --baseline 1=LIB: a built ML-DSA-44 (here the in-tree one, built apart) is the yardstick.
build_fixture "$top_srcdir/schemes/mldsa/nist" "$WORK/lab44.so" -D PARAMS=ml-dsa-44 &&
expect_rc 0 "toy against --baseline 1=LIB" -- "$PQPROF" run "$FIX/nist-toy" --category 1 --baseline "1=$WORK/lab44.so" \
	$Q --out "$WORK/g"
grep -q '"verdict": "PASS"' "$WORK/g/kat/baseline1__ML-DSA-44__prebuilt.json" 2>/dev/null &&
	pass "--baseline LIB: built, KAT-gated on the published digest: PASS" ||
	fail "--baseline LIB: no passing KAT record for the chosen baseline ($(ls "$WORK/g/kat" 2>&1 | tr '\n' ' '))"
ls "$WORK/g/build" | grep -q '^baseline__' && fail "--baseline LIB: the in-tree ML-DSA-44 was built too" ||
	pass "--baseline LIB: the in-tree baseline is not built"
expect_grep "$WORK/g/report.md" '^\| `nist-toy` \| harness-default \| PASS \|.* [0-9.e-]+× \([0-9.e-]+–[0-9.e-]+\) \|' \
	"--baseline LIB: the candidate's row gives ratios"
expect_grep "$WORK/g/report.md" "Baseline ML-DSA-44 \\(FIPS 204\\): --baseline $WORK/lab44.so, compiled by cc .* with -O2 .*; KAT PASS; its own medians: keygen [0-9.]+ .s, sign [0-9.]+ .s, verify [0-9.]+ .s\\." \
	"the summary names the chosen baseline, its flags, its KAT and its own medians"
expect_grep "$WORK/a/report.md" "Baseline ML-DSA-44 \\(FIPS 204\\): pqprof's in-tree ML-DSA .*, schemes/mldsa, pqprof [0-9.]+, compiled by cc .* with -O2 -DPARAMS=ml-dsa-44" \
	"the in-tree baseline is named with its version and flags"
# A baseline that fails its gate (the toy itself, standing for ML-DSA-44) gives no ratio.
build_fixture "$FIX/nist-toy" "$WORK/toy.so" &&
expect_rc 0 "toy against a baseline that is no ML-DSA-44" -- "$PQPROF" run "$FIX/nist-toy" --category 1 \
	--baseline "1=$WORK/toy.so" $Q --out "$WORK/h"
expect_grep "$WORK/h/report.md" '^\| `nist-toy` \|.*\| no ratio: baseline KAT [A-Z]+ \|' \
	"a baseline whose KAT is not PASS gives no ratio, and the row says why"
expect_rc 1 "--baseline with no category anywhere" -- "$PQPROF" run "$FIX/nist-toy" --category 1 \
	--baseline "$WORK/toy.so" --dry-run
expect_grep "$WORK/err" 'nothing in it states its security category; say --baseline N=' "the error says how to give one"
# 8. --baseline 1=TREE: a tree built with the first profile, gated, named with its path.
expect_rc 0 "toy against --baseline 1=TREE" -- "$PQPROF" run "$FIX/nist-toy" --category 1 \
	--baseline "1=$top_srcdir/schemes/mldsa/nist" --source-root "$top_srcdir" $Q --out "$WORK/t"
grep -q '"verdict": "PASS"' "$WORK/t/kat/baseline1__nist__harness-default.json" 2>/dev/null &&
	pass "--baseline TREE: built with the first profile, KAT PASS against the published digest" ||
	fail "--baseline TREE: no passing KAT record ($(ls "$WORK/t/kat" 2>&1 | tr '\n' ' '))"
expect_grep "$WORK/t/report.md" "^- Baseline nist \\(FIPS 204\\): --baseline $top_srcdir/schemes/mldsa/nist( \\(git [^)]*\\))?, compiled by .* with -O2 " \
	"--baseline TREE: the summary names the tree (and its git commit, in a checkout)"
expect_grep "$WORK/t/report.md" '^\| `nist-toy` \| harness-default \| PASS \|.* [0-9.e-]+× \([0-9.e-]+–[0-9.e-]+\) \|' \
	"--baseline TREE: the candidate's row gives ratios"

# 7. A round of two bare trees whose names state their level: every ratio column of the index has a number.
mkdir -p "$WORK/round2"
cp -RL "$FIX/nist-toy" "$WORK/round2/Wren128f"
cp -RL "$FIX/nist-toy" "$WORK/round2/wren_lvl1"
expect_rc 0 "a round of Wren128f and wren_lvl1" -- "$PQPROF" run "$WORK/round2" --round --source-root "$WORK/round2" \
	$Q --out "$WORK/r2"
python3 - "$WORK/r2/index.json" >"$WORK/chk" 2>&1 <<'EOF'
import json, sys
idx = json.load(open(sys.argv[1]))
bad = []
names = sorted(r["instance"] for r in idx["rows"])
if names != ["Wren128f", "wren_lvl1"]:
    bad.append("candidate rows %r" % names)
for r in idx["rows"]:
    b = r.get("baseline") or {}
    if r.get("category") != 1 or b.get("instance") != "ML-DSA-44":
        bad.append("%s: category %r, baseline %r" % (r["instance"], r.get("category"), b.get("instance")))
    for op in ("keygen", "sign", "verify"):
        x = (b.get("ops") or {}).get(op) or {}
        if not isinstance(x.get("ratio"), (int, float)):
            bad.append("%s: no %s ratio" % (r["instance"], op))
if bad:
    print("; ".join(bad))
    sys.exit(1)
EOF
[ $? = 0 ] && pass "round: both named packages get category 1 and a ratio in every column" ||
	fail "round: $(cat "$WORK/chk")"
finish
