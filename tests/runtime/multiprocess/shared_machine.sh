#!/bin/sh
# Jobs on one machine served by `ascendsim exec --shared` (docs/multiprocess.md).
#   shared_machine.sh script ASCENDSIM SHARED_COPIES WORK
#     four processes started by a shell script, twice: every byte right, one trace with the four
#     processes, and the same trace and report bytes both times.
#   shared_machine.sh mpirun ASCENDSIM IPC_RANKS WORK
#     mpirun -np 4, each rank copying to its device and into its neighbour's IPC-imported buffer:
#     every byte right, four processes in the trace, a copy within a device that takes about
#     twice as long with two ranks per device (4 ranks on 2 devices) as with one (on 4): the two
#     copies share the device's memory; a second run gives the same report bytes and trace events
#     (the ranks' MPI waits are seen through libascendsim_mpi_waits.so).
#   shared_machine.sh hccl ASCENDSIM HCCL_RANKS WORK
#     mpirun -np 4 joined by HCCL (root info broadcast by MPI): AllReduce, AllGather, AlltoAllV and
#     a Send/Recv ring exact, and the AllReduce of 64 MiB taking the 910B mesh's time; then a
#     communicator from a rank table and an AlltoAllV on it; twice, the same report and events.
#   shared_machine.sh vmm ASCENDSIM VMM_SHARE WORK
#     processes share physical memory by shareable handle (vmm_share.cpp checks bytes and codes;
#     one exits holding a mapping); whatever happens, none is left running.
#   shared_machine.sh callbacks ASCENDSIM CALLBACK_PAIR WORK
#     three processes with callbacks and host functions, their main threads of the same pthread_t
#     (no address randomisation): each runs its own, once, in order; then one of two kills itself
#     inside a blocking callback: the other finishes, and nothing is left running.
#   shared_machine.sh kernel_handles ASCENDSIM KERNEL_HANDLES WORK   (KERNEL_MODULE: the binary)
#     one process's kernel binary, function and argument list handles are refused in another
#     (107017); the other's own binary runs; the owner exits without unloading, and the server
#     unloads its binary for it (in the trace); nothing is left running.
#   shared_machine.sh tdt ASCENDSIM TDT_PAIR WORK
#     a data queue shared by id between processes (one enqueues 3 MiB, another dequeues them, exact),
#     a channel's handle and name refused to another process, a queue destroyed by one process
#     while another waits on it, and a process killed while it waits in a receive: the server
#     ends its call and destroys what it left (tdt_pair.cpp checks bytes, codes and messages);
#     nothing is left running.
#   shared_machine.sh model_handles ASCENDSIM MODEL_HANDLES WORK
#     one process's model, label and label list handles are refused in another (107000); the
#     other's own model runs; the owner exits without destroying them, and the server destroys
#     them for it (in the trace); nothing is left running.
#   shared_machine.sh stream_states ASCENDSIM STREAM_STATES WORK
#     two processes' stream state callbacks and allocator registrations are their own
#     (stream_states.cpp checks states, threads and codes); nothing is left running.
#   shared_machine.sh busy ASCENDSIM BUSY_RANK WORK
#     two ranks ask for a copy at the same simulated instant, rank 0 after 1.5 s of CPU time of
#     host work: rank 1's copy waits for rank 0's turn (the same submit time, rank 0's queued
#     first), and a second run gives the same report and trace bytes.
#   shared_machine.sh kill ASCENDSIM IPC_RANKS WORK
#     rank 2 is killed mid-run: the job ends (no process left, no hang), the report is written.
set -eu
mode=$1 ascendsim=$2 program=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ASCENDSIM_SUMMARY=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
# Open MPI's own allocations outlive MPI_Finalize: in a sanitizer build the ranks do not report
# leaks (the server and the script job's programs still do). (verify_asan_link_order=0, which
# exec --shared adds for the preloaded MPI-waits library, is said again: -x replaces the value.)
rankEnv="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0"
fail() { echo "FAIL: $*"; exit 1; }
# The same trace events (the ends of calls that wake together may be written in either order).
sameEvents() {
  python3 -c 'import json,sys; c=[sorted(json.dumps(e,sort_keys=True) for e in json.load(open(f))) for f in sys.argv[1:]]; sys.exit(0 if all(x==c[0] for x in c) else 1)' "$@"
}
# Two runs that differ: both runs' files (FILES: the first run's, then the second's) are kept in
# WORK.failed/N (N counts the failures; the work directory is emptied by the next run), and the
# differences printed: the reports' lines, the traces' events one a line in sorted order.
differ() {  # differ MESSAGE REPORT1 REPORT2 TRACE1 TRACE2 [MORE FILES]
  message=$1; shift
  kept="$work.failed/$(($(ls "$work.failed" 2>/dev/null | wc -l) + 1))"
  mkdir -p "$kept" && cp "$@" out*.txt "$kept/" 2>/dev/null || true
  echo "$message: both runs' files kept in $kept"
  diff "$1" "$2" | head -n 80 || true
  python3 - "$3" "$4" <<'PY'
import difflib, itertools, json, sys
events = [sorted(json.dumps(e, sort_keys=True) for e in json.load(open(f))) for f in sys.argv[1:]]
lines = difflib.unified_diff(*events, *sys.argv[1:], n=1, lineterm="")
sys.stdout.writelines(l + "\n" for l in itertools.islice(lines, 80))
PY
  fail "$message"
}
processes() {  # the trace's processes named "Rank N (...)"
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(sorted(x["args"]["name"] for x in e if x.get("name")=="process_name" and x["args"]["name"].startswith("Rank ")))' "$1"
}

case $mode in
script)
  cat > job.sh <<JOB
#!/bin/sh
for r in 0 1 2 3; do ASCENDSIM_RANK=\$r ASCENDSIM_WORLD_SIZE=4 "$program" > out.\$r & done
wait
JOB
  chmod +x job.sh
  for run in 1 2; do
    "$ascendsim" exec --shared --config atlas-800t-a2 --trace trace$run.json --report report$run.json -- ./job.sh
    for r in 0 1 2 3; do grep -qx "rank $r ok" out.$r || fail "run $run rank $r: $(cat out.$r)"; done
  done
  # The failing memset (count beyond maxCount: ACL_ERROR_RT_PARAM_INVALID, 107000) is pipelined: its
  # code comes back from the next call that waits; with ASCENDSIM_PIPELINE=0, from itself.
  grep -qx "bad memset: 0 then 107000" out.0 || fail "pipelined failure: $(cat out.0)"
  grep -q "^long array: 0 100000 aclrtIpcMemSetImportPid: an array argument of 300000 elements" out.0 ||
    fail "long array: $(cat out.0)"
  ASCENDSIM_PIPELINE=0 "$ascendsim" exec --shared --config atlas-800t-a2 -- ./job.sh
  grep -qx "bad memset: 107000 then 0" out.0 || fail "unpipelined failure: $(cat out.0)"
  # A program with no rank (numbered after every rank) copies from its own pageable memory: its
  # staging core is the next free one (thread numbers are sparse; once it took forever).
  timeout 60 "$ascendsim" exec --shared --config atlas-800t-a2 -- "$program" > unranked.txt ||
    fail "unranked program: $(cat unranked.txt)"
  grep -qx "rank 0 ok" unranked.txt || fail "unranked program: $(cat unranked.txt)"
  # A machine that is not there: a clear error at once (ACL_ERROR_RT_INTERNAL_ERROR), no hang.
  lost=0
  ASCENDSIM_MACHINE_SOCKET="$work/no-such.sock" timeout 30 "$program" > lost.txt 2>&1 || lost=$?
  [ "$lost" = 1 ] && grep -q "cannot reach the machine served by ascendsim exec --shared" lost.txt ||
    fail "without a server: status $lost, $(cat lost.txt)"
  [ "$(processes trace1.json)" = "['Rank 0 (shared_copies)', 'Rank 1 (shared_copies)', 'Rank 2 (shared_copies)', 'Rank 3 (shared_copies)']" ] || fail "trace processes: $(processes trace1.json)"
  cmp trace1.json trace2.json || differ "the two runs' traces differ" report1.json report2.json trace1.json trace2.json
  cmp report1.json report2.json || differ "the two runs' reports differ" report1.json report2.json trace1.json trace2.json
  echo "4 processes, every byte right, the same trace and report bytes twice"
  ;;
mpirun)
  # Ranks meet in MPI (seen through libascendsim_mpi_waits.so): a second run on 2 devices gives
  # the same report bytes and trace events.
  for devices in 4 2 2b; do
    DEVICES=${devices%b} "$ascendsim" exec --shared --config atlas-800t-a2 --trace trace$devices.json \
      --report report$devices.json -- mpirun -np 4 --oversubscribe -x DEVICES -x "$rankEnv" "$program" > out$devices.txt
    [ "$(grep -c ' ok d2d_us=' out$devices.txt)" = 4 ] || fail "$devices devices: $(cat out$devices.txt)"
    [ "$(processes trace$devices.json)" = "['Rank 0 (ipc_ranks)', 'Rank 1 (ipc_ranks)', 'Rank 2 (ipc_ranks)', 'Rank 3 (ipc_ranks)']" ] || fail "trace processes: $(processes trace$devices.json)"
  done
  cmp report2.json report2b.json || differ "the two runs' reports differ" report2.json report2b.json trace2.json trace2b.json
  sameEvents trace2.json trace2b.json || differ "the two runs' trace events differ" report2.json report2b.json trace2.json trace2b.json
  python3 - out4.txt out2.txt <<'PY'
import re, sys
one, two = (max(float(v) for v in re.findall(r"d2d_us=([0-9.]+)", open(f).read())) for f in sys.argv[1:])
print(f"copy within a device: {one:.3f} us alone, {two:.3f} us with another rank on the device")
# Two equal copies sharing one device's memory each take about twice as long as one alone.
sys.exit(0 if 1.8 * one <= two <= 2.2 * one else 1)
PY

  ;;
hccl)
  cat > ranktable.json <<'TABLE'
{"status": "completed", "version": "1.0", "server_count": "1",
 "server_list": [{"server_id": "0", "device": [
   {"device_id": "0", "device_ip": "", "rank_id": "0"}, {"device_id": "1", "device_ip": "", "rank_id": "1"},
   {"device_id": "2", "device_ip": "", "rank_id": "2"}, {"device_id": "3", "device_ip": "", "rank_id": "3"}]}]}
TABLE
  for run in 1 2; do
    RANK_TABLE_FILE="$work/ranktable.json" "$ascendsim" exec --shared --config atlas-800t-a2 \
      --trace trace$run.json --report report$run.json -- \
      mpirun -np 4 --oversubscribe -x RANK_TABLE_FILE -x "$rankEnv" "$program" > out$run.txt
    [ "$(grep -c ' ok allreduce_us=' out$run.txt)" = 4 ] || fail "$(cat out$run.txt)"
  done
  cmp report1.json report2.json || differ "the two runs' reports differ" report1.json report2.json trace1.json trace2.json
  sameEvents trace1.json trace2.json || differ "the two runs' trace events differ" report1.json report2.json trace1.json trace2.json
  cp trace1.json trace.json && cp out1.txt out.txt
  [ "$(processes trace.json)" = "['Rank 0 (hccl_ranks)', 'Rank 1 (hccl_ranks)', 'Rank 2 (hccl_ranks)', 'Rank 3 (hccl_ranks)']" ] || fail "trace processes: $(processes trace.json)"
  python3 - out.txt <<'PY'
import re, sys
times = [float(v) for v in re.findall(r"allreduce_us=([0-9.]+)", open(sys.argv[1]).read())]
# 4 ranks x 64 MiB on the 910B mesh (configs/presets/atlas-800t-a2.yaml): two phases, each a
# 16 MiB slice over HCCS at one SDMA transfer's 19.3 GB/s (869.3 us); the own slice copied into
# HCCL's buffer through HBM (2 x 16 MiB at 1638.4 GB/s less refresh 350/3900 ns: 22.5 us); 24 task
# launches of 1 us on the slowest path (the in-process test's chain with 3 peers instead of 7).
slice = 16 * 2**20
expected = 2 * slice / 19.3e9 * 1e6 + 2 * slice / (1638.4e9 * (1 - 350 / 3900)) * 1e6 + 24
print(f"AllReduce 4 x 64 MiB across 4 processes: {min(times):.1f}-{max(times):.1f} us, arithmetic {expected:.1f} us")
# 0.5 %: as the in-process test allows (the first chunk's latency, a notify or two between ranks).
sys.exit(0 if all(abs(t - expected) <= 0.005 * expected for t in times) else 1)
PY
  ;;
vmm)
  # The job's processes write their pids: any still there when the test ends, however it ends,
  # are killed by pid.
  trap 'for p in $(cat "$work/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done' EXIT
  cat > job.sh <<JOB
#!/bin/sh
"$program" a "$work" > out.a 2>&1 & echo \$! >> "$work/pids"
"$program" b "$work" > out.b 2>&1 & echo \$! >> "$work/pids"
"$program" c "$work" > out.c 2>&1 & echo \$! >> "$work/pids"
wait
JOB
  chmod +x job.sh
  status=0
  timeout 100 "$ascendsim" exec --shared --config atlas-800t-a2 --report report.json -- ./job.sh || status=$?
  grep -qx "a ok" out.a || fail "exporter (exec status $status): $(cat out.a)"
  grep -qx "b ok" out.b || fail "importer (exec status $status): $(cat out.b)"
  grep -qx "c ok" out.c || fail "leaver (exec status $status): $(cat out.c)"
  [ "$status" = 0 ] || fail "exec status $status"
  echo "physical memory shared by shareable handle between two processes: every byte and code right"
  ;;
callbacks)
  trap 'for p in $(cat "$work/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done' EXIT
  randomisation=""
  setarch -R true 2>/dev/null && randomisation="setarch -R"
  for job in "run run run" "die run"; do
    printf '#!/bin/sh\n' > job.sh
    n=0
    for what in $job; do
      echo "$randomisation \"$program\" $what > out.$n 2>&1 & echo \$! >> \"$work/pids\"" >> job.sh
      n=$((n + 1))
    done
    echo wait >> job.sh
    chmod +x job.sh
    status=0
    timeout 100 "$ascendsim" exec --shared --report report.json -- ./job.sh || status=$?
    [ "$status" != 124 ] || fail "$job: the job hung"
    n=0
    for what in $job; do
      if [ "$what" = run ]; then grep -qx "run ok" out.$n || fail "$job: process $n: $(cat out.$n)"; fi
      n=$((n + 1))
    done
    python3 -c 'import json,sys; json.load(open("report.json"))' || fail "$job: no report"
  done
  echo "callbacks of three processes with one pthread_t each ran in their own; a process killed in a blocking callback let the others finish"
  ;;
kernel_handles)
  trap 'for p in $(cat "$work/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done' EXIT
  cat > job.sh <<JOB
#!/bin/sh
"$program" owner "$KERNEL_MODULE" "$work" > out.owner 2>&1 & echo \$! >> "$work/pids"
"$program" other "$KERNEL_MODULE" "$work" > out.other 2>&1 & echo \$! >> "$work/pids"
wait
JOB
  chmod +x job.sh
  status=0
  timeout 100 "$ascendsim" exec --shared --trace trace.json --report report.json -- ./job.sh || status=$?
  grep -qx "owner ok" out.owner || fail "owner (exec status $status): $(cat out.owner)"
  grep -qx "other ok" out.other || fail "other (exec status $status): $(cat out.other)"
  [ "$status" = 0 ] || fail "exec status $status"
  # Two binaries unloaded without error: the other's own, and the owner's, by the server.
  unloads=$(python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1])) if e.get("name") == "aclrtBinaryUnLoad" and e.get("ph") == "X" and e.get("args", {}).get("return") == 0))' trace.json)
  [ "$unloads" = 2 ] || fail "$unloads successful unloads in the trace, expected 2"
  echo "kernel handles are their process's own (107017 in another); the owner's binary was unloaded when it went"
  ;;
tdt)
  trap 'for p in $(cat "$work/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done' EXIT
  cat > job.sh <<JOB
#!/bin/sh
"$program" owner "$work" > out.owner 2>&1 & owner=\$!; echo \$owner >> "$work/pids"
"$program" other "$work" > out.other 2>&1 & other=\$!; echo \$other >> "$work/pids"
"$program" victim "$work" > out.victim 2>&1 & victim=\$!; echo \$victim >> "$work/pids"
# The victim is killed once it and the owner wait (the owner on the victim's queue).
for i in \$(seq 600); do [ -f victim_blocking ] && [ -f owner_blocking ] && break; sleep 0.1; done
sleep 1.5
kill -9 \$victim
wait \$owner \$other
JOB
  chmod +x job.sh
  status=0
  timeout 100 "$ascendsim" exec --shared --trace trace.json --report report.json -- ./job.sh || status=$?
  grep -qx "owner ok" out.owner || fail "owner (exec status $status): $(cat out.owner)"
  grep -qx "other ok" out.other || fail "other (exec status $status): $(cat out.other)"
  [ -f victim_blocking ] || fail "the victim did not get to wait: $(cat out.victim)"
  ! grep -q "victim" out.victim || fail "victim: $(cat out.victim)"
  [ "$status" = 0 ] || fail "exec status $status"
  python3 -c 'import json,sys; json.load(open("report.json"))' || fail "no report"
  # Destroyed without error: queues "shared" (by the other) and "victim" (by the server, for the
  # killed victim); channels: the other's, the owner's two and the victim's (by the server).
  destroyed=$(python3 -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1])) if x.get("ph") == "X" and x.get("args", {}).get("return") == 0]; print(sum(x["name"] == "acltdtDestroyQueue" for x in e), sum(x["name"] == "acltdtDestroyChannel" for x in e))' trace.json)
  [ "$destroyed" = "2 4" ] || fail "queues and channels destroyed: $destroyed, expected 2 4"
  for p in $(cat pids); do ! kill -0 "$p" 2>/dev/null || fail "process $p left running"; done
  echo "a queue shared by id, channels their process's own, a killed waiter's queue and channel destroyed for it"
  ;;
model_handles)
  trap 'for p in $(cat "$work/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done' EXIT
  cat > job.sh <<JOB
#!/bin/sh
"$program" owner "$work" > out.owner 2>&1 & echo \$! >> "$work/pids"
"$program" other "$work" > out.other 2>&1 & echo \$! >> "$work/pids"
wait
JOB
  chmod +x job.sh
  status=0
  ASCENDSIM_PIPELINE=0 timeout 100 "$ascendsim" exec --shared --trace trace.json --report report.json -- ./job.sh || status=$?
  grep -qx "owner ok" out.owner || fail "owner (exec status $status): $(cat out.owner)"
  grep -qx "other ok" out.other || fail "other (exec status $status): $(cat out.other)"
  [ "$status" = 0 ] || fail "exec status $status"
  # Successful destroys: the other's own model, and the owner's model, list and label, by the
  # server as the owner went (its streams and memory with them).
  count() {
    python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1])) if e.get("name") == sys.argv[2] and e.get("ph") == "X" and e.get("args", {}).get("return") == 0))' trace.json "$1"
  }
  [ "$(count aclmdlRIDestroy)" = 2 ] || fail "$(count aclmdlRIDestroy) successful aclmdlRIDestroy in the trace, expected 2"
  [ "$(count aclrtDestroyLabelList)" = 1 ] || fail "$(count aclrtDestroyLabelList) successful list destroys, expected 1"
  [ "$(count aclrtDestroyLabel)" = 1 ] || fail "$(count aclrtDestroyLabel) successful label destroys, expected 1"
  echo "models, labels and label lists are their process's own (107000 in another); the owner's were destroyed when it went"
  ;;
stream_states)
  trap 'for p in $(cat "$work/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done' EXIT
  cat > job.sh <<JOB
#!/bin/sh
"$program" first "$work" > out.first 2>&1 & echo \$! >> "$work/pids"
"$program" second "$work" > out.second 2>&1 & echo \$! >> "$work/pids"
wait
JOB
  chmod +x job.sh
  status=0
  timeout 100 "$ascendsim" exec --shared -- ./job.sh || status=$?
  grep -qx "first ok" out.first || fail "first (exec status $status): $(cat out.first)"
  grep -qx "second ok" out.second || fail "second (exec status $status): $(cat out.second)"
  [ "$status" = 0 ] || fail "exec status $status"
  echo "each process's stream state callbacks saw its own streams only, on their threads; allocator registrations are by process"
  ;;
busy)
  # Rank 0 works on the host for 1.5 s of its CPU time before its copy: three times the 0.5 s
  # a program's own threads are waited for, and three times the most an hccl test rank's checks
  # between two calls took on a loaded machine (0.06 s idle). Under exec --shared a rank is waited
  # for up to 5 s (ASCENDSIM_ORDER_PATIENCE): passed after 0.5 s, as it was, the job went on
  # without it, and its copy was queued when rank 1's 64 MiB had ended.
  cat > job.sh <<JOB
#!/bin/sh
for r in 0 1; do ASCENDSIM_RANK=\$r ASCENDSIM_WORLD_SIZE=2 "$program" 1.5 > out.\$r 2>&1 & done
wait
JOB
  chmod +x job.sh
  for run in 1 2; do
    timeout 200 "$ascendsim" exec --shared --config atlas-800t-a2 --trace trace$run.json \
      --report report$run.json -- ./job.sh
    for r in 0 1; do grep -qx "rank $r ok" out.$r || fail "run $run rank $r: $(cat out.$r)"; done
  done
  python3 - report1.json <<'PY' || fail "rank 1 did not wait for the busy rank 0"
import json, sys
copies = {c["device"]: c for c in json.load(open(sys.argv[1]))["copies"]}
zero, one = copies["npu0"], copies["npu1"]
print(f"rank 0's 1 MiB: task {zero['task']} submitted at {zero['submit_us']} us; "
      f"rank 1's 64 MiB: task {one['task']} at {one['submit_us']} us, ending at {one['end_us']} us")
# Both ranks made the same calls before their copies, so both are asked for at the same instant,
# rank 0's first (ranks are ordered by number at equal times); when the busy rank was passed, its
# copy was queued at the end of rank 1's (the machine had gone on without it).
sys.exit(0 if zero["submit_us"] == one["submit_us"] and zero["task"] < one["task"] else 1)
PY
  cmp report1.json report2.json || differ "the two runs' reports differ" report1.json report2.json trace1.json trace2.json
  cmp trace1.json trace2.json || differ "the two runs' traces differ" report1.json report2.json trace1.json trace2.json
  echo "a rank busy for 1.5 s of CPU between two calls is waited for: the same order and bytes twice"
  ;;
kill)
  export ASCENDSIM_ORDER_PATIENCE=0.05
  # A name of its own, so that no other test's ranks are taken for ones this job left behind.
  cp "$program" ./ranks-killed
  status=0
  KILL_RANK=2 DEVICES=4 timeout 120 "$ascendsim" exec --shared --config atlas-800t-a2 --report report.json -- \
    mpirun -np 4 --oversubscribe -x DEVICES -x KILL_RANK -x "$rankEnv" ./ranks-killed > out.txt 2>&1 || status=$?
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "exit status $status: $(cat out.txt)"
  python3 -c 'import json,sys; r=json.load(open("report.json")); sys.exit(0 if "copies" in r else 1)' || fail "no report"
  for wait in 1 2 3 4 5 6 7 8 9 10; do pgrep -x ranks-killed > /dev/null || break; sleep 1; done
  ! pgrep -x ranks-killed > /dev/null || fail "ranks left running: $(pgrep -ax ranks-killed)"
  echo "rank 2 killed: the job ended with status $status, the report was written, nothing left running"
  ;;
esac
