#include "runtime/core/ipc_registry.h"

#include <algorithm>
#include <cstring>

#include "runtime/core/errors.h"
#include "runtime/core/memory_manager.h"

namespace ascendsim::runtime {

std::string IpcRegistry::newKey(const char* prefix) {
  return prefix + std::to_string(++keys_);
}

IpcRegistry::MemoryExport& IpcRegistry::memoryExport(const char* key) {
  auto it = memoryExports_.find(key);
  if (it == memoryExports_.end()) {
    fail(ACL_ERROR_INVALID_PARAM,
         std::string("no memory is exported under the key '") + key + "' (closed, or never made)");
  }
  return it->second;
}

namespace {
void checkKeyRoom(const std::string& name, size_t len) {
  if (len < name.size() + 1) {
    fail(ACL_ERROR_INVALID_PARAM, "len " + std::to_string(len) + " cannot hold the key (" +
                                      std::to_string(name.size() + 1) + " bytes with its NUL)");
  }
}

void checkPids(const int32_t* pids, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (pids[i] <= 0)
      fail(ACL_ERROR_INVALID_PARAM, "pid " + std::to_string(pids[i]) + " is not a process id");
  }
}
}  // namespace

void IpcRegistry::exportMemory(int32_t pid, void* devPtr, size_t size, char* key, size_t len,
                               uint64_t flags) {
  if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an export flag");
  const models::MemoryPlace place = memory_.resolve(devPtr, size, "devPtr");
  if (place.kind != models::MemoryPlace::Kind::Device)
    fail(ACL_ERROR_INVALID_PARAM, memory_.stableName(devPtr) + " is not device memory");
  const std::string name = newKey("ascendsim-ipc-");
  checkKeyRoom(name, len);
  MemoryExport& e = memoryExports_[name];
  e.address = reinterpret_cast<uint64_t>(devPtr);
  e.size = size;
  e.device = place.device;
  e.owner = pid;
  e.anyProcess = flags == ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION;
  std::memcpy(key, name.c_str(), name.size() + 1);
}

void IpcRegistry::allowProcesses(int32_t pid, const char* key, const int32_t* pids, size_t n) {
  MemoryExport& e = memoryExport(key);
  if (e.owner != pid)
    fail(ACL_ERROR_INVALID_PARAM,
         std::string("the key '") + key + "' was exported by another process");
  checkPids(pids, n);
  e.allowed.insert(pids, pids + n);
}

void* IpcRegistry::importMemory(int32_t pid, const char* key, uint64_t flags) {
  if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an import flag");
  MemoryExport& e = memoryExport(key);
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

void IpcRegistry::close(int32_t pid, const char* key) {
  MemoryExport& e = memoryExport(key);
  if (e.importers.erase(pid)) {
    // The last importer of memory its exporter has freed (or reset the device of) releases it.
    if (e.importers.empty() && e.ownerFreed) {
      memory_.free(reinterpret_cast<void*>(e.address), AllocationApi::Malloc);
      memoryExports_.erase(key);
    } else if (e.importers.empty() && e.withdrawn) {
      memoryExports_.erase(key);
    }
    return;
  }
  if (pid != e.owner)
    fail(ACL_ERROR_INVALID_PARAM,
         std::string("this process has not imported the key '") + key + "'");
  // The exporter withdraws the key; imports made already stay valid until closed.
  e.withdrawn = true;
  if (e.importers.empty()) memoryExports_.erase(key);
}

bool IpcRegistry::keepsAlive(const void* p) {
  for (auto& [key, e] : memoryExports_) {
    if (e.address != reinterpret_cast<uint64_t>(p) || e.importers.empty()) continue;
    if (e.ownerFreed) fail(ACL_ERROR_RT_MEMORY_FREE, memory_.stableName(p) + " was freed already");
    e.ownerFreed = true;
    return true;
  }
  return false;
}

bool IpcRegistry::importsOn(const Device& d) const {
  return std::any_of(memoryExports_.begin(), memoryExports_.end(), [&](const auto& kv) {
    return kv.second.device == d.id && !kv.second.importers.empty();
  });
}

bool IpcRegistry::imported(int32_t pid, const void* p) const {
  const auto address = reinterpret_cast<uint64_t>(p);
  return std::any_of(memoryExports_.begin(), memoryExports_.end(), [&](const auto& kv) {
    return kv.second.address == address && kv.second.owner != pid && kv.second.importers.count(pid);
  });
}

std::string IpcRegistry::eventName(const Event& e) {
  std::string& name = eventNames_[e.sync.get()];
  if (name.empty()) {
    name = newKey("ascendsim-ipc-event-");
    events_[name] = e;  // its sync point, flags and device, for the openers
  }
  return name;
}

const Event& IpcRegistry::exportedEvent(const std::string& name) const {
  auto it = events_.find(name);
  if (it == events_.end())
    fail(ACL_ERROR_INVALID_PARAM, "the handle names no IPC event (made up, or never exported)");
  return it->second;
}

void IpcRegistry::exportNotify(int32_t pid, const Notify& n, char* key, size_t len,
                               uint64_t flags) {
  if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT &&
      flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an export flag");
  const std::string name = newKey("ascendsim-ipc-notify-");
  checkKeyRoom(name, len);
  NotifyExport& shared = notifies_[name];
  shared.notify = n;
  shared.owner = pid;
  shared.anyProcess = flags == ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION;
  notifyKeys_[n.sync.get()] = name;
  std::memcpy(key, name.c_str(), name.size() + 1);
}

void IpcRegistry::allowNotifyProcesses(int32_t pid, const Notify& n, const int32_t* pids,
                                       size_t count) {
  auto key = notifyKeys_.find(n.sync.get());
  if (key == notifyKeys_.end())
    fail(ACL_ERROR_INVALID_PARAM, "the notify has no export key (aclrtNotifyGetExportKey first)");
  NotifyExport& shared = notifies_.at(key->second);
  if (shared.owner != pid)
    fail(ACL_ERROR_INVALID_PARAM, "the notify was exported by another process");
  checkPids(pids, count);
  shared.allowed.insert(pids, pids + count);
}

const Notify& IpcRegistry::importNotify(int32_t pid, const char* key, uint64_t flags) const {
  if (flags != ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT &&
      flags != ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS)
    fail(ACL_ERROR_INVALID_PARAM, "flags " + std::to_string(flags) + " is not an import flag");
  auto it = notifies_.find(key);
  if (it == notifies_.end())
    fail(ACL_ERROR_INVALID_PARAM, std::string("no notify is exported under the key '") + key + "'");
  const NotifyExport& shared = it->second;
  if (!shared.anyProcess && pid != shared.owner && !shared.allowed.count(pid)) {
    fail(ACL_ERROR_INVALID_PARAM,
         "process " + std::to_string(pid) + " may not import the notify '" + key +
             "': the exporter has not named it with aclrtNotifySetImportPid");
  }
  return shared.notify;
}

}  // namespace ascendsim::runtime
