#include "runtime/remote/served_callbacks.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/kernel_sandbox.h"
#include "runtime/core/runtime.h"
#include "runtime/core/streams.h"
#include "runtime/remote/machine_client.h"
#include "runtime/remote/machine_server.h"
#include "runtime/remote/marshal.h"
#include "runtime/remote/protocol.h"

namespace ascendsim::remote {
using runtime::Runtime;

// ---------------------------------------------------------------- the program's end

aclError processReports(const char* name, int32_t timeoutMs, uint64_t hostFuncStream) {
  WireWriter w;
  w.text(name);
  w.i32(timeoutMs);
  w.u64(hostFuncStream);
  const CallReply taken = callServer(kTakeReportCall, w, true);
  if (taken.code != ACL_SUCCESS) {
    discardLocalError();
    return taken.code;
  }
  uint64_t fn = 0, data = 0;
  try {
    WireReader r(taken.results);
    fn = r.u64();
    data = r.u64();
  } catch (const WireError&) {
    setServedError(std::string(name) + ": the server's reply was cut short");
    return ACL_ERROR_RT_INTERNAL_ERROR;
  }
  // The program's function, on this thread (it may call AscendCL itself: on this connection).
  if (fn) reinterpret_cast<aclrtCallback>(fn)(reinterpret_cast<void*>(data));
  const CallReply ended = callServer(kEndReportCall, WireWriter(), true);
  return ended.code;
}

namespace {
// Starts the program's thread for the host functions of `stream` (the server's name for it):
// it adopts the stream, then runs its functions until the stream or the machine is gone.
aclError startHostFuncThread(uint64_t stream) {
  std::promise<aclError> adopted;
  std::future<aclError> answer = adopted.get_future();
  std::thread([stream, adopted = std::move(adopted)]() mutable {
    WireWriter w;
    w.u64(stream);
    const CallReply reply = callServer(kAdoptHostFuncCall, w, true);
    const bool mine = reply.code == ACL_SUCCESS && !reply.results.empty() && reply.results[0];
    adopted.set_value(reply.code);
    if (!mine) return;  // (another thread has the stream already)
    for (;;) {
      const aclError code = processReports("aclrtProcessHostFunc", -1, stream);
      if (code == ACL_ERROR_RT_THREAD_SUBSCRIBE || code == ACL_ERROR_UNINITIALIZE ||
          code == ACL_ERROR_RT_INTERNAL_ERROR)
        return;
    }
  }).detach();
  return answer.get();
}
}  // namespace

aclError launchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  if (fn) {
    WireWriter w;
    w.u64(bitsOf(stream));
    const CallReply found = callServer(kHostFuncStreamCall, w, true);
    if (found.code != ACL_SUCCESS) return found.code;
    uint64_t id = 0;
    bool hasThread = true;
    try {
      WireReader r(found.results);
      id = r.u64();
      hasThread = r.u8() != 0;
    } catch (const WireError&) {
      setServedError("aclrtLaunchHostFunc: the server's reply was cut short");
      return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    if (id && !hasThread) {
      if (const aclError code = startHostFuncThread(id); code != ACL_SUCCESS) return code;
    }
  }
  WireWriter w;
  w.u64(bitsOf(stream));
  w.u64(bitsOf(fn));
  w.u64(bitsOf(args));
  const CallReply launched = callServer("aclrtLaunchHostFunc", w, true);
  if (launched.code != ACL_SUCCESS) discardLocalError();
  return launched.code;
}

namespace {
std::atomic<bool> gWatchExceptions{false};
thread_local bool tTakingExceptions = false;
// The process's callbacks as the server keeps them (ExceptionReports): the one set, and those
// registered.
std::mutex gCallbacksMutex;
aclrtExceptionInfoCallback gSetCallback = nullptr;
std::vector<aclrtExceptionInfoCallback> gRegistered;
}  // namespace

void watchServedExceptions(CallbackChange change, aclrtExceptionInfoCallback callback) {
  std::lock_guard<std::mutex> lock(gCallbacksMutex);
  auto found = std::find(gRegistered.begin(), gRegistered.end(), callback);
  if (change == CallbackChange::Set) gSetCallback = callback;
  if (change == CallbackChange::Register && callback && found == gRegistered.end())
    gRegistered.push_back(callback);
  if (change == CallbackChange::Unregister && found != gRegistered.end()) gRegistered.erase(found);
  // (Failures kept before the last one went were taken by the call that removed it.)
  gWatchExceptions.store(gSetCallback || !gRegistered.empty(), std::memory_order_release);
}

void runServedExceptionCallbacks() {
  if (!gWatchExceptions.load(std::memory_order_acquire) || tTakingExceptions) return;
  // (The call's own message stays the thread's most recent one.)
  const char* message = takeServedError();
  const std::string kept = message ? message : "";
  tTakingExceptions = true;
  const CallReply taken = callServer(kTakeExceptionsCall, WireWriter(), true);
  tTakingExceptions = false;
  setServedError(kept);
  if (taken.code != ACL_SUCCESS) return;
  std::vector<runtime::ServedException> failures;
  try {
    WireReader r(taken.results);
    for (uint32_t n = r.u32(); n > 0; --n) {
      runtime::ServedException f;
      r.blobInto(&f.info, sizeof f.info);
      for (uint32_t c = r.u32(); c > 0; --c)
        f.callbacks.push_back(fromBits<aclrtExceptionInfoCallback>(r.u64()));
      failures.push_back(std::move(f));
    }
  } catch (const WireError&) {
    return;
  }
  if (failures.empty()) return;
  Runtime::instance().runServedExceptions(failures);
  if (!kept.empty()) setServedError(kept);
}

namespace {
struct ProgramStateCallbacks {
  std::mutex mutex;
  runtime::StateCallbacks callbacks;
};
ProgramStateCallbacks& stateCallbacks() {
  static auto* callbacks = new ProgramStateCallbacks;  // (used until the program's last call)
  return *callbacks;
}

// Runs the callbacks registered now, in the order of their names (as in-process), unlocked: a
// callback may register or remove others.
void runStateCallbacks(aclrtStream stream, aclrtStreamState state) {
  runtime::StateCallbacks now;
  {
    std::lock_guard<std::mutex> lock(stateCallbacks().mutex);
    now = stateCallbacks().callbacks;
  }
  for (const auto& entry : now) entry.second.first(stream, state, entry.second.second);
}
}  // namespace

void registerStreamStateCallback(const char* name, aclrtStreamStateCallback callback, void* args) {
  std::lock_guard<std::mutex> lock(stateCallbacks().mutex);
  runtime::setStateCallback(stateCallbacks().callbacks, name, callback, args);
}

aclError streamCreated(aclError code, aclrtStream* stream) {
  if (code == ACL_SUCCESS && stream) runStateCallbacks(*stream, ACL_RT_STREAM_STATE_CREATE_POST);
  return code;
}

void streamAboutToGo(aclrtStream stream) {
  // (From inside a kernel the destruction is refused, and nothing may wait for the server.)
  if (runtime::sandbox::runningKernel()) return;
  {
    std::lock_guard<std::mutex> lock(stateCallbacks().mutex);
    if (stateCallbacks().callbacks.empty()) return;  // (no question to ask)
  }
  WireWriter w;
  w.u64(bitsOf(stream));
  const CallReply reply = callServer(kStreamDestroyableCall, w, true);
  // (Not destroyable, or no answer: the destruction, sent next, says why.)
  if (reply.code != ACL_SUCCESS || reply.results.empty() || !reply.results[0]) {
    if (reply.code != ACL_SUCCESS) discardLocalError();
    return;
  }
  runStateCallbacks(stream, ACL_RT_STREAM_STATE_DESTROY_PRE);
}

namespace {
bool anyStateCallback() {
  std::lock_guard<std::mutex> lock(stateCallbacks().mutex);
  return !stateCallbacks().callbacks.empty();
}

// The machine's answer to a stream state question (Runtime::servedStreamStates), asked only by a
// program with callbacks: no answer is no stream.
std::vector<aclrtStream> askStreamStates(uint8_t question, uint64_t arg) {
  if (runtime::sandbox::runningKernel() || !anyStateCallback()) return {};
  WireWriter w;
  w.u8(question);
  w.u64(arg);
  const CallReply reply = callServer(kStreamStatesCall, w, true);
  std::vector<aclrtStream> streams;
  if (reply.code != ACL_SUCCESS) {
    discardLocalError();
    return streams;
  }
  try {
    WireReader r(reply.results);
    for (uint32_t n = r.u32(); n > 0; --n) streams.push_back(fromBits<aclrtStream>(r.u64()));
  } catch (const WireError&) {
    streams.clear();
  }
  return streams;
}
}  // namespace

aclError defaultStreamMade(aclError code) {
  if (code != ACL_SUCCESS) return code;
  for (aclrtStream s : askStreamStates(Runtime::kMadeDefaultStream, 0))
    runStateCallbacks(s, ACL_RT_STREAM_STATE_CREATE_POST);
  return code;
}

namespace {
// The contexts and devices whose teardown this process is announcing (its callbacks run).
struct Teardowns {
  std::mutex mutex;
  std::set<std::pair<bool, uint64_t>> going;  // (device?, context handle or device id)
};
Teardowns& teardowns() {
  static auto* going = new Teardowns;  // (used until the program's last call)
  return *going;
}

// Announces the streams `question` names, then sends the teardown (`send`); refused while the
// same context or device is being torn down by this process.
aclError tearDown(const char* api, bool device, uint64_t key, uint8_t question,
                  const std::function<aclError()>& send) {
  const std::pair<bool, uint64_t> mine{device, key};
  {
    std::lock_guard<std::mutex> lock(teardowns().mutex);
    if (!teardowns().going.insert(mine).second) {
      setServedError(
          std::string(api) + ": the " +
          (device ? "default context of device " + std::to_string(key) : std::string("context")) +
          " is being released (its stream state callbacks are running)");
      return ACL_ERROR_RT_CONTEXT_RELEASE_ERROR;
    }
  }
  for (aclrtStream s : askStreamStates(question, key))
    runStateCallbacks(s, ACL_RT_STREAM_STATE_DESTROY_PRE);
  const aclError code = send();
  std::lock_guard<std::mutex> lock(teardowns().mutex);
  teardowns().going.erase(mine);
  return code;
}
}  // namespace

aclError destroyContext(aclrtContext context, const std::function<aclError()>& send) {
  return tearDown("aclrtDestroyContext", false, bitsOf(context), Runtime::kContextGoing, send);
}

aclError resetDevice(int32_t deviceId, bool force, const std::function<aclError()>& send) {
  return tearDown(force ? "aclrtResetDeviceForce" : "aclrtResetDevice", true,
                  static_cast<uint32_t>(deviceId),
                  force ? Runtime::kDeviceGoingForce : Runtime::kDeviceGoing, send);
}

// ---------------------------------------------------------------- the server's end

aclError serveStreamStates(Session&, WireReader& in, WireWriter& out) {
  const uint8_t question = in.u8();
  const uint64_t arg = in.u64();
  const std::vector<aclrtStream> streams = Runtime::instance().servedStreamStates(question, arg);
  out.u32(static_cast<uint32_t>(streams.size()));
  for (aclrtStream s : streams) out.u64(bitsOf(s));
  return ACL_SUCCESS;
}

aclError serveStreamDestroyable(Session&, WireReader& in, WireWriter& out) {
  out.u8(Runtime::instance().streamDestroyable(fromBits<aclrtStream>(in.u64())) ? 1 : 0);
  return ACL_SUCCESS;
}

aclError serveTakeExceptions(Session&, WireReader&, WireWriter& out) {
  const std::vector<runtime::ServedException> failures = Runtime::instance().takeServedExceptions();
  out.u32(static_cast<uint32_t>(failures.size()));
  for (const runtime::ServedException& f : failures) {
    out.blob(&f.info, sizeof f.info);
    out.u32(static_cast<uint32_t>(f.callbacks.size()));
    for (aclrtExceptionInfoCallback c : f.callbacks) out.u64(bitsOf(c));
  }
  return ACL_SUCCESS;
}

aclError serveTakeReport(Session& s, WireReader& in, WireWriter& out) {
  const bool hostFunc = in.text() == "aclrtProcessHostFunc";
  const int32_t timeoutMs = in.i32();
  const uint64_t stream = in.u64();
  Runtime& rt = Runtime::instance();
  runtime::CallbackReport report;
  runtime::Stream* outer = nullptr;
  const aclError code = rt.call(
      hostFunc ? "aclrtProcessHostFunc" : "aclrtProcessReport", &spec::ApiOverheads::defaultCall,
      true, [&](runtime::HostThread& t) { report = rt.takeReport(t, timeoutMs, stream, outer); });
  if (code != ACL_SUCCESS) return code;
  // Ended when the program says the function returned, or when its connection closes first.
  s.callbacksRunning.push_back([report, outer] { Runtime::instance().endReport(report, outer); });
  out.u64(bitsOf(report.fn));
  out.u64(bitsOf(report.userData));
  return ACL_SUCCESS;
}

aclError serveEndReport(Session& s, WireReader&, WireWriter&) {
  if (s.callbacksRunning.empty()) throw WireError("a callback ended that was not running");
  const std::function<void()> end = std::move(s.callbacksRunning.back());
  s.callbacksRunning.pop_back();
  end();
  return ACL_SUCCESS;
}

aclError serveHostFuncStream(Session&, WireReader& in, WireWriter& out) {
  bool hasThread = true;
  const uint64_t stream =
      Runtime::instance().hostFuncStream(fromBits<aclrtStream>(in.u64()), hasThread);
  out.u64(stream);
  out.u8(hasThread ? 1 : 0);
  return ACL_SUCCESS;
}

aclError serveAdoptHostFuncStream(Session&, WireReader& in, WireWriter& out) {
  out.u8(Runtime::instance().adoptHostFuncStream(in.u64()) ? 1 : 0);
  return ACL_SUCCESS;
}

aclError serveLaunchHostFunc(Session&, WireReader& in, WireWriter&) {
  const auto stream = fromBits<aclrtStream>(in.u64());
  const auto fn = fromBits<aclrtHostFunc>(in.u64());
  const auto args = fromBits<void*>(in.u64());
  Runtime& rt = Runtime::instance();
  return rt.call("aclrtLaunchHostFunc", &spec::ApiOverheads::event, true,
                 [&](runtime::HostThread& t) { rt.launchServedHostFunc(t, stream, fn, args); });
}

}  // namespace ascendsim::remote
