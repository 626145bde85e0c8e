#!/bin/sh
# End-to-end: every reader of a file that a user or a submission names,
# given a FIFO, a device and a symbolic link loop, ends at once with a clear
# error naming the file (never blocks, never reads a device without end),
# within a time limit.  Traces, records, campaign folders, vectors,
# manifests and libraries.
. "$top_srcdir/tests/e2e/lib.sh"

mkfifo "$WORK/fifo"
ln -s "$WORK/loop-b" "$WORK/loop-a"
ln -s "$WORK/loop-a" "$WORK/loop-b"

# refuses WHAT command... (the bad file is $BAD): ends within 20 s, exit status 1-9, a message naming it
refuses() {
	local what=$1 rc
	shift
	timeout 20 "$@" </dev/null >"$WORK/r.out" 2>&1
	rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ]; then
		fail "$what: did not end (exit $rc)"
	elif [ "$rc" -eq 27 ] && grep -q "LOADFAIL $BAD: " "$WORK/r.out"; then
		pass "$what: LOADFAIL at once, naming the file ($(sed -n 's/.*LOADFAIL //p' "$WORK/r.out"))"
	elif [ "$rc" -lt 1 ] || [ "$rc" -gt 9 ]; then
		fail "$what: exit $rc, wanted an error status (1-9)"; sed 's/^/  | /' "$WORK/r.out" | head -5
	elif grep -qF -- "$BAD" "$WORK/r.out"; then
		pass "$what: refused at once (exit $rc), naming the file"
	else
		fail "$what: exit $rc, but the message does not name $BAD"; sed 's/^/  | /' "$WORK/r.out" | head -5
	fi
}

build_fixture "$FIX/nist-toy" "$WORK/toy.so" || { finish; exit 1; }
mkdir -p "$WORK/camp"
for kind in fifo dev loop; do
	case $kind in
	fifo) BAD="$WORK/fifo" ;;
	dev) BAD=/dev/zero ;;
	loop) BAD="$WORK/loop-a" ;;
	esac
	refuses "report TRACE ($kind)" "$PQPROF" report "$BAD"
	refuses "export ($kind)" "$PQPROF" export "$BAD" --format folded -o "$WORK/x.folded"
	refuses "annotate ($kind)" "$PQPROF" annotate "$BAD"
	refuses "trace info ($kind)" "$PQPROF" trace info "$BAD"
	refuses "kat --vectors ($kind)" "$PQPROF" kat "$WORK/toy.so" --vectors "$BAD" --records-dir "$WORK/rk"
	refuses "kat --manifest ($kind)" "$PQPROF" kat "$WORK/toy.so" --manifest "$BAD" --records-dir "$WORK/rk"
	refuses "kat LIB ($kind)" "$PQPROF" kat "$BAD" --records-dir "$WORK/rk"
	refuses "compare ($kind)" "$PQPROF" compare "$BAD" "$BAD"
	# A campaign folder whose campaign.json is the bad file.
	rm -rf "$WORK/camp/c1"
	mkdir -p "$WORK/camp/c1"
	ln -s "$BAD" "$WORK/camp/c1/campaign.json"
	BAD="$WORK/camp/c1/campaign.json"
	refuses "merge ($kind campaign.json)" "$PQPROF" merge "$WORK/merged-$kind" "$WORK/camp/c1"
done

# A trace whose mapping path has become a FIFO (the library replaced after profiling): report, export and
# annotate end, and say what they could not read.
"$PQPROF" profile "$WORK/toy.so" --op sign --min-samples 200 -o "$WORK/m.pqt" -q >"$WORK/prof.out" 2>&1
if [ -f "$WORK/m.pqt" ]; then
	mv "$WORK/toy.so" "$WORK/toy.kept.so"
	mkfifo "$WORK/toy.so"
	for c in "report $WORK/m.pqt" "annotate $WORK/m.pqt" "export $WORK/m.pqt --format folded -o $WORK/m.folded"; do
		timeout 60 "$PQPROF" $c </dev/null >"$WORK/m.out" 2>&1
		rc=$?
		[ "$rc" -ne 124 ] && [ "$rc" -lt 128 ] && pass "${c%% *} of a trace whose library is now a FIFO: ends (exit $rc)" ||
			fail "${c%% *} of a trace whose library is now a FIFO: did not end (exit $rc)"
	done
	rm -f "$WORK/toy.so"
	mv "$WORK/toy.kept.so" "$WORK/toy.so"
else
	fail "profile of the toy scheme: no trace"; tail -5 "$WORK/prof.out"
fi

# Walks keep to the folder they were given: a round holding a link to / is not walked through it.
mkdir -p "$WORK/round"
cp -R "$FIX/nist-toy" "$WORK/round/pkg"
for f in "$WORK/round/pkg"/*; do [ -L "$f" ] && cp --remove-destination "$(readlink -f "$f")" "$f"; done
ln -s / "$WORK/round/everything"
timeout 60 "$PQPROF" run "$WORK/round" --round --dry-run >"$WORK/round.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && pass "round with a link to /: the dry run ends (exit 0)" || fail "round dry run: exit $rc"
if grep -q "everything" "$WORK/round.out"; then
	fail "round: the link to / was taken for a package"; sed 's/^/  | /' "$WORK/round.out" | head -5
else
	pass "round: the link out of the round is passed over"
fi
expect_grep "$WORK/round.out" "round: 1 package" "round: the one real package is found"
finish
