#!/bin/sh
# pprof_go: `pqprof export --format pprof` read by Go's own pprof (Debian
# package golang-go), on a profile of a tree that links GMP (the observe
# fixture gmp-cmake), so the profile has the instance library, libgmp and
# libc as mappings.  Per operation, `go tool pprof -top` must name the
# same first functions as `pqprof report`, in the same order, with the
# same self share within rounding; and `go tool pprof -raw` must list the
# instance library as mapping 1 (the main binary pprof shows) and put each
# sampled function's location in the mapping of the module the report
# names.  Run by .ci/run, not by make check; no network (GOPROXY=off,
# HOME and GOCACHE in a temporary directory).
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
JGET=$top_builddir/tests/profile_jget
if ! command -v go >/dev/null 2>&1; then
	echo "pprof_go: go not installed (apt-get install golang-go)"
	exit 77
fi
command -v cmake >/dev/null 2>&1 || { echo "pprof_go: cmake not installed"; exit 77; }
[ -x "$JGET" ] || make -C "$top_builddir" tests/profile_jget >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-pprof-go.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GOCACHE="$work/home/cache" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=
mkdir -p "$HOME"
fails=0 passes=0
ok() { echo "ok: $1"; passes=$((passes + 1)); }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

cp -RL "$top_srcdir/tests/fixtures/observe/gmp-cmake" "$work/tree"
"$PQPROF" build "$work/tree" -o "$work/heron.so" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$PQPROF" profile "$work/heron.so" -o "$work/heron.pqt" --op all --min-samples 300 --no-counts -q >/dev/null 2>&1
# Every operation; and sign alone, whose first samples land in libgmp (the export once made it mapping 1).
"$PQPROF" export "$work/heron.pqt" --format pprof -o "$work/heron.pb" >/dev/null 2>"$work/export.err"
"$PQPROF" export "$work/heron.pqt" --format pprof --op sign -o "$work/sign.pb" >/dev/null 2>>"$work/export.err"
gp() { go tool pprof "$@" "$work/heron.pb" 2>"$work/go.err"; }

# Mappings: the instance library first; libgmp among the others.
for pb in heron sign; do
	go tool pprof -raw "$work/$pb.pb" >"$work/$pb.raw" 2>"$work/go.err" || { cat "$work/go.err"; exit 1; }
	sed -n '/^Mappings/,$p' "$work/$pb.raw" | sed -n '2,$p' >"$work/$pb.mappings"
	first=$(awk '$1 == "1:" { print $3; exit }' "$work/$pb.mappings")
	echo "  $pb.pb: mapping 1 is $first"
	[ "${first##*/}" = heron.so ] && ok "$pb.pb: go tool pprof's mapping 1 (the main binary) is the instance library" ||
		bad "$pb.pb: go tool pprof's mapping 1 is ${first:-none}, not heron.so"
	grep -q 'libgmp' "$work/$pb.mappings" && ok "$pb.pb: libgmp is a mapping too, after the instance" ||
		bad "$pb.pb: no libgmp mapping: the check would not tell the instance from the library it links"
	go tool pprof -top -nodecount=1 "$work/$pb.pb" >"$work/top1.txt" 2>"$work/go.err" &&
		grep -q '^File: heron.so$' "$work/top1.txt" && ok "$pb.pb: go tool pprof -top names heron.so as the profile's file" ||
		bad "$pb.pb: go tool pprof -top: $(grep '^File:' "$work/top1.txt")"
done
cp "$work/heron.raw" "$work/raw.txt"
cp "$work/heron.mappings" "$work/mappings.txt"

# Per operation: the report's first functions are pprof's, in order, with the same self share.
TOP=3
for op in keygen sign verify; do
	"$PQPROF" report "$work/heron.pqt" --op "$op" --json >"$work/$op.json" 2>/dev/null
	gp -sample_index=samples -tagfocus="operation=$op" -relative_percentages -top -nodecount=$((TOP + 3)) \
		>"$work/$op.top" || { bad "$op: go tool pprof -top failed: $(head -1 "$work/go.err")"; continue; }
	# flat, flat%, name of each row
	awk 'f { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print $1 "\t" $2 "\t" n } /^ *flat +flat%/ { f = 1 }' \
		"$work/$op.top" >"$work/$op.rows"
	for i in $(seq 0 $((TOP - 1))); do
		name=$("$JGET" "$work/$op.json" "functions[$i].name") || break
		self=$("$JGET" "$work/$op.json" "functions[$i].self")
		share=$("$JGET" "$work/$op.json" "functions[$i].self_share")
		module=$("$JGET" "$work/$op.json" "functions[$i].module" 2>/dev/null || echo "")
		row=$(sed -n "$((i + 1))p" "$work/$op.rows")
		gname=$(printf '%s' "$row" | cut -f3) gflat=$(printf '%s' "$row" | cut -f1) gpct=$(printf '%s' "$row" | cut -f2)
		# A tie in self samples may be listed either way round.
		if [ "$gname" = "$name" ] || { [ "$gflat" = "$self" ] && grep -q "	$name\$" "$work/$op.rows"; }; then
			ok "$op #$((i + 1)): $name in both ($self samples; pprof $gflat)"
		else
			bad "$op #$((i + 1)): report has $name ($self samples), go tool pprof $gname ($gflat)"
		fi
		if awk -v a="$share" -v b="${gpct%\%}" 'BEGIN { d = 100 * a - b; exit !(d < 0.006 && d > -0.006) }'; then
			ok "$op: $name self share $gpct in both"
		else
			bad "$op: $name self share: report $(awk -v a="$share" 'BEGIN { printf "%.2f%%", 100 * a }'), pprof $gpct"
		fi
		# Its locations lie in the mapping of the module the report names.
		maps=$(awk -v n="$name" '/^Locations/ { f = 1; next } /^Mappings/ { f = 0 } f && $4 == n { print substr($3, 3) }' \
			"$work/raw.txt" | sort -u)
		files=$(for m in $maps; do awk -v m="$m:" '$1 == m { n = split($3, p, "/"); print p[n] }' "$work/mappings.txt"; done |
			sort -u | tr '\n' ' ')
		if [ -n "$module" ] && [ "$files" = "$module " ]; then
			ok "$op: $name's locations are in mapping(s) $(echo $maps) of $module"
		else
			bad "$op: $name's locations are in mappings of ${files:-nothing}, the report says ${module:-no module}"
		fi
	done
done
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
