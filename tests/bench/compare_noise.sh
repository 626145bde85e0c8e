#!/bin/sh
# compare_noise: can `pqprof compare` be trusted on this machine?  Runs the
# in-tree SPHINCS+-shake-128f-simple (NIST tree) in real campaigns and
# prints what the comparison says:
#   (a) the same -O2 build in separate campaigns, every pair compared:
#       never reported as different (faster/slower);
#   (b) two identical builds interleaved in one run: ratio within 3% of 1;
#   (c) -O0 against -O2: a large, significant difference, both inside one
#       interleaved run and across separate campaigns.
# Figures for people to read; the exit status is 1 when a claim fails.
# COMPARE_NOISE_RUNS (default 3) separate -O2 campaigns are made for (a).
# The identical pair of (b) is the baseline and its A/A copy (`run --aa`):
# the same flags, built twice, interleaved.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
runs=${COMPARE_NOISE_RUNS:-3}
trials=${COMPARE_NOISE_TRIALS:-8}
target=${COMPARE_NOISE_TARGET:-0.2}
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-cmpnoise.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

cat >"$work/one.json" <<EOF
{ "name": "sphincs-128f", "title": "SPHINCS+-shake-128f-simple (NIST tree)", "category": "digital signature",
  "profiles": ["harness-default"],
  "instances": [ { "name": "SPHINCS+-shake-128f-simple", "tree": "$top_srcdir/schemes/sphincsplus/nist",
                   "api": "nist", "defines": ["PARAMS=sphincs-shake-128f"], "cflags": "-std=gnu17",
                   "manifest": "$top_srcdir/kat/sphincsplus/kat.sha256" } ] }
EOF

campaign() {   # campaign DIR [run options...]
	dir=$1
	shift
	"$PQPROF" run "$work/one.json" --source-root "$top_srcdir" --steps build,bench --trials "$trials" \
		--target "$target" --no-report -o "$dir" "$@" >"$dir.log" 2>&1 || {
		echo "campaign $dir failed:"
		tail -n 5 "$dir.log"
		exit 2
	}
}

# Rows of a comparison table: op, ratio, low, high, runs, verdict, A/A ratio.
rows() {
	awk -F'|' '/^#+ Timing/ { on = 1; next } /^#/ { on = 0 } on && /^\| `/ {
		op = $3; gsub(/ /, "", op)
		r = $7; gsub(/[()–]/, " ", r); split(r, x, " ")
		runs = $8; gsub(/^ +| +$/, "", runs)
		v = $9; gsub(/^ +| +$/, "", v)
		aa = $10; gsub(/^ +| +$/, "", aa); split(aa, y, " ")
		printf "%s %s %s %s %s %s|%s\n", op, x[1], x[2], x[3], runs, (y[1] == "" ? "-" : y[1]), v
	}' "$1"
}

show() {   # show TITLE FILE
	echo "  $1"
	rows "$2" | while IFS='|' read -r f v; do
		set -- $f
		printf '    %-7s ratio %s (%s-%s)  %-11s  %s%s\n' "$1" "$2" "$3" "$4" "$5" "$v" \
			"$( [ "$6" != "-" ] && echo "  [A/A $6]")"
	done
}

echo "SPHINCS+-shake-128f-simple sign/keygen/verify, $trials trials of ${target}s, load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "(a) the same -O2 build in $runs separate campaigns, every pair compared"
i=1
while [ "$i" -le "$runs" ]; do
	campaign "$work/sep$i"
	i=$((i + 1))
done
total=0
diff=0
i=1
while [ "$i" -le "$runs" ]; do
	j=$((i + 1))
	while [ "$j" -le "$runs" ]; do
		"$PQPROF" compare "$work/sep$i" "$work/sep$j" >"$work/a_$i$j.md" 2>&1
		show "campaign $j against campaign $i:" "$work/a_$i$j.md"
		n=$(rows "$work/a_$i$j.md" | wc -l)
		d=$(rows "$work/a_$i$j.md" | grep -c '|faster$\||slower$')
		total=$((total + n))
		diff=$((diff + d))
		j=$((j + 1))
	done
	i=$((i + 1))
done
if [ "$total" -gt 0 ] && [ "$diff" -eq 0 ]; then
	echo "  => PASS: $diff of $total comparisons reported a difference"
else
	echo "  => FAIL: $diff of $total comparisons reported a difference"
	failed=1
fi

echo
echo "(b)+(c) one interleaved campaign"
campaign "$work/mix" --profiles harness-default,debug --aa
same="$work/mix/compare/harness-default_vs_harness-default-aa"
what="harness-default against its A/A copy"
if [ -n "$same" ] && [ -f "$same/compare.md" ]; then
	show "(b) $what:" "$same/compare.md"
	bad=$(rows "$same/compare.md" | awk '{ if ($2 < 0.97 || $2 > 1.03) n++ } END { print n + 0 }')
	n=$(rows "$same/compare.md" | wc -l)
	if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then
		echo "  => PASS: every ratio within 3% of 1.00 ($n operations)"
	else
		echo "  => FAIL: $bad of $n ratios more than 3% from 1.00"
		failed=1
	fi
else
	echo "  => FAIL: no comparison of identical builds was written"
	failed=1
fi
dbg="$work/mix/compare/harness-default_vs_debug/compare.md"
show "(c) debug (-O0) against harness-default (-O2), interleaved:" "$dbg"
c_inter=$(rows "$dbg" | awk -F'|' '$2 == "slower" { split($1, f, " "); if (f[2] > 1.25) n++ } END { print n + 0 }')
c_n=$(rows "$dbg" | wc -l)

campaign "$work/sepdebug" --profiles debug
"$PQPROF" compare "$work/sep1" "$work/sepdebug" >"$work/c_sep.md" 2>&1
show "(c) debug (-O0) against harness-default (-O2), separate campaigns:" "$work/c_sep.md"
c_sep=$(rows "$work/c_sep.md" | awk -F'|' '$2 == "slower" { split($1, f, " "); if (f[2] > 1.25) n++ } END { print n + 0 }')
c_sn=$(rows "$work/c_sep.md" | wc -l)
if [ "$c_n" -gt 0 ] && [ "$c_inter" -eq "$c_n" ] && [ "$c_sn" -gt 0 ] && [ "$c_sep" -eq "$c_sn" ]; then
	echo "  => PASS: -O0 reported slower by more than 25% in every operation, in both modes"
else
	echo "  => FAIL: -O0 reported slower by more than 25% in $c_inter of $c_n operations interleaved," \
		"$c_sep of $c_sn across campaigns"
	failed=1
fi
exit "$failed"
