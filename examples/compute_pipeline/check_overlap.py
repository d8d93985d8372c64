"""Checks a trace of example_compute_pipeline: the AI Cores have their own track, every aclnnAdd
shows as KERNEL_AICORE on the compute stream, and the kernels of the pipeline run while the
upload stream's copies are in flight (the overlap the double buffering is for)."""
import json
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
assert any(n == "AI Core" for n in names.values()), "no AI Core track: %s" % sorted(set(names.values()))

tasks = [e for e in events if e.get("ph") == "X" and e.get("cat") == "task"]
kernels = [e for e in tasks if e["name"] == "KERNEL_AICORE"]
copies = [e for e in tasks if e["name"] == "MEMCPY_ASYNC"]
assert len(kernels) == 9, "expected 9 kernels (1 alone + 8 in the pipeline), found %d" % len(kernels)
on_cores = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
assert len(on_cores) == 9 and all(e["name"] == "aclnnAdd" for e in on_cores), "AI Core track events: %s" % on_cores

def overlaps(a, b):
    return a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]

overlapped = sum(1 for k in kernels if any(c["tid"] != k["tid"] and overlaps(k, c) for c in copies))
assert overlapped >= 6, "only %d kernels ran while the other stream copied" % overlapped
print("overlap ok: %d of %d kernels ran during the other stream's copies" % (overlapped, len(kernels)))
