#!/usr/bin/env python3
"""`ascendsim view` reads a trace split by rotation (NAME.json, NAME.1.json, ...) as one trace:
the page of a run traced with a 64 KiB limit holds the same tracks, slices per track, counters
and flows as the page of the same run traced whole, and a part older than the one before it (left
by an earlier run) is not joined.

Usage: view_rotated.py ASCENDSIM WORKLOAD WORKDIR"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

ascendsim, workload, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=work)


def header(page):
    text = open(os.path.join(work, page)).read()
    m = re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def shape(h):
    """What a page draws, independent of the order the parts were read in."""
    tracks = sorted((t["pid"], t["tid"], t["name"], t["n"]) for t in h["tracks"])
    counters = sorted((c["pid"], c["name"], c["unit"], c["n"]) for c in h["counters"])
    return tracks, counters, h["flows"]["n"], h["unmatchedFlows"]


for name, sets in (("whole", []), ("rot", ["--set", "trace.max_size=64KiB"])):
    r = run(ascendsim, "run", "--workload", workload, "--trace", name + ".json", *sets)
    check(r.returncode == 0, name + ": run exits 0" + ("" if r.returncode == 0 else ": " + r.stderr[-300:]))

parts = sorted(glob.glob(os.path.join(work, "rot.*.json")))
check(len(parts) >= 3, "the 64 KiB limit splits the trace into rot.json and %d parts" % len(parts))
events = sum(len(json.load(open(p))) for p in [os.path.join(work, "rot.json")] + parts)

whole = run(ascendsim, "view", "whole.json", "-o", "whole.html")
rot = run(ascendsim, "view", "rot.json", "-o", "rot.html")
check(whole.returncode == 0 and rot.returncode == 0, "view exits 0 for both")
check("continues in %d rotated part(s)" % len(parts) in rot.stderr,
      "view says it reads the parts: " + rot.stderr.strip()[:200])
check((" %d events)" % events) in rot.stdout,
      "the page counts every event of every part (%d): %s" % (events, rot.stdout.strip()))
check(shape(header("rot.html")) == shape(header("whole.html")),
      "the parts' page has the same tracks, slices, counters and flows as the whole trace's")

# A stale part from an earlier run: older than the last part, so not joined.
stale = os.path.join(work, "rot.%d.json" % (len(parts) + 1))
shutil.copy(os.path.join(work, "rot.json"), stale)
os.utime(stale, (946684800, 946684800))  # 2000-01-01
again = run(ascendsim, "view", "rot.json", "-o", "rot2.html")
check("ignoring" in again.stderr and os.path.basename(stale) in again.stderr,
      "an older part is named and ignored: " + again.stderr.strip()[:200])
check(shape(header("rot2.html")) == shape(header("whole.html")), "and the page is unchanged")

print("view of rotated parts: " + ("all checks passed" if not failures else
                                   "%d check(s) failed" % len(failures)))
sys.exit(1 if failures else 0)
