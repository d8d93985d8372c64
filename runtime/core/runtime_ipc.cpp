// Events and notifies shared between processes (the names are IpcRegistry's; the handles each
// process holds are the runtime's), and which process a call comes from.

#include <unistd.h>

#include <cstring>

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

int32_t Runtime::callerPid(const HostThread& t) const {
  return t.remotePid ? static_cast<int32_t>(t.remotePid) : static_cast<int32_t>(getpid());
}

// ---------------------------------------------------------------- events and notifies

void Runtime::ipcEventHandle(HostThread&, aclrtEvent eh, aclrtIpcEventHandle* handle) {
  Event* e = events_.find(eh);
  if (!e) fail(ACL_ERROR_RT_INVALID_HANDLE, "event " + describePointer(eh) + " does not exist");
  if (!(e->flags & ACL_EVENT_IPC))
    fail(ACL_ERROR_INVALID_PARAM, "the event was not created with ACL_EVENT_IPC");
  const std::string name = ipc().eventName(*e);
  std::memset(handle->reserved, 0, sizeof handle->reserved);
  std::memcpy(handle->reserved, name.data(), name.size());
}

Event* Runtime::ipcOpenEvent(HostThread& t, const aclrtIpcEventHandle& handle) {
  const std::string name(handle.reserved, strnlen(handle.reserved, sizeof handle.reserved));
  const Event& exported = ipc().exportedEvent(name);
  // An event of the opener's device (its streams record and wait on it) on the same sync point
  // as the exporter's: the same records.
  Device& d = *requireContext(t).device;
  if (d.events >= d.spec->scheduler.maxEvents)
    fail(ACL_ERROR_RT_NO_EVENT_RESOURCE, "device " + std::to_string(d.id) + " has no event left");
  auto e = std::make_unique<Event>(exported);
  e->device = &d;
  Event& ref = events_.add(std::move(e));
  d.events++;
  return &ref;
}

void Runtime::notifyExportKey(HostThread& t, aclrtNotify nh, char* key, size_t len,
                              uint64_t flags) {
  Notify* n = notifies_.find(nh);
  if (!n) fail(ACL_ERROR_RT_INVALID_HANDLE, "notify " + describePointer(nh) + " does not exist");
  ipc().exportNotify(callerPid(t), *n, key, len, flags);
}

void Runtime::notifyAllowProcesses(HostThread& t, aclrtNotify nh, const int32_t* pids, size_t n) {
  Notify* notify = notifies_.find(nh);
  if (!notify)
    fail(ACL_ERROR_RT_INVALID_HANDLE, "notify " + describePointer(nh) + " does not exist");
  ipc().allowNotifyProcesses(callerPid(t), *notify, pids, n);
}

Notify* Runtime::notifyImport(HostThread& t, const char* key, uint64_t flags) {
  // The same flag as the exported notify's.
  return &notifies_.add(std::make_unique<Notify>(ipc().importNotify(callerPid(t), key, flags)));
}

}  // namespace ascendsim::runtime
