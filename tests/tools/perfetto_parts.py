"""A Perfetto trace split by its size limit (trace.max_size) is a trace per file: each part
decodes with protoc, begins by clearing the sequence's incremental state, interns every name,
category and argument name its events use (an iid is only valid in the part that interned it),
and ends every slice it begins. Together the parts hold the events of the same run traced to one
file: the same slices (process, track, name, category, start, duration, arguments), flow ends and
counter samples.
Usage: perfetto_parts.py SCHEMA WHOLE.pftrace PART0.pftrace [PART1.pftrace ...]
Exits 77 (skipped) when protoc is not installed (Debian: protobuf-compiler)."""
import shutil
import sys

from perfetto_trace import decode_packets




def one(message, field):
    values = message.get(field)
    return values[0] if values else None


def events(schema, path):
    """The events of one file, every name resolved through that file's own interned tables."""
    packets = decode_packets(schema, path)
    if not packets or one(packets[0], "sequence_flags") != "1":
        sys.exit("%s: the first packet does not clear the sequence's incremental state" % path)
    tables = {"event_names": {}, "event_categories": {}, "debug_annotation_names": {}}
    processes, tracks, open_slices, found = {}, {}, {}, []

    def name(table, iid):
        if iid not in tables[table]:
            sys.exit("%s: %s iid %s is used but not interned in this file" % (path, table, iid))
        return tables[table][iid]

    for p in packets:
        for interned in p.get("interned_data", []):
            for table in tables:
                for entry in interned.get(table, []):
                    tables[table][one(entry, "iid")] = one(entry, "name")
        for d in p.get("track_descriptor", []):
            if "process" in d:
                processes[one(d, "uuid")] = one(d["process"][0], "process_name")
            else:
                tracks[one(d, "uuid")] = (one(d, "parent_uuid"), one(d, "name"))
        for e in p.get("track_event", []):
            track = one(e, "track_uuid")
            if track not in tracks:
                sys.exit("%s: an event on track %s, not described in this file" % (path, track))
            parent, track_name = tracks[track]
            where = (processes[parent], track_name)
            ts = int(one(p, "timestamp"))
            kind = one(e, "type")
            if kind == "TYPE_SLICE_BEGIN":
                args = sorted((name("debug_annotation_names", one(a, "name_iid")),
                               str(sorted((k, v) for k, v in a.items() if k != "name_iid")))
                              for a in e.get("debug_annotations", []))
                open_slices.setdefault(track, []).append(
                    (where, name("event_names", one(e, "name_iid")),
                     name("event_categories", one(e, "category_iids")), ts, str(args)))
            elif kind == "TYPE_SLICE_END":
                if not open_slices.get(track):
                    sys.exit("%s: a slice ends that this file did not begin" % path)
                w, n, c, start, args = open_slices[track].pop()
                found.append(("slice", w, n, c, start, ts - start, args))
            elif kind == "TYPE_INSTANT":
                found.append(("flow", where, name("event_names", one(e, "name_iid")),
                              one(e, "flow_ids"), one(e, "terminating_flow_ids"), ts))
            else:
                found.append(("counter", where, ts, one(e, "double_counter_value")))
    if any(open_slices.values()):
        sys.exit("%s: slices begun and never ended in this file" % path)
    return found


def main():
    if not shutil.which("protoc"):
        print("protoc is not installed (Debian package protobuf-compiler): skipped")
        sys.exit(77)
    schema, whole, parts = sys.argv[1], sys.argv[2], sys.argv[3:]
    if len(parts) < 2:
        sys.exit("the trace was not split: %d file(s)" % len(parts))
    expected = sorted(map(repr, events(schema, whole)))
    split = sorted(repr(e) for part in parts for e in events(schema, part))
    if expected != split:
        missing = [e for e in expected if e not in split][:3]
        sys.exit("the parts hold %d events, the whole trace %d; e.g. missing %s"
                 % (len(split), len(expected), missing))
    print("each of %d parts stands alone; together the %d events of the whole trace"
          % (len(parts), len(expected)))


main()
