"""The viewer's features in headless Chromium (issue #32), each checked against figures counted here
from the trace's JSON itself, never from the viewer's code:
  - level of detail: a run of 20,000 copies drawn whole counts every slice, in far fewer boxes than
    slices (those in one pixel column drawn as one), and its counters as min/max per pixel column;
  - zoomed in, every slice in view drawn and every flow arrow in view drawn (API call -> task ->
    transfer here, event record -> wait in the pipeline workload, where all of them are drawn);
  - counters named with their units, time-axis labels with units that never overlap;
  - the report's warnings in a collapsible panel; a trace cut off mid-event drawn with a warning;
  - search: how many slices match, and the jump to the first;
  - a selected range: the DMA transfers that start in it, their bytes, time and GB/s.
Usage: viewer_features.py ASCENDSIM SOURCE_DIR WORK_DIR  (exits 77, skipped, without Chromium)"""
import html
import json
import os
import re
import shutil
import subprocess
import sys

ASCENDSIM, SOURCE, WORK = sys.argv[1:4]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    print("SKIPPED: no chromium (install it with: bash scripts/install-deps.sh --with-browser)")
    sys.exit(77)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/profile")
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(*cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), done.stdout, done.stderr))
    return done


def page(html_file, ask=""):
    """The page's DOM after its script ran, with `ask` as the address's fragment."""
    dom = run(CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--user-data-dir=" + WORK + "/profile", "--window-size=1400,1000",
              "--dump-dom", "file://" + html_file + "#" + ask).stdout
    if 'data-ready="1"' not in dom:
        sys.exit("the page %s#%s did not finish drawing" % (html_file, ask))
    return dom


def attrs(dom, element):
    """The data-* attributes of the first element whose start tag matches `element`."""
    tag = re.search(r"<%s[^>]*>" % element, dom).group(0)
    return {k: html.unescape(v) for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', tag)}


def events_of(path):
    return json.load(open(path))


def flow_pairs(events):
    """(from ts, to ts, from track, to track) of each flow, its "s" and "f" matched by id."""
    starts, pairs = {}, []
    for e in events:
        if e["ph"] == "s":
            starts[(e["cat"], e["id"])] = e
    for e in events:
        if e["ph"] == "f":
            s = starts[(e["cat"], e["id"])]
            pairs.append((s["ts"], e["ts"], (s["pid"], s["tid"]), (e["pid"], e["tid"])))
    return pairs


def axis_ok(canvas, unit, what):
    labels = canvas["axis-labels"].split("|")
    check(canvas["axis-overlaps"] == "0" and len(labels) >= 3 and
          all(re.fullmatch(r"-?[0-9.]+ " + unit, label) for label in labels),
          "%s: %d time-axis labels in %s, none overlapping (%s .. %s)" % (what, len(labels), unit, labels[0], labels[-1]))


# ---- a run of 20,000 small copies
workload = open(SOURCE + "/bench/workloads/small-copies.yaml").read().replace("times: 1000000", "times: 20000")
open(WORK + "/copies.yaml", "w").write(workload)
run(ASCENDSIM, "run", "--workload", WORK + "/copies.yaml", "--timing-only", "--trace", WORK + "/copies.json",
    "--report", WORK + "/copies-report.json")
run(ASCENDSIM, "view", WORK + "/copies.json", "--report", WORK + "/copies-report.json", "-o", WORK + "/copies.html")
events = events_of(WORK + "/copies.json")
report = json.load(open(WORK + "/copies-report.json"))
slices = [e for e in events if e["ph"] == "X"]
flows = flow_pairs(events)

dom = page(WORK + "/copies.html")
canvas, body = attrs(dom, "canvas"), attrs(dom, "body")
print("whole run drawn in %s ms (redraw)" % canvas["draw-ms"])
check(int(canvas["drawn"]) == len(slices), "whole run: %s of %d slices drawn" % (canvas["drawn"], len(slices)))
check(int(canvas["aggregated"]) > 0 and int(canvas["boxes"]) * 10 < len(slices),
      "whole run: level of detail, %s boxes (%s of them pixel columns of several slices) for %d slices"
      % (canvas["boxes"], canvas["aggregated"], len(slices)))
names = {s["name"] for s in slices}
dominant = [k for k in canvas.get("aggregated-kinds", "").split("|") if k]
check(dominant and all(k in names for k in dominant),
      "whole run: boxes of several slices coloured by the kind that takes most of their time (%s)"
      % ", ".join(dominant))
check(int(canvas["counter-columns"]) > 0, "whole run: counters drawn as min/max in %s pixel columns" % canvas["counter-columns"])
check(canvas["flows"] == "0" and "zoom in" in dom, "whole run: %d flows too many to draw, the page says to zoom in" % len(flows))
axis_ok(canvas, "ms", "whole run")
units = {(e["name"], list(e["args"])[0]) for e in events if e["ph"] == "C"}
check(len(units) >= 5 and all("counter: %s (%s)" % u in dom for u in units),
      "every counter listed with its unit: " + ", ".join("%s (%s)" % u for u in sorted(units)))
kinds = sorted({w["kind"] for w in report["warnings"]})
panel = re.search(r'<details id="warnings"[^>]*>.*?</details>', dom, re.S)
check(panel is not None and "hidden" not in panel.group(0)[:40] and all(k in panel.group(0) for k in kinds) and kinds,
      "the report's warnings (%s) in the collapsible panel" % ", ".join(kinds))

# Zoomed in on 30 us in the middle: every slice and flow arrow in view drawn, one box each.
a = slices[len(slices) // 2]["ts"]
b = a + 30
dom = page(WORK + "/copies.html", "view=%r,%r" % (a, b))
canvas = attrs(dom, "canvas")
in_view = [s for s in slices if s["ts"] <= b and s["ts"] + s["dur"] >= a]
check(int(canvas["drawn"]) == len(in_view) and canvas["aggregated"] == "0",
      "zoomed in: %s of the %d slices in view drawn, one box each" % (canvas["drawn"], len(in_view)))
flows_in_view = [f for f in flows if f[0] < b and max(f[0], f[1]) >= a]
check(int(canvas["flows"]) == len(flows_in_view) and len(flows_in_view) >= 10,
      "zoomed in: %s of the %d flow arrows in view drawn" % (canvas["flows"], len(flows_in_view)))
axis_ok(canvas, "ms", "zoomed in")
dom = page(WORK + "/copies.html", "view=%r,%r" % (a, a + 0.05))
axis_ok(attrs(dom, "canvas"), "ms", "50 ns in view")

# Search, and the jump to the first match.
matches = [s for s in slices if "memcpy_async" in s["name"].lower()]
dom = page(WORK + "/copies.html", "search=memcpy_async&next")
found = attrs(dom, 'span id="matches"')
check(int(found["count"]) == len(matches), "search 'memcpy_async': %s matches, %d in the trace" % (found["count"], len(matches)))
first = min(s["ts"] for s in matches)
check(abs(float(found["at"]) - first) < 1e-9, "search: jumped to the first match at %s us (%r)" % (found["at"], first))

# A selected range: the DMA transfers that start in it.
a, b = slices[len(slices) // 3]["ts"], slices[len(slices) // 3]["ts"] + 3000
copies = [s for s in slices if s["cat"] == "transfer" and a <= s["ts"] < b and "bytes" in s["args"]]
total = sum(s["args"]["bytes"] for s in copies)
span = max(s["ts"] + s["dur"] for s in copies) - min(s["ts"] for s in copies)
dom = page(WORK + "/copies.html", "select=%r,%r" % (a, b))
chosen = attrs(dom, 'span id="selection"')
check(int(chosen["copies"]) == len(copies) and int(chosen["bytes"]) == total and
      abs(float(chosen["time-us"]) - span) < 2e-3 and abs(float(chosen["gbps"]) - total / span / 1e3) < 2e-3,
      "selected %r .. %r us: %s copies, %s bytes, %s us, %s GB/s (counted here: %d, %d, %.3f, %.3f)"
      % (a, b, chosen["copies"], chosen["bytes"], chosen["time-us"], chosen["gbps"], len(copies), total, span, total / span / 1e3))

# ---- the pipeline workload: flows between streams (event record -> wait) too, all drawn
run(ASCENDSIM, "run", "--workload", SOURCE + "/traces/workloads/pipeline.yaml", "--timing-only", "--trace",
    WORK + "/pipeline.json")
run(ASCENDSIM, "view", WORK + "/pipeline.json", "-o", WORK + "/pipeline.html")
pairs = flow_pairs(events_of(WORK + "/pipeline.json"))
streams = {(e["pid"], e["tid"]) for e in events_of(WORK + "/pipeline.json")
           if e["ph"] == "M" and e["name"] == "thread_name" and e["args"]["name"].startswith("Stream")}
between_streams = [p for p in pairs if p[2] in streams and p[3] in streams and p[2] != p[3]]
canvas = attrs(page(WORK + "/pipeline.html"), "canvas")
check(int(canvas["flows"]) == len(pairs) and len(between_streams) >= 2,
      "pipeline: %s of %d flow arrows drawn, %d of them from one stream to another (record -> wait)"
      % (canvas["flows"], len(pairs), len(between_streams)))

# ---- a trace cut off mid-event, as a crash leaves it
text = open(WORK + "/copies.json").read()
cut = text[:len(text) * 3 // 5]
open(WORK + "/cut.json", "w").write(cut)
done = run(ASCENDSIM, "view", WORK + "/cut.json", "-o", WORK + "/cut.html")
whole = []
for line in cut.split("\n")[1:]:
    try:
        whole.append(json.loads(line.rstrip(",")))
    except ValueError:
        pass
dom = page(WORK + "/cut.html")
canvas = attrs(dom, "canvas")
cut_slices = sum(1 for e in whole if e["ph"] == "X")
check("cut off" in done.stderr and int(canvas["drawn"]) == cut_slices and "trace-cut-off" in dom,
      "cut-off trace: %s of its %d whole slices drawn, with a warning" % (canvas["drawn"], cut_slices))

if failures:
    sys.exit("%d check(s) failed" % len(failures))
print("all viewer features checked")
