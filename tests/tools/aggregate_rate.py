"""Several devices' copies together (the report's device_copy_totals and copies_GBps, the sweep's
copies_GBps, devices_copying and per_device_GBps): all-to-host.yaml on atlas-800t-a2, eight NPUs
writing 256 MiB each to the host through two switch uplinks at once. Expected from the PCIe
arithmetic, not from the model: Gen4 x16 leaves 28.425 GB/s for TLPs (16 GT/s x 16 x 128/130 / 8
less ACK/FC DLLPs 16 B per 168 B and SKP 4 B per 1538 B); writes carry 256 B in 280 B, 25.989 GB/s
per uplink, so the two uplinks move 51.977 GB/s together (within 0.5 %: the copies' setup and the
last chunks' tails), and each device gets an eighth of it, 6.497 GB/s (within 1 %).

usage: aggregate_rate.py ASCENDSIM WORKLOAD WORKDIR
"""
import csv
import json
import os
import subprocess
import sys

ascendsim, workload, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
tlp = 16e9 * 16 * 128 / 130 / 8 * (1 - 8 / 168 - 8 / 168 - 4 / 1538)
uplinks = 2 * tlp * 256 / 280 / 1e9
report = os.path.join(work, "report.json")
subprocess.run([ascendsim, "run", "--timing-only", "--config", "atlas-800t-a2", "--workload", workload,
                "--report", report], check=True, capture_output=True)
r = json.load(open(report))
assert abs(r["copies_GBps"] / uplinks - 1) < 0.005, (r["copies_GBps"], uplinks)
devices = r["device_copy_totals"]
assert [d["device"] for d in devices] == [f"npu{i}" for i in range(8)], devices
assert all(d["bytes"] == 256 << 20 and d["copies"] == 4 for d in devices), devices
assert all(abs(d["GBps"] / (uplinks / 8) - 1) < 0.01 for d in devices), devices

table = os.path.join(work, "sweep.csv")
subprocess.run([ascendsim, "sweep", "--config", "atlas-800t-a2", "--workload", workload,
                "--set", "devices[*].link.lanes=16", "--out", table], check=True, capture_output=True)
row = list(csv.DictReader(open(table)))[0]
assert row["status"] == "ok", row
assert abs(float(row["copies_GBps"]) / uplinks - 1) < 0.005, row
assert row["devices_copying"] == "8", row
assert abs(float(row["per_device_GBps"]) / (uplinks / 8) - 1) < 0.01, row
print(f"eight devices together {r['copies_GBps']:.3f} GB/s (arithmetic {uplinks:.3f})")
