#pragma once
// Task failures as the program sees them besides the failed synchronisation: the exception
// callbacks (aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister) and each device's
// last error (aclrtGetErrorVerbose). A failure is delivered to the thread that submitted the task,
// at the end of its current or next API call, so a program that synchronises sees its callbacks
// run before the failed sync returns.

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "acl/acl_rt.h"
#include "runtime/core/host_threads.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

class ExceptionReports {
 public:
  explicit ExceptionReports(HostThreads& threads) : threads_(threads) {}

  void setCallback(aclrtExceptionInfoCallback callback);  // aclrtSetExceptionInfoCallback
  void registerCallback(aclrtExceptionInfoCallback callback, bool add);
  static aclrtErrorInfo deviceError(const Device& d);

  // A task of `d` that thread `submitter` (its pthread id) queued failed with `info`.
  void taskFailed(Device& d, uint64_t submitter, const rtExceptionInfo& info,
                  aclrtAicoreErrorType kind);
  bool pending() const { return !pending_.empty(); }
  // Runs the callbacks for the failures of tasks `t` submitted (outside the runtime's lock: a
  // callback may call AscendCL).
  void deliver(HostThread& t);
  // Failures of threads that made no call since: handed to `t` (the one finalising).
  void handOver(const HostThread& t);
  // Whether `info` is a failure a callback is being given right now (the getters' check:
  // anything else is not an aclrtExceptionInfo).
  bool live(const rtExceptionInfo* info) const { return info && delivering_.count(info) > 0; }

 private:
  HostThreads& threads_;
  aclrtExceptionInfoCallback legacy_ = nullptr;
  std::vector<aclrtExceptionInfoCallback> callbacks_;
  std::vector<std::pair<uint64_t, rtExceptionInfo>> pending_;  // (submitter, failure)
  std::set<const rtExceptionInfo*> delivering_;
};

}  // namespace ascendsim::runtime
