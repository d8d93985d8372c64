#include "runtime/core/events.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/core/errors.h"

namespace ascendsim::runtime {

using models::Task;
using models::TaskKind;

Event& Events::event(aclrtEvent handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "event is NULL");
  Event* e = events_.find(handle);
  if (!e)
    fail(ACL_ERROR_RT_INVALID_HANDLE,
         "event " + describePointer(handle) + " does not exist (destroyed already?)");
  return *e;
}

Notify& Events::notify(aclrtNotify handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "notify is NULL");
  Notify* n = notifies_.find(handle);
  if (!n)
    fail(ACL_ERROR_RT_INVALID_HANDLE,
         "notify " + describePointer(handle) + " does not exist (destroyed already?)");
  return *n;
}

void Events::clear() {
  events_.clear();
  notifies_.clear();
}

// ---------------------------------------------------------------- events

Event& Events::add(HostThread& t, std::unique_ptr<Event> e) {
  Device& d = port_.device(port_.currentDevice(t));
  if (d.events >= d.spec->scheduler.maxEvents) {
    fail(ACL_ERROR_RT_NO_EVENT_RESOURCE, "device " + std::to_string(d.id) +
                                             " has no event left (max_events " +
                                             std::to_string(d.spec->scheduler.maxEvents) + ")");
  }
  e->device = &d;
  Event& ref = events_.add(std::move(e));
  d.events++;
  return ref;
}

Event* Events::create(HostThread& t, uint32_t flags) {
  port_.currentDevice(t);  // a thread without a context fails first, as CANN's
  const uint32_t known =
      ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | ACL_EVENT_IPC |
      ACL_EVENT_EXTERNAL;  // (external: a model's waits on it take records made outside it)
  const uint32_t unsimulated = ACL_EVENT_DEVICE_USE_ONLY;
  if (flags & unsimulated) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "event flag bits " +
                                               std::to_string(flags & unsimulated) +
                                               " (device-only events) are not simulated");
  }
  if (flags == 0 || (flags & ~known)) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "event flag " + std::to_string(flags) +
             " is invalid: give ACL_EVENT_SYNC, ACL_EVENT_CAPTURE_STREAM_PROGRESS, "
             "ACL_EVENT_TIME_LINE, ACL_EVENT_IPC, ACL_EVENT_EXTERNAL or an OR of them");
  }
  auto e = std::make_unique<Event>();
  e->flags = flags;
  return &add(t, std::move(e));
}

void Events::destroy(aclrtEvent handle) {
  Event& e = event(handle);
  // Does not block: queued records and waits keep the event's sync point alive.
  e.device->events--;
  events_.erase(&e);
}

void Events::record(HostThread& t, aclrtEvent handle, aclrtStream sh) {
  Event& e = event(handle);
  Stream& s = port_.stream(t, sh);
  if (s.device != e.device) {
    fail(ACL_ERROR_RT_STREAM_CONTEXT, "event of device " + std::to_string(e.device->id) +
                                          " cannot be recorded on a stream of device " +
                                          std::to_string(s.device->id));
  }
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::EventRecord;
  task->sync = e.sync;
  if (!models_.recording(s)) e.sync->recordsSubmitted++;  // (a model's counts at each launch)
  port_.queue(t, s, std::move(task));
}

void Events::reset(HostThread& t, aclrtEvent handle, aclrtStream sh) {
  Event& e = event(handle);
  Stream& s = port_.stream(t, sh);
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::EventReset;
  task->sync = e.sync;
  port_.queue(t, s, std::move(task));
}

void Events::streamWait(HostThread& t, aclrtStream sh, aclrtEvent handle, bool external) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "event is NULL");
  Stream& s = port_.stream(t, sh);
  Event& e = event(handle);
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::EventWait;
  task->sync = e.sync;
  if (models_.recording(s)) {
    // A model's step: which record it takes is decided at each launch (model_runs.cpp). A wait
    // on an ACL_EVENT_EXTERNAL event, or with ACL_EVENT_WAIT_EXTERNAL, takes the next record
    // made outside the model.
    models_.record(s, std::move(task), external || (e.flags & ACL_EVENT_EXTERNAL));
    return;
  }
  // The record issued most recently. Only an ACL_EVENT_SYNC event may be waited for before it is
  // recorded (CANN sends its wait whatever the event's state); others must be recorded first.
  if (e.sync->recordsSubmitted == 0 && !(e.flags & ACL_EVENT_SYNC)) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "the event has not been recorded: record it first, or create it with "
         "aclrtCreateEventWithFlag(ACL_EVENT_SYNC) to wait for a record to come");
  }
  task->waitForRecord = std::max<uint64_t>(e.sync->recordsSubmitted, 1);
  std::shared_ptr<models::SyncPoint> sync = e.sync;
  port_.queue(t, s, std::move(task));
  sync->waitsSubmitted++;
}

bool Events::complete(HostThread& t, aclrtEvent handle) {
  Event& e = event(handle);
  port_.catchUp(t);
  return e.sync->recorded && e.sync->recordsCompleted == e.sync->recordsSubmitted;
}

bool Events::waitsComplete(HostThread& t, aclrtEvent handle) {
  Event& e = event(handle);
  port_.catchUp(t);
  return e.sync->waitsCompleted == e.sync->waitsSubmitted;
}

void Events::synchronize(HostThread& t, aclrtEvent handle, int32_t timeoutMs) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "event is NULL");
  if (timeoutMs < -1)
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "timeout " + std::to_string(timeoutMs) + " ms is invalid: -1 waits forever");
  std::shared_ptr<models::SyncPoint> sync = event(handle).sync;
  const uint64_t target = std::max<uint64_t>(sync->recordsSubmitted, 1);
  auto done = [sync, target] { return sync->recordsCompleted >= target; };
  if (timeoutMs == -1) {
    if (!port_.waitUntil(t, done)) {
      fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
           "deadlock: the event was never recorded and no stream has a record of it queued, so "
           "aclrtSynchronizeEvent would wait forever");
    }
  } else {
    const spec::Picoseconds deadline = t.now + spec::Picoseconds{timeoutMs} * 1000000000;
    if (!port_.waitUntilDeadline(t, done, deadline)) {
      t.now = std::max(t.now, deadline);
      fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "the event was not recorded within " +
                                                std::to_string(timeoutMs) +
                                                " ms of simulated time");
    }
  }
  t.now = std::max(t.now, sync->lastRecordTime) + port_.overheads().synchronize;
}

float Events::elapsedMs(HostThread& t, aclrtEvent start, aclrtEvent end) {
  if (!start || !end) fail(ACL_ERROR_INVALID_PARAM, "event is NULL");
  Event& a = event(start);
  Event& b = event(end);
  port_.catchUp(t);
  for (Event* e : {&a, &b}) {
    if (!e->sync->recorded || e->sync->recordsCompleted != e->sync->recordsSubmitted) {
      fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, std::string(e == &a ? "start" : "end") +
                                                " event has not completed its latest record yet");
    }
    if (!(e->flags & ACL_EVENT_TIME_LINE)) {
      fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
           std::string(e == &a ? "start" : "end") +
               " event keeps no timestamps: create it with ACL_EVENT_TIME_LINE");
    }
  }
  return static_cast<float>(static_cast<double>(b.sync->lastRecordTime - a.sync->lastRecordTime) /
                            1e9);
}

uint64_t Events::timestampUs(HostThread& t, aclrtEvent handle) {
  Event& e = event(handle);
  port_.catchUp(t);
  if (e.sync->recordsSubmitted == 0)
    fail(ACL_ERROR_RT_INTERNAL_ERROR, "the event has never been recorded");
  if (!(e.flags & ACL_EVENT_TIME_LINE)) {
    fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
         "the event keeps no timestamps: create it with ACL_EVENT_TIME_LINE");
  }
  if (e.sync->recordsCompleted != e.sync->recordsSubmitted) {
    fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "the event's latest record has not completed yet");
  }
  return e.sync->lastRecordTime / 1000000;  // ps -> us since the machine started
}

void Events::ipcHandle(aclrtEvent handle, aclrtIpcEventHandle* out) {
  Event* e = events_.find(handle);
  if (!e) fail(ACL_ERROR_RT_INVALID_HANDLE, "event " + describePointer(handle) + " does not exist");
  if (!(e->flags & ACL_EVENT_IPC))
    fail(ACL_ERROR_INVALID_PARAM, "the event was not created with ACL_EVENT_IPC");
  const std::string name = ipc_.eventName(*e);
  std::memset(out->reserved, 0, sizeof out->reserved);
  std::memcpy(out->reserved, name.data(), name.size());
}

Event* Events::ipcOpen(HostThread& t, const aclrtIpcEventHandle& handle) {
  const std::string name(handle.reserved, strnlen(handle.reserved, sizeof handle.reserved));
  const Event& exported = ipc_.exportedEvent(name);
  // An event of the opener's device (its streams record and wait on it) on the same sync point
  // as the exporter's: the same records.
  return &add(t, std::make_unique<Event>(exported));
}

// ---------------------------------------------------------------- notifies

Notify* Events::createNotify(HostThread& t, uint64_t flag) {
  Device& d = port_.device(port_.currentDevice(t));
  if (flag != 0)
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "notify flag " + std::to_string(flag) + " is reserved: give 0");
  auto n = std::make_unique<Notify>();
  n->device = &d;
  n->id = d.nextNotifyId++;
  return &notifies_.add(std::move(n));
}

void Events::destroyNotify(aclrtNotify handle) {
  notifies_.erase(&notify(handle));  // queued records and waits keep its flag alive
}

void Events::recordNotify(HostThread& t, aclrtNotify handle, aclrtStream sh) {
  Notify& n = notify(handle);
  Stream& s = port_.stream(t, sh);
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::EventRecord;
  task->sync = n.sync;
  n.sync->recordsSubmitted++;
  port_.queue(t, s, std::move(task));
}

void Events::waitAndResetNotify(HostThread& t, aclrtNotify handle, aclrtStream sh,
                                uint32_t timeoutMs) {
  Notify& n = notify(handle);
  if (timeoutMs != 0) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "a notify wait with a timeout is not simulated yet: give 0 (wait for ever)");
  }
  Stream& s = port_.stream(t, sh);
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::EventWait;
  task->sync = n.sync;
  task->resetsFlag = true;
  std::shared_ptr<models::SyncPoint> sync = n.sync;
  port_.queue(t, s, std::move(task));
  sync->waitsSubmitted++;
}

uint32_t Events::notifyId(aclrtNotify handle) {
  return notify(handle).id;
}

void Events::notifyExportKey(HostThread& t, aclrtNotify handle, char* key, size_t len,
                             uint64_t flags) {
  Notify* n = notifies_.find(handle);
  if (!n)
    fail(ACL_ERROR_RT_INVALID_HANDLE, "notify " + describePointer(handle) + " does not exist");
  ipc_.exportNotify(port_.callerPid(t), *n, key, len, flags);
}

void Events::notifyAllowProcesses(HostThread& t, aclrtNotify handle, const int32_t* pids,
                                  size_t count) {
  Notify* n = notifies_.find(handle);
  if (!n)
    fail(ACL_ERROR_RT_INVALID_HANDLE, "notify " + describePointer(handle) + " does not exist");
  ipc_.allowNotifyProcesses(port_.callerPid(t), *n, pids, count);
}

Notify* Events::notifyImport(HostThread& t, const char* key, uint64_t flags) {
  // The same flag as the exported notify's.
  return &notifies_.add(
      std::make_unique<Notify>(ipc_.importNotify(port_.callerPid(t), key, flags)));
}

}  // namespace ascendsim::runtime
