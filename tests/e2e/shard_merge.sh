#!/bin/sh
# End-to-end: a campaign run as two shards and merged equals the campaign
# run whole (same records, same verdicts); shards from machines with
# different processors are never pooled: plain merge refuses them, and
# merge --by-system gives each system its own merged campaign and report.
# A merge into a directory that a run holds is refused.
. "$top_srcdir/tests/e2e/lib.sh"
C="$FIX/campaign"
Q="--trials 2 --target 0.05 --timeout 20 --timeout kat=20 --steps build,kat,bench,sizes"

records() {  # records DIR: the record set and verdicts, without timings
	(cd "$1" && find build kat records sizes -type f -name '*.json' | sort)
	for f in "$1"/kat/*.json; do sed -n 's/.*"verdict": "\([A-Z]*\)".*/\1/p' "$f"; done
	for f in "$1"/records/*.json; do sed -n 's/^  "status": "\(.*\)".*/\1/p' "$f"; done
}

expect_rc 0 "whole campaign" -- "$PQPROF" run "$C/toy.json" --out "$WORK/whole" $Q
expect_rc 0 "shard 1/2" -- "$PQPROF" run "$C/toy.json" --out "$WORK/s1" --shard 1/2 $Q
expect_rc 0 "shard 2/2" -- "$PQPROF" run "$C/toy.json" --out "$WORK/s2" --shard 2/2 $Q
records "$WORK/s1" > "$WORK/s1.set"
records "$WORK/s2" > "$WORK/s2.set"
[ -s "$WORK/s1.set" ] && [ -s "$WORK/s2.set" ] && ! cmp -s "$WORK/s1.set" "$WORK/s2.set" &&
	pass "each shard ran its own part" || fail "shards did not split the campaign"

expect_rc 0 "merge --by-system, one system" -- "$PQPROF" merge --by-system "$WORK/m" "$WORK/s1" "$WORK/s2"
records "$WORK/whole" > "$WORK/whole.set"
records "$WORK/m" > "$WORK/m.set"
if cmp -s "$WORK/whole.set" "$WORK/m.set"; then pass "merged shards equal the whole campaign"; else
	fail "merged shards differ from the whole campaign"; diff "$WORK/whole.set" "$WORK/m.set" | head; fi
[ -f "$WORK/m/report.md" ] && [ ! -d "$WORK/m/systems" ] && pass "one system: one merged report" ||
	fail "one system should give one merged report"

# A merge into a directory a run holds is refused (exit 11), naming the
# directory and the holder, and touches nothing there; once the holder
# has ended (and emptied the lock, as a run does), the merge goes ahead.
# flock(1) holds the lock the way campaign_lock does: flock(2) on
# DIR/campaign.lock, the holder named inside.
mkdir -p "$WORK/busy"
flock "$WORK/busy/campaign.lock" sh -c 'printf "pid=%s\nhost=%s\nstart_utc=2026-01-01T00:00:00Z\ncommand=pqprof run toy.json\n" \
	$$ "$(hostname)" >"$1"; while [ ! -e "$2" ]; do sleep 0.1; done; : >"$1"' sh "$WORK/busy/campaign.lock" "$WORK/busy.done" &
holder=$!
i=0
while [ ! -s "$WORK/busy/campaign.lock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect_rc 11 "merge into a directory a run holds is refused" -- "$PQPROF" merge "$WORK/busy" "$WORK/s1" "$WORK/s2"
expect_grep "$WORK/err" "^pqprof merge: $WORK/busy is in use by another pqprof run \(pid [0-9]+ on host [^,]+, started 2026-01-01T00:00:00Z: pqprof run toy\.json\)" \
	"the refusal names the directory and the holder"
[ ! -e "$WORK/busy/campaign.json" ] && [ ! -e "$WORK/busy/records" ] && pass "the refused merge wrote nothing" ||
	fail "the refused merge wrote into the held directory"
expect_rc 11 "merge --by-system into a held directory is refused too" -- \
	"$PQPROF" merge --by-system "$WORK/busy" "$WORK/s1" "$WORK/s2"
touch "$WORK/busy.done"
wait $holder
expect_rc 0 "merge once the holder has ended" -- "$PQPROF" merge "$WORK/busy" "$WORK/s1" "$WORK/s2"
records "$WORK/busy" > "$WORK/busy.set"
cmp -s "$WORK/whole.set" "$WORK/busy.set" && pass "the merge after the wait holds the whole campaign" ||
	fail "the merge after the wait differs from the whole campaign"
[ ! -s "$WORK/busy/campaign.lock" ] && pass "the merge left the lock empty" || fail "the merge left its lock behind"

# Shard 2 as if it had run on a machine with another processor.
cp -R "$WORK/s2" "$WORK/s2x"
sed 's/"processor": "[^"]*"/"processor": "Other CPU 9000"/' "$WORK/s2/campaign.json" > "$WORK/s2x/campaign.json"
expect_rc 2 "plain merge refuses different processors" -- "$PQPROF" merge "$WORK/p" "$WORK/s1" "$WORK/s2x"
expect_grep "$WORK/err" "environment differs .*processor" "refusal names the processor"
expect_rc 1 "--by-system and --force together" -- "$PQPROF" merge --by-system --force "$WORK/p" "$WORK/s1" "$WORK/s2x"
expect_rc 0 "merge --by-system, two systems" -- "$PQPROF" merge --by-system "$WORK/x" "$WORK/s1" "$WORK/s2x"
expect_grep "$WORK/out" "^2 systems, merged apart" "two systems announced"
a=$(echo "$WORK"/x/systems/1-*) b=$(echo "$WORK"/x/systems/2-Other_CPU_9000)
records "$a" > "$WORK/a.set"
records "$b" > "$WORK/b.set"
cmp -s "$WORK/a.set" "$WORK/s1.set" && pass "system 1 holds exactly shard 1" || fail "system 1 is not shard 1"
cmp -s "$WORK/b.set" "$WORK/s2.set" && pass "system 2 holds exactly shard 2" || fail "system 2 is not shard 2"
[ -f "$a/report.md" ] && [ -f "$b/report.md" ] && pass "a report per system" || fail "missing per-system report"
[ ! -e "$WORK/x/records" ] && [ ! -e "$WORK/x/campaign.json" ] && pass "nothing pooled at the top" ||
	fail "records pooled at the top level"
expect_grep "$WORK/x/report.md" "\| 2 \| Other CPU 9000 \| processor: Other CPU 9000 \|" "index names what sets system 2 apart"
expect_grep "$WORK/x/systems.json" '"differs": \[' "systems.json lists the differences"
# merge checks every input before it writes: a corrupt record or a FIFO in shard 2 leaves the output empty.
cp -R "$WORK/s2" "$WORK/s2c"
rec=$(ls "$WORK/s2c/records/"*.json | head -1)
printf '{"schema": "pqprof.bench/1", "op": ' >"$rec"
expect_rc 2 "merge refuses a corrupt record" -- "$PQPROF" merge "$WORK/c" "$WORK/s1" "$WORK/s2c"
expect_grep "$WORK/err" "$(basename "$rec"): not a valid record" "the refusal names the corrupt record"
[ ! -e "$WORK/c/records" ] && [ ! -e "$WORK/c/campaign.json" ] && pass "nothing was written before the refusal" ||
	fail "the refused merge wrote part of its output"
cp -R "$WORK/s2" "$WORK/s2f"
mkfifo "$WORK/s2f/records/extra.json"
expect_rc 2 "merge refuses a FIFO among the records" -- "$PQPROF" merge "$WORK/f" "$WORK/s1" "$WORK/s2f"
expect_grep "$WORK/err" "extra.json: not a regular file \(a FIFO\)" "the refusal names the FIFO"
finish
