#!/bin/sh
# CI: a campaign on a real Slurm cluster.  Installs Debian's slurm-wlm and
# munge, writes a one-node slurm.conf for this machine (its CPUs as slurmd
# -C reports them; process tracking without cgroups, which containers on
# cgroup v1 rarely allow), starts munged, slurmctld and slurmd on private
# sockets, ports and directories, submits the in-tree scheme's quick
# campaign with `pqprof slurm` as an array of two shards plus the dependent
# merge, waits, and checks that the merged campaign equals a single-machine
# run of the same campaign in its set of steps and verdicts.  Then a round
# of two small packages with `pqprof slurm ROUND --round`: one array task
# per package and the dependent index job; the index must have both
# packages' rows, each KAT PASS, with links to their reports.  Stops the
# daemons it started.  Run as root from a built source tree (.ci/run).
set -eu
cd "$(dirname "$0")/../.."
top=$(pwd)
PQ="$top/pqprof"
[ -x "$PQ" ] || { echo "FAIL: build pqprof first"; exit 1; }

export DEBIAN_FRONTEND=noninteractive
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

T=$(mktemp -d /tmp/pqprof-slurm.XXXXXX)
chmod 755 "$T"
host=$(hostname -s)
export SLURM_CONF="$T/slurm.conf"
pids=""
stop() {
	for f in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || :
	done
	sleep 1
	for f in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munged.pid"; do
		[ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || :
	done
	[ -z "$pids" ] || kill $pids 2>/dev/null || :
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap stop EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; for l in "$T"/*.log; do echo "== $l"; tail -20 "$l"; done; exit 1; }

# munge: its own socket, key and pid file, so a system munged is left alone.
if [ -s /etc/munge/munge.key ]; then cp /etc/munge/munge.key "$T/munge.key"; else
	dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null; fi
chmod 400 "$T/munge.key"
/usr/sbin/munged --force --key-file="$T/munge.key" --socket="$T/munge.sock" --pid-file="$T/munged.pid" \
	--log-file="$T/munged.log" --seed-file="$T/munge.seed" || fail "munged did not start"

# TCP ports for slurmctld and slurmd away from the default ones (a system
# Slurm may run here): two that no socket listens on.
listening() { cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" { sub(/.*:/, "", $2); print $2 }'; }
cport=$((20000 + $$ % 20000))
while listening | grep -qi "^$(printf %04X $cport)$" || listening | grep -qi "^$(printf %04X $((cport + 1)))$"; do
	cport=$((cport + 2))
done
dport=$((cport + 1))
node=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
mkdir -p "$T/state" "$T/spool"
cat > "$SLURM_CONF" <<CONF
ClusterName=pqprofci
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$cport
SlurmdPort=$dport
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
$node State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
/usr/sbin/slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
/usr/sbin/slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
	i=$((i + 1)); [ $i -lt 60 ] || fail "the node never became idle: $(sinfo -h 2>&1)"; sleep 1
done
echo "ok: one-node Slurm cluster up ($(sinfo -h -o '%N %c CPUs %T'))"

# The campaign as two shards on the cluster; shorter bench trials keep CI
# quick without changing the set of steps or verdicts.
RUNOPTS="--trials 2 --target 0.05"
"$PQ" slurm schemes/sphincsplus --shards 2 --quick --shared --system ci --out "$T/campaign" -- $RUNOPTS \
	> "$T/submit.out" || fail "pqprof slurm: $(cat "$T/submit.out")"
cat "$T/submit.out"
mid=$(sed -n 's/^submitted merge: job \([0-9]*\).*/\1/p' "$T/submit.out")
jid=$(sed -n 's/^submitted shards: job \([0-9]*\).*/\1/p' "$T/submit.out")
[ -n "$mid" ] && [ -n "$jid" ] || fail "no job ids from pqprof slurm"

# Meanwhile, the single-machine run to compare with.
"$PQ" run schemes/sphincsplus --quick --system ci --out "$T/single" $RUNOPTS > "$T/single.out" 2> "$T/single.err" &
pids=$!

state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '; }
i=0
while :; do
	s=$(state "$mid")
	case $s in *COMPLETED*|*FAILED*|*CANCELLED*|*TIMEOUT*|*NODE_FAIL*|*OUT_OF_MEMORY*) break ;; esac
	i=$((i + 1)); [ $i -lt 2400 ] || fail "merge job $mid not done after 40 minutes (state $s)"; sleep 1
done
echo "shard array $jid: $(state "$jid"); merge job $mid: $s"
for f in "$T"/campaign/slurm/*.out; do echo "== $f"; cat "$f"; done
case $s in COMPLETED*) ;; *) fail "merge job ended $s" ;; esac
grep -q "on $host, CPU [0-9]" "$T/campaign/slurm/shard-1.out" || fail "shard 1 did not say where it ran"
c1=$(sed -n 's/.* CPU \([0-9]*\)$/\1/p' "$T/campaign/slurm/shard-1.out")
c2=$(sed -n 's/.* CPU \([0-9]*\)$/\1/p' "$T/campaign/slurm/shard-2.out")
echo "ok: shards pinned to CPU $c1 and CPU $c2"

wait $pids || fail "single-machine run failed: $(tail -5 "$T/single.err")"
pids=""
# The set of steps (record files) and their verdicts, without timings.  Each
# shard benches its own copy of the baseline (__shardKofN); a copy counts
# once, under the single-machine name, and must carry the same verdicts.
records() {
	(cd "$1" && find build kat records memory sizes profile -type f -name '*.json' | sort)
	for f in "$1"/kat/*.json; do sed -n "s|.*\"verdict\": \"\([A-Z]*\)\".*|kat ${f##*/} \1|p" "$f"; done
	for d in build records memory sizes profile; do
		for f in "$1/$d"/*.json; do sed -n "s|^  \"status\": \"\(.*\)\".*|$d ${f##*/} \1|p" "$f"; done
	done
}
records "$T/single" | sed 's/__shard[0-9]*of[0-9]*//' | sort -u > "$T/single.set"
records "$T/campaign" | sed 's/__shard[0-9]*of[0-9]*//' | sort -u > "$T/merged.set"
[ "$(grep -c '^kat SPHINCS.* PASS$' "$T/single.set")" -eq 2 ] || fail "single-machine run: not 2 KAT PASS"
grep -q '^kat baseline__ML-DSA-44__.* PASS$' "$T/single.set" || fail "single-machine run: no baseline ML-DSA-44 KAT PASS"
[ "$(ls "$T"/campaign/kat/baseline__ML-DSA-44__*shard*.json | wc -l)" -eq 2 ] || fail "merged: not one baseline copy per shard"
if cmp -s "$T/single.set" "$T/merged.set"; then
	echo "ok: merged Slurm campaign equals the single-machine run ($(wc -l < "$T/merged.set") steps and verdicts)"
else
	diff "$T/single.set" "$T/merged.set" | head -20; fail "merged Slurm campaign differs from the single-machine run"
fi
grep -q '"status": "complete"' "$T/campaign/campaign.json" || fail "merged campaign not complete"
[ -f "$T/campaign/report.md" ] || fail "no merged report"
echo "ok: merged report $T/campaign/report.md"

# A round of two small packages: one array task each, then the index.
mkdir -p "$T/round"
cp -rL tests/fixtures/nist-toy "$T/round/toy96"
cp -rL tests/fixtures/ctx-api/hashctx "$T/round/hashctx"
"$PQ" slurm "$T/round" --round --shared --system ci --out "$T/roundout" -- --quick --steps build,kat,bench,sizes,report \
	--trials 2 --target 0.05 --no-interposition-check > "$T/round-submit.out" || fail "pqprof slurm round: $(cat "$T/round-submit.out")"
cat "$T/round-submit.out"
iid=$(sed -n 's/^submitted index: job \([0-9]*\).*/\1/p' "$T/round-submit.out")
[ -n "$iid" ] || fail "no index job id from pqprof slurm"
i=0
while :; do
	s=$(state "$iid")
	case $s in *COMPLETED*|*FAILED*|*CANCELLED*|*TIMEOUT*|*NODE_FAIL*|*OUT_OF_MEMORY*) break ;; esac
	i=$((i + 1)); [ $i -lt 1200 ] || fail "index job $iid not done after 20 minutes (state $s)"; sleep 1
done
for f in "$T"/roundout/slurm/*.out; do echo "== $f"; cat "$f"; done
case $s in COMPLETED*) ;; *) fail "index job ended $s" ;; esac
for p in hashctx toy96; do
	grep -q "^| [^|]* | $p | [^|]* | signature | PASS | .*\[report\]($p/report.md)" "$T/roundout/index.md" ||
		fail "round index: no PASS row for $p: $(cat "$T/roundout/index.md")"
	[ -f "$T/roundout/$p/report.md" ] || fail "round: no report for $p"
done
echo "ok: round of two packages on Slurm, index $T/roundout/index.md with both rows"
