#!/bin/sh
# flag_sensitivity: how small a change a flag study sees in a fixed time.
# Builds the in-tree SPHINCS+ (--quick: its two 128f instances) with -O2,
# -O3 and an independent -O2 copy (the A/A arm) once, then runs
# PQPROF_BENCH_STUDIES (default 10) independent paired studies of
# PQPROF_BENCH_BUDGET seconds each (default 120: `pqprof run --steps
# paired --budget`), each in a fresh campaign directory holding only the
# builds.  It prints, per operation, how often the -O3 change was called,
# how often the A/A arm was called different, and the median interval
# half-width.
#
# With PQPROF_BENCH_PAIR=planted the pair is the NGCC toy fixture tree
# against the same code doing about 3% more work per call in every
# operation (-DTOY_EXTRA_ROUNDS=12, outputs unchanged), which a study must
# call.
#
# Targets (the flag-study issue): the -O3 change in sign called in at
# least 9 of 10 studies, the A/A arm in at most 1 of 10, the median
# half-width at most 1.5%; the planted 3% called in at least 8 of 10.
# Figures for people to read; the script fails only when pqprof does.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
STUDIES=${PQPROF_BENCH_STUDIES:-10}
BUDGET=${PQPROF_BENCH_BUDGET:-120}
PAIR=${PQPROF_BENCH_PAIR:-sphincs}
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
PQPROF_INTERPOSITION_CHECK=off
export PQPROF_SOURCE_ROOT PQPROF_INTERPOSITION_CHECK
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-flagsens.XXXXXX")
trap 'rm -rf "$work"' EXIT

case $PAIR in
sphincs)
	target=$top_srcdir/schemes/sphincsplus
	set -- --quick --profile O2=-O2 --profile O3=-O3 --aa
	want="candidate O3 called in >= 9 of 10 for sign; A/A in <= 1 of 10; median half-width <= 1.5%" ;;
planted)
	target=$top_srcdir/tests/fixtures/ngcc-toy
	set -- --profile base=-O2 --profile plus3="-O2 -DTOY_EXTRA_ROUNDS=12" --aa
	want="candidate plus3 (about 3% more work) called in >= 8 of 10" ;;
*)
	echo "PQPROF_BENCH_PAIR: sphincs or planted, not $PAIR" >&2
	exit 2 ;;
esac

echo "flag_sensitivity: $PAIR, $STUDIES studies of $BUDGET s each ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
t0=$(date +%s)
"$PQPROF" run "$target" "$@" --steps build,kat --no-report --out "$work/builds" >"$work/build.log" 2>&1 ||
	{ echo "build failed:"; tail -20 "$work/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"

i=1
while [ "$i" -le "$STUDIES" ]; do
	d=$work/study$i
	mkdir -p "$d"
	cp -r "$work/builds/lib" "$work/builds/build" "$work/builds/kat" "$d/"
	t=$(date +%s)
	"$PQPROF" run "$target" "$@" --steps paired --budget "$BUDGET" --no-report --out "$d" >"$d.log" 2>&1 ||
		{ echo "study $i failed:"; tail -20 "$d.log"; exit 1; }
	echo "study $i: $(( $(date +%s) - t )) s"
	i=$((i + 1))
done

# One line per (study, instance, op, candidate): verdict, ratio, half-width, stop reason.
python3 - "$work" "$STUDIES" "$want" <<'EOF'
import json, glob, os, sys, statistics
work, n, want = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = {}
for s in range(1, n + 1):
    for f in sorted(glob.glob(os.path.join(work, "study%d" % s, "paired", "*.json"))):
        r = json.load(open(f))
        inst = (r.get("instance") or {}).get("name", os.path.basename(f))
        for c in r.get("comparisons", []):
            key = (inst, r["op"], c["role"], c["candidate"])
            rows.setdefault(key, []).append((c["verdict"], c["ratio"], c["half_width"],
                                              c.get("vs_aa", {}).get("half_width", c["half_width"]),
                                              c["mde"], r.get("stop", "?"), r.get("elapsed_s", 0)))
print("%-30s %-7s %-10s %8s %8s %9s %9s %8s  %s" % ("instance", "op", "arm", "called", "ratio",
      "half-w", "vs A/A hw", "mde", "stops"))
for key in sorted(rows):
    v = rows[key]
    called = sum(1 for x in v if x[0] in ("faster", "slower"))
    stops = {}
    for x in v:
        stops[x[5]] = stops.get(x[5], 0) + 1
    print("%-30s %-7s %-10s %4d/%-3d %8.4f %8.2f%% %8.2f%% %7.2f%%  %s" % (
        key[0][:30], key[1], key[2] + ":" + key[3], called, len(v), statistics.median(x[1] for x in v),
        100 * statistics.median(x[2] for x in v), 100 * statistics.median(x[3] for x in v),
        100 * statistics.median(x[4] for x in v), ", ".join("%s x%d" % kv for kv in sorted(stops.items()))))
hw = [x[2] for k, v in rows.items() if k[2] == "candidate" for x in v]
if hw:
    print("median interval half-width over all candidate comparisons: %.2f%%" % (100 * statistics.median(hw)))
print("targets: " + want)
EOF
