#!/bin/sh
# Outputs never destroy (docs/reliability.md): a FIFO, a directory or a device given as an output
# is written in place (a character device) or refused, never replaced by a file; an output that
# names an input is refused; a device given as an input is refused, not read for ever.
# Usage: outputs_never_destroy.sh ASCENDSIM WORKLOAD WORKDIR
set -u
ascendsim=$1 workload=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failed=0
check() {  # check NAME CONDITION...
  name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; failed=1; fi
}
mkfifo "$dir/fifo"
out=$("$ascendsim" bandwidth --tests h2d --sizes 1MiB --csv "$dir/fifo" 2>&1); rc=$?
check "a table to a FIFO is refused" [ $rc -ne 0 ]
check "... saying so" sh -c "echo \"\$1\" | grep -q 'is a FIFO'" sh "$out"
check "... and the FIFO stays a FIFO" test -p "$dir/fifo"
out=$("$ascendsim" run --workload "$workload" --trace "$dir/fifo" 2>&1); rc=$?
check "a trace to a FIFO is refused" [ $rc -ne 0 ]
check "... saying so" sh -c "echo \"\$1\" | grep -q 'is a FIFO'" sh "$out"
out=$("$ascendsim" run --workload "$workload" --trace "$dir/fifo" --trace-format sqlite 2>&1); rc=$?
check "an SQLite trace to a FIFO is refused" [ $rc -ne 0 ]
check "... and the FIFO stays a FIFO" test -p "$dir/fifo"
mkdir "$dir/folder"
"$ascendsim" run --workload "$workload" --report "$dir/folder" > /dev/null 2>&1
check "a report to a directory leaves the directory" test -d "$dir/folder"
out=$("$ascendsim" run --workload "$workload" --trace "$dir/same.json" --report "$dir/same.json" 2>&1); rc=$?
check "the same file for trace and report is refused" [ $rc -ne 0 ]
check "... saying so" sh -c "echo \"\$1\" | grep -q 'trace and the report are both'" sh "$out"
cp "$workload" "$dir/w.yaml"
"$ascendsim" run --workload "$dir/w.yaml" --trace "$dir/w.yaml" > /dev/null 2>&1; rc=$?
check "a trace over the workload is refused (exit 2)" [ $rc -eq 2 ]
check "... and the workload is intact" cmp -s "$workload" "$dir/w.yaml"
"$ascendsim" run --workload "$workload" --trace "$dir/t.json" > /dev/null 2>&1
"$ascendsim" view "$dir/t.json" -o "$dir/t.json" > /dev/null 2>&1; rc=$?
check "a page over its trace is refused (exit 2)" [ $rc -eq 2 ]
check "... and the trace is intact JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/t.json"
out=$(timeout 20 "$ascendsim" run --workload /dev/zero 2>&1); rc=$?
check "a device as the workload is refused at once" [ $rc -eq 3 ]
check "... saying so" sh -c "echo \"\$1\" | grep -q 'not a regular file'" sh "$out"
out=$(timeout 20 "$ascendsim" view /dev/zero -o "$dir/z.html" 2>&1); rc=$?
check "a device as the trace to view is refused at once" [ $rc -ne 0 ] && [ $rc -ne 124 ]
if [ "$(id -u)" = 0 ] && mknod "$dir/null" c 1 3 2> /dev/null; then
  "$ascendsim" bandwidth --tests h2d --sizes 1MiB --csv "$dir/null" > /dev/null 2>&1; rc=$?
  check "a table to a character device is written in place" [ $rc -eq 0 ]
  check "... which stays a device" test -c "$dir/null"
fi
touch "$dir/plain"
out=$("$ascendsim" sweep --workload "$workload" --set 'devices[0].link.generation=3,4' --out "$dir/plain/sub.csv" 2>&1); rc=$?
check "a sweep under a regular file fails with a message, not an abort" [ $rc -eq 1 ]
check "... saying so" sh -c "echo \"\$1\" | grep -q 'cannot make the folder'" sh "$out"
# A name that would change how the page parses (<!--<script>) reaches the viewer escaped.
printf '[{"ph":"X","pid":0,"tid":1,"name":"<!--<script>","ts":0,"dur":1,"args":{}}]' > "$dir/hostile.json"
"$ascendsim" view "$dir/hostile.json" -o "$dir/hostile.html" > /dev/null 2>&1
check "a hostile name is escaped in the page" sh -c "! grep -q '<!--<script>' \"\$1\" && grep -q 'u003c!--' \"\$1\"" sh "$dir/hostile.html"
[ $failed -eq 0 ] && echo "outputs never destroy: all checks passed"
exit $failed
