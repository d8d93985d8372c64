// Streams, events and host callbacks.

#include <algorithm>
#include <optional>
#include <thread>

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

using models::Task;
using models::TaskKind;

std::string Runtime::streamName(aclrtStream s) const {
  if (!s) return "default";
  const Stream* st = streams_.find(s);
  return st ? st->device->spec->name + "/" + std::to_string(st->queue.id()) : "invalid";
}

Stream& Runtime::resolveStream(HostThread& t, aclrtStream handle) {
  if (!handle) return *requireContext(t).defaultStream;
  Stream* s = streams_.find(handle);
  // Internal streams are not handles a program ever received.
  if (!s || !s->context)
    fail(ACL_ERROR_RT_INVALID_HANDLE,
         "stream " + describePointer(handle) + " does not exist (destroyed already?)");
  return *s;
}

Stream* Runtime::createStream(HostThread& t, uint32_t priority, uint32_t flags) {
  Context& ctx = requireContext(t);
  if (priority > 7)
    fail(ACL_ERROR_INVALID_PARAM, "priority " + std::to_string(priority) + " is out of range 0..7");
  // CANN creates a plain stream for any other bits; HUGE has no effect on these SoCs (CANN's
  // aclrtCreateStreamWithConfig documentation).
  const uint32_t known =
      ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_HUGE | ACL_STREAM_DEVICE_USE_ONLY |
      ACL_STREAM_PERSISTENT;  // (persistent: its tasks are a model's, runtime_models.cpp)
  if (flags & ~known) {
    warn(t, "stream-flags-ignored",
         "stream flag bits " + std::to_string(flags & ~known) +
             " mean nothing here; a plain stream was created, as CANN does");
  }
  if (flags & ACL_STREAM_FAST_LAUNCH) {
    // Its internal resources are taken now instead of at each launch.
    t.now = t.now - t.callOverhead + overheads().fastLaunchStreamCreate;
    t.callOverhead = overheads().fastLaunchStreamCreate;
  }
  Stream& s = newStream(*ctx.device, &ctx, false);
  s.priority = priority;
  ctx.device->scheduler->setPriority(s.queue, priority);
  s.flags = flags & known;
  return &s;
}

aclrtStreamConfigHandle* Runtime::createStreamConfig() {
  auto config = std::make_unique<aclrtStreamConfigHandle>();
  *config = aclrtStreamConfigHandle{};
  aclrtStreamConfigHandle* handle = config.get();
  streamConfigs_.emplace(handle, std::move(config));
  return handle;
}

void Runtime::destroyStreamConfig(aclrtStreamConfigHandle* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
  if (streamConfigs_.erase(handle) == 0) {
    fail(ACL_ERROR_INVALID_PARAM,
         "handle " + describePointer(handle) +
             " was not made by aclrtCreateStreamConfigHandle (destroyed already?)");
  }
}

Stream& Runtime::destroyableStream(HostThread& t, aclrtStream handle) {
  if (!handle)
    fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be destroyed)");
  Stream& s = resolveStream(t, handle);
  if (s.isDefault)
    fail(ACL_ERROR_INVALID_PARAM, "the default stream of a context cannot be destroyed");
  Context& ctx = requireContext(t);
  if (s.context != &ctx) {
    fail(ACL_ERROR_RT_STREAM_CONTEXT, "stream belongs to another context (device " +
                                          std::to_string(s.device->id) +
                                          "); destroy it with its own context current");
  }
  return s;
}

void Runtime::destroyStream(HostThread& t, aclrtStream handle) {
  destroyableStream(t, handle);
  streamStateChanged(t, handle, ACL_RT_STREAM_STATE_DESTROY_PRE);
  Stream& s = destroyableStream(t, handle);  // (checked again: the callbacks ran unlocked)
  if (t.inCallbackOf == &s) refuseInsideCallback(t, s.device, "aclrtDestroyStream");
  StreamUse use(*this, s);
  waitStream(t, s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  failIfDestroyedMeanwhile(s);
  deleteStream(s);
}

void Runtime::failIfDestroyedMeanwhile(const Stream& s) {
  if (!s.destroyed) return;
  fail(ACL_ERROR_RT_INVALID_HANDLE, "stream " + std::to_string(s.queue.id()) +
                                        " was destroyed by another thread while this call "
                                        "waited for it");
}

void Runtime::destroyStreamForce(HostThread& t, aclrtStream handle) {
  destroyableStream(t, handle);
  streamStateChanged(t, handle, ACL_RT_STREAM_STATE_DESTROY_PRE);
  Stream& s = destroyableStream(t, handle);
  if (t.inCallbackOf == &s) refuseInsideCallback(t, s.device, "aclrtDestroyStreamForce");
  StreamUse use(*this, s);
  // What is queued or running is dropped: cancelled tasks take no time and move no data.
  discardTasks(s);
  const bool idle = waitFor(t, [&s] { return s.queue.idle(); });
  failIfDestroyedMeanwhile(s);
  if (!idle) {
    while (!s.queue.idle()) {
      std::unique_ptr<models::Task> dropped = s.queue.popHead(system_->now());
      if (dropped->release) dropped->release();  // its memory holds
    }
  }
  t.now = std::max(t.now, s.queue.lastCompletion());
  deleteStream(s);
}

void Runtime::discardTasks(Stream& s) {
  *s.stopped = true;
  s.device->scheduler->wake();  // heads waiting for an event or a value are cancelled now
}

void Runtime::stopStream(HostThread& t, aclrtStream handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "stream is NULL");
  Stream& s = resolveStream(t, handle);
  if (!(s.flags & ACL_STREAM_DEVICE_USE_ONLY)) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "aclrtStreamStop takes streams created with ACL_STREAM_DEVICE_USE_ONLY "
         "(CANN, A2/A3); use aclrtStreamAbort for this one");
  }
  discardTasks(s);  // for good: the stream stays stopped
  s.failure = ACL_ERROR_RT_INTERNAL_ERROR;
  s.failureMessage =
      "stream " + std::to_string(s.queue.id()) +
      " was stopped by aclrtStreamStop: its tasks were discarded and it takes no new ones";
}

void Runtime::abortStream(HostThread& t, aclrtStream handle) {
  Stream& s = resolveStream(t, handle);
  if (s.flags & ACL_STREAM_DEVICE_USE_ONLY) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "aclrtStreamAbort does not take ACL_STREAM_DEVICE_USE_ONLY streams (CANN); "
         "use aclrtStreamStop");
  }
  if (*s.stopped) return;  // stopped on a failure already: nothing runs
  discardTasks(s);
  // Tasks queued from now on run: they get a fresh flag.
  s.stopped = std::make_shared<bool>(false);
  s.failure = ACL_ERROR_RT_STREAM_ABORT;
  s.failureMessage = "stream " + std::to_string(s.queue.id()) +
                     " was aborted (aclrtStreamAbort): the tasks queued "
                     "before were discarded";
}

void Runtime::registerStreamStateCallback(const char* name, aclrtStreamStateCallback callback,
                                          void* args) {
  if (!name || !*name) fail(ACL_ERROR_INVALID_PARAM, "regName is NULL or empty");
  if (callback) {
    streamStateCallbacks_[name] = {callback, args};
  } else {
    streamStateCallbacks_.erase(name);
  }
}

void Runtime::streamStateChanged(HostThread& t, aclrtStream s, aclrtStreamState state) {
  if (streamStateCallbacks_.empty()) return;
  const auto callbacks = streamStateCallbacks_;  // a callback may register or remove others
  threads_.runUnlocked(t, [&] {
    for (const auto& entry : callbacks) entry.second.first(s, state, entry.second.second);
  });
}

void Runtime::setStreamFailureMode(HostThread& t, aclrtStream handle, uint64_t mode) {
  Stream& s = resolveStream(t, handle);
  if (!s.context) fail(ACL_ERROR_RT_PARAM_INVALID, "the stream has no context");
  const bool stop = (mode & 1) != 0;  // CANN reads the lowest bit
  if (s.context->stopOnFailure && !stop) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "a stream cannot go from ACL_STOP_ON_FAILURE back to ACL_CONTINUE_ON_FAILURE");
  }
  // The mode holds for every stream of the context (CANN's documentation).
  if (stop) s.context->stopOnFailure = true;
}

void Runtime::synchronizeStream(HostThread& t, aclrtStream handle, int32_t timeoutMs) {
  if (timeoutMs < -1)
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "timeout " + std::to_string(timeoutMs) +
             " ms is invalid: -1 waits forever, otherwise give 0 or more");
  Stream& s = resolveStream(t, handle);
  // Another thread may destroy the stream while this one waits: it waits for the same tasks.
  StreamUse use(*this, s);
  if (timeoutMs == -1) {
    waitStream(t, s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  } else {
    const spec::Picoseconds deadline = t.now + spec::Picoseconds{timeoutMs} * 1000000000;
    if (!waitUntilDeadline(
            t, [&s] { return s.queue.idle(); }, deadline)) {
      t.now = std::max(t.now, deadline);
      fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
           "stream " + std::to_string(s.queue.id()) + " did not finish within " +
               std::to_string(timeoutMs) + " ms of simulated time");
    }
    t.now = std::max(t.now, s.queue.lastCompletion());
  }
  reportStreamFailure(s);
  // A FAST_SYNC stream is polled: the thread sees the end without being woken.
  t.now += (s.flags & ACL_STREAM_FAST_SYNC) ? overheads().fastSync : overheads().synchronize;
}

bool Runtime::streamIdle(HostThread& t, aclrtStream handle) {
  Stream& s = resolveStream(t, handle);
  catchUp(t);
  return s.queue.idle();
}

// ---------------------------------------------------------------- callbacks

void Runtime::subscribeReport(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = resolveStream(t, sh);
  if (s.subscribedThread != 0)
    fail(ACL_ERROR_REPEAT_SUBSCRIBE, "the stream is already subscribed to a thread");
  s.subscribedThread = threadId;
  // (A served program's thread of this name that ended before: a new one has its pthread_t.)
  endedRemoteThreads_.erase(threadId);
}

void Runtime::unsubscribeReport(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = resolveStream(t, sh);
  if (s.subscribedThread != threadId)
    fail(ACL_ERROR_RT_STREAM_NO_CB_REG, "the stream is not subscribed to that thread");
  s.subscribedThread = 0;
}

void Runtime::launchCallback(HostThread& t, aclrtCallback fn, void* data, int32_t block,
                             aclrtStream sh) {
  if (!fn) fail(ACL_ERROR_INVALID_PARAM, "callback function is NULL");
  if (block != ACL_CALLBACK_NO_BLOCK && block != ACL_CALLBACK_BLOCK)
    fail(ACL_ERROR_INVALID_PARAM, "unknown aclrtCallbackBlockType");
  Stream& s = resolveStream(t, sh);
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
  submit(t, s, std::move(task));
}

void Runtime::subscribeHostFunc(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = resolveStream(t, sh);
  if (s.hostFuncThread != 0 && !s.hostFuncThreadIsOwn) {
    fail(ACL_ERROR_REPEAT_SUBSCRIBE,
         "the stream's host functions are already subscribed to a thread");
  }
  s.hostFuncThread = threadId;
  s.hostFuncThreadIsOwn = false;
  endedRemoteThreads_.erase(threadId);
}

void Runtime::unsubscribeHostFunc(HostThread& t, uint64_t threadId, aclrtStream sh) {
  Stream& s = resolveStream(t, sh);
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
  Stream& s = resolveStream(t, sh);
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
  std::optional<StreamUse> use;
  if (holding) use.emplace(*this, *holding);
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

void Runtime::reportStreamFailure(Stream& s) {
  if (s.failure == 0) return;
  const aclError code = s.failure;
  const std::string message = s.failureMessage;
  if (!*s.stopped) {  // reported once; a stream stopped on it reports it every time
    s.failure = 0;
    s.failureMessage.clear();
  }
  fail(code, message);
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
    const StreamUse release(*this, *holding);  // (with the hold takeReport took: the last user
    --holding->users;                          // of a destroyed stream lets it go)
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
    Stream& s = resolveStream(*t, sh);
    hasThread = s.hostFuncThread != 0;
    return reinterpret_cast<uint64_t>(&s);
  } catch (const AclFailure&) {
    return 0;  // (the launch itself says why)
  }
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
  Stream& s = resolveStream(t, sh);
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

}  // namespace ascendsim::runtime
