// Callbacks and host functions.

#include <algorithm>
#include <optional>
#include <thread>

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

using models::Task;
using models::TaskKind;

// ---------------------------------------------------------------- callbacks

void Runtime::subscribeReport(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = streams_.stream(t, sh);
  if (s.subscribedThread != 0)
    fail(ACL_ERROR_REPEAT_SUBSCRIBE, "the stream is already subscribed to a thread");
  s.subscribedThread = threadId;
  // (A served program's thread of this name that ended before: a new one has its pthread_t.)
  endedRemoteThreads_.erase(threadId);
}

void Runtime::unsubscribeReport(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = streams_.stream(t, sh);
  if (s.subscribedThread != threadId)
    fail(ACL_ERROR_RT_STREAM_NO_CB_REG, "the stream is not subscribed to that thread");
  s.subscribedThread = 0;
}

void Runtime::launchCallback(HostThread& t, aclrtCallback fn, void* data, int32_t block,
                             aclrtStream sh) {
  if (!fn) fail(ACL_ERROR_INVALID_PARAM, "callback function is NULL");
  if (block != ACL_CALLBACK_NO_BLOCK && block != ACL_CALLBACK_BLOCK)
    fail(ACL_ERROR_INVALID_PARAM, "unknown aclrtCallbackBlockType");
  Stream& s = streams_.stream(t, sh);
  if (s.subscribedThread == 0) {
    fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
         "no thread is subscribed to this stream: call aclrtSubscribeReport first");
  }
  queueCallback(t, s, fn, data, block == ACL_CALLBACK_BLOCK, s.subscribedThread);
}

void Runtime::queueCallback(HostThread& t, Stream& s, aclrtCallback fn, void* data, bool blocking,
                            uint64_t target) {
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::Callback;
  task->completesExternally = blocking;
  Stream* stream = &s;
  task->onStart = [this, fn, data, stream, target, blocking] {
    bool delivered = false;
    threads_.forEach([&](HostThread& th) {
      if (delivered || th.reportId != target) return;
      th.reports.push_back({fn, data, stream, blocking, system_->now()});
      delivered = true;
    });
    if (delivered) return;
    // A served program's thread that has not called yet gets it when it does.
    if (servesPrograms_ && !endedRemoteThreads_.count(target)) {
      reportsForLaterThreads_[target].push_back({fn, data, stream, blocking, system_->now()});
      return;
    }
    // The subscribed thread exited: nobody will run it. A blocking callback then ends at once.
    if (blocking) stream->device->scheduler->finishExternal(stream->queue, system_->now());
  };
  streams_.submit(t, s, std::move(task));
}

void Runtime::subscribeHostFunc(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = streams_.stream(t, sh);
  if (s.hostFuncThread != 0 && !s.hostFuncThreadIsOwn) {
    fail(ACL_ERROR_REPEAT_SUBSCRIBE,
         "the stream's host functions are already subscribed to a thread");
  }
  s.hostFuncThread = threadId;
  s.hostFuncThreadIsOwn = false;
  endedRemoteThreads_.erase(threadId);
}

void Runtime::unsubscribeHostFunc(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = streams_.stream(t, sh);
  if (s.hostFuncThread != threadId || s.hostFuncThreadIsOwn) {
    fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
         "the stream's host functions are not subscribed to that thread");
  }
  s.hostFuncThread = 0;
}

void Runtime::startHostFuncThread(HostThread& t, Stream& s) {
  Stream* stream = &s;
  std::thread worker([this, stream] {
    // Runs the stream's host functions until the stream is gone (or AscendCL is finalised).
    for (;;) {
      const aclError code = call(
          "aclrtProcessHostFunc", &spec::ApiOverheads::defaultCall, true, [&](HostThread& self) {
            if (!streams_.find(stream) || stream->hostFuncThread != self.reportId) {
              fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                   "the stream of this host-function thread is gone");
            }
            processReport(self, -1);
          });
      if (code == ACL_ERROR_RT_THREAD_SUBSCRIBE || code == ACL_ERROR_UNINITIALIZE) return;
    }
  });
  // Numbered now, after its creator, so that runs are reproducible (HostThreads).
  const uint64_t id = static_cast<uint64_t>(worker.native_handle());
  threads_.adopt(id, t);
  s.hostFuncThread = id;
  s.hostFuncThreadIsOwn = true;
  worker.detach();
}

void Runtime::launchHostFunc(HostThread& t, aclrtStream sh, aclrtHostFunc fn, void* args) {
  if (!fn) fail(ACL_ERROR_INVALID_PARAM, "host function is NULL");
  Stream& s = streams_.stream(t, sh);
  if (s.hostFuncThread == 0) startHostFuncThread(t, s);
  queueCallback(t, s, fn, args, true, s.hostFuncThread);
}

CallbackReport Runtime::nextReport(HostThread& t, int32_t timeoutMs, uint64_t hostFuncStream) {
  if (timeoutMs < -1 || timeoutMs == 0) {
    fail(ACL_ERROR_INVALID_PARAM, "timeout must be -1 (wait forever) or more than 0 ms");
  }
  const bool subscribed = streams_.any([&](const Stream& s) {
    return s.subscribedThread == t.reportId || s.hostFuncThread == t.reportId;
  });
  if (!subscribed && t.reports.empty())
    fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "no stream is subscribed to this thread");
  // (A served program's host-function thread also stops waiting when its stream is gone.)
  auto ownsStream = [&] {
    Stream* s = streams_.find(reinterpret_cast<aclrtStream>(hostFuncStream));
    return s && s->hostFuncThread == t.reportId;
  };
  auto ready = [&] { return !t.reports.empty() || (hostFuncStream && !ownsStream()); };
  const bool got =
      timeoutMs == -1
          ? waitFor(t, ready)
          : waitUntilDeadline(t, ready, t.now + spec::Picoseconds{timeoutMs} * 1000000000);
  if (!got) {
    if (timeoutMs != -1) t.now += spec::Picoseconds{timeoutMs} * 1000000000;
    fail(ACL_ERROR_RT_REPORT_TIMEOUT, timeoutMs == -1 ? "deadlock: no callback can ever arrive"
                                                      : "no callback arrived within the timeout");
  }
  if (t.reports.empty())
    fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "the stream of this host-function thread is gone");
  CallbackReport report = t.reports.front();
  t.reports.pop_front();
  t.now = std::max(t.now, report.readyAt);
  return report;
}

void Runtime::processReport(HostThread& t, int32_t timeoutMs) {
  CallbackReport report = nextReport(t, timeoutMs);
  // Run the user's function without the lock: it may call AscendCL itself.
  // A blocking function holds its stream up: while it runs, calls of this thread that would wait
  // for that stream are refused (refuseInsideCallback), and the stream object outlives the call.
  Stream* const holding = report.blocking ? streams_.find(report.stream) : nullptr;
  std::optional<Streams::Use> use;
  if (holding) use.emplace(streams_, *holding);
  struct Restore {  // (a callback may process reports itself, or throw)
    HostThread& t;
    Stream* outer;
    ~Restore() { t.inCallbackOf = outer; }
  } restore{t, t.inCallbackOf};
  t.inCallbackOf = holding;
  threads_.runUnlocked(t, [&] { report.fn(report.userData); });
  // The callback's own run time is not simulated: the stream resumes one call overhead after the
  // report, however long this thread polled before it picked the report up.
  if (report.blocking && streams_.find(report.stream)) {
    report.stream->device->scheduler->finishExternal(report.stream->queue,
                                                     report.readyAt + overheads().defaultCall);
  }
}

// ---------------------------------------------------------------- served programs' callbacks

CallbackReport Runtime::takeReport(HostThread& t, int32_t timeoutMs, uint64_t hostFuncStream,
                                   Stream*& outer) {
  if (hostFuncStream) checkHostFuncThread(t, hostFuncStream);
  CallbackReport report = nextReport(t, timeoutMs, hostFuncStream);
  // As processReport: a blocking function holds its stream (and the stream object) until the
  // program says it returned.
  Stream* const holding = report.blocking ? streams_.find(report.stream) : nullptr;
  if (holding) ++holding->users;
  outer = t.inCallbackOf;
  t.inCallbackOf = holding;
  return report;
}

void Runtime::endReport(const CallbackReport& report, Stream* outer) {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread* t = HostThreads::self();
  Stream* const holding = t ? t->inCallbackOf : nullptr;
  if (t) t->inCallbackOf = outer;
  if (holding) {
    const Streams::Use release(streams_, *holding);  // (with the hold takeReport took: the last
    --holding->users;                                // user of a destroyed stream lets it go)
  }
  if (report.blocking && streams_.find(report.stream)) {
    report.stream->device->scheduler->finishExternal(report.stream->queue,
                                                     report.readyAt + overheads().defaultCall);
  }
  threads_.changed();
}

uint64_t Runtime::hostFuncStream(aclrtStream sh, bool& hasThread) {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread* t = HostThreads::self();
  if (!t || !initialized_) return 0;
  try {
    Stream& s = streams_.stream(*t, sh);
    hasThread = s.hostFuncThread != 0;
    return reinterpret_cast<uint64_t>(&s);
  } catch (const AclFailure&) {
    return 0;  // (the launch itself says why)
  }
}

bool Runtime::streamDestroyable(aclrtStream sh) {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread* t = HostThreads::self();
  if (!t || !initialized_) return false;
  try {
    streams_.destroyable(*t, sh);
    return true;
  } catch (const AclFailure&) {
    return false;  // (the destruction itself says why)
  }
}

std::vector<aclrtStream> Runtime::servedStreamStates(uint8_t question, uint64_t arg) {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread* t = HostThreads::self();
  if (!t || !initialized_) return {};
  std::vector<Stream*> streams;
  switch (question) {
    case kMadeDefaultStream:
      if (t->madeDefaultStream && streams_.find(t->madeDefaultStream))
        streams.push_back(t->madeDefaultStream);
      t->madeDefaultStream = nullptr;  // (asked once)
      break;
    case kContextGoing:
      streams = devices().goingWithContext(*t, reinterpret_cast<aclrtContext>(arg));
      break;
    case kDeviceGoing:
    case kDeviceGoingForce:
      streams = devices().goingWithDevice(*t, static_cast<int32_t>(static_cast<uint32_t>(arg)),
                                          question == kDeviceGoingForce);
      break;
    default: break;
  }
  return std::vector<aclrtStream>(streams.begin(), streams.end());
}

bool Runtime::adoptHostFuncStream(uint64_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread* t = HostThreads::self();
  Stream* s = streams_.find(reinterpret_cast<aclrtStream>(stream));
  if (!t || !s || !s->context || s->hostFuncThread != 0) return false;
  s->hostFuncThread = t->reportId;
  s->hostFuncThreadIsOwn = true;
  return true;
}

void Runtime::launchServedHostFunc(HostThread& t, aclrtStream sh, aclrtHostFunc fn, void* args) {
  if (!fn) fail(ACL_ERROR_INVALID_PARAM, "host function is NULL");
  Stream& s = streams_.stream(t, sh);
  // (The program starts the stream's thread before it sends the function: the server has none
  // to start, the function being the program's.)
  if (s.hostFuncThread == 0)
    fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "the stream's host-function thread is gone");
  queueCallback(t, s, fn, args, true, s.hostFuncThread);
}

void Runtime::checkHostFuncThread(HostThread& t, uint64_t stream) {
  Stream* s = streams_.find(reinterpret_cast<aclrtStream>(stream));
  if (!s || s->hostFuncThread != t.reportId)
    fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "the stream of this host-function thread is gone");
}

// ---------------------------------------------------------------- served exception callbacks

std::vector<ServedException> Runtime::takeServedExceptions() {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread* self = HostThreads::self();
  return self ? exceptions_.takeServed(*self) : std::vector<ServedException>();
}

void Runtime::runServedExceptions(std::vector<ServedException>& failures) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const ServedException& f : failures) exceptions_.markLive(&f.info, true);
  }
  for (ServedException& f : failures) {
    for (aclrtExceptionInfoCallback callback : f.callbacks) callback(&f.info);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const ServedException& f : failures) exceptions_.markLive(&f.info, false);
}

}  // namespace ascendsim::runtime
