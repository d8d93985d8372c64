"""ascendsim compare: every figure it lists is the reports' own, and its difference and change are
the arithmetic of the two (checked here from the JSON files, not from the tool); unchanged figures
are counted, not listed; the SVG draws one bar per figure that changed from a non-zero value; two
tables are compared cell by cell, rows named by their text cells.

usage: compare_runs.py ASCENDSIM WORKLOAD WORKDIR
"""
import csv
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

ascendsim, workload, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)


def run(*args):
    return subprocess.run([ascendsim, *args], check=True, capture_output=True, text=True).stdout


def flatten(j, prefix, out):
    if isinstance(j, bool):
        return
    if isinstance(j, (int, float)):
        out[prefix] = float(j)
    elif isinstance(j, dict):
        for k, v in j.items():
            if prefix == "" and k in ("copies", "warnings"):
                continue
            flatten(v, k if prefix == "" else prefix + "." + k, out)
    elif isinstance(j, list):
        for i, e in enumerate(j):
            if isinstance(e, dict) and isinstance(e.get("name"), str):
                name = e["name"]
            elif isinstance(e, dict) and "device" in e and "stream" in e:
                d = e["device"]
                name = (d if isinstance(d, str) else json.dumps(d)) + ".stream" + json.dumps(e["stream"])
            else:
                name = str(i)
            flatten(e, prefix + "." + name, out)


def close(text, value):
    return abs(float(text) - value) <= 1e-5 * max(1.0, abs(value))


a, b = os.path.join(work, "a.json"), os.path.join(work, "b.json")
run("run", "--timing-only", "--config", "atlas-800t-a2", "--workload", workload, "--report", a)
run("run", "--timing-only", "--config", "atlas-800t-a2", "--workload", workload,
    "--set", "devices[*].link.lanes=8", "--report", b)
table, svg = os.path.join(work, "ab.csv"), os.path.join(work, "ab.svg")
printed = run("compare", a, b, "--csv", table, "--svg", svg)
fa, fb = {}, {}
flatten(json.load(open(a)), "", fa)
flatten(json.load(open(b)), "", fb)
rows = list(csv.DictReader(open(table)))
changed = [k for k in fa if k in fb and fa[k] != fb[k]]
assert {r["figure"] for r in rows} == set(changed) | (set(fa) ^ set(fb)), "listed figures"
bars = 0
for r in rows:
    k = r["figure"]
    assert close(r["A"], fa[k]) and close(r["B"], fb[k]), r
    assert close(r["B - A"], fb[k] - fa[k]), r
    if fa[k] != 0:
        assert abs(float(r["change"].split()[0]) - 100 * (fb[k] - fa[k]) / abs(fa[k])) <= 0.051, r
        bars += 1
same = len([k for k in fa if k in fb and fa[k] == fb[k]])
assert f"{same} figure(s) the same in both" in printed, printed
assert any(r["figure"] == "copy_totals.H2D.GBps" and float(r["B - A"]) < 0 for r in rows)
rects = [e for e in ET.parse(svg).getroot().iter() if e.tag.endswith("rect")]
assert len(rects) == bars + 1, (len(rects), bars)  # (and the background)

# A report against itself: nothing listed.
same_printed = run("compare", a, a)
assert "figure(s) the same in both" in same_printed and "copy_totals" not in same_printed

# Two tables: rows named by their text cells, numbers compared.
t1, t2 = os.path.join(work, "t1.csv"), os.path.join(work, "t2.csv")
open(t1, "w").write("size,direction,GBps\n64KiB,H2D,20\n1GiB,H2D,26\n")
open(t2, "w").write("size,direction,GBps\n64KiB,H2D,10\n1GiB,H2D,26\n")
tables = run("compare", t1, t2)
assert "size=64KiB,direction=H2D.GBps" in tables and "-50.0 %" in tables, tables
assert "1GiB" not in tables, tables
print("compare lists the reports' own figures and their changes")
