// Model run instances (aclmdlRI...): task graphs built on persistent streams or captured from a
// stream, their launches, stream activation and switching, labels and conditions. The C entry
// points check their arguments with CANN's codes (hicann/runtime src/acl/aclrt_impl/model_ri.cpp
// and label.cpp: NULL handles 100000; src/runtime/feature/aclgraph api_error_aclgraph.cc and
// context_aclgraph.cc: capture states and modes) and hand the rest to the runtime's ModelRuns
// service, through the ServicePort for streams, memory and waiting.

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/api/api_call.h"
#include "runtime/api/model_served.h"
#include "runtime/core/service_port.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::remote::clientActive;
using ascendsim::remote::forward;
using ascendsim::spec::ApiOverheads;
using ascendsim::spec::Picoseconds;

namespace {

// The model the calling thread's last capture made, or its last task group belongs to (for the
// server of a shared machine: model_served.h).
thread_local const void* tModelOfLastCall = nullptr;

ModelRuns& models() {
  return rt().modelRuns();
}

// A stream handle the program gave (NULL: the default stream), with the model calls' codes.
Stream& programStream(ServicePort& port, HostThread& t, aclrtStream handle) {
  return port.stream(t, handle);
}

// The model's launch: a task on `s` that starts it as it ends, then a wait on `s` until every
// stream it activated has run out. One launch costs the call's host overhead whatever the
// number of tasks (`model_execute`); each replayed task takes its usual time on the device.
std::shared_ptr<ascendsim::models::SyncPoint> launch(ServicePort& port, HostThread& t, ModelRI& m,
                                                     Stream& s) {
  using ascendsim::models::Task;
  using ascendsim::models::TaskKind;
  if (!m.complete) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "the model is not complete: end its build (aclmdlRIBuildEnd) or capture "
         "(aclmdlRICaptureEnd) first");
  }
  if (m.origin == ModelRI::Origin::Branch)
    fail(ACL_ERROR_RT_PARAM_INVALID, "a condition's branch runs only inside its parent model");
  if (s.device != m.device)
    fail(ACL_ERROR_RT_STREAM_CONTEXT, "the stream and the model are on different devices");
  if (models().recording(s)) {
    fail(ACL_ERROR_RT_STREAM_CAPTURED,
         "the stream records a model: launching a model into another is not simulated");
  }
  if (m.origin == ModelRI::Origin::Captured && !m.steps) m.steps = &port.createStream(m.device->id);
  auto ended = std::make_shared<ascendsim::models::SyncPoint>();
  ended->recordsSubmitted = 1;
  ModelRuns* service = &models();
  const void* handle = &m;
  auto start = std::make_unique<Task>();
  start->kind = TaskKind::Control;
  start->control = "MODEL_EXECUTE";
  start->model = m.traceName();
  start->release = [service, handle, ended] {
    ModelRI* live = service->findModel(handle);
    if (!live) {  // destroyed meanwhile: nothing runs
      ended->recordsCompleted = 1;
      ended->recorded = true;
      return;
    }
    service->start(*live, ended, ascendsim::models::simNow());
  };
  ++*m.running;
  port.queue(t, s, std::move(start));
  auto wait = std::make_unique<Task>();
  wait->kind = TaskKind::EventWait;
  wait->sync = ended;
  wait->waitForRecord = 1;
  wait->model = m.traceName();
  port.queue(t, s, std::move(wait));
  return ended;
}

// The place of `bytes` of device memory at `p` (a value a control task reads).
ascendsim::models::MemoryPlace devicePlace(ServicePort& port, const void* p, uint64_t bytes,
                                           const char* role) {
  const ascendsim::models::MemoryPlace place = port.place(p, bytes, role);
  if (place.kind != ascendsim::models::MemoryPlace::Kind::Device)
    fail(ACL_ERROR_RT_PARAM_INVALID, std::string(role) + " must be device memory (aclrtMalloc)");
  return place;
}

void checkCaptureMode(int32_t mode) {
  if (mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "capture mode " + std::to_string(mode) +
             " is not an aclmdlRICaptureMode (GLOBAL 0, THREAD_LOCAL 1, RELAXED 2)");
  }
}

}  // namespace

const void* ascendsim::runtime::api::modelOfLastCall() {
  return tModelOfLastCall;
}

extern "C" {

// ---------------------------------------------------------------- building

aclError aclmdlRIBuildBegin(aclmdlRI* modelRI, uint32_t flag) {
  ASCENDSIM_FORWARD(aclmdlRIBuildBegin, modelRI, flag);
  return run("aclmdlRIBuildBegin", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(modelRI, "modelRI");
    if (flag != 0)
      fail(ACL_ERROR_RT_PARAM_INVALID, "flag " + std::to_string(flag) + " must be 0 (reserved)");
    ServicePort port(rt());
    const int32_t dev = port.currentDevice(t);
    *modelRI = &models().create(*port.devices()[static_cast<size_t>(dev)], t.current,
                                ModelRI::Origin::Built);
  });
}

aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag) {
  if (clientActive()) {
    const aclError code = forward<&aclmdlRIBindStream>(modelRI, stream, flag);
    if (code == ACL_SUCCESS) ascendsim::remote::streamRecords(stream, modelRI);
    return code;
  }
  return run("aclmdlRIBindStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(modelRI, "modelRI");
    needPointer(stream, "stream");
    t.callArgs = {streamArg(stream), arg("flag", flag)};
    ServicePort port(rt());
    models().bind(models().model(modelRI), programStream(port, t, stream), flag);
  });
}

aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream) {
  if (clientActive()) {
    const aclError code = forward<&aclmdlRIUnbindStream>(modelRI, stream);
    if (code == ACL_SUCCESS) ascendsim::remote::streamRecordsNoMore(stream);
    return code;
  }
  return run("aclmdlRIUnbindStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(modelRI, "modelRI");
    needPointer(stream, "stream");
    ServicePort port(rt());
    models().unbind(models().model(modelRI), programStream(port, t, stream));
  });
}

aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclmdlRIEndTask, modelRI, stream);
  return run("aclmdlRIEndTask", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(modelRI, "modelRI");
    needPointer(stream, "stream");
    ServicePort port(rt());
    ModelRI& m = models().model(modelRI);
    Stream& s = programStream(port, t, stream);
    models().streamIndex(m, s);  // (bound to this model)
    ModelStep step;
    step.kind = ModelStep::Kind::EndGraph;
    models().addStep(s, step);
  });
}

aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void* reserve) {
  if (clientActive()) {
    const aclError code = forward<&aclmdlRIBuildEnd>(modelRI, reserve);
    if (code == ACL_SUCCESS) ascendsim::remote::modelRecordsNoMore(modelRI, false);
    return code;
  }
  return run("aclmdlRIBuildEnd", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(modelRI, "modelRI");
    if (reserve) fail(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
    models().buildEnd(models().model(modelRI));
  });
}

// ---------------------------------------------------------------- launching and destroying

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclmdlRIExecuteAsync, modelRI, stream);
  return run("aclmdlRIExecuteAsync", &ApiOverheads::modelExecute, [&](HostThread& t) {
    needPointer(modelRI, "modelRI");
    t.callArgs = {streamArg(stream)};
    ServicePort port(rt());
    ModelRI& m = models().model(modelRI);
    t.callArgs.push_back(arg("model", m.traceName()));
    launch(port, t, m, programStream(port, t, stream));
  });
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
  ASCENDSIM_FORWARD(aclmdlRIExecute, modelRI, timeout);
  return run("aclmdlRIExecute", &ApiOverheads::modelExecute, [&](HostThread& t) {
    needPointer(modelRI, "modelRI");
    if (timeout < -1) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "timeout " + std::to_string(timeout) + " ms is invalid: -1 waits forever");
    }
    ServicePort port(rt());
    ModelRI& m = models().model(modelRI);
    if (!m.launch) m.launch = &port.createStream(m.device->id);
    auto ended = launch(port, t, m, *m.launch);
    auto done = [ended] { return ended->recordsCompleted >= 1; };
    bool ok = true;
    if (timeout < 0) {
      ok = port.waitUntil(t, done);
    } else {
      const Picoseconds deadline = t.now + static_cast<Picoseconds>(timeout) * 1000000000;
      ok = port.waitUntilDeadline(t, done, deadline);
      if (!ok && !done()) {
        t.now = std::max(t.now, deadline);
        fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
             "the model did not end within " + std::to_string(timeout) + " ms");
      }
    }
    if (!ok) {
      fail(ACL_ERROR_RT_MODEL_EXECUTE,
           "deadlock: the model waits for something that can never happen");
    }
    t.now = std::max(t.now, ended->lastRecordTime) + rt().overheads().synchronize;
  });
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  if (clientActive()) {
    const uint64_t recorded = ascendsim::remote::recordedSoFar();
    const aclError code = forward<&aclmdlRIDestroy>(modelRI);
    if (code == ACL_SUCCESS) ascendsim::remote::modelRecordsNoMore(modelRI, true, recorded);
    return code;
  }
  return run("aclmdlRIDestroy", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(modelRI, "modelRI");
    ModelRI& m = models().model(modelRI);
    if (m.origin == ModelRI::Origin::Branch)
      fail(ACL_ERROR_RT_PARAM_INVALID, "a condition's branch goes with its parent model");
    ServicePort port(rt());
    // Its launches end first (the tasks they have queued still read its steps).
    std::shared_ptr<uint32_t> running = m.running;
    if (!port.waitUntil(t, [running] { return *running == 0; })) {
      fail(ACL_ERROR_RT_MODEL_RUNNING, "the model is still running and can never end");
    }
    std::vector<void*> condMemory;
    std::vector<ModelRI*> all{&m};
    for (size_t i = 0; i < all.size(); ++i) {
      for (ModelRI* b : all[i]->branches) all.push_back(b);
      for (CondHandle* c : all[i]->conds) condMemory.push_back(c->pointer);
    }
    for (Stream* s : models().destroy(m)) port.releaseStream(t, s);
    for (void* p : condMemory) port.release(p);
  });
}

aclError aclmdlRISetName(aclmdlRI modelRI, const char* name) {
  ASCENDSIM_FORWARD(aclmdlRISetName, modelRI, name);
  return run("aclmdlRISetName", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(modelRI, "modelRI");
    needPointer(name, "name");
    models().model(modelRI).name = name;
  });
}

aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char* name) {
  if (clientActive()) {
    // Only the name and its NUL are written into `name`, as here.
    const uint32_t capacity = std::min<uint32_t>(maxLen, 1u << 20);
    std::vector<char> local(std::max<uint32_t>(capacity, 1), '\0');
    const aclError code =
        forward<&aclmdlRIGetName>(modelRI, capacity, name ? local.data() : nullptr);
    if (code == ACL_SUCCESS && name)
      std::memcpy(name, local.data(), strnlen(local.data(), capacity - 1) + 1);
    return code;
  }
  return run("aclmdlRIGetName", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(modelRI, "modelRI");
    needPointer(name, "name");
    const std::string& n = models().model(modelRI).name;
    if (maxLen == 0 || n.size() + 1 > maxLen) {
      fail(ACL_ERROR_INVALID_PARAM, "maxLen " + std::to_string(maxLen) + " cannot hold the name (" +
                                        std::to_string(n.size() + 1) + " bytes with its NUL)");
    }
    std::memcpy(name, n.c_str(), n.size() + 1);
  });
}

aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t* modelRIId) {
  ASCENDSIM_FORWARD(aclmdlRIGetId, modelRI, modelRIId);
  return run("aclmdlRIGetId", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(modelRI, "modelRI");
    needPointer(modelRIId, "modelRIId");
    *modelRIId = models().model(modelRI).id;
  });
}

aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream* streams, uint32_t* numStreams) {
  if (clientActive()) {
    if (!streams || !numStreams) return ascendsimModelGetStreams(modelRI, nullptr, 0, numStreams);
    // Only the model's streams are written into `streams`, as here.
    const uint32_t capacity = std::max<uint32_t>(std::min<uint32_t>(*numStreams, 1u << 16), 1);
    std::vector<aclrtStream> local(capacity);
    uint32_t count = std::min(*numStreams, capacity);
    const aclError code = ascendsimModelGetStreams(modelRI, local.data(), capacity, &count);
    if (code == ACL_SUCCESS) {
      std::copy(local.begin(), local.begin() + std::min(count, capacity), streams);
      *numStreams = count;
    }
    return code;
  }
  return run("aclmdlRIGetStreams", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(modelRI, "modelRI");
    needPointer(numStreams, "numStreams");
    const std::vector<const ModelStream*> bound = models().boundStreams(models().model(modelRI));
    if (!streams) {
      *numStreams = static_cast<uint32_t>(bound.size());
      return;
    }
    if (*numStreams < bound.size()) {
      fail(ACL_ERROR_INVALID_PARAM, "numStreams " + std::to_string(*numStreams) +
                                        " is less than the model's " +
                                        std::to_string(bound.size()) + " streams");
    }
    for (size_t i = 0; i < bound.size(); ++i) streams[i] = bound[i]->stream;
    *numStreams = static_cast<uint32_t>(bound.size());
  });
}

aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char* path, uint32_t flags) {
  if (clientActive()) {
    // The server writes the file: a relative path is the program's working directory's.
    std::string where = path ? path : "";
    char cwd[PATH_MAX];
    if (path && path[0] != '/' && getcwd(cwd, sizeof cwd)) where = std::string(cwd) + "/" + path;
    return forward<&aclmdlRIDebugJsonPrint>(modelRI, path ? where.c_str() : nullptr, flags);
  }
  return run("aclmdlRIDebugJsonPrint", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(modelRI, "modelRI");
    needPointer(path, "path");
    if (flags != ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY &&
        flags != ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE) {
      fail(ACL_ERROR_INVALID_PARAM,
           "flags " + std::to_string(flags) + " is neither SUMMARY (0) nor VERBOSE (1)");
    }
    const std::string json =
        models().describe(models().model(modelRI), flags == ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE);
    std::ofstream out(path, std::ios::trunc);
    if (!(out << json)) fail(ACL_ERROR_RT_FILE_WRITE, std::string("cannot write ") + path);
  });
}

// ---------------------------------------------------------------- capture

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  if (clientActive()) {
    const aclError code = forward<&aclmdlRICaptureBegin>(stream, mode);
    if (code == ACL_SUCCESS) ascendsim::remote::streamRecords(stream, nullptr);
    return code;
  }
  return run("aclmdlRICaptureBegin", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    checkCaptureMode(rawEnum(mode));
    t.callArgs = {streamArg(stream), arg("mode", static_cast<uint64_t>(rawEnum(mode)))};
    ServicePort port(rt());
    Stream& s = programStream(port, t, stream);
    if (s.flags & ACL_STREAM_PERSISTENT)
      fail(ACL_ERROR_RT_PARAM_INVALID, "a persistent stream is built on, not captured");
    if (models().recording(s)) fail(ACL_ERROR_RT_STREAM_CAPTURED, "the stream is being captured");
    ModelRI& m = models().create(*s.device, s.context, ModelRI::Origin::Captured);
    models().captureBegin(s, rawEnum(mode), t.index, m);
    tModelOfLastCall = &m;
  });
}

aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
                                       aclmdlRICaptureMode mode) {
  if (clientActive()) {
    const aclError code = forward<&aclmdlRICaptureToModelRIBegin>(stream, modelRI, mode);
    if (code == ACL_SUCCESS) ascendsim::remote::streamRecords(stream, modelRI);
    return code;
  }
  return run("aclmdlRICaptureToModelRIBegin", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    needPointer(modelRI, "modelRI");
    checkCaptureMode(rawEnum(mode));
    ServicePort port(rt());
    Stream& s = programStream(port, t, stream);
    ModelRI& m = models().model(modelRI);
    if (m.origin != ModelRI::Origin::Branch) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "only a condition's branch (made by aclmdlRIAddCondTask) is captured into this way");
    }
    if (s.device != m.device)
      fail(ACL_ERROR_RT_STREAM_CONTEXT, "the stream and the model are on different devices");
    models().captureBegin(s, rawEnum(mode), t.index, m);
  });
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status,
                                aclmdlRI* modelRI) {
  ASCENDSIM_FORWARD(aclmdlRICaptureGetInfo, stream, status, modelRI);
  return run("aclmdlRICaptureGetInfo", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    if (!status && !modelRI)
      fail(ACL_ERROR_INVALID_PARAM, "status and modelRI cannot both be NULL");
    ServicePort port(rt());
    ModelRI* m = models().captureModel(programStream(port, t, stream));
    if (status) *status = m ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE : ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    if (modelRI) *modelRI = m;
  });
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI) {
  if (clientActive()) {
    const aclError code = forward<&aclmdlRICaptureEnd>(stream, modelRI);
    if (code == ACL_SUCCESS) ascendsim::remote::streamRecordsNoMore(stream, *modelRI);
    return code;
  }
  return run("aclmdlRICaptureEnd", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    needPointer(modelRI, "modelRI");
    ServicePort port(rt());
    *modelRI = models().captureEnd(programStream(port, t, stream), t.index);
  });
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode* mode) {
  ASCENDSIM_FORWARD(aclmdlRICaptureThreadExchangeMode, mode);
  return run("aclmdlRICaptureThreadExchangeMode", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(mode, "mode");
    checkCaptureMode(rawEnum(*mode));
    *mode = static_cast<aclmdlRICaptureMode>(models().exchangeMode(t.index, rawEnum(*mode)));
  });
}

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream) {
  ASCENDSIM_FORWARD(aclmdlRICaptureTaskGrpBegin, stream);
  return run("aclmdlRICaptureTaskGrpBegin", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    ServicePort port(rt());
    models().taskGroupBegin(programStream(port, t, stream));
  });
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp* handle) {
  ASCENDSIM_FORWARD(aclmdlRICaptureTaskGrpEnd, stream, handle);
  return run("aclmdlRICaptureTaskGrpEnd", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    needPointer(handle, "handle");
    ServicePort port(rt());
    TaskGroup& group = models().taskGroupEnd(programStream(port, t, stream));
    tModelOfLastCall = group.model;
    *handle = &group;
  });
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle) {
  if (clientActive()) {
    const aclError code = forward<&aclmdlRICaptureTaskUpdateBegin>(stream, handle);
    if (code == ACL_SUCCESS) ascendsim::remote::streamRecords(stream, handle);
    return code;
  }
  return run("aclmdlRICaptureTaskUpdateBegin", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    needPointer(handle, "handle");
    ServicePort port(rt());
    models().updateBegin(programStream(port, t, stream), models().taskGroup(handle));
  });
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream) {
  if (clientActive()) {
    // (The update ends whatever the code: the stream records no more.)
    const aclError code = forward<&aclmdlRICaptureTaskUpdateEnd>(stream);
    ascendsim::remote::streamRecordsNoMore(stream);
    return code;
  }
  return run("aclmdlRICaptureTaskUpdateEnd", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    ServicePort port(rt());
    models().updateEnd(programStream(port, t, stream));
  });
}

// ---------------------------------------------------------------- conditions

aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
                                  aclmdlRICondHandleFlag flag, aclmdlRICondHandle* handle) {
  ASCENDSIM_FORWARD(aclmdlRICondHandleCreate, modelRI, defaultLaunchValue, flag, handle);
  return run("aclmdlRICondHandleCreate", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(modelRI, "modelRI");
    needPointer(handle, "handle");
    if (rawEnum(flag) != ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT) {
      fail(ACL_ERROR_RT_PARAM_INVALID, "flag " + std::to_string(rawEnum(flag)) +
                                           " is not ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT (1)");
    }
    ModelRI& m = models().model(modelRI);
    if (m.complete) fail(ACL_ERROR_RT_PARAM_INVALID, "the model is complete (captured already)");
    ServicePort port(rt());
    void* p = port.allocate(m.device->id, 8);
    if (!p) fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no device memory left for the condition");
    *handle = &models().addCond(m, p, port.place(p, 8, "condition"), defaultLaunchValue);
  });
}

aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t** ptr) {
  ASCENDSIM_FORWARD(aclmdlRICondHandleGetCondPtr, handle, ptr);
  return run("aclmdlRICondHandleGetCondPtr", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(handle, "handle");
    needPointer(ptr, "ptr");
    *ptr = static_cast<uint64_t*>(models().cond(handle).pointer);
  });
}

aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags) {
  if (clientActive()) {
    return ascendsimAddCondTask(params.handle, rawEnum(params.type), params.size,
                                params.modelRIArray, stream, flags);
  }
  return run("aclmdlRIAddCondTask", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    needPointer(params.handle, "params.handle");
    needPointer(params.modelRIArray, "params.modelRIArray");
    if (flags != 0)
      fail(ACL_ERROR_RT_PARAM_INVALID, "flags " + std::to_string(flags) + " must be 0 (reserved)");
    const int32_t type = rawEnum(params.type);
    const bool sizeOk =
        (type == ACL_MODEL_RI_COND_TYPE_IF && params.size >= 1 && params.size <= 2) ||
        (type == ACL_MODEL_RI_COND_TYPE_WHILE && params.size == 1) ||
        (type == ACL_MODEL_RI_COND_TYPE_SWITCH && params.size >= 1);
    if (type < ACL_MODEL_RI_COND_TYPE_IF || type > ACL_MODEL_RI_COND_TYPE_SWITCH) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "type " + std::to_string(type) + " is not IF (0), WHILE (1) or SWITCH (2)");
    }
    if (!sizeOk) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "size " + std::to_string(params.size) +
               " does not fit the type: IF takes 1 or 2 branches, WHILE 1, SWITCH at least 1");
    }
    ServicePort port(rt());
    Stream& s = programStream(port, t, stream);
    CondHandle& c = models().cond(params.handle);
    ModelRI* parent = models().captureModel(s);
    if (!parent) fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "the stream is not being captured");
    if (parent != c.model)
      fail(ACL_ERROR_RT_PARAM_INVALID, "the condition handle belongs to another model");
    ModelStep step;
    step.kind = ModelStep::Kind::Cond;
    step.cond = &c;
    step.condType = type;
    for (uint32_t i = 0; i < params.size; ++i) {
      ModelRI& b = models().create(*parent->device, parent->context, ModelRI::Origin::Branch);
      b.parent = parent;
      parent->branches.push_back(&b);
      step.branches.push_back(&b);
      params.modelRIArray[i] = &b;
    }
    models().addStep(s, std::move(step));
  });
}

// ---------------------------------------------------------------- streams of a model

aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtActiveStream, activeStream, stream);
  return run("aclrtActiveStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(activeStream, "activeStream");
    needPointer(stream, "stream");
    ServicePort port(rt());
    Stream& s = programStream(port, t, stream);
    Stream& target = programStream(port, t, activeStream);
    ModelRI& m = models().recordingModel(s);
    ModelStep step;
    step.kind = ModelStep::Kind::ActiveStream;
    step.target = models().streamIndex(m, target);
    models().addStep(s, std::move(step));
  });
}

aclError aclrtSwitchStream(void* leftValue, aclrtCondition cond, void* rightValue,
                           aclrtCompareDataType dataType, aclrtStream trueStream,
                           aclrtStream falseStream, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtSwitchStream, leftValue, cond, rightValue, dataType, trueStream,
                    falseStream, stream);
  return run("aclrtSwitchStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(leftValue, "leftValue");
    needPointer(rightValue, "rightValue");
    needPointer(trueStream, "trueStream");
    needPointer(stream, "stream");
    if (falseStream) fail(ACL_ERROR_INVALID_PARAM, "falseStream is reserved: it must be NULL");
    const int32_t c = rawEnum(cond), type = rawEnum(dataType);
    if (c < ACL_RT_EQUAL || c > ACL_RT_LESS_OR_EQUAL)
      fail(ACL_ERROR_INVALID_PARAM, "cond " + std::to_string(c) + " is not an aclrtCondition");
    if (type != ACL_RT_SWITCH_INT32 && type != ACL_RT_SWITCH_INT64) {
      fail(ACL_ERROR_INVALID_PARAM,
           "dataType " + std::to_string(type) + " is not ACL_RT_SWITCH_INT32 or _INT64");
    }
    ServicePort port(rt());
    Stream& s = programStream(port, t, stream);
    Stream& target = programStream(port, t, trueStream);
    ModelRI& m = models().recordingModel(s);
    const uint64_t bytes = type == ACL_RT_SWITCH_INT64 ? 8 : 4;
    ModelStep step;
    step.kind = ModelStep::Kind::SwitchStream;
    step.value = devicePlace(port, leftValue, bytes, "leftValue");
    step.right = devicePlace(port, rightValue, bytes, "rightValue");
    step.compare = c;
    step.dataType = type;
    step.target = models().streamIndex(m, target);
    models().addStep(s, std::move(step));
  });
}

// ---------------------------------------------------------------- labels

aclError aclrtCreateLabel(aclrtLabel* label) {
  ASCENDSIM_FORWARD(aclrtCreateLabel, label);
  return run("aclrtCreateLabel", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(label, "label");
    ServicePort port(rt());
    const int32_t dev = port.currentDevice(t);
    *label = &models().createLabel(*port.devices()[static_cast<size_t>(dev)]);
  });
}

aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtSetLabel, label, stream);
  return run("aclrtSetLabel", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(label, "label");
    needPointer(stream, "stream");
    ServicePort port(rt());
    models().setLabel(models().label(label), programStream(port, t, stream));
  });
}

aclError aclrtDestroyLabel(aclrtLabel label) {
  ASCENDSIM_FORWARD(aclrtDestroyLabel, label);
  return run("aclrtDestroyLabel", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(label, "label");
    models().destroyLabel(label);
  });
}

aclError aclrtCreateLabelList(aclrtLabel* labels, size_t num, aclrtLabelList* labelList) {
  ASCENDSIM_FORWARD(aclrtCreateLabelList, labels, num, labelList);
  return run("aclrtCreateLabelList", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(labels, "labels");
    needPointer(labelList, "labelList");
    if (num == 0) fail(ACL_ERROR_INVALID_PARAM, "num must be at least 1");
    std::vector<Label*> list;
    for (size_t i = 0; i < num; ++i) list.push_back(&models().label(labels[i]));
    *labelList = &models().createLabelList(std::move(list));
  });
}

aclError aclrtDestroyLabelList(aclrtLabelList labelList) {
  ASCENDSIM_FORWARD(aclrtDestroyLabelList, labelList);
  return run("aclrtDestroyLabelList", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(labelList, "labelList");
    models().destroyLabelList(labelList);
  });
}

aclError aclrtSwitchLabelByIndex(void* ptr, uint32_t maxValue, aclrtLabelList labelList,
                                 aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtSwitchLabelByIndex, ptr, maxValue, labelList, stream);
  return run("aclrtSwitchLabelByIndex", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(ptr, "ptr");
    needPointer(labelList, "labelList");
    needPointer(stream, "stream");
    if (maxValue == 0) fail(ACL_ERROR_INVALID_PARAM, "maxValue must be at least 1");
    ServicePort port(rt());
    Stream& s = programStream(port, t, stream);
    ModelStep step;
    step.kind = ModelStep::Kind::SwitchLabel;
    step.value = devicePlace(port, ptr, 4, "ptr");
    step.maxValue = maxValue;
    step.labels = models().labelList(labelList).labels;
    models().addStep(s, std::move(step));
  });
}

// ---------------------------------------------------------------- records and waits with a flag

aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag) {
  ASCENDSIM_FORWARD(aclrtRecordEventWithFlag, event, stream, flag);
  return run("aclrtRecordEventWithFlag", &ApiOverheads::event, [&](HostThread& t) {
    if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "flag " + std::to_string(flag) + " is neither ACL_EVENT_RECORD_DEFAULT nor _EXTERNAL");
    }
    t.callArgs = {streamArg(stream), arg("flag", flag)};
    rt().events().record(t, event, stream);
  });
}

aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
                                      uint32_t flag) {
  ASCENDSIM_FORWARD(aclrtStreamWaitEventWithFlag, stream, event, timeout, flag);
  return run("aclrtStreamWaitEventWithFlag", &ApiOverheads::event, [&](HostThread& t) {
    if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "flag " + std::to_string(flag) + " is neither ACL_EVENT_WAIT_DEFAULT nor _EXTERNAL");
    }
    if (flag == ACL_EVENT_WAIT_EXTERNAL && timeout != 0) {
      fail(ACL_ERROR_RT_PARAM_INVALID, "an external wait takes timeout 0 only");
    }
    if (timeout != 0) {
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "a wait with a timeout is not simulated: give timeout 0 (wait without limit)");
    }
    t.callArgs = {streamArg(stream), arg("flag", flag)};
    rt().events().streamWait(t, stream, event, flag == ACL_EVENT_WAIT_EXTERNAL);
  });
}

// ---------------------------------------------------------------- a served program's forms

aclError ascendsimAddCondTask(aclmdlRICondHandle handle, int32_t type, uint32_t size,
                              aclmdlRI* modelRIArray, aclrtStream stream, uint32_t flags) {
  ASCENDSIM_FORWARD(ascendsimAddCondTask, handle, type, size, modelRIArray, stream, flags);
  aclmdlRICondTaskParams params;
  params.handle = handle;
  std::memcpy(&params.type, &type, sizeof type);  // (its bits: checked as the program's)
  params.size = size;
  params.modelRIArray = modelRIArray;
  return aclmdlRIAddCondTask(params, stream, flags);
}

aclError ascendsimModelGetStreams(aclmdlRI modelRI, aclrtStream* streams, uint32_t capacity,
                                  uint32_t* numStreams) {
  ASCENDSIM_FORWARD(ascendsimModelGetStreams, modelRI, streams, capacity, numStreams);
  if (streams && numStreams) *numStreams = std::min(*numStreams, capacity);
  return aclmdlRIGetStreams(modelRI, streams, numStreams);
}

}  // extern "C"
