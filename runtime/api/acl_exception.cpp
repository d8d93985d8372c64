// Task failures: exception callbacks and their getters, the device's last error, the thread's last
// task id.

#include "runtime/api/api_call.h"
#include "runtime/remote/served_callbacks.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
constexpr uint32_t kNoInfo = 0xFFFFFFFFu;  // what the getters answer for a NULL info

// A served program's registration: from then on its threads take the failures the server keeps
// for them after each call (runtime/remote/served_callbacks.h).
template <auto Fn>
aclError servedRegistration(aclrtExceptionInfoCallback callback,
                            ascendsim::remote::CallbackChange change) {
  const aclError code = ascendsim::remote::forward<Fn>(callback);
  if (code == ACL_SUCCESS) ascendsim::remote::watchServedExceptions(change, callback);
  return code;
}
using ascendsim::remote::CallbackChange;
}  // namespace

extern "C" {

aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo* errorInfo) {
  ASCENDSIM_FORWARD(aclrtGetErrorVerbose, deviceId, errorInfo);
  return run("aclrtGetErrorVerbose", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(errorInfo, "errorInfo");
    *errorInfo = rt().deviceError(deviceId);
  });
}

// (On a served machine the callbacks are the registering process's: its threads run them.)
aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
  if (ascendsim::remote::clientActive())
    return servedRegistration<&aclrtSetExceptionInfoCallback>(callback, CallbackChange::Set);
  return run("aclrtSetExceptionInfoCallback", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().exceptions().setCallback(callback, t.remotePid); });
}

aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback) {
  if (ascendsim::remote::clientActive())
    return servedRegistration<&aclrtExceptionInfoCallbackRegister>(callback,
                                                                   CallbackChange::Register);
  return run("aclrtExceptionInfoCallbackRegister", &ApiOverheads::defaultCall, [&](HostThread& t) {
    rt().exceptions().registerCallback(callback, true, t.remotePid);
  });
}

aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback) {
  if (ascendsim::remote::clientActive())
    return servedRegistration<&aclrtExceptionInfoCallbackUnregister>(callback,
                                                                     CallbackChange::Unregister);
  return run(
      "aclrtExceptionInfoCallbackUnregister", &ApiOverheads::defaultCall,
      [&](HostThread& t) { rt().exceptions().registerCallback(callback, false, t.remotePid); });
}

// The getters read only infos an exception callback is being given; anything else (NULL, a stale
// or made-up pointer) answers 0xFFFFFFFF instead of being read.
uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return rt().exceptionInfoLive(info) ? info->taskId : kNoInfo;
}
uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return rt().exceptionInfoLive(info) ? info->streamId : kNoInfo;
}
uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return rt().exceptionInfoLive(info) ? info->threadId : kNoInfo;
}
uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return rt().exceptionInfoLive(info) ? info->deviceId : kNoInfo;
}
uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo* info) {
  return rt().exceptionInfoLive(info) ? info->errorCode : kNoInfo;
}

aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo* info, void** devArgsPtr,
                                       uint32_t* devArgsLen) {
  const bool live = rt().exceptionInfoLive(info);
  if (ascendsim::remote::clientActive()) {
    // (A served program reads the info its callback was handed here, in the program.)
    if (!info || !live || !devArgsPtr || !devArgsLen) return ACL_ERROR_INVALID_PARAM;
    *devArgsPtr = const_cast<void*>(info->args);
    *devArgsLen = info->argsBytes;
    return ACL_SUCCESS;
  }
  return run("aclrtGetArgsFromExceptionInfo", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(info, "info");
    if (!live) fail(ACL_ERROR_INVALID_PARAM, "info is not the one an exception callback was given");
    needPointer(devArgsPtr, "devArgsPtr");
    needPointer(devArgsLen, "devArgsLen");
    *devArgsPtr = const_cast<void*>(info->args);
    *devArgsLen = info->argsBytes;
  });
}

aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo* info,
                                             aclrtFuncHandle* func) {
  const bool live = rt().exceptionInfoLive(info);
  if (ascendsim::remote::clientActive()) {
    if (!info || !live || !func) return ACL_ERROR_INVALID_PARAM;
    *func = info->function;
    return ACL_SUCCESS;
  }
  return run("aclrtGetFuncHandleFromExceptionInfo", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(info, "info");
    if (!live) fail(ACL_ERROR_INVALID_PARAM, "info is not the one an exception callback was given");
    needPointer(func, "func");
    *func = info->function;
  });
}

aclError aclrtGetThreadLastTaskId(uint32_t* taskId) {
  ASCENDSIM_FORWARD(aclrtGetThreadLastTaskId, taskId);
  return run("aclrtGetThreadLastTaskId", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(taskId, "taskId");
    *taskId = static_cast<uint32_t>(t.lastTaskId);
  });
}

}  // extern "C"
