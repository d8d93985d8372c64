// Events.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) {
  ASCENDSIM_FORWARD(aclrtCreateEvent, event);
  return run("aclrtCreateEvent", &ApiOverheads::event, [&](HostThread& t) {
    needPointer(event, "event");
    // CANN's default event: it keeps timestamps and marks stream progress; a wait needs a record.
    *event = rt().events().create(t, ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE);
  });
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  ASCENDSIM_FORWARD(aclrtCreateEventWithFlag, event, flag);
  return run("aclrtCreateEventWithFlag", &ApiOverheads::event, [&](HostThread& t) {
    needPointer(event, "event");
    *event = rt().events().create(t, flag);
  });
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  ASCENDSIM_FORWARD(aclrtCreateEventExWithFlag, event, flag);
  // CANN's "Ex" events may be recorded again while earlier waits are pending, each wait taking
  // the record queued before it: what every event of the simulator does. The flags are the same.
  return run("aclrtCreateEventExWithFlag", &ApiOverheads::event, [&](HostThread& t) {
    needPointer(event, "event");
    *event = rt().events().create(t, flag);
  });
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  ASCENDSIM_FORWARD(aclrtDestroyEvent, event);
  return run("aclrtDestroyEvent", &ApiOverheads::event,
             [&](HostThread&) { rt().events().destroy(event); });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtRecordEvent, event, stream);
  return run("aclrtRecordEvent", &ApiOverheads::event, [&](HostThread& t) {
    t.callArgs = {streamArg(stream)};
    rt().events().record(t, event, stream);
  });
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtResetEvent, event, stream);
  return run("aclrtResetEvent", &ApiOverheads::event,
             [&](HostThread& t) { rt().events().reset(t, event, stream); });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  return ascendsimQueryEvent(event, status);
}

aclError ascendsimQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  ASCENDSIM_FORWARD(ascendsimQueryEvent, event, status);
  return run("aclrtQueryEvent", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(status, "status");
    *status =
        rt().events().complete(t, event) ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  ASCENDSIM_FORWARD(aclrtQueryEventStatus, event, status);
  return run("aclrtQueryEventStatus", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(status, "status");
    *status = rt().events().complete(t, event) ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                               : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  });
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  ASCENDSIM_FORWARD(aclrtQueryEventWaitStatus, event, status);
  return run("aclrtQueryEventWaitStatus", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(status, "status");
    *status = rt().events().waitsComplete(t, event) ? ACL_EVENT_WAIT_STATUS_COMPLETE
                                                    : ACL_EVENT_WAIT_STATUS_NOT_READY;
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  ASCENDSIM_FORWARD(aclrtSynchronizeEvent, event);
  return run("aclrtSynchronizeEvent", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().events().synchronize(t, event, -1); });
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  ASCENDSIM_FORWARD(aclrtSynchronizeEventWithTimeout, event, timeout);
  return run("aclrtSynchronizeEventWithTimeout", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().events().synchronize(t, event, timeout); });
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  ASCENDSIM_FORWARD(aclrtEventElapsedTime, ms, startEvent, endEvent);
  return run("aclrtEventElapsedTime", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(ms, "ms");
    *ms = rt().events().elapsedMs(t, startEvent, endEvent);
  });
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp) {
  ASCENDSIM_FORWARD(aclrtEventGetTimestamp, event, timestamp);
  return run("aclrtEventGetTimestamp", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(timestamp, "timestamp");
    *timestamp = rt().events().timestampUs(t, event);
  });
}

aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle* handle) {
  ASCENDSIM_FORWARD(aclrtIpcGetEventHandle, event, handle);
  return run("aclrtIpcGetEventHandle", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(event, "event");
    needPointer(handle, "handle");
    rt().events().ipcHandle(event, handle);
  });
}

aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent* event) {
  ASCENDSIM_FORWARD(aclrtIpcOpenEventHandle, handle, event);
  return run("aclrtIpcOpenEventHandle", &ApiOverheads::event, [&](HostThread& t) {
    needPointer(event, "event");
    *event = rt().events().ipcOpen(t, handle);
  });
}

}  // extern "C"
