#!/bin/sh
# End-to-end: pqprof's own reliability around campaigns and verdicts,
# through the real binary.  One case each: a second run on a campaign
# directory in use (and a stale lock), SIGINT during a campaign (status,
# message, no temporary files, resume), a disk that fills up (a small
# tmpfs, as root), instance names that clean up to one file label and a
# name starting with ".", a failed step retried on resume, a hang in the
# verify that checks a fresh signature, a truncated library, bad expected
# vector files, and repeated short profiles that must not fail.
. "$top_srcdir/tests/e2e/lib.sh"
# Single commands write records under ./records: keep them in the scratch directory.
cd "$WORK" || exit 1

Q="--quick --trials 1 --target 0.05 --timeout 60"
FAST="--steps build,kat,bench $Q --no-report"

# desc FILE NAME...: a scheme descriptor with one nist-toy instance per name.
desc() {
	local f=$1 sep="" inst=""
	shift
	for n in "$@"; do
		inst="$inst$sep{ \"name\": \"$n\", \"tree\": \"$FIX/nist-toy\", \"api\": \"nist\" }"
		sep=", "
	done
	cat >"$f" <<EOF
{ "name": "rel", "title": "reliability fixture", "category": "digital signature",
  "profiles": ["harness-default"], "instances": [ $inst ] }
EOF
}

# tmp_files DIR: temporaries pqprof may create, left behind.
tmp_files() {
	find "$1" \( -name '*.tmp.*' -o -name '*.so.tmp.*' \) 2>/dev/null
}

# wait_for FILE SECONDS: until FILE exists and is not empty.
wait_for() {
	local i=0
	while [ ! -s "$1" ] && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}

# ---- name collision and a name starting with "." ----
desc "$WORK/clash.json" "x y" "x_y"
expect_rc 2 "names that clean up to one label are refused" -- \
	"$PQPROF" run "$WORK/clash.json" -o "$WORK/clash" $FAST
expect_grep "$WORK/err" "'x y' and 'x_y'.*x_y__harness-default" "the collision names both instances and the label"

desc "$WORK/dot.json" ".hidden"
expect_rc 0 "an instance named '.hidden' runs" -- \
	"$PQPROF" run "$WORK/dot.json" -o "$WORK/dot" --steps build,kat,bench $Q
if [ -f "$WORK/dot/records/_hidden__harness-default__sign.json" ]; then
	pass "'.hidden' is filed under the visible label _hidden__harness-default"
else
	fail "no record under _hidden__harness-default: $(ls "$WORK/dot/records")"
fi
# The run ends with the report, which reads the campaign back with pqprof's own reader.
expect_grep "$WORK/dot/report.md" "\.hidden" "the report reads the campaign back and shows '.hidden' by name"

# ---- two runs on one directory; a stale lock ----
desc "$WORK/two.json" "Toy-A" "Toy-B"
"$PQPROF" run "$WORK/two.json" -o "$WORK/two" --steps build,kat,bench --quick --trials 3 --target 1 \
	--no-report >"$WORK/first.out" 2>"$WORK/first.err" &
first=$!
if wait_for "$WORK/two/campaign.lock" 30; then
	expect_rc 11 "a second run on a directory in use is refused" -- \
		"$PQPROF" run "$WORK/two.json" -o "$WORK/two" $FAST
	expect_grep "$WORK/err" "in use by another pqprof run \(pid $first on host [^,]+, started [0-9T:-]+Z" \
		"the refusal names the holder: pid, host, start time"
else
	fail "the first run never wrote its lock"
fi
kill -TERM $first 2>/dev/null
wait $first
rc=$?
if [ "$rc" -eq 143 ]; then pass "SIGTERM: exit 143"; else fail "SIGTERM: exit $rc, wanted 143"; fi
if [ -s "$WORK/two/campaign.lock" ]; then fail "the lock still names a holder after SIGTERM"; else
	pass "SIGTERM emptied the lock"; fi

# A lock naming a dead process of this host is taken over, and said so.
sh -c 'exit 0' &
dead=$!
wait $dead
printf 'pid=%s\nhost=%s\nstart_utc=2026-01-01T00:00:00Z\ncommand=pqprof run lost\n' "$dead" "$(hostname)" \
	>"$WORK/two/campaign.lock"
expect_rc 0 "a stale lock (dead pid, this host) is taken over" -- \
	"$PQPROF" run "$WORK/two.json" -o "$WORK/two" $FAST
expect_grep "$WORK/err" "took over the stale lock .*pid $dead" "the take-over is reported with the old holder"

# ---- SIGINT during a campaign, then resume ----
"$PQPROF" run "$WORK/two.json" -o "$WORK/int" --steps build,kat,bench,mem,sizes $Q --no-report \
	>"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
wait_for "$WORK/int/build/Toy-A__harness-default.json" 60
sleep 0.5
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ "$rc" -eq 130 ]; then pass "SIGINT: exit 130"; else fail "SIGINT: exit $rc, wanted 130"; fi
expect_grep "$WORK/int.err" "interrupted by SIGINT during step [0-9]+ of [0-9]+ \(" "SIGINT: the message says which step"
expect_grep "$WORK/int.err" "run the same command again to resume" "SIGINT: the message says how to resume"
left=$(tmp_files "$WORK/int")
if [ -z "$left" ]; then pass "SIGINT: no temporary files left"; else fail "SIGINT: left $left"; fi
if pgrep -f -- "$WORK/int/lib" >/dev/null 2>&1; then fail "SIGINT: runner processes left"; else
	pass "SIGINT: no runner left"; fi
expect_rc 0 "the interrupted campaign resumes and finishes" -- \
	"$PQPROF" run "$WORK/two.json" -o "$WORK/int" --steps build,kat,bench,mem,sizes $Q --no-report
n=$(ls "$WORK/int/records" | grep -c '\.json$')
if [ "$n" -eq 6 ]; then pass "after resume all 6 bench records exist"; else fail "after resume $n bench records"; fi

# ---- a failed step is retried on resume; a scheme verdict is kept ----
rec="$WORK/int/memory/Toy-A__harness-default__sign.json"
keep="$WORK/int/memory/Toy-B__harness-default__sign.json"
printf '{"schema":"pqprof.memory/1","op":"sign","status":"failed","failure":"counters unavailable","failure_kind":"tool"}\n' >"$rec"
printf '{"schema":"pqprof.memory/1","op":"sign","status":"failed","failure":"crashed with SIGSEGV in sign","failure_kind":"scheme"}\n' >"$keep"
expect_rc 0 "rerun after a tool failure" -- \
	"$PQPROF" run "$WORK/two.json" -o "$WORK/int" --steps build,kat,bench,mem,sizes $Q --no-report
expect_grep "$rec" '"status": "complete"' "the step that failed for the tool's reasons ran again"
expect_grep "$keep" 'SIGSEGV' "a scheme verdict is kept, not rerun"

# ---- disk full (a small tmpfs; root only) ----
MNT="$WORK/full"
mkdir -p "$MNT"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=16m "pqprof-full-$$" "$MNT" 2>/dev/null; then
	D="$MNT/camp"
	"$PQPROF" run "$WORK/two.json" -o "$D" --steps build,kat $Q --no-report >/dev/null 2>&1
	avail=$(df -k --output=avail "$MNT" | tail -n 1)
	dd if=/dev/zero of="$MNT/fill" bs=1k count=$((avail - 64)) 2>/dev/null
	expect_rc 3 "disk full: the campaign stops with exit 3 (--no-report)" -- \
		"$PQPROF" run "$WORK/two.json" -o "$D" --steps build,kat,bench $Q --no-report
	# The first record a bench run writes: the other library form's build (interposition/), or a timing.
	expect_grep "$WORK/err" "stopped: $D/(records|interposition)/[^ ]+\.json: write failed: No space left on device" \
		"disk full: the message names the file"
	left=$(tmp_files "$MNT")
	if [ -z "$left" ]; then pass "disk full: no temporary files left"; else fail "disk full: left $left"; fi
	if grep -A7 '"steps"' "$D/campaign.json" | grep -q '"bench": "done"'; then
		fail "disk full: a bench step is marked done"
	else
		pass "disk full: nothing unwritten is marked done"
	fi
	rm -f "$MNT/fill"
	expect_rc 0 "disk full: after space is freed the campaign resumes" -- \
		"$PQPROF" run "$WORK/two.json" -o "$D" --steps build,kat,bench $Q --no-report
	umount "$MNT"
else
	echo "skip: disk-full case needs root and tmpfs mounts"
fi

# ---- blame: a hang in verify, a truncated library, bad vector files ----
build_fixture "$FIX/verdicts/hang-in-verify" "$WORK/hv.so" || true
for c in bench mem; do
	expect_rc 6 "$c: a hang in the verify after sign is the scheme's" -- \
		"$PQPROF" $c "$WORK/hv.so" --op sign --timeout 3
	expect_grep "$WORK/err" "timed out after [0-9]+ s in verify" "$c: the hang is blamed on verify, not sign"
done

# SIGINT reaches single commands too: the hung child is stopped, pqprof says so.
"$PQPROF" bench "$WORK/hv.so" --op sign --timeout 60 >"$WORK/sb.out" 2>"$WORK/sb.err" &
pid=$!
sleep 1.5
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ "$rc" -eq 130 ]; then pass "bench: SIGINT gives exit 130"; else fail "bench: SIGINT gave exit $rc, wanted 130"; fi
expect_grep "$WORK/sb.err" "pqprof bench: interrupted by SIGINT; running jobs stopped" "bench: SIGINT is reported"
if pgrep -f -- "$WORK/hv.so" >/dev/null 2>&1; then fail "bench: SIGINT left the runner"; else
	pass "bench: SIGINT left no runner"; fi

build_fixture "$FIX/nist-toy" "$WORK/toy.so" || true
size=$(stat -c %s "$WORK/toy.so")
head -c $((size / 2)) "$WORK/toy.so" >"$WORK/trunc.so"
expect_rc 27 "kat: a truncated library is LOADFAIL" -- "$PQPROF" kat "$WORK/trunc.so" --records-dir "$WORK/r"
expect_grep "$WORK/out" "LOADFAIL .*truncated" "kat: says truncated"
expect_rc 5 "bench: a truncated library cannot be loaded (exit 5)" -- "$PQPROF" bench "$WORK/trunc.so"
expect_rc 5 "mem: a truncated library cannot be loaded (exit 5)" -- "$PQPROF" mem "$WORK/trunc.so"

head -c 3000 /dev/urandom >"$WORK/garbage.rsp"
: >"$WORK/empty.rsp"
for v in "$WORK/garbage.rsp" "$WORK/empty.rsp" "$WORK/no-such.rsp" "$WORK"; do
	expect_rc 2 "kat --vectors $(basename "$v"): bad input, not MISMATCH" -- \
		"$PQPROF" kat "$WORK/toy.so" --vectors "$v" --records-dir "$WORK/r"
	expect_grep "$WORK/err" "$v" "kat --vectors $(basename "$v"): the message names the file"
done

# ---- repeated short profiles (the rest of a time cap once formatted as 0.000 s) ----
fails=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	if ! "$PQPROF" profile "$WORK/toy.so" --op sign --budget 0.3 --min-samples 100000 --no-counts \
		-o "$WORK/p.pqt" >"$WORK/p.out" 2>&1; then
		fails=$((fails + 1))
		sed 's/^/  | /' "$WORK/p.out" | tail -3
	fi
done
if [ $fails -eq 0 ]; then pass "12 short profiles, none failed"; else fail "$fails of 12 short profiles failed"; fi

finish
