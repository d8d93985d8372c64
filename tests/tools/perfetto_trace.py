"""The Perfetto trace of a run decodes with protoc against the project's schema
(runtime/trace/perfetto_trace.proto, Perfetto's message and field numbers) and holds the events
of the Chrome JSON trace of the same run: every slice on the same process and track with its name,
category, start (ns), duration (to the nanosecond either way: Perfetto stores begin and end,
each rounded down to ns) and arguments; every flow end; every counter sample. It takes at most
100 bytes per event (#32).
Usage: perfetto_trace.py SCHEMA TRACE.json TRACE.pftrace
Exits 77 (skipped) when protoc is not installed (Debian: protobuf-compiler)."""
import codecs
import json
import os
import shutil
import subprocess
import sys


def parse_text_format(text):
    """protoc's text format as nested dicts of lists: {field: [value or dict, ...]}."""
    root = {}
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
        elif line.endswith("{"):
            child = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(child)
            stack.append(child)
        else:
            key, value = line.split(":", 1)
            value = value.strip()
            if value.startswith('"'):
                value = codecs.escape_decode(value[1:-1].encode())[0].decode("utf-8")
            stack[-1].setdefault(key, []).append(value)
    return root


def one(message, field, default=None):
    values = message.get(field)
    return values[0] if values else default


def decode_packets(schema, path):
    """The trace's packets, decoded by protoc against `schema`, as parse_text_format gives them."""
    decoded = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(os.path.abspath(schema)),
                              "--decode=perfetto.protos.Trace", os.path.basename(schema)],
                             stdin=open(path, "rb"), capture_output=True, text=True)
    if decoded.returncode != 0 or decoded.stderr:
        sys.exit("protoc could not decode %s: %s" % (path, decoded.stderr))
    return parse_text_format(decoded.stdout).get("packet", [])


def from_perfetto(schema, path):
    packets = decode_packets(schema, path)
    first = packets[0] if packets else {}
    if one(first, "sequence_flags") != "1":
        sys.exit("the first packet does not clear the sequence's incremental state")
    names, categories, arg_names = {}, {}, {}
    processes, tracks = {}, {}  # uuid -> process name; uuid -> (process uuid, name, is counter)
    slices, flows, counters = [], [], []
    open_slices = {}  # track uuid -> stack of begun slices
    for p in packets:
        if one(p, "trusted_packet_sequence_id") != "1":
            sys.exit("a packet is not on sequence 1: %s" % p)
        for interned in p.get("interned_data", []):
            for table, field in ((names, "event_names"), (categories, "event_categories"),
                                 (arg_names, "debug_annotation_names")):
                for entry in interned.get(field, []):
                    table[one(entry, "iid")] = one(entry, "name")
        for d in p.get("track_descriptor", []):
            uuid = one(d, "uuid")
            if "process" in d:
                processes[uuid] = one(d["process"][0], "process_name")
            else:
                tracks[uuid] = (one(d, "parent_uuid"), one(d, "name"), "counter" in d)
        for e in p.get("track_event", []):
            kind = one(e, "type")
            track = one(e, "track_uuid")
            ts = int(one(p, "timestamp"))
            parent, track_name, _ = tracks[track]
            where = (processes[parent], track_name)
            if kind == "TYPE_SLICE_BEGIN":
                args = {}
                for a in e.get("debug_annotations", []):
                    key = arg_names[one(a, "name_iid")]
                    if "uint_value" in a or "int_value" in a:
                        args[key] = int(one(a, "uint_value", one(a, "int_value")))
                    elif "double_value" in a:
                        args[key] = round(float(one(a, "double_value")), 3)
                    else:
                        text = one(a, "string_value")
                        args[key] = json.loads(text) if text[:1] in "{[" else text
                open_slices.setdefault(track, []).append(
                    (where, names[one(e, "name_iid")], categories[one(e, "category_iids")], ts,
                     json.dumps(args, sort_keys=True)))
            elif kind == "TYPE_SLICE_END":
                where_, name, cat, start, args = open_slices[track].pop()
                slices.append((where_, name, cat, start, ts - start, args))
            elif kind == "TYPE_INSTANT":
                if names[one(e, "name_iid")] != "flow":
                    sys.exit("an instant event other than a flow end: %s" % e)
                if "flow_ids" in e:
                    flows.append(("s", where, int(one(e, "flow_ids"))))
                else:
                    flows.append(("f", where, int(one(e, "terminating_flow_ids"))))
            elif kind == "TYPE_COUNTER":
                counters.append((processes[parent], track_name.split(" (")[0], ts))
    if any(open_slices.values()):
        sys.exit("slices begun and never ended")
    return slices, flows, counters


def from_json(path):
    events = json.load(open(path))
    process = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    track = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    ns = lambda us: round(us * 1000)
    slices = [((process[e["pid"]], track[(e["pid"], e["tid"])]), e["name"], e["cat"], ns(e["ts"]),
               ns(e["dur"]), json.dumps({k: round(v, 3) if isinstance(v, float) else v
                                         for k, v in e["args"].items()}, sort_keys=True))
              for e in events if e["ph"] == "X"]
    flows = [(e["ph"], (process[e["pid"]], track[(e["pid"], e["tid"])]), e["id"])
             for e in events if e["ph"] in ("s", "f")]
    counters = [(process[e["pid"]], e["name"], ns(e["ts"])) for e in events if e["ph"] == "C"]
    return slices, flows, counters


def main():
    if not shutil.which("protoc"):
        print("protoc is not installed (Debian package protobuf-compiler): skipped")
        sys.exit(77)
    schema, json_path, perfetto_path = sys.argv[1:4]
    j = from_json(json_path)
    p = from_perfetto(schema, perfetto_path)
    # Durations: JSON has the duration rounded down to ns, Perfetto end and start each rounded
    # down, so they differ by at most 1 ns.
    key = lambda s: (s[0], s[1], s[2], s[3], s[5])
    js = sorted(j[0], key=key)
    ps = sorted(p[0], key=key)
    if [key(s) for s in js] != [key(s) for s in ps]:
        missing = [s for s in js if key(s) not in set(map(key, ps))][:3]
        extra = [s for s in ps if key(s) not in set(map(key, js))][:3]
        sys.exit("slices differ: %d in JSON, %d in Perfetto; only in JSON: %s; only in Perfetto: %s"
                 % (len(js), len(ps), missing, extra))
    for a, b in zip(js, ps):
        if abs(a[4] - b[4]) > 1:
            sys.exit("durations differ by more than 1 ns: %s vs %s" % (a, b))
    for what, x, y in (("flows", j[1], p[1]), ("counter samples", j[2], p[2])):
        if not x:
            sys.exit("the JSON trace has no %s" % what)
        if sorted(x) != sorted(y):
            sys.exit("%s differ: %d in JSON, %d in Perfetto; e.g. %s"
                     % (what, len(x), len(y), [e for e in x if e not in y][:3]))
    events = len(j[0]) + len(j[1]) + len(j[2])
    size = len(open(perfetto_path, "rb").read())
    per_event = size / events
    print("same events in both formats: %d slices, %d flow ends, %d counter samples; "
          "%d bytes, %.1f bytes per event (JSON: %.1f)"
          % (len(j[0]), len(j[1]), len(j[2]), size, per_event,
             len(open(json_path, "rb").read()) / events))
    if per_event > 100:
        sys.exit("more than 100 bytes per event")


if __name__ == "__main__":
    main()
