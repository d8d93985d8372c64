#!/bin/sh
# Profiling on a machine served by `ascendsim exec --shared`: two processes started by a script,
# each profiling its own device into its own folder (prof_ranks.cpp checks what it wrote).
#   shared_profiling.sh ASCENDSIM PROF_RANKS WORK
set -eu
ascendsim=$1 program=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ASCENDSIM_SUMMARY=0
cat > job.sh <<JOB
#!/bin/sh
for r in 0 1; do ASCENDSIM_RANK=\$r ASCENDSIM_WORLD_SIZE=2 "$program" "$work/results" > out.\$r 2>&1 & done
wait
JOB
chmod +x job.sh
"$ascendsim" exec --shared --config atlas-800t-a2 -- ./job.sh
for r in 0 1; do
  grep -qx "rank $r ok" out.$r || { echo "FAIL: rank $r: $(cat out.$r)"; exit 1; }
done
echo "profiling on a shared machine: ok"
