"""`msprof` on the simulator writes msprof's profile folder (#32): runs the aclnn Add example
(examples/aclnn_add/test_add.cpp) as `msprof --application="APP" --output=DIR`, as
`msprof --output=DIR APP` and as `msprof op --output=DIR APP`, and inspects what each leaves,
against msprof's documented layout (CANN "Collecting and Parsing Profile Data": DIR/PROF_XXX/
mindstudio_profiler_output/ with msprof_{timestamp}.json, op_summary_*.csv, task_time_*.csv,
api_statistic_*.csv; the column names of msprof's summary tables):
  - one new PROF_<6 digits>_<17 digits: time to the ms>_<16 letters> folder per run;
  - the timeline is Chrome trace JSON with msprof's layers: the calls under "CANN", the tasks of
    the device's streams under "Ascend Hardware" (the 4 kernels as KERNEL_AICORE tasks);
  - the three tables carry msprof's columns and the timeline's time stamp;
  - op_summary has one row per kernel the program launches: RunAdd, run for float32 and for
    float16, launches aclnnAdd and aclnnInplaceAdd: 2 x 2 = 4;
  - api_statistic counts the program's calls, 2 runs of RunAdd each making: aclrtMemcpy 5 times
    (3 tensors uploaded in CreateAclTensor, 2 results downloaded), so 10; aclrtSynchronizeStream
    2 times, so 4; aclrtMalloc 3 times (the three tensors; the Add needs no workspace), so 6;
  - task_time lists the four kernels among the tasks.
Usage: msprof_profile.py MSPROF APP WORKDIR"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

msprof, app, work = sys.argv[1:4]


def run(args, expect=0):
    out = subprocess.run([msprof] + args, capture_output=True, text=True)
    if out.returncode != expect:
        sys.exit("msprof %s exited %d (expected %d): %s%s"
                 % (args, out.returncode, expect, out.stdout, out.stderr))
    return out


def table(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def inspect(out_dir, label):
    folders = [d for d in os.listdir(out_dir) if d.startswith("PROF_")]
    if len(folders) != 1 or not re.fullmatch(r"PROF_\d{6}_\d{17}_[A-Z]{16}", folders[0]):
        sys.exit("%s: expected one PROF_<n>_<time>_<letters> folder, found %s" % (label, folders))
    output = os.path.join(out_dir, folders[0], "mindstudio_profiler_output")
    files = sorted(os.listdir(output))
    timelines = [f for f in files if re.fullmatch(r"msprof_\d{14}\.json", f)]
    if len(timelines) != 1:
        sys.exit("%s: expected one msprof_<time>.json, found %s" % (label, files))
    stamp = timelines[0][len("msprof_"):-len(".json")]
    for name in ("op_summary", "task_time", "api_statistic"):
        if "%s_%s.csv" % (name, stamp) not in files:
            sys.exit("%s: no %s_%s.csv among %s" % (label, name, stamp, files))
    events = json.load(open(os.path.join(output, timelines[0])))
    if not any(e.get("ph") == "X" for e in events):
        sys.exit("%s: the timeline has no slices" % label)
    # msprof's layers: the calls under CANN, the device's streams under Ascend Hardware.
    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    if sorted(processes.values()) != ["Ascend Hardware", "CANN"]:
        sys.exit("%s: processes %s, expected CANN and Ascend Hardware" % (label, processes))
    hardware = [p for p, n in processes.items() if n == "Ascend Hardware"][0]
    kernels = [e for e in events if e.get("ph") == "X" and e["pid"] == hardware and e["name"] == "KERNEL_AICORE"]
    if len(kernels) != 4:
        sys.exit("%s: %d KERNEL_AICORE tasks under Ascend Hardware, expected 4" % (label, len(kernels)))
    ops = table(os.path.join(output, "op_summary_%s.csv" % stamp))
    want = ["Device_id", "Model ID", "Task ID", "Stream ID", "Op Name", "OP Type", "Task Type",
            "Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)"]
    if not ops or list(ops[0].keys()) != want:
        sys.exit("%s: op_summary columns %s, expected %s" % (label, ops[0].keys() if ops else None, want))
    if len(ops) != 4:
        sys.exit("%s: op_summary has %d kernels, expected 4: %s" % (label, len(ops), ops))
    apis = {r["API Name"]: r for r in table(os.path.join(output, "api_statistic_%s.csv" % stamp))}
    for api, count in (("aclrtMemcpy", 10), ("aclrtSynchronizeStream", 4), ("aclrtMalloc", 6)):
        if api not in apis or int(apis[api]["Count"]) != count:
            sys.exit("%s: %s counted %s, expected %d" % (label, api, apis.get(api, {}).get("Count"), count))
        r = apis[api]
        total, n = float(r["Time(us)"]), int(r["Count"])
        if abs(float(r["Avg(us)"]) - total / n) > 0.002 or float(r["Min(us)"]) > float(r["Max(us)"]):
            sys.exit("%s: %s statistics do not add up: %s" % (label, api, r))
    tasks = table(os.path.join(output, "task_time_%s.csv" % stamp))
    kernel_names = {o["Op Name"] for o in ops}
    if sum(1 for t in tasks if t["kernel_name"] in kernel_names) != 4:
        sys.exit("%s: task_time does not list the 4 kernels: %s" % (label, tasks))
    print("%s: %s with %d tasks, %d kernels, %d APIs" % (label, folders[0], len(tasks), len(ops), len(apis)))


for label, args in (("application", ["--application=%s" % app]),
                    ("trailing", [app]),
                    ("op", ["op", app])):
    out_dir = os.path.join(work, "msprof-" + label)
    shutil.rmtree(out_dir, ignore_errors=True)
    if label == "op":
        run(["op", "--output=" + out_dir, app])
    else:
        run(["--output=" + out_dir] + args)
    inspect(out_dir, label)

bad = run(["--aic-metrics=PipeUtilization", "--output=" + work, app], expect=2)
if "'--aic-metrics' is not an option" not in bad.stderr:
    sys.exit("an unknown option is not refused by name: %s" % bad.stderr)
print("msprof writes msprof's profile folder")
