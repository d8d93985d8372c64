// Streams and the scheduling of their tasks (the Streams service).

#include "runtime/core/streams.h"

#include <algorithm>

#include "runtime/core/errors.h"
#include "runtime/core/soc_cores.h"

namespace ascendsim::runtime {

std::string Streams::name(aclrtStream s) const {
  if (!s) return "default";
  const Stream* st = streams_.find(s);
  return st ? st->device->spec->name + "/" + std::to_string(st->queue.id()) : "invalid";
}

Stream& Streams::stream(HostThread& t, aclrtStream handle) {
  if (!handle) return *requireContext(t).defaultStream;
  Stream* s = streams_.find(handle);
  // Internal streams are not handles a program ever received.
  if (!s || !s->context)
    fail(ACL_ERROR_RT_INVALID_HANDLE,
         "stream " + describePointer(handle) + " does not exist (destroyed already?)");
  return *s;
}

Stream* Streams::create(HostThread& t, uint32_t priority, uint32_t flags) {
  Context& ctx = requireContext(t);
  if (priority > 7)
    fail(ACL_ERROR_INVALID_PARAM, "priority " + std::to_string(priority) + " is out of range 0..7");
  // CANN creates a plain stream for any other bits; HUGE has no effect on these SoCs (CANN's
  // aclrtCreateStreamWithConfig documentation).
  const uint32_t known =
      ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_HUGE | ACL_STREAM_DEVICE_USE_ONLY |
      ACL_STREAM_PERSISTENT;  // (persistent: its tasks are a model's, model_runs.cpp)
  if (flags & ~known) {
    port_.warn(t, "stream-flags-ignored",
               "stream flag bits " + std::to_string(flags & ~known) +
                   " mean nothing here; a plain stream was created, as CANN does");
  }
  if (flags & ACL_STREAM_FAST_LAUNCH) {
    // Its internal resources are taken now instead of at each launch.
    t.now = t.now - t.callOverhead + port_.overheads().fastLaunchStreamCreate;
    t.callOverhead = port_.overheads().fastLaunchStreamCreate;
  }
  Stream& s = open(*ctx.device, &ctx, false);
  s.priority = priority;
  ctx.device->scheduler->setPriority(s.queue, priority);
  s.flags = flags & known;
  return &s;
}

aclrtStreamConfigHandle* Streams::createConfig() {
  auto config = std::make_unique<aclrtStreamConfigHandle>();
  *config = aclrtStreamConfigHandle{};
  aclrtStreamConfigHandle* handle = config.get();
  configs_.emplace(handle, std::move(config));
  return handle;
}

void Streams::destroyConfig(aclrtStreamConfigHandle* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
  if (configs_.erase(handle) == 0) {
    fail(ACL_ERROR_INVALID_PARAM,
         "handle " + describePointer(handle) +
             " was not made by aclrtCreateStreamConfigHandle (destroyed already?)");
  }
}

Stream& Streams::destroyable(HostThread& t, aclrtStream handle) {
  if (!handle)
    fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be destroyed)");
  Stream& s = stream(t, handle);
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

void Streams::destroy(HostThread& t, aclrtStream handle) {
  destroyable(t, handle);
  stateChanged(t, handle, ACL_RT_STREAM_STATE_DESTROY_PRE);
  Stream& s = destroyable(t, handle);  // (checked again: the callbacks ran unlocked)
  if (t.inCallbackOf == &s) refuseInsideCallback(t, s.device, "aclrtDestroyStream");
  Use use(*this, s);
  wait(t, s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  failIfDestroyedMeanwhile(s);
  erase(s);
}

void Streams::failIfDestroyedMeanwhile(const Stream& s) {
  if (!s.destroyed) return;
  fail(ACL_ERROR_RT_INVALID_HANDLE, "stream " + std::to_string(s.queue.id()) +
                                        " was destroyed by another thread while this call "
                                        "waited for it");
}

void Streams::destroyForce(HostThread& t, aclrtStream handle) {
  destroyable(t, handle);
  stateChanged(t, handle, ACL_RT_STREAM_STATE_DESTROY_PRE);
  Stream& s = destroyable(t, handle);
  if (t.inCallbackOf == &s) refuseInsideCallback(t, s.device, "aclrtDestroyStreamForce");
  Use use(*this, s);
  // What is queued or running is dropped: cancelled tasks take no time and move no data.
  discardTasks(s);
  const bool idle = port_.waitUntil(t, [&s] { return s.queue.idle(); });
  failIfDestroyedMeanwhile(s);
  if (!idle) {
    while (!s.queue.idle()) {
      std::unique_ptr<models::Task> dropped = s.queue.popHead(port_.simulatedNow());
      if (dropped->release) dropped->release();  // its memory holds
    }
  }
  t.now = std::max(t.now, s.queue.lastCompletion());
  erase(s);
}

void Streams::discardTasks(Stream& s) {
  *s.stopped = true;
  s.device->scheduler->wake();  // heads waiting for an event or a value are cancelled now
}

void Streams::stop(HostThread& t, aclrtStream handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "stream is NULL");
  Stream& s = stream(t, handle);
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

void Streams::abort(HostThread& t, aclrtStream handle) {
  Stream& s = stream(t, handle);
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

void setStateCallback(StateCallbacks& callbacks, const char* name,
                      aclrtStreamStateCallback callback, void* args) {
  if (!name || !*name) fail(ACL_ERROR_INVALID_PARAM, "regName is NULL or empty");
  if (!callback) {
    callbacks.erase(name);
    return;
  }
  // CANN refuses a name registered already (rtsRegStreamStateCallback: RT_ERROR_INVALID_VALUE,
  // ACL_ERROR_RT_PARAM_INVALID); NULL removes it.
  if (callbacks.count(name))
    fail(ACL_ERROR_RT_PARAM_INVALID, std::string("regName \"") + name +
                                         "\" is registered already (remove it first: "
                                         "callback NULL)");
  callbacks[name] = {callback, args};
}

void Streams::registerStateCallback(const char* name, aclrtStreamStateCallback callback,
                                    void* args) {
  setStateCallback(stateCallbacks_, name, callback, args);
}

void Streams::forgetAllocators(int32_t pid) {
  for (Stream* s : streams_.all()) s->allocators.erase(pid);
}

void Streams::stateChanged(HostThread& t, aclrtStream s, aclrtStreamState state) {
  if (stateCallbacks_.empty()) return;
  const auto callbacks = stateCallbacks_;  // a callback may register or remove others
  port_.runUnlocked(t, [&] {
    for (const auto& entry : callbacks) entry.second.first(s, state, entry.second.second);
  });
}

void Streams::setFailureMode(HostThread& t, aclrtStream handle, uint64_t mode) {
  Stream& s = stream(t, handle);
  if (!s.context) fail(ACL_ERROR_RT_PARAM_INVALID, "the stream has no context");
  const bool stop = (mode & 1) != 0;  // CANN reads the lowest bit
  if (s.context->stopOnFailure && !stop) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "a stream cannot go from ACL_STOP_ON_FAILURE back to ACL_CONTINUE_ON_FAILURE");
  }
  // The mode holds for every stream of the context (CANN's documentation).
  if (stop) s.context->stopOnFailure = true;
}

void Streams::synchronize(HostThread& t, aclrtStream handle, int32_t timeoutMs) {
  if (timeoutMs < -1)
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "timeout " + std::to_string(timeoutMs) +
             " ms is invalid: -1 waits forever, otherwise give 0 or more");
  Stream& s = stream(t, handle);
  // Another thread may destroy the stream while this one waits: it waits for the same tasks.
  Use use(*this, s);
  if (timeoutMs == -1) {
    wait(t, s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  } else {
    const spec::Picoseconds deadline = t.now + spec::Picoseconds{timeoutMs} * 1000000000;
    if (!port_.waitUntilDeadline(
            t, [&s] { return s.queue.idle(); }, deadline)) {
      t.now = std::max(t.now, deadline);
      fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
           "stream " + std::to_string(s.queue.id()) + " did not finish within " +
               std::to_string(timeoutMs) + " ms of simulated time");
    }
    t.now = std::max(t.now, s.queue.lastCompletion());
  }
  reportFailure(s);
  // A FAST_SYNC stream is polled: the thread sees the end without being woken.
  t.now +=
      (s.flags & ACL_STREAM_FAST_SYNC) ? port_.overheads().fastSync : port_.overheads().synchronize;
}

bool Streams::idle(HostThread& t, aclrtStream handle) {
  Stream& s = stream(t, handle);
  port_.catchUp(t);
  return s.queue.idle();
}

void Streams::reportFailure(Stream& s) {
  if (s.failure == 0) return;
  const aclError code = s.failure;
  const std::string message = s.failureMessage;
  if (!*s.stopped) {  // reported once; a stream stopped on it reports it every time
    s.failure = 0;
    s.failureMessage.clear();
  }
  fail(code, message);
}

Stream& Streams::open(Device& d, Context* ctx, bool isDefault) {
  if (d.streams >= d.spec->scheduler.maxStreams) {
    fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "device " + std::to_string(d.id) +
                                              " has no stream left (max_streams " +
                                              std::to_string(d.spec->scheduler.maxStreams) + ")");
  }
  auto s = std::make_unique<Stream>(d.nextStreamId++, d.spec->scheduler.queueDepth);
  s->device = &d;
  s->context = ctx;
  s->isDefault = isDefault;
  s->saturate = d.overflowMode == ACL_RT_OVERFLOW_MODE_SATURATION;
  Stream& ref = streams_.add(std::move(s));
  d.scheduler->attach(ref.queue);
  d.streams++;
  if (ctx) ctx->streams.push_back(&ref);
  return ref;
}

void Streams::erase(Stream& s) {
  if (models_) models_->forgetStream(s);
  s.device->scheduler->detach(s.queue);
  s.device->streams--;
  if (s.context) {
    auto& v = s.context->streams;
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
  }
  s.destroyed = true;
  s.context = nullptr;  // (its context may go next)
  if (s.users > 0) {
    destroyed_.push_back(streams_.take(&s));  // a waiter still looks at it
  } else {
    streams_.erase(&s);
  }
}

Streams::Use::~Use() {
  if (--s_.users > 0 || !s_.destroyed) return;
  auto& gone = streams_.destroyed_;
  gone.erase(std::remove_if(gone.begin(), gone.end(),
                            [this](const std::unique_ptr<Stream>& p) { return p.get() == &s_; }),
             gone.end());
}

void Streams::wait(HostThread& t, Stream& s, aclError deadlockCode) {
  Use use(*this, s);
  if (!port_.waitUntil(t, [&s] { return s.queue.idle(); })) {
    fail(deadlockCode,
         "deadlock: stream " + std::to_string(s.queue.id()) + " of device " +
             std::to_string(s.device->id) + " still has " + std::to_string(s.queue.pending()) +
             " task(s) that can never run (its head waits for an event that no stream "
             "will record, a value no task will write, or a callback no thread will process)");
  }
  t.now = std::max(t.now, s.queue.lastCompletion());
}

void Streams::waitForQueueSlot(HostThread& t, Stream& s) {
  if (!s.queue.full()) return;
  // The queue also holds tasks the model has not simulated yet: retire those that ended by the
  // caller's present before deciding the stream is full.
  port_.catchUp(t);
  if (!s.queue.full()) return;
  // Full at the caller's present: the call waits until the head task ends, as CANN's task
  // sender retries until the stream has room.
  Use use(*this, s);
  if (!port_.waitUntil(t, [&s] { return s.destroyed || !s.queue.full(); })) {
    fail(ACL_ERROR_RT_STREAM_TASK_FULL, "deadlock: stream " + std::to_string(s.queue.id()) +
                                            " holds " + std::to_string(s.queue.pending()) +
                                            " tasks (queue_depth " +
                                            std::to_string(s.device->spec->scheduler.queueDepth) +
                                            ") and its head can never run, so no slot will free");
  }
  if (s.destroyed) {
    fail(ACL_ERROR_RT_INVALID_HANDLE, "stream " + std::to_string(s.queue.id()) +
                                          " was destroyed by another thread while this call "
                                          "waited for room on it");
  }
  t.now = std::max(t.now, port_.simulatedNow());
}

void Streams::submit(HostThread& t, Stream& s, std::unique_ptr<models::Task> task) {
  if (*s.stopped) {
    fail(s.failure ? s.failure : ACL_ERROR_RT_AICORE_EXCEPTION,
         "stream " + std::to_string(s.queue.id()) +
             " stopped on a failed task (ACL_STOP_ON_FAILURE): it takes no new tasks" +
             (s.failureMessage.empty() ? std::string() : ": " + s.failureMessage));
  }
  if (recording(s)) {
    // Captured, or a persistent stream of a model being built: the task becomes a step of the
    // model, replayed by each of its launches.
    models_->record(s, std::move(task));
    return;
  }
  if (s.flags & ACL_STREAM_PERSISTENT) {
    fail(ACL_ERROR_RT_STREAM_MODEL, "stream " + std::to_string(s.queue.id()) +
                                        " is persistent (ACL_STREAM_PERSISTENT): it takes tasks "
                                        "only while bound to a model being built");
  }
  task->cancelled = s.stopped;
  // A FAST_LAUNCH stream has its resources already: the enqueue costs at most `fast_launch`.
  if ((s.flags & ACL_STREAM_FAST_LAUNCH) && t.callOverhead > port_.overheads().fastLaunch) {
    t.now -= t.callOverhead - port_.overheads().fastLaunch;
    t.callOverhead = port_.overheads().fastLaunch;
  }
  waitForQueueSlot(t, s);
  if (const uint32_t limit =
          kernelCoreLimit(*s.device->spec, s.device->cubeCoreLimit, s.device->vectorCoreLimit);
      task->kind == models::TaskKind::Kernel && limit > 0) {
    // aclrtSetDeviceResLimit: the kernel runs on at most that many cores.
    task->kernel.blocks = task->kernel.blocks ? std::min(task->kernel.blocks, limit) : limit;
  }
  task->id = nextTaskId_++;
  task->kernel.seed = task->id;  // a random-access kernel draws its own places
  task->submitTime = std::max(t.now, port_.simulatedNow());
  task->hostThread = static_cast<int>(t.index);
  task->hostThreadInProcess = static_cast<int>(t.track.thread);
  t.callTasks.push_back(task->id);
  t.lastTaskId = task->id;
  s.device->scheduler->submit(s.queue, std::move(task));
}

void Streams::release(HostThread& t, Stream* s) {
  if (!s || !streams_.find(s)) return;
  if (!port_.waitUntil(t, [s] { return s->queue.idle(); })) {
    port_.warn(t, "tasks-dropped",
               std::to_string(s->queue.pending()) + " task(s) of internal stream " +
                   std::to_string(s->queue.id()) + " of device " + std::to_string(s->device->id) +
                   " could never run and were dropped");
    while (!s->queue.idle()) {
      std::unique_ptr<models::Task> dropped = s->queue.popHead(port_.simulatedNow());
      if (dropped->release) dropped->release();
    }
  }
  t.now = std::max(t.now, s->queue.lastCompletion());
  erase(*s);
}

void Streams::releaseOfContext(HostThread& t, Stream& stream) {
  Stream* s = &stream;
  // Waiting lets other threads destroy streams: keep this one while waiting, skip it if gone.
  Use use(*this, *s);
  const bool idle = port_.waitUntil(t, [s] { return s->queue.idle(); });
  if (s->destroyed) return;
  if (!idle) {
    port_.warn(t, "tasks-dropped",
               std::to_string(s->queue.pending()) + " task(s) of stream " +
                   std::to_string(s->queue.id()) + " could never run and were dropped");
    while (!s->queue.idle()) s->queue.popHead(port_.simulatedNow());
  }
  t.now = std::max(t.now, s->queue.lastCompletion());
  erase(*s);
}

void Streams::synchronizeDevice(HostThread& t, Device& d) {
  // Waiting lets other threads create and destroy streams: go over a snapshot, skipping the gone.
  for (Stream* s : streams_.all()) {
    if (streams_.find(s) && s->device == &d) wait(t, *s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  }
  t.now += port_.overheads().synchronize;
  for (Stream* s : streams_.all()) {
    if (streams_.find(s) && s->device == &d) reportFailure(*s);
  }
}

void Streams::close(HostThread& t, Stream& s) {
  wait(t, s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  erase(s);
}

void Streams::queueAt(Stream& s, std::unique_ptr<models::Task> task, spec::Picoseconds when) {
  task->id = nextTaskId_++;
  task->kernel.seed = task->id;
  task->submitTime = when;
  task->cancelled = s.stopped;
  s.device->scheduler->submit(s.queue, std::move(task));
}

}  // namespace ascendsim::runtime
