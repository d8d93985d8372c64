#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine (munged, slurmctld, slurmd from Debian's packages,
# configured here, started and stopped by this test) runs a 12-point sweep submitted with
# `ascendsim sweep --slurm --wait`; the merged table must be byte-identical to the same sweep run
# locally. Then one shard's part file is removed: `sweep merge` names it as missing with its Slurm
# state and log, and submitting again runs that shard alone.
# Usage: slurm_cluster.sh ASCENDSIM WORKLOAD WORKDIR. Exit 77 (ctest: skipped) without Slurm or root.
set -euo pipefail
ascendsim=$1 workload=$2 work=$3

for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIPPED: $tool is not installed (scripts/install-deps.sh --with-slurm installs Slurm and munge)"
    exit 77
  fi
done
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIPPED: the test cluster's slurmd must run as root to start jobs"
  exit 77
fi

rm -rf "$work"
mkdir -p "$work/state" "$work/spool"
work=$(cd "$work" && pwd)
host=$(hostname -s)
# Ports of our own, so a cluster already on this machine is left alone.
base=$((20000 + $$ % 20000))
cat > "$work/slurm.conf" <<CONF
ClusterName=ascendsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=sweeps Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

stop() {
  for pidfile in slurmd.pid slurmctld.pid munged.pid; do
    [[ -f $work/$pidfile ]] && kill "$(cat "$work/$pidfile")" 2>/dev/null || true
  done
}
trap stop EXIT

mungekey -c -k "$work/munge.key" -b 1024
chmod 600 "$work/munge.key"
munged --force --socket="$work/munge.socket" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed"
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  [[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && break
  sleep 1
done
if [[ $(sinfo -h -o %T 2>/dev/null) != idle ]]; then
  echo "FAILED: the test cluster did not come up"; tail -20 "$work/slurmctld.log" "$work/slurmd.log"; exit 1
fi
echo "cluster up: $(sinfo -h -o '%P %D %T %N')"

sets=(--set 'devices[*].link.generation=3,4,5' --set 'devices[*].link.lanes=2,4,8,16')
cd "$work"
"$ascendsim" sweep --workload "$workload" "${sets[@]}" --jobs 2 --out local.csv
"$ascendsim" sweep --workload "$workload" "${sets[@]}" --out cluster.csv --slurm --partition sweeps --time 00:10:00 --wait
points=$(($(wc -l < local.csv) - 1))
[[ $points -eq 12 ]] || { echo "FAILED: the local sweep has $points points, expected 12"; exit 1; }
cmp local.csv cluster.csv || { echo "FAILED: the merged Slurm sweep differs from the local run"; diff local.csv cluster.csv; exit 1; }
echo "12-point sweep on Slurm: merged table byte-identical to the local run"

# A lost shard: merge names it, a second submission runs it alone and completes the table.
rm cluster.csv.slurm/part-5.csv
if "$ascendsim" sweep merge cluster.csv.slurm 2> merge.err; then echo "FAILED: merge with a shard missing succeeded"; exit 1; fi
cat merge.err
grep -q "shard 5 (point 5): COMPLETED exit 0:0, log $work/cluster.csv.slurm/task-" merge.err ||
  { echo "FAILED: merge did not list shard 5 with its state and log"; exit 1; }
job=$("$ascendsim" sweep --workload "$workload" "${sets[@]}" --out cluster.csv --slurm --wait)
grep -q '^#SBATCH --array=5$' cluster.csv.slurm/job.sh || { echo "FAILED: the resubmission was not shard 5 alone"; exit 1; }
cmp local.csv cluster.csv || { echo "FAILED: the table after resubmission differs from the local run"; exit 1; }
echo "resubmitted shard 5 alone (job $job): table complete again"
