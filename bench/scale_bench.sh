#!/usr/bin/env bash
# Simulator speed and memory at the scale of a whole server (docs/performance.md, "A whole
# server"): the workloads in bench/workloads run through `ascendsim run` on atlas-800t-a2 without
# moving bytes (ASCENDSIM_DATA=timing-only), with runs of pieces (the default) and piece by piece
# (ASCENDSIM_PIECE_RUNS=0). Prints simulated time, wall time, simulated seconds per wall second and
# peak resident memory for each.
#   bash bench/scale_bench.sh [path/to/ascendsim]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ascendsim="${1:-$here/../build/release/tools/ascendsim}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf '%-34s %-6s %12s %9s %14s %10s\n' workload runs simulated wall "sim s/wall s" peak
for workload in h2d-8gib h2d-64gib eight-from-host-16gib; do
  for runs in 1 0; do
    ASCENDSIM_DATA=timing-only ASCENDSIM_PIECE_RUNS=$runs /usr/bin/time -f '%e %M' -o "$out/time" \
      "$ascendsim" run --config atlas-800t-a2 --workload "$here/workloads/$workload.yaml" \
      > "$out/report" 2>&1
    simulated=$(sed -n 's/.* over \([0-9.]*\) ms of simulated time.*/\1/p' "$out/report" | head -1)
    read -r wall peak < "$out/time"
    awk -v w="$workload" -v r="$runs" -v s="$simulated" -v t="$wall" -v p="$peak" 'BEGIN {
      printf "%-34s %-6s %9.1f ms %7.2f s %14.2f %6.0f MiB\n", w, (r ? "on" : "off"), s, t,
             (t > 0 ? s / 1000 / t : 0), p / 1024 }'
  done
done
