#include "runtime/core/exception_reports.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace ascendsim::runtime {

void ExceptionReports::setCallback(aclrtExceptionInfoCallback callback) {
  legacy_ = callback;
}

void ExceptionReports::registerCallback(aclrtExceptionInfoCallback callback, bool add) {
  if (!callback) fail(ACL_ERROR_INVALID_PARAM, "the callback is NULL");
  auto found = std::find(callbacks_.begin(), callbacks_.end(), callback);
  if (add && found == callbacks_.end()) callbacks_.push_back(callback);
  if (!add && found != callbacks_.end()) callbacks_.erase(found);
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
  if (legacy_ || !callbacks_.empty()) pending_.emplace_back(submitter, info);
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
  std::vector<aclrtExceptionInfoCallback> callbacks = callbacks_;
  if (legacy_ && std::find(callbacks.begin(), callbacks.end(), legacy_) == callbacks.end())
    callbacks.insert(callbacks.begin(), legacy_);
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

}  // namespace ascendsim::runtime
