#pragma once
// Streams and the scheduling of their tasks: the program's streams (aclrtCreateStream...,
// synchronisation, destruction, stop and abort, failure modes, state callbacks and stream
// configurations) and the internal ones, each an in-order StreamQueue on its device's
// DeviceScheduler. Every task of the runtime and its services is queued here (`submit`): at the
// thread's present, after a free slot (queue_depth), under the device's core limits; a stream
// that records into a model (ModelRuns) takes the tasks as steps. A service over the scheduling
// core (ServicePort: waiting in simulated time, overheads, warnings); it never sees another
// service but the ModelRuns it records into.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "models/task/task.h"
#include "runtime/core/handle_table.h"
#include "runtime/core/host_thread.h"
#include "runtime/core/model_runs.h"
#include "runtime/core/objects.h"
#include "runtime/core/service_port.h"

namespace ascendsim::runtime {

// Stream state callbacks by registration name (aclrtRegStreamStateCallback).
using StateCallbacks = std::map<std::string, std::pair<aclrtStreamStateCallback, void*>>;
// Registers `callback` under `name` (NULL removes it), with CANN's checks: a NULL or empty name
// (ACL_ERROR_INVALID_PARAM) and a name registered already (ACL_ERROR_RT_PARAM_INVALID) are
// refused. (A served program keeps its own: runtime/remote/served_callbacks.h.)
void setStateCallback(StateCallbacks& callbacks, const char* name,
                      aclrtStreamStateCallback callback, void* args);

class Streams {
 public:
  explicit Streams(ServicePort port) : port_(port) {}
  // With the machine: the model runs a recording stream hands its tasks to.
  void attach(ModelRuns& models) { models_ = &models; }

  // ---- the program's streams
  Stream* create(HostThread& t, uint32_t priority, uint32_t flags);
  // The stream a handle names (NULL: the current context's default stream); internal streams are
  // not handles a program ever received.
  Stream& stream(HostThread& t, aclrtStream handle);
  // The stream `handle` names, checked as aclrtDestroyStream(Force) need it: not NULL, not a
  // default stream, of the current context.
  Stream& destroyable(HostThread& t, aclrtStream handle);
  void destroy(HostThread& t, aclrtStream s);
  void destroyForce(HostThread& t, aclrtStream s);
  void synchronize(HostThread& t, aclrtStream s, int32_t timeoutMs);
  bool idle(HostThread& t, aclrtStream s);
  void setFailureMode(HostThread& t, aclrtStream s, uint64_t mode);
  void stop(HostThread& t, aclrtStream s);   // aclrtStreamStop
  void abort(HostThread& t, aclrtStream s);  // aclrtStreamAbort
  void registerStateCallback(const char* name, aclrtStreamStateCallback callback, void* args);
  // Runs the stream state callbacks for `s` (outside the lock).
  void stateChanged(HostThread& t, aclrtStream s, aclrtStreamState state);
  // A served program has gone: its allocators' registrations on every stream go with it.
  void forgetAllocators(int32_t pid);
  // Stream configurations (aclrtCreateStreamConfigHandle): the ones made here, so that a made-up
  // or twice-destroyed handle is refused.
  aclrtStreamConfigHandle* createConfig();
  void destroyConfig(aclrtStreamConfigHandle* handle);
  std::string name(aclrtStream s) const;  // "default", "npu0/3", or "invalid"
  // The live stream behind `handle` (internal ones included), or nullptr.
  Stream* find(const void* handle) const { return streams_.find(handle); }
  template <typename Predicate>
  bool any(Predicate holds) const {
    return streams_.any(holds);
  }

  // ---- streams of contexts and devices (DeviceContexts), and the services' own
  // A stream on `d` of context `ctx` (nullptr: an internal stream); fails when the device has
  // none left (scheduler.max_streams).
  Stream& open(Device& d, Context* ctx, bool isDefault);
  // Releases a stream of a context that goes once its tasks have ended (those that never can are
  // dropped, with a warning); one another thread destroys meanwhile is left to it.
  void releaseOfContext(HostThread& t, Stream& s);
  // Waits for every stream of `d` (aclrtSynchronizeDevice) and reports their failures.
  void synchronizeDevice(HostThread& t, Device& d);
  // Waits for an internal stream's tasks (failing on a deadlock) and deletes it.
  void close(HostThread& t, Stream& s);
  // Waits until an internal stream's tasks have ended (tasks that can never run are dropped, with
  // a warning) and deletes it; one already gone is left alone.
  void release(HostThread& t, Stream* s);

  // ---- scheduling
  // Queues `task` on `s` at the thread's present, first waiting (in simulated time) for a slot
  // if the stream holds `queue_depth` tasks that have not ended by then.
  void submit(HostThread& t, Stream& s, std::unique_ptr<models::Task> task);
  // Queues `task` on `s` at `when`, from inside the simulation (a model's replay).
  void queueAt(Stream& s, std::unique_ptr<models::Task> task, spec::Picoseconds when);
  // Waits until `s` has no task left; fails with `deadlockCode` when it never can.
  void wait(HostThread& t, Stream& s, aclError deadlockCode);
  // Fails with the stream's recorded task failure, once, if it has one.
  void reportFailure(Stream& s);
  // Whether `s` records its tasks into a model instead of running them.
  bool recording(const Stream& s) const { return models_ && models_->recording(s); }

  // Marks `s` in use by the calling thread while it waits on it (it is released unlocked, so
  // another thread may destroy the stream meanwhile): the object outlives the wait.
  class Use {
   public:
    Use(Streams& streams, Stream& s) : streams_(streams), s_(s) { ++s_.users; }
    ~Use();
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    Streams& streams_;
    Stream& s_;
  };

 private:
  void erase(Stream& s);
  void waitForQueueSlot(HostThread& t, Stream& s);
  void failIfDestroyedMeanwhile(const Stream& s);  // ACL_ERROR_RT_INVALID_HANDLE if so
  // Cancels every task of `s` that has not ended: they share the stream's current stop flag.
  void discardTasks(Stream& s);

  ServicePort port_;
  ModelRuns* models_ = nullptr;
  HandleTable<Stream> streams_;
  // Streams destroyed while threads still waited on them, until the last wakes.
  std::vector<std::unique_ptr<Stream>> destroyed_;
  StateCallbacks stateCallbacks_;
  std::map<const aclrtStreamConfigHandle*, std::unique_ptr<aclrtStreamConfigHandle>> configs_;
  uint64_t nextTaskId_ = 1;
};

}  // namespace ascendsim::runtime
