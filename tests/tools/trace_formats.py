"""The same run traced as Chrome JSON and as SQLite holds the same events: every slice with its
track, name, category, start, duration and arguments; every flow end; every counter sample.
Usage: trace_formats.py TRACE.json TRACE.sqlite"""
import json
import sqlite3
import sys


def micros(ps):
    ns = ps // 1000
    return "%d.%03d" % (ns // 1000, ns % 1000)


def from_json(path):
    events = json.load(open(path))
    slices = sorted((e["pid"], e["tid"], e["name"], e["cat"], "%.3f" % e["ts"], "%.3f" % e["dur"],
                     json.dumps(e["args"], sort_keys=True)) for e in events if e["ph"] == "X")
    flows = sorted((e["ph"], e["pid"], e["tid"], e["id"]) for e in events if e["ph"] in ("s", "f"))
    counters = sorted((e["pid"], e["name"], "%.3f" % e["ts"]) for e in events if e["ph"] == "C")
    return slices, flows, counters


def from_sqlite(path):
    db = sqlite3.connect(path)
    args = {}
    for slice_id, key, i, r, t in db.execute("SELECT slice_id, key, int_value, real_value, text_value FROM arg"):
        if t is not None:
            try:
                value = json.loads(t) if key in ("histogram", "read_latency_histogram") or t[:1] in "{[" else t
            except ValueError:
                value = t
        else:
            value = i if i is not None else round(r, 3)
        args.setdefault(slice_id, {})[key] = value
    slices = sorted((pid, tid, name, cat, micros(start), micros(dur), json.dumps(args.get(i, {}), sort_keys=True))
                    for i, pid, tid, name, cat, start, dur in db.execute("SELECT * FROM slice"))
    flows = sorted((phase, pid, tid, fid) for fid, pid, tid, at, phase in db.execute("SELECT * FROM flow"))
    counters = sorted((pid, name, micros(at)) for pid, name, series, at, value in db.execute("SELECT * FROM counter"))
    return slices, flows, counters


def main():
    a, b = from_json(sys.argv[1]), from_sqlite(sys.argv[2])
    for what, x, y in zip(("slices", "flows", "counter samples"), a, b):
        if not x:
            sys.exit("the JSON trace has no %s" % what)
        if x != y:
            missing = [e for e in x if e not in y][:3]
            extra = [e for e in y if e not in x][:3]
            sys.exit("%s differ: %d in JSON, %d in SQLite; only in JSON: %s; only in SQLite: %s"
                     % (what, len(x), len(y), missing, extra))
    print("same events in both formats: %d slices, %d flow ends, %d counter samples" % tuple(map(len, a)))


main()
