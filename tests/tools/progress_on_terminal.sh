#!/bin/sh
# `ascendsim run` and `ascendsim view` show how far they have got on a terminal only (#32): under
# a pseudo-terminal (script(1) from util-linux) their stderr carries "N % (DONE of TOTAL steps)" /
# "reading ...: N % (... MB)"; in a pipe or a log no progress and no carriage return. The outputs
# are the same either way.
# `ascendsim exec` shows it in the terminal's title instead (the program owns the terminal's
# lines): an OSC 2 title "ascendsim: ... ms simulated, N calls", the old title saved before and put
# back after, the program's own lines whole; in a pipe no escape sequence at all.
#   progress_on_terminal.sh ASCENDSIM WORKLOAD WORK PROGRAM
set -eu
ascendsim=$1 workload=$2 work=$3 program=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ASCENDSIM_SUMMARY=0
cleanLog() {  # $1: a log written into a pipe
  if grep -q " % (" "$1" || tr -d '\n' < "$1" | grep -q "$(printf '\r')"; then
    echo "FAIL: progress written into a pipe: $(cat -v "$1")"; exit 1
  fi
}
"$ascendsim" run --workload "$workload" --trace trace.json --report piped.json > /dev/null 2> run.log
cleanLog run.log
script -qec "\"$ascendsim\" run --workload \"$workload\" --report terminal.json" /dev/null > run-terminal.log
grep -q "ascendsim run: *[0-9]* % ([0-9]* of [0-9]* steps)" run-terminal.log ||
  { echo "FAIL: run shows no progress on a terminal: $(cat -v run-terminal.log)"; exit 1; }
cmp piped.json terminal.json || { echo "FAIL: the two reports differ"; exit 1; }
"$ascendsim" view trace.json -o piped.html 2> view.log
cleanLog view.log
script -qec "\"$ascendsim\" view trace.json -o terminal.html" /dev/null > view-terminal.log
grep -q "ascendsim view: reading trace.json: *[0-9]* % ([0-9]* of [0-9]* MB)" view-terminal.log ||
  { echo "FAIL: view shows no progress on a terminal: $(cat -v view-terminal.log)"; exit 1; }
cmp piped.html terminal.html || { echo "FAIL: the two pages differ"; exit 1; }
"$ascendsim" exec -- "$program" 20000 > exec-piped.log 2>&1
if grep -q "$(printf '\033')" exec-piped.log; then
  echo "FAIL: exec wrote escape sequences into a pipe: $(cat -v exec-piped.log)"; exit 1
fi
script -qec "\"$ascendsim\" exec -- \"$program\" 20000" /dev/null > exec-terminal.log
esc=$(printf '\033') bel=$(printf '\007')
grep -q "${esc}\]2;ascendsim: [0-9.]* ms simulated, [0-9]* calls${bel}" exec-terminal.log ||
  { echo "FAIL: exec shows no progress in the terminal's title: $(cat -v exec-terminal.log)"; exit 1; }
grep -q "${esc}\[22;0t" exec-terminal.log && grep -q "${esc}\[23;0t" exec-terminal.log ||
  { echo "FAIL: exec does not save and restore the terminal's title: $(cat -v exec-terminal.log)"; exit 1; }
grep -q "aclrtMemsetAsync (4 KiB) *20000 calls" exec-terminal.log ||
  { echo "FAIL: the program's own line is not whole: $(cat -v exec-terminal.log)"; exit 1; }
echo "progress on a terminal only; the same report and page either way"
