// Device memory shared between processes by key (aclrtIpcMem*). On a machine served to a whole
// job (ascendsim exec --shared) every process's calls reach this one runtime, so an import is the
// exporter's own device range: copies and kernels of any process reach the same bytes, over the
// same links. A program on its own machine may export and import within itself.

#include <unistd.h>

#include <algorithm>
#include <cstring>

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

// ---------------------------------------------------------------- events and notifies

void Runtime::ipcEventHandle(HostThread&, aclrtEvent eh, aclrtIpcEventHandle* handle) {
  Event* e = events_.find(eh);
  if (!e) fail(ACL_ERROR_RT_INVALID_HANDLE, "event " + describePointer(eh) + " does not exist");
  if (!(e->flags & ACL_EVENT_IPC))
    fail(ACL_ERROR_INVALID_PARAM, "the event was not created with ACL_EVENT_IPC");
  std::string& name = ipcEventNames_[e->sync.get()];
  if (name.empty()) {
    name = "ascendsim-ipc-event-" + std::to_string(++ipcKeys_);
    ipcEvents_[name] = *e;  // its sync point, flags and device, for the openers
  }
  std::memset(handle->reserved, 0, sizeof handle->reserved);
  std::memcpy(handle->reserved, name.data(), name.size());
}

Event* Runtime::ipcOpenEvent(HostThread& t, const aclrtIpcEventHandle& handle) {
  const std::string name(handle.reserved, strnlen(handle.reserved, sizeof handle.reserved));
  auto it = ipcEvents_.find(name);
  if (it == ipcEvents_.end())
    fail(ACL_ERROR_INVALID_PARAM, "the handle names no IPC event (made up, or never exported)");
  // An event of the opener's device (its streams record and wait on it) on the same sync point
  // as the exporter's: the same records.
  Device& d = *requireContext(t).device;
  if (d.events >= d.spec->scheduler.maxEvents)
    fail(ACL_ERROR_RT_NO_EVENT_RESOURCE, "device " + std::to_string(d.id) + " has no event left");
  auto e = std::make_unique<Event>(it->second);
  e->device = &d;
  Event& ref = events_.add(std::move(e));
  d.events++;
  return &ref;
}

void Runtime::notifyExportKey(HostThread& t, aclrtNotify nh, char* key, size_t len,
                              uint64_t flags) {
  Notify* n = notifies_.find(nh);
  if (!n) fail(ACL_ERROR_RT_INVALID_HANDLE, "notify " + describePointer(nh) + " does not exist");
  if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT &&
      flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an export flag");
  const std::string name = "ascendsim-ipc-notify-" + std::to_string(++ipcKeys_);
  if (len < name.size() + 1) {
    fail(ACL_ERROR_INVALID_PARAM, "len " + std::to_string(len) + " cannot hold the key (" +
                                      std::to_string(name.size() + 1) + " bytes with its NUL)");
  }
  IpcNotify& shared = ipcNotifies_[name];
  shared.notify = *n;
  shared.owner = callerPid(t);
  shared.anyProcess = flags == ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION;
  ipcNotifyKeys_[n->sync.get()] = name;
  std::memcpy(key, name.c_str(), name.size() + 1);
}

void Runtime::notifyAllowProcesses(HostThread& t, aclrtNotify nh, const int32_t* pids, size_t n) {
  Notify* notify = notifies_.find(nh);
  if (!notify)
    fail(ACL_ERROR_RT_INVALID_HANDLE, "notify " + describePointer(nh) + " does not exist");
  auto key = ipcNotifyKeys_.find(notify->sync.get());
  if (key == ipcNotifyKeys_.end())
    fail(ACL_ERROR_INVALID_PARAM, "the notify has no export key (aclrtNotifyGetExportKey first)");
  IpcNotify& shared = ipcNotifies_.at(key->second);
  if (shared.owner != callerPid(t))
    fail(ACL_ERROR_INVALID_PARAM, "the notify was exported by another process");
  for (size_t i = 0; i < n; ++i) {
    if (pids[i] <= 0)
      fail(ACL_ERROR_INVALID_PARAM, "pid " + std::to_string(pids[i]) + " is not a process id");
  }
  shared.allowed.insert(pids, pids + n);
}

Notify* Runtime::notifyImport(HostThread& t, const char* key, uint64_t flags) {
  if (flags != ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT &&
      flags != ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an import flag");
  auto it = ipcNotifies_.find(key);
  if (it == ipcNotifies_.end())
    fail(ACL_ERROR_INVALID_PARAM, std::string("no notify is exported under the key '") + key + "'");
  const int32_t pid = callerPid(t);
  const IpcNotify& shared = it->second;
  if (!shared.anyProcess && pid != shared.owner && !shared.allowed.count(pid)) {
    fail(ACL_ERROR_INVALID_PARAM,
         "process " + std::to_string(pid) + " may not import the notify '" + key +
             "': the exporter has not named it with aclrtNotifySetImportPid");
  }
  return &notifies_.add(std::make_unique<Notify>(shared.notify));  // the same flag
}

}  // namespace ascendsim::runtime
