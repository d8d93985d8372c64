#!/bin/sh
# calibrate and sweep against hostile input (issue #34, docs/reliability.md): non-numbers in the
# measurements, a million sizes, working directories left behind, a signal during a probe, and a
# sweep table rewritten after every point.
# Usage: hostile_tools.sh ASCENDSIM WORKLOAD WORKDIR
set -u
ascendsim=$1 workload=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir/tmp" || exit 1
TMPDIR="$dir/tmp"
export TMPDIR
failed=0
check() {  # check NAME CONDITION...
  name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; failed=1; fi
}
empty_tmp() { [ -z "$(ls -A "$dir/tmp")" ]; }

# inf and nan seconds are refused with the line (exit 2), never fitted into inf/nan and exit 0.
for bad in inf nan -inf 1e400; do
  printf 'size,direction,seconds\n4096,h2d,1.2e-05\n65536,h2d,%s\n' "$bad" > "$dir/bad.csv"
  out=$("$ascendsim" calibrate "$dir/bad.csv" 2>&1); rc=$?
  check "seconds $bad: exit 2" [ $rc -eq 2 ]
  check "... naming line 3" sh -c "echo \"\$1\" | grep -q 'bad.csv:3: seconds'" sh "$out"
done

# A FIFO or /dev/zero as the measurements or as a table to merge: refused at once (both used to
# wait for a writer or read for ever).
mkfifo "$dir/fifo"
for input in /dev/zero "$dir/fifo"; do
  out=$(timeout 20 "$ascendsim" calibrate "$input" 2>&1); rc=$?
  check "calibrate $input: exit 2" [ $rc -eq 2 ]
  check "... saying it is not a regular file" sh -c "echo \"\$1\" | grep -q 'not a regular file'" sh "$out"
  out=$(timeout 20 "$ascendsim" sweep merge --out "$dir/merged.csv" "$input" 2>&1); rc=$?
  check "sweep merge $input: exit 1" [ $rc -eq 1 ]
  check "... saying it is not a regular file" sh -c "echo \"\$1\" | grep -q 'not a regular file'" sh "$out"
done

# A million different sizes: refused at once with the limit (4096), not "argument list too long".
awk 'BEGIN { print "size,direction,seconds"; for (i = 1; i <= 1000000; i++) printf "%d,h2d,%g\n", 4096 + i, 1e-5 + i * 1e-12 }' > "$dir/million.csv"
start=$(date +%s)
out=$("$ascendsim" calibrate "$dir/million.csv" 2>&1); rc=$?
check "a million sizes: exit 2" [ $rc -eq 2 ]
check "... saying the limit" sh -c "echo \"\$1\" | grep -q '1000000 different copy sizes; at most 4096'" sh "$out"
check "... within 60 s" [ $(( $(date +%s) - start )) -lt 60 ]

# A probe that fails: exit 1 and the working directory is gone (it used to stay in /tmp).
printf 'size,direction,seconds\n4096,h2d,1.2e-05\n65536,h2d,2.5e-05\n' > "$dir/good.csv"
"$ascendsim" calibrate "$dir/good.csv" --probe /bin/false > /dev/null 2>&1; rc=$?
check "a failing probe: exit 1" [ $rc -eq 1 ]
check "... and no working directory left in TMPDIR" empty_tmp

# SIGTERM while the probe runs: the probe is stopped, the directory removed, calibrate ends by
# SIGTERM (exit status 143 from the shell).
printf '#!/bin/sh\nexec sleep 30\n' > "$dir/slow-probe"
chmod +x "$dir/slow-probe"
"$ascendsim" calibrate "$dir/good.csv" --probe "$dir/slow-probe" > /dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid; rc=$?
check "SIGTERM during the probe ends calibrate by SIGTERM" [ $rc -eq 143 ]
check "... and no working directory left in TMPDIR" empty_tmp

# A sweep appends each finished point's row to its table; it is written whole only at the start
# and the end. Watched while 6 points run one at a time: the file keeps one inode while it grows
# (a rewrite through a new file and a rename, as after every point before, changes it).
out="$dir/sweep.csv"
"$ascendsim" sweep --workload "$workload" --jobs 1 --set 'host.cpu_copy_engines=1,2,3,4,5,6' --out "$out" > /dev/null 2>&1 &
pid=$!
seen="$dir/seen"
: > "$seen"
while kill -0 $pid 2>/dev/null; do
  if [ -f "$out" ]; then echo "$(stat -c %i "$out") $(wc -l < "$out")" >> "$seen"; fi
  sleep 0.05
done
wait $pid; rc=$?
check "the sweep succeeds" [ $rc -eq 0 ]
check "... with 6 rows in the end" [ "$(wc -l < "$out")" -eq 7 ]
grew=$(sort -u "$seen" | awk '{ n[$1]++ } END { m = 0; for (i in n) if (n[i] > m) m = n[i]; print m }')
echo "most line counts seen under one inode: $grew"
check "... grew by appending (one inode, 3 or more sizes seen)" [ "$grew" -ge 3 ]

if [ $failed -eq 0 ]; then echo "hostile tools: all checks passed"; fi
exit $failed
