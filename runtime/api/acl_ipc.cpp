// Sharing with other processes. Each AscendSim process simulates its own machine (SystemC
// elaborates one per process), so another process can never reach this one's device memory: the
// IPC calls check their arguments and then say so (ACL_ERROR_RT_FEATURE_NOT_SUPPORT).

#include <unistd.h>

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
[[noreturn]] void noOtherProcess() {
  fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
       "sharing memory with another process is not simulated: each AscendSim "
       "process simulates its own machine, which no other process can reach");
}
}  // namespace

extern "C" {

aclError aclrtDeviceGetBareTgid(int32_t* pid) {
  ASCENDSIM_FORWARD(aclrtDeviceGetBareTgid, pid);
  return run("aclrtDeviceGetBareTgid", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(pid, "pid");
    *pid = static_cast<int32_t>(getpid());
  });
}

aclError aclrtIpcMemGetExportKey(void* devPtr, size_t size, char* key, size_t len, uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtIpcMemGetExportKey, devPtr, size, key, len, flags);
  (void)flags;
  return run("aclrtIpcMemGetExportKey", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(devPtr, "devPtr");
    needPointer(key, "key");
    if (size == 0 || len == 0) fail(ACL_ERROR_INVALID_PARAM, size == 0 ? "size is 0" : "len is 0");
    noOtherProcess();
  });
}

aclError aclrtIpcMemSetImportPid(const char* key, int32_t* pid, size_t num) {
  ASCENDSIM_FORWARD(aclrtIpcMemSetImportPid, key, pid, num);
  return run("aclrtIpcMemSetImportPid", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(key, "key");
    needPointer(pid, "pid");
    if (num == 0) fail(ACL_ERROR_INVALID_PARAM, "num is 0");
    noOtherProcess();
  });
}

aclError aclrtIpcMemImportByKey(void** devPtr, const char* key, uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtIpcMemImportByKey, devPtr, key, flags);
  (void)flags;
  return run("aclrtIpcMemImportByKey", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(devPtr, "devPtr");
    needPointer(key, "key");
    noOtherProcess();
  });
}

aclError aclrtIpcMemClose(const char* key) {
  ASCENDSIM_FORWARD(aclrtIpcMemClose, key);
  return run("aclrtIpcMemClose", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(key, "key");
    noOtherProcess();
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
