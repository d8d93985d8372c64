#!/usr/bin/env bash
# Runs each libFuzzer target (built by `cmake --workflow --preset fuzz`) for SECONDS (default 60)
# on its seeds: fuzz/corpus/NAME, plus the shipped configs and workloads. Exits non-zero on any
# crash, leak, timeout or out-of-memory; the input that caused it is left in build/fuzz/findings/.
# Longer runs: bash scripts/run-fuzzers.sh 3600
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
bin=build/fuzz/fuzz
findings=build/fuzz/findings
mkdir -p "$findings"
status=0
run() {
  local name=$1; shift
  local work; work=$(mktemp -d)
  echo "fuzz: $name for ${seconds}s"
  if ! "$bin/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -artifact_prefix="$findings/$name-" -print_final_stats=1 "$work" "$@" > "$findings/$name.log" 2>&1; then
    echo "fuzz: $name FAILED; see $findings/$name.log" >&2
    tail -40 "$findings/$name.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$findings/$name.log" | sed "s/^/fuzz: $name /"
  fi
  rm -rf "$work"
}
run config_fuzzer fuzz/corpus/config configs configs/memory
run workload_fuzzer fuzz/corpus/workload traces/workloads
run escape_fuzzer fuzz/corpus/escape
run viewer_fuzzer fuzz/corpus/viewer
exit $status
