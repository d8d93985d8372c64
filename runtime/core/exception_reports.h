#pragma once
// Task failures as the program sees them besides the failed synchronisation: the exception
// callbacks (aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister) and each device's
// last error (aclrtGetErrorVerbose). A failure is delivered to the thread that submitted the task,
// at the end of its current or next API call, so a program that synchronises sees its callbacks
// run before the failed sync returns.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "acl/acl_rt.h"
#include "runtime/core/host_threads.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

// Failures for a served program's thread, with the callbacks its process registered: handed to
// the program, whose thread runs them (runtime/remote/served_callbacks.h).
struct ServedException {
  rtExceptionInfo info;
  std::vector<aclrtExceptionInfoCallback> callbacks;
};

class ExceptionReports {
 public:
  explicit ExceptionReports(HostThreads& threads) : threads_(threads) {}

  // The callbacks of process `owner` (a served program's pid; 0: this process's own).
  void setCallback(aclrtExceptionInfoCallback callback, pid_t owner = 0);  // aclrtSet...Callback
  void registerCallback(aclrtExceptionInfoCallback callback, bool add, pid_t owner = 0);
  static aclrtErrorInfo deviceError(const Device& d);

  // A task of `d` that thread `submitter` (its pthread id) queued failed with `info`.
  void taskFailed(Device& d, uint64_t submitter, const rtExceptionInfo& info,
                  aclrtAicoreErrorType kind);
  bool pending() const { return !pending_.empty(); }
  // Runs the callbacks for the failures of tasks `t` submitted (outside the runtime's lock: a
  // callback may call AscendCL). A served program's thread has them kept for its program instead.
  void deliver(HostThread& t);
  // What deliver kept for the served program's thread `t`, taken.
  std::vector<ServedException> takeServed(const HostThread& t);
  // A served program's end: `info` is live (for the getters) while its callbacks run.
  void markLive(const rtExceptionInfo* info, bool live);
  // A served program's thread `t` has ended: what was kept for it goes, and with `processGone`
  // its process's callbacks too (a later process may be given the same pid).
  void forget(const HostThread& t, bool processGone);
  // Failures of threads that made no call since: handed to `t` (the one finalising).
  void handOver(const HostThread& t);
  // Whether `info` is a failure a callback is being given right now (the getters' check:
  // anything else is not an aclrtExceptionInfo).
  bool live(const rtExceptionInfo* info) const { return info && delivering_.count(info) > 0; }

 private:
  std::vector<aclrtExceptionInfoCallback> callbacksOf(pid_t owner) const;
  HostThreads& threads_;
  std::map<pid_t, aclrtExceptionInfoCallback> legacy_;
  std::map<pid_t, std::vector<aclrtExceptionInfoCallback>> callbacks_;
  std::map<uint64_t, std::vector<ServedException>> served_;    // by the thread's pthreadId
  std::vector<std::pair<uint64_t, rtExceptionInfo>> pending_;  // (submitter, failure)
  std::set<const rtExceptionInfo*> delivering_;
};

}  // namespace ascendsim::runtime
