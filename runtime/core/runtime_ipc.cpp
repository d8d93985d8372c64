// Device memory shared between processes by key (aclrtIpcMem*). On a machine served to a whole
// job (ascendsim exec --shared) every process's calls reach this one runtime, so an import is the
// exporter's own device range: copies and kernels of any process reach the same bytes, over the
// same links. A program on its own machine may export and import within itself.

#include <unistd.h>

#include <algorithm>

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

int32_t Runtime::callerPid(const HostThread& t) const {
  return t.remotePid ? static_cast<int32_t>(t.remotePid) : static_cast<int32_t>(getpid());
}

Runtime::IpcExport& Runtime::ipcExport(const char* key) {
  auto it = ipcExports_.find(key);
  if (it == ipcExports_.end()) {
    fail(ACL_ERROR_INVALID_PARAM,
         std::string("no memory is exported under the key '") + key + "' (closed, or never made)");
  }
  return it->second;
}

void Runtime::ipcExportMemory(HostThread& t, void* devPtr, size_t size, char* key, size_t len,
                              uint64_t flags) {
  if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an export flag");
  const models::MemoryPlace place = memory_->resolve(devPtr, size, "devPtr");
  if (place.kind != models::MemoryPlace::Kind::Device)
    fail(ACL_ERROR_INVALID_PARAM, pointerName(devPtr) + " is not device memory");
  const std::string name = "ascendsim-ipc-" + std::to_string(++ipcKeys_);
  if (len < name.size() + 1) {
    fail(ACL_ERROR_INVALID_PARAM, "len " + std::to_string(len) + " cannot hold the key (" +
                                      std::to_string(name.size() + 1) + " bytes with its NUL)");
  }
  IpcExport& e = ipcExports_[name];
  e.address = reinterpret_cast<uint64_t>(devPtr);
  e.size = size;
  e.device = place.device;
  e.owner = callerPid(t);
  e.anyProcess = flags == ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION;
  std::copy(name.begin(), name.end(), key);
  key[name.size()] = '\0';
}

void Runtime::ipcAllowProcesses(HostThread& t, const char* key, const int32_t* pids, size_t n) {
  IpcExport& e = ipcExport(key);
  if (e.owner != callerPid(t))
    fail(ACL_ERROR_INVALID_PARAM,
         std::string("the key '") + key + "' was exported by another process");
  for (size_t i = 0; i < n; ++i) {
    if (pids[i] <= 0)
      fail(ACL_ERROR_INVALID_PARAM, "pid " + std::to_string(pids[i]) + " is not a process id");
  }
  e.allowed.insert(pids, pids + n);
}

void* Runtime::ipcImportMemory(HostThread& t, const char* key, uint64_t flags) {
  if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an import flag");
  IpcExport& e = ipcExport(key);
  const int32_t pid = callerPid(t);
  if (!e.anyProcess && pid != e.owner && !e.allowed.count(pid)) {
    fail(ACL_ERROR_INVALID_PARAM,
         "process " + std::to_string(pid) + " may not import the key '" + key +
             "': the exporter has not named it with aclrtIpcMemSetImportPid");
  }
  if (!e.importers.insert(pid).second)
    fail(ACL_ERROR_INVALID_PARAM,
         std::string("this process has already imported the key '") + key + "'");
  return reinterpret_cast<void*>(e.address);
}

void Runtime::ipcClose(HostThread& t, const char* key) {
  IpcExport& e = ipcExport(key);
  const int32_t pid = callerPid(t);
  if (e.importers.erase(pid)) {
    // The last importer of memory its exporter has freed (or reset the device of) releases it.
    if (e.importers.empty() && e.ownerFreed) {
      memory_->free(reinterpret_cast<void*>(e.address), AllocationApi::Malloc);
      ipcExports_.erase(key);
    } else if (e.importers.empty() && e.withdrawn) {
      ipcExports_.erase(key);
    }
    return;
  }
  if (pid != e.owner)
    fail(ACL_ERROR_INVALID_PARAM,
         std::string("this process has not imported the key '") + key + "'");
  // The exporter withdraws the key; imports made already stay valid until closed.
  e.withdrawn = true;
  if (e.importers.empty()) ipcExports_.erase(key);
}

bool Runtime::ipcKeepsAlive(const void* p) {
  for (auto& [key, e] : ipcExports_) {
    if (e.address != reinterpret_cast<uint64_t>(p) || e.importers.empty()) continue;
    if (e.ownerFreed) fail(ACL_ERROR_RT_MEMORY_FREE, pointerName(p) + " was freed already");
    e.ownerFreed = true;
    return true;
  }
  return false;
}

bool Runtime::ipcImportsOn(const Device& d) const {
  return std::any_of(ipcExports_.begin(), ipcExports_.end(), [&](const auto& kv) {
    return kv.second.device == d.id && !kv.second.importers.empty();
  });
}

bool Runtime::ipcImported(const HostThread& t, const void* p) const {
  const auto address = reinterpret_cast<uint64_t>(p);
  const int32_t pid = callerPid(t);
  return std::any_of(ipcExports_.begin(), ipcExports_.end(), [&](const auto& kv) {
    return kv.second.address == address && kv.second.owner != pid && kv.second.importers.count(pid);
  });
}

}  // namespace ascendsim::runtime
