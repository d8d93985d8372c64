// Sharing with other processes: device memory by key (runtime/core/runtime_ipc.cpp), which
// reaches another process when the job shares one machine (ascendsim exec --shared). Shareable
// handles of physical memory are not served yet: they check their arguments and say so
// (ACL_ERROR_RT_FEATURE_NOT_SUPPORT).

#include <unistd.h>

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
[[noreturn]] void noOtherProcess() {
  fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
       "sharing physical memory through shareable handles is not simulated yet "
       "(IPC keys are: aclrtIpcMemGetExportKey)");
}
}  // namespace

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
  (void)handleType, (void)flags;
  return run("aclrtMemExportToShareableHandle", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(handle, "handle");
    needPointer(shareableHandle, "shareableHandle");
    noOtherProcess();
  });
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                           aclrtDrvMemHandle* handle) {
  (void)shareableHandle, (void)deviceId;
  return run("aclrtMemImportFromShareableHandle", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(handle, "handle");
    noOtherProcess();
  });
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t* pid, size_t pidNum) {
  (void)shareableHandle;
  return run("aclrtMemSetPidToShareableHandle", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(pid, "pid");
    if (pidNum == 0) fail(ACL_ERROR_INVALID_PARAM, "pidNum is 0");
    noOtherProcess();
  });
}

}  // extern "C"
