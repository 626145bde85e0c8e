#!/bin/sh
# End-to-end: scheme code attacking the harness at run time, through the
# real binary (tests/fixtures/runtime/, each the NIST toy plus a file of
# the attacker's).  A scheme cannot forge a verdict (from a constructor, a
# destructor, inside sign, or through a dup of the channel: each gets its
# true verdict, CRYPTOFAIL), cannot make pqprof copy a file it links in
# place of its vectors, cannot flood pqprof's memory through the channel,
# sees none of the operator's environment, and leaves nothing in /tmp,
# /var/tmp or /dev/shm.  A fixture without a case here fails the test.
. "$top_srcdir/tests/e2e/lib.sh"

R="$FIX/runtime"
covered=""
case_for() { covered="$covered $1 "; build_fixture "$R/$1" "$WORK/$1.so"; }

# kat NAME: run pqprof kat (output in WORK/NAME.out, exit status in WORK/NAME.rc)
kat() {
	local name=$1
	shift
	"$PQPROF" kat "$WORK/$name.so" --records-dir "$WORK/rec-$name" "$@" >"$WORK/$name.out" 2>&1
	echo $? >"$WORK/$name.rc"
}

# rc_is NAME RC DESCRIPTION: the exit status of the last kat NAME
rc_is() {
	local rc
	rc=$(cat "$WORK/$1.rc")
	if [ "$rc" -eq "$2" ]; then pass "$3 (exit $rc)"; else
		fail "$3: exit $rc, wanted $2"; sed 's/^/  | /' "$WORK/$1.out" | head -20; fi
}

# forged NAME: a forged PASS gives the scheme's true verdict
forged() {
	kat "$1" --emit "$WORK/$1.rsp"
	rc_is "$1" 25 "$1: the scheme's true verdict (CRYPTOFAIL), not the forged PASS"
	expect_grep "$WORK/$1.out" "RESULT Toy-96 CRYPTOFAIL soundness failure" "$1: verdict and reason"
	expect_grep "$WORK/rec-$1/Toy-96.kat.json" '"verdict": "CRYPTOFAIL"' "$1: the record says CRYPTOFAIL"
}

for f in forge-ctor forge-in-sign forge-dup; do
	if case_for $f; then
		forged $f
		expect_grep "$WORK/$f.out" "wrote 1 line on the harness's result channel, without the job's key: ignored" \
			"$f: the forged line is named and ignored"
	fi
done
# The destructor never runs: the runner ends with _exit after its result.
if case_for forge-dtor; then
	forged forge-dtor
fi

if case_for emit-swap; then
	kat emit-swap --emit "$WORK/emit-swap.rsp" --timeout 60
	rc=$(cat "$WORK/emit-swap.rc")
	[ "$rc" -ne 0 ] && pass "emit-swap: no PASS (exit $rc)" || fail "emit-swap: exit 0"
	# Whether the swap won the race or not, no byte of /etc/shadow leaves it.
	leaked=""
	if [ -r /etc/shadow ] && grep -v '^$' /etc/shadow >"$WORK/shadow-lines.pat" && [ -s "$WORK/shadow-lines.pat" ]; then
		for f in "$WORK/emit-swap.rsp" "$WORK/emit-swap.out" "$WORK"/rec-emit-swap/*; do
			[ -f "$f" ] || continue
			if grep -qF -f "$WORK/shadow-lines.pat" "$f"; then leaked="$leaked $f"; fi
		done
	fi
	[ -z "$leaked" ] && pass "emit-swap: no line of /etc/shadow in any output" ||
		fail "emit-swap: /etc/shadow copied into$leaked"
	if grep -q "a symbolic link: not read" "$WORK/emit-swap.out"; then
		pass "emit-swap: the swapped file was refused, and the verdict says so"
	else
		expect_grep "$WORK/emit-swap.out" "RESULT Toy-96 MISMATCH" "emit-swap: the swap lost the race: the true verdict"
	fi
fi

if case_for flood-channel; then
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v -o "$WORK/flood.time" "$PQPROF" kat "$WORK/flood-channel.so" --records-dir "$WORK/rec-fl" \
			--timeout 60 >"$WORK/flood-channel.out" 2>&1
		kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/flood.time")
		[ -n "$kb" ] && [ "$kb" -lt 524288 ] && pass "flood-channel: pqprof's peak RSS $kb KiB, under 512 MiB" ||
			fail "flood-channel: pqprof's peak RSS ${kb:-?} KiB"
	else
		kat flood-channel --timeout 60
	fi
	expect_grep "$WORK/flood-channel.out" "RESULT Toy-96 CRASH flooded the harness's result channel" \
		"flood-channel: the verdict names the flood"
fi

if case_for close-channel; then
	kat close-channel
	rc_is "close-channel" 24 "close-channel: CRASH"
	expect_grep "$WORK/close-channel.out" "the scheme closed or replaced the harness's result channel" \
		"close-channel: blamed on the closed channel, not on exit()"
fi

if case_for env-probe; then
	PQPROF_TEST_SECRET=s3cr3t-$$ "$PQPROF" kat "$WORK/env-probe.so" --records-dir "$WORK/rec-env" \
		>"$WORK/env-probe.out" 2>&1
	expect_grep "$WORK/rec-env/Toy-96.kat.log" "env: PATH=/usr/local/bin:/usr/bin:/bin" \
		"env-probe: the scheme ran (its output is in the log)"
	if grep -rq "s3cr3t-$$" "$WORK/rec-env" "$WORK/env-probe.out"; then
		fail "env-probe: the operator's variable reached the scheme"
	else
		pass "env-probe: the operator's variable is in no output"
	fi
	n=$(grep -c "^env: " "$WORK/rec-env/Toy-96.kat.log")
	[ "$n" -le 11 ] && pass "env-probe: $n variables, all from the allowlist" || fail "env-probe: $n variables"
fi

if case_for tmp-litter; then
	for d in /tmp /var/tmp /dev/shm /run/lock; do rm -f "$d"/pqprof-litter.*; done
	kat tmp-litter
	rc_is "tmp-litter" 0 "tmp-litter: PASS"
	left=$(ls -d /tmp/pqprof-litter.* /var/tmp/pqprof-litter.* /dev/shm/pqprof-litter.* \
		/run/lock/pqprof-litter.* 2>/dev/null)
	[ -z "$left" ] && pass "tmp-litter: nothing the scheme created outside its scratch survived" ||
		{ fail "tmp-litter: left $left"; rm -f $left; }
fi

# Source text by DWARF name: /etc/shadow and /dev/zero named by #line.
if case_for line-shadow; then
	"$PQPROF" profile "$WORK/line-shadow.so" --op sign --min-samples 300 -o "$WORK/ls.pqt" -q \
		>"$WORK/ls-profile.out" 2>&1
	[ -f "$WORK/ls.pqt" ] && pass "line-shadow: profiled" || fail "line-shadow: no trace"
	timeout 120 "$PQPROF" annotate "$WORK/ls.pqt" --op sign >"$WORK/ls-ann.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && pass "line-shadow: annotate ends (the /dev/zero line read no further than the cap)" ||
		fail "line-shadow: annotate exit $rc"
	expect_grep "$WORK/ls-ann.out" "shadow:[0-9]+ \[inlined spin_a\]|shadow:[0-9]+" "line-shadow: the line is shown as a path"
	timeout 120 "$PQPROF" annotate "$WORK/ls.pqt" --op sign --json >"$WORK/ls-ann.json" 2>&1
	timeout 120 "$PQPROF" report "$WORK/ls.pqt" --json --record "$WORK/ls-record.json" >"$WORK/ls-report.out" 2>&1
	if [ -r /etc/shadow ] && [ -s /etc/shadow ]; then
		grep -v '^$' /etc/shadow >"$WORK/shadow.pat"
		if grep -rqF -f "$WORK/shadow.pat" "$WORK"/ls*; then
			fail "line-shadow: a line of /etc/shadow is in an output"
		else
			pass "line-shadow: no line of /etc/shadow in the trace, annotation or report"
		fi
	else
		pass "line-shadow: /etc/shadow is not readable here (nothing to leak)"
	fi
fi

# The vectors a replay is judged against are out of its sight.
covered="$covered peek-vectors "
KATDIR=$(cd "$R/peek-vectors/KAT" && pwd -P)
if build_fixture "$R/peek-vectors" "$WORK/peek-vectors.so" --cflags "-O2 -DPEEK_AT=$KATDIR"; then
	kat peek-vectors
	rc_is peek-vectors 0 "peek-vectors: PASS"
	expect_grep "$WORK/rec-peek-vectors/Toy-96.kat.log" "peek: .* holds 0 files" \
		"peek-vectors: the replay saw an empty folder where the published vectors are"
fi

# A whole campaign (build, KAT, profile, report) of the #line tree: no line of /etc/shadow in any of its files.
"$PQPROF" run "$R/line-shadow" --quick --no-baseline --steps build,kat,profile,report -o "$WORK/ls-camp" \
	>"$WORK/ls-camp.out" 2>&1
[ -f "$WORK/ls-camp/report.md" ] && pass "line-shadow campaign: report written" ||
	{ fail "line-shadow campaign: no report"; tail -5 "$WORK/ls-camp.out"; }
if [ -r /etc/shadow ] && [ -s "$WORK/shadow.pat" ]; then
	if grep -rqF -f "$WORK/shadow.pat" "$WORK/ls-camp" "$WORK/ls-camp.out"; then
		fail "line-shadow campaign: a line of /etc/shadow in its outputs"
	else
		pass "line-shadow campaign: no line of /etc/shadow in any output"
	fi
fi

# A sign that loops forever costs one --timeout: the run ends within 60 s of its first time-out.
if build_fixture "$FIX/hostile/endless-loop" "$WORK/loop-check.so"; then
	t0=$(date +%s)
	timeout 300 "$PQPROF" run "$FIX/hostile/endless-loop" --steps build,kat,bench --no-baseline --timeout 5 \
		-o "$WORK/loop-camp" >"$WORK/loop-camp.out" 2>&1
	rc=$?
	took=$(( $(date +%s) - t0 ))
	[ "$rc" -ne 124 ] && [ "$took" -le 65 ] && pass "endless sign: the run ended $took s after it began (first time-out at 5 s)" ||
		fail "endless sign: exit $rc after $took s"
	expect_grep "$WORK/loop-camp.out" "sign +failed: not run: its KAT replay timed out" \
		"endless sign: bench does not run sign again, and says why"
	expect_grep "$WORK/loop-camp.out" "verify +failed: not run: it needs sign" "endless sign: nor the verify that needs it"
fi

# Blame: sizes no scheme has are the scheme's, everywhere; a sign that never works gets no key-origin note.
if case_for absurd-size; then
	kat absurd-size
	expect_grep "$WORK/absurd-size.out" "LOADFAIL instance declares absurd sizes" "absurd-size: LOADFAIL"
	"$PQPROF" bench "$WORK/absurd-size.so" --op sign --trials 1 --iters 2 --records-dir "$WORK/rb-abs" \
		>"$WORK/abs-bench.out" 2>&1
	expect_grep "$WORK/abs-bench.out" "instance declares absurd sizes" "absurd-size: bench refuses it for the same reason"
fi
if case_for sign-fails; then
	kat sign-fails
	rc_is sign-fails 25 "sign-fails: CRYPTOFAIL"
	if grep -q "accepts only keys generated in this process" "$WORK/sign-fails.out"; then
		fail "sign-fails: a key-origin note without evidence"
	else
		pass "sign-fails: no key-origin note (its own key fails too)"
	fi
fi

# A KAT folder whose vector file is a link out of the tree (to /etc/shadow): never read, never quoted.
mkdir -p "$WORK/katlink"
cp -RL "$FIX/nist-toy/." "$WORK/katlink/"
rm -rf "$WORK/katlink/KAT"
mkdir "$WORK/katlink/KAT"
ln -s /etc/shadow "$WORK/katlink/KAT/PQCsignKAT_64.rsp"
if build_fixture "$WORK/katlink" "$WORK/katlink.so"; then
	PQPROF_SOURCE_ROOT= "$PQPROF" kat "$WORK/katlink.so" --records-dir "$WORK/rec-katlink" >"$WORK/katlink.out" 2>&1
	echo $? >"$WORK/katlink.rc"
	rc_is katlink 22 "KAT/ link to /etc/shadow: NOKAT (the link is passed over)"
	if [ -r /etc/shadow ] && [ -s /etc/shadow ]; then
		grep -v '^$' /etc/shadow >"$WORK/shadow.pat"
		if grep -rqF -f "$WORK/shadow.pat" "$WORK/katlink.out" "$WORK/rec-katlink"; then
			fail "katlink: a line of /etc/shadow in the output"
		else
			pass "katlink: nothing of /etc/shadow in the output or the records"
		fi
	fi
fi

# The scheme's own answer, not one the shim made up: crypto_sign_open returned 0 with the wrong length.
if case_for wild-mlen; then
	kat wild-mlen
	rc_is wild-mlen 25 "wild-mlen: CRYPTOFAIL"
	expect_grep "$WORK/wild-mlen.out" "crypto_sign_open returned 0 but did not give back the signed message" \
		"wild-mlen: the reason gives verify's real return"
fi

# Bad input is exit 2: a reference shorter than --first, a manifest that is not one.
if build_fixture "$FIX/nist-toy" "$WORK/toy.so"; then
	awk '/^count = 1$/ { exit } { print }' "$FIX/toy/KAT/PQCsignKAT_64.rsp" >"$WORK/one.rsp"
	"$PQPROF" kat "$WORK/toy.so" --vectors "$WORK/one.rsp" --first 2 --records-dir "$WORK/r-one" \
		>"$WORK/first.out" 2>&1
	echo $? >"$WORK/first.rc"
	rc_is first 2 "--first 2 against a one-record reference: bad input"
	expect_grep "$WORK/first.out" "--first 2: the reference .* holds only 1 record" "--first: the message says why"
	printf 'this is not a manifest\n' >"$WORK/bad.sha256"
	"$PQPROF" kat "$WORK/toy.so" --manifest "$WORK/bad.sha256" --records-dir "$WORK/r-man" >"$WORK/man.out" 2>&1
	echo $? >"$WORK/man.rc"
	rc_is man 2 "a malformed --manifest: bad input"
	expect_grep "$WORK/man.out" "bad.sha256:1: " "--manifest: the message names the file and line"
	"$PQPROF" run "$FIX/nist-toy" --manifest "$WORK/bad.sha256" --steps build,kat -o "$WORK/r-man-run" \
		>"$WORK/manrun.out" 2>&1
	echo $? >"$WORK/manrun.rc"
	rc_is manrun 2 "run --manifest, malformed: bad input before anything runs"
fi

for d in "$R"/*/; do
	n=$(basename "$d")
	case "$covered" in *" $n "*) ;; *) fail "fixture runtime/$n has no case in runtime.sh" ;; esac
done
finish
