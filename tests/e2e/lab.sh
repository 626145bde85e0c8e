#!/bin/sh
# End-to-end: what a lab machine sees.  Schemes found by name (and a clear
# error when not), a missing runner is pqprof's exit 10 and no verdict,
# default output directories are announced, and `pqprof slurm` writes
# batch scripts that, run as Slurm would run them (a stand-in sbatch
# records the submissions), shard the campaign and merge it.
. "$top_srcdir/tests/e2e/lib.sh"
C="$FIX/campaign"
Q="--trials 2 --target 0.05 --timeout 20 --timeout kat=20 --steps build,kat,bench"
mkdir -p "$WORK/cwd"
cd "$WORK/cwd" || exit 1

# Schemes by name: ./schemes/NAME in a source tree, else the data directory.
expect_rc 0 "schemes in the source tree" -- sh -c "cd '$top_srcdir' && '$PQPROF' schemes"
expect_grep "$WORK/out" "^sphincsplus +SPHINCS\+.* 8 instances \(2 quick\) +\./schemes/sphincsplus" "sphincsplus listed"
expect_grep "$WORK/out" "^mlkem +ML-KEM \(FIPS 203\) +3 instances \(3 quick\) +\./schemes/mlkem" "mlkem listed"
expect_rc 0 "schemes from PQPROF_DATADIR" -- env PQPROF_DATADIR="$top_srcdir" "$PQPROF" schemes
expect_grep "$WORK/out" "$top_srcdir/schemes/sphincsplus" "listed from the data directory"
expect_rc 2 "run an unknown scheme" -- env PQPROF_DATADIR="$top_srcdir" "$PQPROF" run no-such-scheme
expect_grep "$WORK/err" "no-such-scheme: no such file, directory or scheme \(looked for a scheme of that name in \./schemes/, $top_srcdir/schemes/\)" \
	"unknown scheme: says where it looked"
expect_rc 0 "schemes --paths" -- env PQPROF_DATADIR="$top_srcdir" "$PQPROF" schemes --paths
expect_grep "$WORK/out" "^datadir  $top_srcdir$" "--paths names the data directory"

# A missing runner: pqprof's own error, not a scheme's LOADFAIL.
build_fixture "$FIX/nist-toy" "$WORK/toy.so" || exit 1
expect_rc 10 "kat without a runner" -- env PQPROF_RUNNER="$WORK/none/pqprof-runner" "$PQPROF" kat "$WORK/toy.so" --records-dir "$WORK/rec0"
expect_grep "$WORK/err" "pqprof-runner not found: PQPROF_RUNNER=$WORK/none/pqprof-runner is not an executable file" "message names the runner"
[ ! -e "$WORK/rec0" ] && pass "no verdict without a runner" || fail "verdict written without a runner"
expect_rc 10 "run without a runner" -- env PQPROF_RUNNER=/nonexistent "$PQPROF" run "$C/toy.json" --out "$WORK/nr"

# Default output directories are announced, never created silently.
expect_rc 0 "kat with the default records directory" -- "$PQPROF" kat "$WORK/toy.so"
expect_grep "$WORK/err" "^pqprof kat: created records/ for the KAT log and verdict record \(--records-dir DIR chooses another place\)" "kat announces ./records/"
expect_rc 0 "kat again" -- "$PQPROF" kat "$WORK/toy.so"
[ ! -s "$WORK/err" ] && pass "an existing directory is not announced again" || fail "announced again"
expect_rc 0 "kat --records-dir ''" -- sh -c "rm -rf records && '$PQPROF' kat '$WORK/toy.so' --records-dir ''"
[ ! -e records ] && pass "--records-dir '' writes nothing" || fail "records/ created with --records-dir ''"
expect_rc 0 "run with the default campaign directory" -- "$PQPROF" run "$C/toy.json" --system lab $Q --no-report
expect_grep "$WORK/err" "^pqprof run: created reports/lab/toy/ for the campaign \(--out DIR chooses another place\)" "run announces its default directory"

# pqprof slurm, with a stand-in sbatch that records what it was given.
mkdir -p "$WORK/bin"
cat > "$WORK/bin/sbatch" <<'SB'
#!/bin/sh
n=$(($(cat "$SBATCH_LOG.n" 2>/dev/null || echo 100) + 1))
echo $n > "$SBATCH_LOG.n"
echo "$*" >> "$SBATCH_LOG"
echo "$n;lab"
SB
chmod +x "$WORK/bin/sbatch"
S="$WORK/slurm-campaign"
expect_rc 1 "slurm without --shards" -- "$PQPROF" slurm "$C/toy.json" --out "$S"
expect_rc 1 "slurm into a directory with a blank" -- "$PQPROF" slurm "$C/toy.json" --shards 2 --out "$WORK/a b"
[ ! -e "$WORK/a b" ] && pass "nothing created for a refused directory" || fail "refused directory created"
expect_rc 0 "slurm submits" -- env PATH="$WORK/bin:$PATH" SBATCH_LOG="$WORK/sbatch.log" \
	"$PQPROF" slurm "$C/toy.json" --shards 2 --out "$S" --partition lab --sbatch-arg=--account=x -- $Q
expect_grep "$WORK/out" "^submitted shards: job 101$" "array job id"
expect_grep "$WORK/out" "^submitted merge: job 102 \(runs when job 101 has ended\)$" "merge job id"
expect_grep "$WORK/sbatch.log" "^--parsable $S/slurm/shard.sh$" "array submitted"
expect_grep "$WORK/sbatch.log" "^--parsable --dependency=afterany:101 $S/slurm/merge.sh$" "merge depends on the array (afterany)"
for l in "--array=1-2" "--nodes=1" "--ntasks=1" "--cpus-per-task=1" "--exclusive" "--partition=lab" "--account=x" \
	"--output=$S/slurm/shard-%a.out"; do
	expect_grep "$S/slurm/shard.sh" "^#SBATCH $l$" "shard.sh: #SBATCH $l"
done
expect_grep "$S/slurm/merge.sh" "^#SBATCH --output=$S/slurm/merge.out$" "merge.sh: its log"

# Run the scripts as the array tasks and the merge job would.
for k in 1 2; do
	expect_rc 0 "array task $k" -- env SLURM_ARRAY_TASK_ID=$k SLURM_CLUSTER_NAME=lab sh "$S/slurm/shard.sh"
	expect_grep "$WORK/out" "^pqprof shard $k/2 on .*, CPU [0-9]+$" "task $k names its node and CPU"
done
expect_grep "$S/shards/1/campaign.json" '"system": "lab"' "system named after the cluster"
n1=$(ls "$S"/shards/1/kat/*.json | wc -l) n2=$(ls "$S"/shards/2/kat/*.json | wc -l)
[ "$n1" -eq 1 ] && [ "$n2" -eq 1 ] && pass "one instance per shard" || fail "shards hold $n1 and $n2 instances"
expect_rc 0 "merge job" -- sh "$S/slurm/merge.sh"
expect_grep "$WORK/out" "pqprof: report in $S/report.md" "merge job names the report"
[ "$(ls "$S"/kat/*.json | wc -l)" -eq 2 ] && [ -f "$S/report.md" ] && pass "merged campaign with both instances" ||
	fail "merged campaign incomplete"
rm -rf "$S/shards/2"
expect_rc 1 "merge job with a shard missing" -- sh "$S/slurm/merge.sh"
expect_grep "$WORK/out" "shards without results: 2" "missing shard named"
finish
