#pragma once
// Events and notifies: the sync points a program records on one stream and waits for on another
// stream or on the host (aclrtCreateEvent..., aclrtCreateNotify..., and their IPC handles). A
// service over the scheduling core (ServicePort): it queues record, reset and wait tasks and waits
// in simulated time; a stream that records into a model (ModelRuns) takes the tasks as steps. The
// runtime makes it with the machine and clears it at aclFinalize, and knows nothing else of it.

#include <cstdint>
#include <memory>

#include "acl/acl_rt.h"
#include "runtime/core/handle_table.h"
#include "runtime/core/host_thread.h"
#include "runtime/core/ipc_registry.h"
#include "runtime/core/model_runs.h"
#include "runtime/core/objects.h"
#include "runtime/core/service_port.h"

namespace ascendsim::runtime {

class Events {
 public:
  Events(ServicePort port, ModelRuns& models, IpcRegistry& ipc)
      : port_(port), models_(models), ipc_(ipc) {}

  // ---- events (a device's count is limited by its scheduler.max_events)
  Event* create(HostThread& t, uint32_t flags);
  void destroy(aclrtEvent e);
  void record(HostThread& t, aclrtEvent e, aclrtStream s);
  void reset(HostThread& t, aclrtEvent e, aclrtStream s);
  // `external` (ACL_EVENT_WAIT_EXTERNAL): in a model, the wait takes the next record made outside.
  void streamWait(HostThread& t, aclrtStream s, aclrtEvent e, bool external = false);
  bool complete(HostThread& t, aclrtEvent e);
  // Whether every aclrtStreamWaitEvent queued on `e` has ended (aclrtQueryEventWaitStatus).
  bool waitsComplete(HostThread& t, aclrtEvent e);
  void synchronize(HostThread& t, aclrtEvent e, int32_t timeoutMs);
  float elapsedMs(HostThread& t, aclrtEvent start, aclrtEvent end);
  // When the event's latest record ended, in us since the machine started (aclrtEventGetTimestamp).
  uint64_t timestampUs(HostThread& t, aclrtEvent e);
  // IPC events: the handle another process opens, and an event of the opener's current device on
  // the exporter's sync point.
  void ipcHandle(aclrtEvent e, aclrtIpcEventHandle* handle);
  Event* ipcOpen(HostThread& t, const aclrtIpcEventHandle& handle);

  // ---- notifies
  Notify* createNotify(HostThread& t, uint64_t flag);
  void destroyNotify(aclrtNotify n);
  void recordNotify(HostThread& t, aclrtNotify n, aclrtStream s);
  void waitAndResetNotify(HostThread& t, aclrtNotify n, aclrtStream s, uint32_t timeoutMs);
  uint32_t notifyId(aclrtNotify n);
  void notifyExportKey(HostThread& t, aclrtNotify n, char* key, size_t len, uint64_t flags);
  void notifyAllowProcesses(HostThread& t, aclrtNotify n, const int32_t* pids, size_t count);
  Notify* notifyImport(HostThread& t, const char* key, uint64_t flags);

  // aclFinalize: every handle goes (queued tasks keep their sync points).
  void clear();

 private:
  Event& event(aclrtEvent handle);     // fails with CANN's codes for NULL or unknown
  Notify& notify(aclrtNotify handle);  // the same
  Event& add(HostThread& t, std::unique_ptr<Event> e);  // on the current device, counted

  ServicePort port_;
  ModelRuns& models_;
  IpcRegistry& ipc_;
  HandleTable<Event> events_;
  HandleTable<Notify> notifies_;
};

}  // namespace ascendsim::runtime
