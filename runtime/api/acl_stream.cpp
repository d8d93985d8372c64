// Streams.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  return run("aclrtCreateStream", &ApiOverheads::streamCreate, [&](HostThread& t) {
    needPointer(stream, "stream");
    *stream = rt().createStream(t, 0, 0);
    t.callArgs = streamArg(*stream);
  });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  return run("aclrtCreateStreamWithConfig", &ApiOverheads::streamCreate, [&](HostThread& t) {
    needPointer(stream, "stream");
    *stream = rt().createStream(t, priority, flag);
  });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return run("aclrtDestroyStream", &ApiOverheads::defaultCall, [&](HostThread& t) { rt().destroyStream(t, stream); });
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  return run("aclrtDestroyStreamForce", &ApiOverheads::defaultCall, [&](HostThread& t) { rt().destroyStreamForce(t, stream); });
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  return run("aclrtSetStreamFailureMode", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = streamArg(stream) + "," + arg("mode", mode);
    rt().setStreamFailureMode(t, stream, mode);
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return run("aclrtSynchronizeStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = streamArg(stream);
    rt().synchronizeStream(t, stream, -1);
  });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  return run("aclrtSynchronizeStreamWithTimeout", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().synchronizeStream(t, stream, timeout); });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  return run("aclrtStreamQuery", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(status, "status");
    *status = rt().streamIdle(t, stream) ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return run("aclrtStreamWaitEvent", &ApiOverheads::event, [&](HostThread& t) {
    t.callArgs = streamArg(stream);
    rt().streamWaitEvent(t, stream, event);
  });
}

}  // extern "C"
