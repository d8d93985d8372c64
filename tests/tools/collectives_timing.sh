#!/bin/sh
# ascendsim collectives against the link arithmetic: on atlas-800t-a2, all_gather -p 2 -b 64M
# (hccl_test's data size: the gathered 64 MiB) has each rank read the other's 32 MiB half over
# their HCCS link, as one SDMA transfer, after copying its own half into its CCL out staging
# buffer. From configs/atlas-800t-a2.yaml:
#   HCCS: one SDMA transfer moves at most the link's transfer_rate, 19.3 GB/s (below its 8 lanes
#     x 56 GT/s x 256 / 272 = 52.71 GB/s of payload); 32 MiB in 1738.6 us.
#   HBM2e: 4 stacks x 409.6 GB/s less all-bank refresh (tRFC 350 ns of every tREFI 3900 ns)
#     = 1491.3 GB/s; the local copy reads and writes 32 MiB in the one HBM: 45.0 us.
#   Tasks on the path, 1 us each to launch (copies 1 us more to set up the DMA): the record that
#     opens the helper stream (1), the local copy (2), the ready notify (1), the peer helper's
#     wait (1), its read (2) and done notify (1), the main stream's wait (1), the helper's join
#     record (1) and its wait (1): 11 us.
# Back to back, each call takes 1738.6 + 45.0 + 11 = 1794.6 us: algbw 37.40 GB/s, busbw x 1/2.
# Within 1.5 % (27 us): a transfer rate 2 % off, or a second pass over the data, fails it.
# Also checks the --csv, --json and --svg outputs.
# Usage: collectives_timing.sh ASCENDSIM WORK_DIR
set -eu
ascendsim=$1
dir=$2
mkdir -p "$dir"
rm -f "$dir/ag.csv" "$dir/ag.json" "$dir/ag.svg"
"$ascendsim" collectives --config atlas-800t-a2 all_gather -p 2 -b 64M -e 64M -n 4 -w 1 \
  --csv "$dir/ag.csv" --json "$dir/ag.json" --svg "$dir/ag.svg"
LINK_RATE=19.3e9
awk -F, -v link="$LINK_RATE" '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  NR == 2 {
    half = 32 * 1048576
    hbm = 1638.4e9 * (1 - 350 / 3900)
    us = half / link * 1e6 + 2 * half / hbm * 1e6 + 11
    alg = 2 * half / us / 1e3
    got = $col["alg_bandwidth_GBps"]; bus = $col["bus_bandwidth_GBps"]
    printf "all_gather 2 x 32 MiB: %.3f GB/s algbw (arithmetic %.3f GB/s, %.1f us), busbw %.3f\n", got, alg, us, bus
    if ($col["check_result"] != "success") { print "check_result is " $col["check_result"]; exit 1 }
    if (got < alg * 0.985 || got > alg * 1.015) { print "algbw outside 1.5 % of the arithmetic"; exit 1 }
    if (bus < got * 0.5 * 0.9999 || bus > got * 0.5 * 1.0001) { print "busbw is not algbw x 1/2"; exit 1 }
    rows++
  }
  END { if (rows != 1) { print "expected one row"; exit 1 } }' "$dir/ag.csv"
python3 - "$dir/ag.json" "$dir/ag.svg" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["rows"]
assert j["op"] == "all_gather" and j["ranks"] == 2 and len(rows) == 1, j
assert rows[0]["data_size_bytes"] == 64 << 20 and rows[0]["count"] == 8 << 20, rows[0]
assert len(rows[0]["rank_avg_time_us"]) == 2, rows[0]
svg = open(sys.argv[2]).read()
assert svg.startswith("<svg") or "<svg" in svg[:200], svg[:200]
assert "alg_bandwidth" in svg and "bus_bandwidth" in svg, "legend"
print("collectives outputs ok")
PY
