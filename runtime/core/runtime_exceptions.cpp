// Task failures as the program sees them besides the failed synchronisation: exception callbacks
// (aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister) and the device's last error
// (aclrtGetErrorVerbose).

#include <algorithm>

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

void Runtime::setExceptionCallback(aclrtExceptionInfoCallback callback) {
  legacyExceptionCallback_ = callback;
}

void Runtime::registerExceptionCallback(aclrtExceptionInfoCallback callback, bool add) {
  if (!callback) fail(ACL_ERROR_INVALID_PARAM, "the callback is NULL");
  auto found = std::find(exceptionCallbacks_.begin(), exceptionCallbacks_.end(), callback);
  if (add && found == exceptionCallbacks_.end()) exceptionCallbacks_.push_back(callback);
  if (!add && found != exceptionCallbacks_.end()) exceptionCallbacks_.erase(found);
}

aclrtErrorInfo Runtime::deviceError(int32_t deviceId) {
  const Device& d = device(deviceId);
  aclrtErrorInfo info{};
  info.errorType = static_cast<aclrtErrorType>(d.errorType);
  if (d.errorType == ACL_RT_ERROR_AICORE) {
    info.hasDetail = 1;
    info.detail.aicoreErrType = static_cast<aclrtAicoreErrorType>(d.aicoreErrorType);
  }
  return info;
}

void Runtime::taskFailed(Device& d, uint64_t submitter, const rtExceptionInfo& info,
                         aclrtAicoreErrorType kind) {
  d.errorType = ACL_RT_ERROR_AICORE;
  d.aicoreErrorType = kind;
  if (legacyExceptionCallback_ || !exceptionCallbacks_.empty())
    pendingExceptions_.emplace_back(submitter, info);
}

KernelFunction* Runtime::launchedKernel(const std::string& name) {
  auto& slot = launchedKernels_[name];
  if (!slot) slot = std::make_unique<KernelFunction>(KernelFunction{name});
  return slot.get();
}

void Runtime::deliverExceptions(HostThread& t) {
  std::vector<rtExceptionInfo> failures;
  auto mine = [&t](const auto& pending) { return pending.first == t.pthreadId; };
  for (const auto& pending : pendingExceptions_) {
    if (mine(pending)) failures.push_back(pending.second);
  }
  if (failures.empty()) return;
  pendingExceptions_.erase(
      std::remove_if(pendingExceptions_.begin(), pendingExceptions_.end(), mine),
      pendingExceptions_.end());
  std::vector<aclrtExceptionInfoCallback> callbacks = exceptionCallbacks_;
  if (legacyExceptionCallback_ &&
      std::find(callbacks.begin(), callbacks.end(), legacyExceptionCallback_) == callbacks.end()) {
    callbacks.insert(callbacks.begin(), legacyExceptionCallback_);
  }
  for (const rtExceptionInfo& info : failures) deliveringExceptions_.insert(&info);
  // Outside the lock: a callback may call AscendCL (its getters, or anything else).
  try {
    threads_.runUnlocked(t, [&] {
      for (rtExceptionInfo& info : failures) {
        for (aclrtExceptionInfoCallback callback : callbacks) callback(&info);
      }
    });
  } catch (...) {
    for (const rtExceptionInfo& info : failures) deliveringExceptions_.erase(&info);
    throw;
  }
  for (const rtExceptionInfo& info : failures) deliveringExceptions_.erase(&info);
}

bool Runtime::exceptionInfoLive(const rtExceptionInfo* info) {
  std::lock_guard<std::mutex> lock(mutex_);
  return info && deliveringExceptions_.count(info) > 0;
}

}  // namespace ascendsim::runtime
