// Streams.

#include <map>
#include <memory>
#include <mutex>

#include "runtime/api/api_call.h"
#include "runtime/remote/served_callbacks.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
// In a program sharing a machine (ascendsim exec --shared) stream configurations live in the
// program: plain structs that aclrtCreateStreamV2 sends whole. Their calls run here, with the
// same checks and codes.
class ProgramConfigs {
 public:
  aclrtStreamConfigHandle* make() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto config = std::make_unique<aclrtStreamConfigHandle>();
    *config = aclrtStreamConfigHandle{};
    aclrtStreamConfigHandle* handle = config.get();
    configs_.emplace(handle, std::move(config));
    return handle;
  }
  void destroy(aclrtStreamConfigHandle* handle) {
    if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    std::lock_guard<std::mutex> lock(mutex_);
    if (configs_.erase(handle) == 0) {
      fail(ACL_ERROR_INVALID_PARAM,
           "handle " + describePointer(handle) +
               " was not made by aclrtCreateStreamConfigHandle (destroyed already?)");
    }
  }

 private:
  std::mutex mutex_;
  std::map<aclrtStreamConfigHandle*, std::unique_ptr<aclrtStreamConfigHandle>> configs_;
};

ProgramConfigs& programConfigs() {
  static ProgramConfigs* configs = new ProgramConfigs;  // (used until the program's last call)
  return *configs;
}
}  // namespace

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  if (ascendsim::remote::clientActive())
    return ascendsim::remote::streamCreated(ascendsim::remote::forward<&aclrtCreateStream>(stream),
                                            stream);
  return run("aclrtCreateStream", &ApiOverheads::streamCreate, [&](HostThread& t) {
    needPointer(stream, "stream");
    *stream = rt().streams().create(t, 0, 0);
    t.callArgs = {streamArg(*stream)};
    rt().streams().stateChanged(t, *stream, ACL_RT_STREAM_STATE_CREATE_POST);
  });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  if (ascendsim::remote::clientActive()) {
    return ascendsim::remote::streamCreated(
        ascendsim::remote::forward<&aclrtCreateStreamWithConfig>(stream, priority, flag), stream);
  }
  return run("aclrtCreateStreamWithConfig", &ApiOverheads::streamCreate, [&](HostThread& t) {
    needPointer(stream, "stream");
    *stream = rt().streams().create(t, priority, flag);
    rt().streams().stateChanged(t, *stream, ACL_RT_STREAM_STATE_CREATE_POST);
  });
}

aclrtStreamConfigHandle* aclrtCreateStreamConfigHandle(void) {
  if (ascendsim::remote::clientActive()) return programConfigs().make();
  aclrtStreamConfigHandle* handle = nullptr;
  rt().call("aclrtCreateStreamConfigHandle", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { handle = rt().streams().createConfig(); });
  return handle;
}

aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle* handle) {
  if (ascendsim::remote::clientActive()) {
    return inProgram("aclrtDestroyStreamConfigHandle", [&] { programConfigs().destroy(handle); });
  }
  return rt().call("aclrtDestroyStreamConfigHandle", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) { rt().streams().destroyConfig(handle); });
}

namespace {
// An attribute's value, of the one width it has (`alsoNarrow`: a uint32_t is taken too).
uint64_t configValue(const void* value, size_t valueSize, size_t width, bool alsoNarrow,
                     const char* attr) {
  if (valueSize == width) {
    uint64_t v = 0;
    std::memcpy(&v, value, width);
    return v;
  }
  if (alsoNarrow && valueSize == sizeof(uint32_t)) {
    uint32_t v = 0;
    std::memcpy(&v, value, sizeof v);
    return v;
  }
  fail(ACL_ERROR_INVALID_PARAM, std::string(attr) + ": valueSize " + std::to_string(valueSize) +
                                    " should be " + std::to_string(width));
}
}  // namespace

aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle* handle, aclrtStreamConfigAttr attr,
                                 const void* attrValue, size_t valueSize) {
  auto set = [&] {
    needPointer(handle, "handle");
    needPointer(attrValue, "attrValue");
    switch (rawEnum(attr)) {
      case ACL_RT_STREAM_WORK_ADDR_PTR:
        handle->workptr = reinterpret_cast<void*>(
            configValue(attrValue, valueSize, sizeof(void*), false, "ACL_RT_STREAM_WORK_ADDR_PTR"));
        break;
      case ACL_RT_STREAM_WORK_SIZE:
        handle->workSize =
            configValue(attrValue, valueSize, sizeof(size_t), false, "ACL_RT_STREAM_WORK_SIZE");
        break;
      case ACL_RT_STREAM_FLAG:
        // CANN's implementation reads a size_t; its own sample passes a uint32_t: both are taken.
        handle->flag =
            configValue(attrValue, valueSize, sizeof(size_t), true, "ACL_RT_STREAM_FLAG");
        break;
      case ACL_RT_STREAM_PRIORITY: {
        const uint64_t priority =
            configValue(attrValue, valueSize, sizeof(uint32_t), false, "ACL_RT_STREAM_PRIORITY");
        if (priority > 7)
          fail(ACL_ERROR_INVALID_PARAM,
               "priority " + std::to_string(priority) + " is out of range 0..7");
        handle->priority = static_cast<uint32_t>(priority);
        break;
      }
      default:
        fail(ACL_ERROR_INVALID_PARAM,
             "attr " + std::to_string(rawEnum(attr)) + " is not an aclrtStreamConfigAttr");
    }
  };
  if (ascendsim::remote::clientActive()) return inProgram("aclrtSetStreamConfigOpt", set);
  return rt().call("aclrtSetStreamConfigOpt", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) { set(); });
}

aclError aclrtCreateStreamV2(aclrtStream* stream, const aclrtStreamConfigHandle* handle) {
  if (ascendsim::remote::clientActive())
    return ascendsim::remote::streamCreated(
        ascendsim::remote::forward<&aclrtCreateStreamV2>(stream, handle), stream);
  return run("aclrtCreateStreamV2", &ApiOverheads::streamCreate, [&](HostThread& t) {
    needPointer(stream, "stream");
    const aclrtStreamConfigHandle config = handle ? *handle : aclrtStreamConfigHandle{};
    if (config.workptr || config.workSize) {
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "model work memory (ACL_RT_STREAM_WORK_ADDR_PTR/SIZE) is for model run "
           "instances (aclmdlRI...), which the simulator does not run");
    }
    if (config.flag > UINT32_MAX)
      fail(ACL_ERROR_INVALID_PARAM, "flag " + std::to_string(config.flag) + " has bits above 32");
    *stream = rt().streams().create(t, config.priority, static_cast<uint32_t>(config.flag));
    t.callArgs = {streamArg(*stream)};
    rt().streams().stateChanged(t, *stream, ACL_RT_STREAM_STATE_CREATE_POST);
  });
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t* streamId) {
  ASCENDSIM_FORWARD(aclrtStreamGetId, stream, streamId);
  return run("aclrtStreamGetId", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(streamId, "streamId");
    *streamId = static_cast<int32_t>(rt().streams().stream(t, stream).queue.id());
  });
}

aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t* flags) {
  ASCENDSIM_FORWARD(aclrtStreamGetFlags, stream, flags);
  return run("aclrtStreamGetFlags", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(flags, "flags");
    *flags = rt().streams().stream(t, stream).flags;
  });
}

aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t* priority) {
  ASCENDSIM_FORWARD(aclrtStreamGetPriority, stream, priority);
  return run("aclrtStreamGetPriority", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(priority, "priority");
    *priority = rt().streams().stream(t, stream).priority;
  });
}

aclError aclrtDeviceGetStreamPriorityRange(int32_t* leastPriority, int32_t* greatestPriority) {
  ASCENDSIM_FORWARD(aclrtDeviceGetStreamPriorityRange, leastPriority, greatestPriority);
  return run("aclrtDeviceGetStreamPriorityRange", &ApiOverheads::defaultCall, [&](HostThread&) {
    // CANN fills whichever pointer is given.
    if (leastPriority) *leastPriority = 7;
    if (greatestPriority) *greatestPriority = 0;
  });
}

aclError aclrtValueWrite(void* devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtValueWrite, devAddr, value, flag, stream);
  return run("aclrtValueWrite", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {ptrArg("devAddr", devAddr), arg("value", value), streamArg(stream)};
    rt().valueWrite(t, devAddr, value, flag, stream);
  });
}

aclError aclrtValueWait(void* devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtValueWait, devAddr, value, flag, stream);
  return run("aclrtValueWait", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {ptrArg("devAddr", devAddr), arg("value", value), arg("flag", flag),
                  streamArg(stream)};
    rt().valueWait(t, devAddr, value, flag, stream);
  });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (ascendsim::remote::clientActive()) {
    ascendsim::remote::streamAboutToGo(stream);
    return ascendsim::remote::forward<&aclrtDestroyStream>(stream);
  }
  return run("aclrtDestroyStream", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().streams().destroy(t, stream); });
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  if (ascendsim::remote::clientActive()) {
    ascendsim::remote::streamAboutToGo(stream);
    return ascendsim::remote::forward<&aclrtDestroyStreamForce>(stream);
  }
  return run("aclrtDestroyStreamForce", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().streams().destroyForce(t, stream); });
}

aclError aclrtStreamStop(aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtStreamStop, stream);
  return run("aclrtStreamStop", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {streamArg(stream)};
    rt().streams().stop(t, stream);
  });
}

aclError aclrtStreamAbort(aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtStreamAbort, stream);
  return run("aclrtStreamAbort", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {streamArg(stream)};
    rt().streams().abort(t, stream);
  });
}

aclError aclrtRegStreamStateCallback(const char* regName, aclrtStreamStateCallback callback,
                                     void* args) {
  // (On a served machine the callbacks are the program's: runtime/remote/served_callbacks.h.)
  if (ascendsim::remote::clientActive()) {
    return inProgram("aclrtRegStreamStateCallback", [&] {
      ascendsim::remote::registerStreamStateCallback(regName, callback, args);
    });
  }
  // CANN's sample registers before aclInit.
  return rt().call(
      "aclrtRegStreamStateCallback", &ApiOverheads::defaultCall, false,
      [&](HostThread&) { rt().streams().registerStateCallback(regName, callback, args); });
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  ASCENDSIM_FORWARD(aclrtSetStreamFailureMode, stream, mode);
  return run("aclrtSetStreamFailureMode", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {streamArg(stream), arg("mode", mode)};
    rt().streams().setFailureMode(t, stream, mode);
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtSynchronizeStream, stream);
  return run("aclrtSynchronizeStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    t.callArgs = {streamArg(stream)};
    rt().streams().synchronize(t, stream, -1);
  });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  ASCENDSIM_FORWARD(aclrtSynchronizeStreamWithTimeout, stream, timeout);
  return run("aclrtSynchronizeStreamWithTimeout", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().streams().synchronize(t, stream, timeout); });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  ASCENDSIM_FORWARD(aclrtStreamQuery, stream, status);
  return run("aclrtStreamQuery", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(status, "status");
    *status =
        rt().streams().idle(t, stream) ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  ASCENDSIM_FORWARD(aclrtStreamWaitEvent, stream, event);
  return run("aclrtStreamWaitEvent", &ApiOverheads::event, [&](HostThread& t) {
    t.callArgs = {streamArg(stream)};
    rt().events().streamWait(t, stream, event);
  });
}

}  // extern "C"
