#!/bin/sh
# Each of the given in-process tests run twice, on a machine of its own (ASCENDSIM_TRACE) and as a
# served program (ascendsim exec --shared --trace, ASCENDSIM_PIPELINE=0 so that every call returns
# its own code, as the tests check): both runs must pass and write the same slices (every API call,
# task and transfer with its name, start, duration and arguments), the same order: a served program
# is timed, traced and answered exactly as on a machine of its own.
#   served_trace.sh ASCENDSIM RUNTIME_TESTS WORK TEST...
set -eu
ascendsim=$1 tests=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ASCENDSIM_SUMMARY=0
fail() { echo "FAIL: $*"; exit 1; }
for t in "$@"; do
  rm -f in.json served.json
  ASCENDSIM_TRACE="$work/in.json" "$tests" --gtest_filter="$t" > in.log 2>&1 ||
    fail "$t on a machine of its own: $(tail -5 in.log)"
  ASCENDSIM_PIPELINE=0 "$ascendsim" exec --shared --trace "$work/served.json" -- \
    "$tests" --gtest_filter="$t" > served.log 2>&1 || fail "$t served: $(tail -5 served.log)"
  # (A name that matches no test passes gtest and writes no trace: each run must have run it.)
  grep -q '^\[  PASSED  \] 1 test\.' in.log || fail "$t: not one test run on a machine of its own"
  grep -q '^\[  PASSED  \] 1 test\.' served.log || fail "$t: not one test run served"
  python3 - "$t" in.json served.json <<'PY' || fail "$t: the traces differ"
import json, sys
def slices(path):
    return [(e.get("cat"), e["name"], e["ts"], e.get("dur"),
             json.dumps(e.get("args", {}), sort_keys=True))
            for e in json.load(open(path)) if e.get("ph") == "X"]
a, b = slices(sys.argv[2]), slices(sys.argv[3])
if a != b:
    for x, y in zip(a, b):
        if x != y:
            print("first difference:\n on its own", x, "\n served    ", y)
            break
    print(len(a), "slices on its own,", len(b), "served")
    sys.exit(1)
print(sys.argv[1] + ":", len(a), "slices (calls, tasks, transfers), the same")
PY
done
