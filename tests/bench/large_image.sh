#!/bin/sh
# large_image: pqprof on an instance library of tens to hundreds of MB,
# the way submissions with large generated tables come.  The large-image
# fixture's build step generates a read-only table of PQPROF_BENCH_MIB MiB
# (default 64) into .rodata (tests/fixtures/large-image/gen_table.sh; the
# generated source is never committed); then, on the library built from
# it, this prints the wall time of build, KAT, sizes, mem, profile (sign) and
# `pqprof report` on the trace (median of PQPROF_BENCH_REPEATS, default
# 5: the report's start must stay well under a second, symbols read
# lazily, tables never read whole), and the image and section sizes.
# Figures for people to read, not a pass/fail test.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
MIB=${PQPROF_BENCH_MIB:-64}
REPEATS=${PQPROF_BENCH_REPEATS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-largeimage.XXXXXX")
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
# timed LABEL command...: runs it, prints "LABEL  S s"
timed() {
	label=$1
	shift
	t0=$(now)
	"$@" >"$work/last.out" 2>&1 || { echo "$label failed:"; sed 's/^/  | /' "$work/last.out" | head -20; exit 1; }
	t1=$(now)
	awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-28s %8.3f s\n", l, b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

cp -RL "$top_srcdir/tests/fixtures/large-image" "$work/tree"
timed "generate table ($MIB MiB)" env MAKEFLAGS= MAKELEVEL= make -s -C "$work/tree" big_table.c TABLE_MIB="$MIB"
timed "build" "$PQPROF" build "$work/tree" -o "$work/big.so" -q
bytes=$(wc -c < "$work/big.so")
echo "library file: $bytes bytes"
timed "kat" "$PQPROF" kat "$work/big.so" --records-dir ""
grep "^RESULT" "$work/last.out"
timed "sizes" "$PQPROF" sizes "$work/big.so" --records ""
grep -E "^static ELF image|^  rodata|toy_big_table" "$work/last.out"
timed "mem sign" "$PQPROF" mem "$work/big.so" --op sign --records ""
grep -E "^Toy" "$work/last.out"
timed "profile sign" "$PQPROF" profile "$work/big.so" -o "$work/big.pqt" --op sign --min-samples 1000 --no-counts -q
: > "$work/times"
i=0
while [ "$i" -lt "$REPEATS" ]; do
	t0=$(now)
	"$PQPROF" report "$work/big.pqt" --op sign > "$work/report.txt" 2>&1
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$work/times"
	i=$((i + 1))
done
printf '%-28s %8.3f s (median of %d; target: well under 1 s)\n' "report (trace -> table)" \
	"$(median < "$work/times")" "$REPEATS"
sed -n '/Top functions by self share/,/^$/p' "$work/report.txt" | sed -n 3,5p
