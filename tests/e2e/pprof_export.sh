#!/bin/sh
# End-to-end: `pqprof export --format pprof` on a profile of the in-tree
# SPHINCS+ (schemes/sphincsplus/ngcc).  The profile.proto (gzipped)
# is read back by tests/pprof_top (an independent protobuf-c reader): its
# structure is checked, and per operation the self samples of the report's
# top functions must be the ones pprof sees.  When `go` is installed,
# `go tool pprof -top` must load the file and name the same top function.
. "$top_srcdir/tests/e2e/lib.sh"

TOP="$top_builddir/tests/pprof_top"
JGET="$top_builddir/tests/profile_jget"

build_fixture "$top_srcdir/schemes/sphincsplus/ngcc" "$WORK/sph.so" || { finish; exit 1; }
expect_rc 0 "profile the in-tree SPHINCS+" -- "$PQPROF" profile "$WORK/sph.so" -o "$WORK/sph.pqt" --op all \
	--min-samples 300 --no-counts -q
expect_rc 0 "export --format pprof" -- "$PQPROF" export "$WORK/sph.pqt" --format pprof -o "$WORK/sph.pb"
# gzip-compressed, as profile.proto files travel.
if [ "$(od -An -tx1 -N2 "$WORK/sph.pb" | tr -d ' ')" = 1f8b ] && gzip -t "$WORK/sph.pb"; then
	pass "a gzip-compressed profile.proto"; else fail "not a well-formed gzip file"; fi

expect_rc 0 "the profile reads back (protobuf-c)" -- "$TOP" "$WORK/sph.pb"
cp "$WORK/out" "$WORK/all.txt"
expect_grep "$WORK/all.txt" "^types samples/count (cpu/nanoseconds|cycles/count)$" "sample types: samples, then the event in its unit"
expect_grep "$WORK/all.txt" "^ops keygen sign verify$" "every sample labelled with its operation"
expect_grep "$WORK/all.txt" "^mappings [1-9][0-9]* \(with build id [1-9]" "mappings carry build ids"
expect_grep "$WORK/all.txt" "^inline_locations [1-9]" "inlined frames as extra Line entries of a Location"
# pprof takes the first mapping for the profile's main binary: the instance library, not libgmp or libc.
lib=$("$PQPROF" trace info "$WORK/sph.pqt" 2>/dev/null | sed -n 's/^ *lib[: ] *//p' | head -1)
lib=${lib:-$WORK/sph.so}
expect_grep "$WORK/all.txt" "^mapping1 (.*/)?${lib##*/}\$" "mapping 1 is the instance library (${lib##*/})"

for op in keygen sign verify; do
	"$PQPROF" report "$WORK/sph.pqt" --op "$op" --json > "$WORK/$op.json" 2>/dev/null
	"$TOP" "$WORK/sph.pb" "$op" > "$WORK/$op.top"
	# The report's top five by self share, with their sample counts, are pprof's.
	for i in 0 1 2 3 4; do
		name=$("$JGET" "$WORK/$op.json" "functions[$i].name") || break
		self=$("$JGET" "$WORK/$op.json" "functions[$i].self")
		[ "$("$JGET" "$WORK/$op.json" "functions[$i].inlined")" = true ] && name="$name [inlined]"
		if grep -qxF "$(printf '%s\t%s' "$self" "$name")" "$WORK/$op.top"; then
			pass "$op: $name has $self self samples in both"
		else
			fail "$op: report has $name with $self self samples; pprof: $(grep -F "$name" "$WORK/$op.top" | head -1)"
		fi
	done
	first=$("$JGET" "$WORK/$op.json" "functions[0].name")
	top1=$(grep -m1 "	" "$WORK/$op.top")
	if printf '%s\n' "$top1" | grep -q "	$first"; then pass "$op: same top function ($first)"; else
		fail "$op: pprof's top function is $top1, the report's $first"; fi
done

if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	expect_rc 0 "go tool pprof -top loads the file" -- go tool pprof -sample_index=samples -tagfocus=operation=sign \
		-top -nodecount=3 "$WORK/sph.pb"
	first=$("$JGET" "$WORK/sign.json" "functions[0].name")
	expect_grep "$WORK/out" "^ +[0-9]+ +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9.]+% +$first" "go tool pprof: top sign function is $first"
else
	echo "note: go tool pprof not installed; checked with the protobuf-c reader only"
fi
finish
