// Sharing with other processes: device memory by key (runtime/core/ipc_registry.h) and physical
// memory by shareable handle (runtime/core/virtual_memory.h), which reach another process when
// the job shares one machine (ascendsim exec --shared).

#include <unistd.h>

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtDeviceGetBareTgid(int32_t* pid) {
  ASCENDSIM_FORWARD(aclrtDeviceGetBareTgid, pid);
  return run("aclrtDeviceGetBareTgid", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(pid, "pid");
    *pid = rt().callerPid(t);
  });
}

aclError aclrtIpcMemGetExportKey(void* devPtr, size_t size, char* key, size_t len, uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtIpcMemGetExportKey, devPtr, size, key, len, flags);
  return run("aclrtIpcMemGetExportKey", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {ptrArg("devPtr", devPtr), arg("size", size), arg("flags", flags)};
    needPointer(devPtr, "devPtr");
    needPointer(key, "key");
    if (size == 0 || len == 0) fail(ACL_ERROR_INVALID_PARAM, size == 0 ? "size is 0" : "len is 0");
    rt().ipc().exportMemory(rt().callerPid(t), devPtr, size, key, len, flags);
    t.callArgs.push_back(arg("key", std::string(key)));
  });
}

aclError aclrtIpcMemSetImportPid(const char* key, int32_t* pid, size_t num) {
  ASCENDSIM_FORWARD(aclrtIpcMemSetImportPid, key, pid, num);
  return run("aclrtIpcMemSetImportPid", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(key, "key");
    needPointer(pid, "pid");
    if (num == 0) fail(ACL_ERROR_INVALID_PARAM, "num is 0");
    t.callArgs = {arg("key", std::string(key)), arg("num", num)};
    rt().ipc().allowProcesses(rt().callerPid(t), key, pid, num);
  });
}

aclError aclrtIpcMemImportByKey(void** devPtr, const char* key, uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtIpcMemImportByKey, devPtr, key, flags);
  return run("aclrtIpcMemImportByKey", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(devPtr, "devPtr");
    needPointer(key, "key");
    t.callArgs = {arg("key", std::string(key)), arg("flags", flags)};
    *devPtr = rt().ipc().importMemory(rt().callerPid(t), key, flags);
    t.callArgs.push_back(ptrArg("devPtr", *devPtr));
  });
}

aclError aclrtIpcMemClose(const char* key) {
  ASCENDSIM_FORWARD(aclrtIpcMemClose, key);
  return run("aclrtIpcMemClose", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(key, "key");
    t.callArgs = {arg("key", std::string(key))};
    rt().ipc().close(rt().callerPid(t), key);
  });
}

aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                         uint64_t flags, uint64_t* shareableHandle) {
  ASCENDSIM_FORWARD(aclrtMemExportToShareableHandle, handle, handleType, flags, shareableHandle);
  return run("aclrtMemExportToShareableHandle", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {ptrArg("handle", handle), arg("flags", flags)};
    // CANN's order: the handle, the handle type (reserved: NONE), the output.
    needPointer(handle, "handle");
    const int32_t type = rawEnum(handleType);
    if (type != ACL_MEM_HANDLE_TYPE_NONE)
      fail(ACL_ERROR_INVALID_PARAM,
           "handleType " + std::to_string(type) + " must be ACL_MEM_HANDLE_TYPE_NONE");
    needPointer(shareableHandle, "shareableHandle");
    *shareableHandle = rt().virtualMemory().exportShareable(rt().callerPid(t), handle, flags);
    t.callArgs.push_back(arg("shareableHandle", *shareableHandle));
  });
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                           aclrtDrvMemHandle* handle) {
  ASCENDSIM_FORWARD(aclrtMemImportFromShareableHandle, shareableHandle, deviceId, handle);
  return run("aclrtMemImportFromShareableHandle", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {arg("shareableHandle", shareableHandle), arg("deviceId", deviceId)};
    needPointer(handle, "handle");
    (void)rt().virtualMemory().device(deviceId);  // (ACL_ERROR_RT_INVALID_DEVICEID)
    (void)rt().devices().current(t);              // (ACL_ERROR_RT_CONTEXT_NULL)
    *handle = rt().virtualMemory().importShareable(rt().callerPid(t), shareableHandle);
    t.callArgs.push_back(ptrArg("handle", *handle));
  });
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t* pid, size_t pidNum) {
  ASCENDSIM_FORWARD(aclrtMemSetPidToShareableHandle, shareableHandle, pid, pidNum);
  return run("aclrtMemSetPidToShareableHandle", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {arg("shareableHandle", shareableHandle), arg("pidNum", pidNum)};
    needPointer(pid, "pid");
    if (pidNum == 0) fail(ACL_ERROR_INVALID_PARAM, "pidNum is 0");
    rt().virtualMemory().allowProcesses(rt().callerPid(t), shareableHandle, pid, pidNum);
  });
}

}  // extern "C"
