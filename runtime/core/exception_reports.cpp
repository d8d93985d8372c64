#include "runtime/core/exception_reports.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace ascendsim::runtime {

void ExceptionReports::setCallback(aclrtExceptionInfoCallback callback, pid_t owner) {
  if (callback) {
    legacy_[owner] = callback;
  } else {
    legacy_.erase(owner);
  }
}

void ExceptionReports::registerCallback(aclrtExceptionInfoCallback callback, bool add,
                                        pid_t owner) {
  if (!callback) fail(ACL_ERROR_INVALID_PARAM, "the callback is NULL");
  std::vector<aclrtExceptionInfoCallback>& mine = callbacks_[owner];
  auto found = std::find(mine.begin(), mine.end(), callback);
  if (add && found == mine.end()) mine.push_back(callback);
  if (!add && found != mine.end()) mine.erase(found);
  if (mine.empty()) callbacks_.erase(owner);
}

std::vector<aclrtExceptionInfoCallback> ExceptionReports::callbacksOf(pid_t owner) const {
  std::vector<aclrtExceptionInfoCallback> callbacks;
  auto registered = callbacks_.find(owner);
  if (registered != callbacks_.end()) callbacks = registered->second;
  auto legacy = legacy_.find(owner);
  if (legacy != legacy_.end() &&
      std::find(callbacks.begin(), callbacks.end(), legacy->second) == callbacks.end())
    callbacks.insert(callbacks.begin(), legacy->second);
  return callbacks;
}

aclrtErrorInfo ExceptionReports::deviceError(const Device& d) {
  aclrtErrorInfo info{};
  info.errorType = static_cast<aclrtErrorType>(d.errorType);
  if (d.errorType == ACL_RT_ERROR_AICORE) {
    info.hasDetail = 1;
    info.detail.aicoreErrType = static_cast<aclrtAicoreErrorType>(d.aicoreErrorType);
  }
  return info;
}

void ExceptionReports::taskFailed(Device& d, uint64_t submitter, const rtExceptionInfo& info,
                                  aclrtAicoreErrorType kind) {
  d.errorType = ACL_RT_ERROR_AICORE;
  d.aicoreErrorType = kind;
  if (!legacy_.empty() || !callbacks_.empty()) pending_.emplace_back(submitter, info);
}

void ExceptionReports::handOver(const HostThread& t) {
  for (auto& failure : pending_) failure.first = t.pthreadId;
}

void ExceptionReports::deliver(HostThread& t) {
  std::vector<rtExceptionInfo> failures;
  auto mine = [&t](const auto& failure) { return failure.first == t.pthreadId; };
  for (const auto& failure : pending_) {
    if (mine(failure)) failures.push_back(failure.second);
  }
  if (failures.empty()) return;
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), mine), pending_.end());
  const std::vector<aclrtExceptionInfoCallback> callbacks = callbacksOf(t.remotePid);
  if (callbacks.empty()) return;
  if (t.remotePid) {
    // The callbacks are the program's code: its thread runs them.
    for (const rtExceptionInfo& info : failures) served_[t.pthreadId].push_back({info, callbacks});
    return;
  }
  for (const rtExceptionInfo& info : failures) delivering_.insert(&info);
  try {
    threads_.runUnlocked(t, [&] {
      for (rtExceptionInfo& info : failures) {
        for (aclrtExceptionInfoCallback callback : callbacks) callback(&info);
      }
    });
  } catch (...) {
    for (const rtExceptionInfo& info : failures) delivering_.erase(&info);
    throw;
  }
  for (const rtExceptionInfo& info : failures) delivering_.erase(&info);
}

std::vector<ServedException> ExceptionReports::takeServed(const HostThread& t) {
  std::vector<ServedException> taken;
  auto it = served_.find(t.pthreadId);
  if (it == served_.end()) return taken;
  taken = std::move(it->second);
  served_.erase(it);
  return taken;
}

void ExceptionReports::forget(const HostThread& t, bool processGone) {
  served_.erase(t.pthreadId);
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [&t](const auto& failure) { return failure.first == t.pthreadId; }),
                 pending_.end());
  if (!processGone || !t.remotePid) return;
  legacy_.erase(t.remotePid);
  callbacks_.erase(t.remotePid);
}

void ExceptionReports::markLive(const rtExceptionInfo* info, bool live) {
  if (live) {
    delivering_.insert(info);
  } else {
    delivering_.erase(info);
  }
}

}  // namespace ascendsim::runtime
