// Task failures: exception callbacks and their getters, the device's last error, the thread's last
// task id.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
constexpr uint32_t kNoInfo = 0xFFFFFFFFu;  // what the getters answer for a NULL info
}

extern "C" {

aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo* errorInfo) {
  ASCENDSIM_FORWARD(aclrtGetErrorVerbose, deviceId, errorInfo);
  return run("aclrtGetErrorVerbose", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(errorInfo, "errorInfo");
    *errorInfo = rt().deviceError(deviceId);
  });
}

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
  return run("aclrtSetExceptionInfoCallback", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().exceptions().setCallback(callback); });
}

aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback) {
  return run("aclrtExceptionInfoCallbackRegister", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().exceptions().registerCallback(callback, true); });
}

aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback) {
  return run("aclrtExceptionInfoCallbackUnregister", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().exceptions().registerCallback(callback, false); });
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
