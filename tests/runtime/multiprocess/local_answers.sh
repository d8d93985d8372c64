#!/bin/sh
# Calls a served program answers itself (#29: docs/multiprocess.md, "Answers the program gives
# itself"), under `ascendsim exec --shared --config atlas-800t-a2`:
#   local_answers.sh ASCENDSIM LOCAL_ANSWERS WORK
# runs local_answers.cpp's one-thread and two-thread programs twice each: with the answers given
# in the program (the default) and with every call asked of the machine (ASCENDSIM_PIPELINE=0).
# Both print "local answers ok" (every code and value as CANN gives them); the calls answered in
# the program are in the trace as the machine's own answers are: the one-thread program's traces
# are the same bytes, the two-thread program's the same events.
set -eu
ascendsim=$1 program=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ASCENDSIM_SUMMARY=0
fail() { echo "FAIL: $*"; exit 1; }
sameEvents() {
  python3 -c 'import json,sys; c=[sorted(json.dumps(e,sort_keys=True) for e in json.load(open(f))) for f in sys.argv[1:]]; sys.exit(0 if all(x==c[0] for x in c) else 1)' "$@"
}
calls() {  # how many API calls named $2 the trace $1 holds
  python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1])) if e.get("cat")=="api" and e.get("name")==sys.argv[2] and e.get("ph") in ("X","B")))' "$1" "$2"
}
for mode in single threads; do
  for how in answered asked; do
    pipeline=1
    [ $how = asked ] && pipeline=0
    ASCENDSIM_PIPELINE=$pipeline timeout 120 "$ascendsim" exec --shared --config atlas-800t-a2 \
      --trace $mode-$how.json -- "$program" $mode > $mode-$how.txt 2>&1 ||
      fail "$mode, $how: $(cat $mode-$how.txt)"
    grep -qx "local answers ok" $mode-$how.txt || fail "$mode, $how: $(cat $mode-$how.txt)"
  done
done
cmp single-answered.json single-asked.json ||
  fail "the one-thread program's trace differs with answers given in the program"
sameEvents threads-answered.json threads-asked.json ||
  fail "the two-thread program's trace events differ with answers given in the program"
# Every call is in the trace, answered in the program or not: the one-thread program asks for its
# device 81 times (askCurrent 50 + 5 + 5 + 5 + 3 + 3, expectNoContext 4 x 2, askMachine 2).
n=$(calls single-answered.json aclrtGetDevice)
[ "$n" = 81 ] || fail "$n aclrtGetDevice calls in the trace, expected 81"
echo "every code and value as CANN's; the same trace with answers given in the program"
