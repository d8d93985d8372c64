#!/usr/bin/env bash
# The collectives benchmark of docs/performance.md: an 8-rank AllReduce on atlas-800t-a2 (fp32
# sum, one warm-up call, one timed call), 256 MiB per rank with its bytes moved and with
# --timing-only, then 1 GiB per rank with --timing-only (the issue's target: under 10 s of wall
# time). Prints each row with its wall time and peak resident memory.
set -euo pipefail
ascendsim="${1:-build/release/tools/ascendsim}"
run() {
  local start end row rss
  start=$(date +%s.%N)
  row=$(/usr/bin/time -f "%M" -o /tmp/hccl_bench.rss "$ascendsim" collectives --config atlas-800t-a2 \
    all_reduce -p 8 -n 1 -w 1 "$@" | tail -1)
  end=$(date +%s.%N)
  rss=$(cat /tmp/hccl_bench.rss)
  printf '%-32s %s | wall %.2f s | peak %d MiB\n' "$*" "$row" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
    $((rss / 1024))
}
run -b 256M -e 256M -c 0
run -b 256M -e 256M --timing-only
run -b 1G -e 1G --timing-only
