#pragma once
// A host thread as the simulator sees it: its own virtual clock, current context, last error and
// the callback reports waiting for it.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_rt.h"
#include "runtime/trace/trace_recorder.h"
#include "runtime/trace/trace_sink.h"
#include "spec/units.h"

namespace ascendsim::runtime {

struct Context;
struct Stream;

struct CallbackReport {
  aclrtCallback fn = nullptr;
  void* userData = nullptr;
  Stream* stream = nullptr;
  bool blocking = false;
  spec::Picoseconds readyAt = 0;  // simulated time the task reached its stream's head
};

constexpr spec::Picoseconds kNoDeadline = std::numeric_limits<spec::Picoseconds>::max();

// What a served program's thread tells of its waits, in memory its process shares with the server:
// whether it is in an MPI call (runtime/remote/mpi_waits.c) and how many it has entered; and
// whether it waits for the server's answer to a message of its own (a call, a staging buffer, its
// process's kernel service's hello). Asleep in its socket then, it is about to act, not asleep
// outside AscendCL: on a loaded machine the answer may take longer than the look that would
// otherwise pass it by, and its next call would come at a later simulated time in one run than
// in another.
struct MpiWaits {
  std::atomic<uint32_t> waiting{0};
  std::atomic<uint32_t> entered{0};
  std::atomic<uint32_t> awaitingServer{0};
};

struct HostThread {
  uint64_t pthreadId = 0;  // the key of the record
  // What aclrtSubscribeReport names it by: its pthread_t, or for a served program's thread, the
  // program's pthread_t made unique in the job (remote::servedThreadId).
  uint64_t reportId = 0;
  pid_t tid = 0;  // the kernel's id, once the thread has run (0: not started yet)
  // Order of creation (a thread created by the program is numbered when it is created, after its
  // parent) or, for threads the runtime did not see being created, of first API call.
  uint32_t index = 0;
  // A thread of another process (a program sharing a machine served by `ascendsim exec
  // --shared`), which the calling server thread stands for: its process id (0: this process).
  pid_t remotePid = 0;
  pid_t remoteTid = 0;
  HostTrack track;  // where its calls show in the trace
  spec::Picoseconds now = 0;
  Context* current = nullptr;
  std::string error;                 // pending aclGetRecentErrMsg text
  aclError lastError = ACL_SUCCESS;  // the last failed call's code (aclrtGetLastError)
  uint64_t lastTaskId = 0;           // the last task it submitted (aclrtGetThreadLastTaskId)
  std::string returned;              // keeps the last returned text alive for the caller
  bool blocked = false;              // waiting for the simulation or another thread
  const std::function<bool()>* waitingOn = nullptr;  // what it waits for, while blocked
  spec::Picoseconds deadline = kNoDeadline;          // when that wait gives up
  bool inCall = false;  // inside an API call (and not running user code for it)
  // Others went on while it slept outside AscendCL (a served program's thread waiting for a file,
  // a pipe or a sleep): it wakes at the machine's present (see HostThreads::awaitTurn).
  bool passedAsleep = false;
  std::atomic<bool> entering{false};  // about to take the runtime's lock for a call
  // How busy it has been outside AscendCL (see HostThreads::sleepsOutside).
  // CPU time when another thread first had to wait for its next call (-1: none has yet).
  int64_t cpuWaitedFrom = -1;
  std::chrono::steady_clock::time_point waitedFromAt{};  // and when
  uint32_t looks = 0, sleepingLooks = 0;  // since then: times looked at, and seen asleep
  // A served program's thread: its waits in MPI for other processes (libascendsim_mpi_waits.so).
  const MpiWaits* waitingOutside = nullptr;
  int64_t cpuSeen = -1;  // CPU time when last looked at
  std::chrono::steady_clock::time_point cpuSeenAt{};
  bool subscribed = false;  // has at least one stream subscribed to it
  std::deque<CallbackReport> reports;
  // The stream whose callback or host function this thread is running (user code, outside the
  // lock), or nullptr: that stream cannot go on until the function returns.
  Stream* inCallbackOf = nullptr;
  // The default stream this thread's last aclrtSetDevice or aclrtCreateContext made, or nullptr
  // (a served program asks, to run its stream state callbacks).
  Stream* madeDefaultStream = nullptr;
  spec::Picoseconds callOverhead = 0;  // host overhead the current API call was charged
  TraceArgs callArgs;                  // the current API call's arguments, for the trace
  std::vector<uint64_t> callTasks;     // tasks the current API call submitted
};

}  // namespace ascendsim::runtime
