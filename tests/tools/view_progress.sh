#!/bin/sh
# `ascendsim view` shows how far it has read a trace on a terminal only (#32): under a
# pseudo-terminal (script(1) from util-linux) its stderr carries "reading ...: N %"; in a pipe or
# a log it carries no progress and no carriage return.
#   view_progress.sh ASCENDSIM WORKLOAD WORK
set -eu
ascendsim=$1 workload=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
ASCENDSIM_SUMMARY=0 "$ascendsim" run --workload "$workload" --trace trace.json > /dev/null
"$ascendsim" view trace.json -o piped.html 2> piped.log
if grep -q "reading" piped.log || tr -d '\n' < piped.log | grep -q "$(printf '\r')"; then
  echo "FAIL: progress written into a pipe: $(cat piped.log)"; exit 1
fi
script -qec "\"$ascendsim\" view trace.json -o terminal.html" /dev/null > terminal.log
grep -q "ascendsim view: reading trace.json: *[0-9]* % ([0-9]* of [0-9]* MB)" terminal.log ||
  { echo "FAIL: no progress on a terminal: $(cat -v terminal.log)"; exit 1; }
cmp piped.html terminal.html || { echo "FAIL: the two pages differ"; exit 1; }
echo "progress on a terminal only; the same page either way"
