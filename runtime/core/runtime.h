#pragma once
// The runtime's facade: it holds the simulated machine, the host threads and the lock, and the
// services with state of their own (devices and contexts, streams, events, memory, kernels, model
// runs, outputs), each reached through one accessor. The C API is a thin layer over it.
// Every public call runs under one lock, so concurrent host threads are serialised into the
// simulation deterministically for a given interleaving of their calls.

#include <pthread.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl_rt.h"
#include "models/system/simulated_system.h"
#include "runtime/core/copy_planner.h"
#include "runtime/core/device_contexts.h"
#include "runtime/core/events.h"
#include "runtime/core/exception_reports.h"
#include "runtime/core/handle_table.h"
#include "runtime/core/host_registry.h"
#include "runtime/core/host_threads.h"
#include "runtime/core/ipc_registry.h"
#include "runtime/core/kernel_library.h"
#include "runtime/core/kernel_use.h"
#include "runtime/core/memory_manager.h"
#include "runtime/core/model_runs.h"
#include "runtime/core/objects.h"
#include "runtime/core/run_outputs.h"
#include "runtime/core/streams.h"
#include "runtime/core/virtual_memory.h"
#include "spec/system_spec.h"

namespace ascendsim::runtime {

// A compute task as the operator layer hands it over: its work for the timing model, the device
// memory it reads and writes (checked to lie on the stream's device), and its data effect.
struct KernelLaunch {
  models::KernelWork work;
  struct Range {
    const void* p;
    uint64_t bytes;
    std::string role;  // for messages: "self", "out", ...
  };
  std::vector<Range> reads, writes;
  // Runs when the kernel completes, over images of the ranges (reads, then writes, in order);
  // what it leaves in the write images is stored back. Empty: a timing-only kernel.
  std::function<void(std::vector<std::vector<uint8_t>>& images)> compute;
};

class Runtime {
 public:
  static Runtime& instance();

  // Runs one API call: takes the lock, checks initialisation (unless `needsInit` is false),
  // charges the call's host overhead and turns failures into codes and messages.
  aclError call(const char* api, spec::Picoseconds spec::ApiOverheads::*overhead, bool needsInit,
                const std::function<void(HostThread&)>& body);
  const char* takeRecentError();
  // The calling thread's last failed call's code; `clear` resets it (aclrtGetLastError).
  aclError lastError(bool clear);
  // A call that fails before reaching the runtime proper (a bad argument to the last-error calls):
  // its message becomes the thread's recent error text, its code is not the thread's last error
  // (CANN checks such arguments in the acl layer, before its runtime records anything).
  aclError refuseArgument(const char* api, aclError code, const std::string& message);
  const spec::ApiOverheads& overheads() const;

  // ---- init
  void init(const char* configPath);
  void finalize(HostThread& t);
  bool initialized() const { return initialized_; }
  // The SoC version the machine's devices name (aclrtGetSocName); answered before aclInit too.
  const std::string& socName();
  // Devices of the machine: before aclInit (aclrtGetDeviceCount answers then, as CANN's driver
  // query does), of the machine aclInit would load.
  uint32_t machineDeviceCount();
  int32_t cannAttribute(int32_t attr);          // aclGetCannAttribute (of the machine's SoC)
  bool archCompatible(const std::string& soc);  // aclrtCheckArchCompatibility

  // ---- devices and contexts (aclrtSetDevice ..., aclrtCreateContext ..., peer access, device
  // attributes and limits): a service over the scheduling core, made with the machine
  DeviceContexts& devices() { return made(deviceContexts_); }
  uint32_t deviceCount() const { return static_cast<uint32_t>(devices_.size()); }
  // The run mode (aclrtGetRunMode): answered before aclInit too, of the machine aclInit would
  // load, as CANN's (samples ask it before aclInit).
  aclrtRunMode runMode();

  // ---- profiling (aclprof*) and the floating-point overflow mode
  Profiling& profiling() { return outputs_.profiling(); }
  // aclrtSetDeviceSatMode: the process's mode, and the current device's (if the thread has a
  // context), which streams made on it afterwards take. Get answers the process's.
  void setOverflowMode(HostThread& t, int32_t mode);
  int32_t overflowMode();

  // ---- streams and the scheduling of tasks (aclrtCreateStream..., synchronisation, stop and
  // abort, state callbacks, stream configurations): a service over the scheduling core; it exists
  // before aclInit (stream configurations and state callbacks need none) and is given the model
  // runs with the machine
  Streams& streams() { return streams_; }

  // ---- events and notifies (aclrtCreateEvent..., aclrtCreateNotify..., their IPC handles, and
  // aclrtStreamWaitEvent): a service over the scheduling core, made with the machine
  Events& events() { return made(events_); }

  // aclrtValueWrite: the stream writes 8 bytes (little-endian `value`) to device memory.
  // aclrtValueWait: the stream waits until the 8 bytes there meet `flag`'s condition
  // (ACL_STREAM_WAIT_VALUE_GEQ signed >=, EQ ==, AND (v & value) != 0, NOR ~(v | value) != 0).
  void valueWrite(HostThread& t, void* devAddr, uint64_t value, uint32_t flag, aclrtStream s);
  void valueWait(HostThread& t, void* devAddr, uint64_t value, uint32_t flag, aclrtStream s);

  // ---- memory
  void* malloc(HostThread& t, size_t size, int32_t policy, bool align32Only);
  void* dvppMalloc(HostThread& t, size_t size);
  void* mallocHost(HostThread& t, size_t size);
  void free(HostThread& t, void* p, AllocationApi api);
  // Host memory devices reach in place (registered ranges, managed memory).
  HostRegistry& hosts() { return made(hosts_); }
  // Virtual memory management (aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem ...):
  // reservations on the thread's current device, and unmapping once the tasks queued on a
  // mapping have ended; the rest is the service's own.
  VirtualMemory& virtualMemory() { return made(virtualMemory_); }
  void* reserveAddresses(HostThread& t, uint64_t size, uint64_t alignment, void* expect,
                         uint64_t flags);
  void unmapMemory(HostThread& t, void* p);
  void memset(HostThread& t, void* p, size_t maxCount, int32_t value, size_t count,
              std::optional<aclrtStream> stream);
  void memcpy(HostThread& t, void* dst, size_t destMax, const void* src, size_t count, int32_t kind,
              std::optional<aclrtStream> stream);
  void memcpy2d(HostThread& t, void* dst, size_t dpitch, const void* src, size_t spitch,
                size_t width, size_t height, int32_t kind, std::optional<aclrtStream> stream);

  // ---- compute
  void launchKernel(HostThread& t, aclrtStream stream, KernelLaunch launch);
  HandleTable<DataBuffer>& dataBuffers() { return dataBuffers_; }

  // ---- callbacks
  void subscribeReport(HostThread& t, uint64_t threadId, aclrtStream s);
  void unsubscribeReport(HostThread& t, uint64_t threadId, aclrtStream s);
  void queueCallback(HostThread& t, Stream& s, aclrtCallback fn, void* data, bool blocking,
                     uint64_t target);
  void startHostFuncThread(HostThread& t, Stream& s);
  void launchCallback(HostThread& t, aclrtCallback fn, void* data, int32_t block, aclrtStream s);
  void processReport(HostThread& t, int32_t timeoutMs);
  // Host functions: callbacks that always block their stream, run by the thread subscribed with
  // aclrtSubscribeHostFunc or, when there is none, by a thread the runtime starts for the stream
  // (as CANN's context callback thread), which ends with the stream.
  void subscribeHostFunc(HostThread& t, uint64_t threadId, aclrtStream s);
  void unsubscribeHostFunc(HostThread& t, uint64_t threadId, aclrtStream s);
  void launchHostFunc(HostThread& t, aclrtStream s, aclrtHostFunc fn, void* args);
  // A served program runs its callbacks and host functions on its own threads (runtime/remote):
  // takeReport is processReport up to the call of the function (the report to run, `t` marked
  // as running it; `outer` keeps what it ran before; `hostFuncStream`, if not 0, the stream
  // whose host-function thread `t` is), endReport after it returned. A stream's
  // host functions without a thread get none here: hostFuncStream names the calling thread's
  // stream `s` (0 if it has none) and whether its functions have a thread; the program starts
  // one, which adopts the stream (false: gone, or it has one already); launchServedHostFunc
  // then queues functions for it. (endReport, hostFuncStream and adoptHostFuncStream take the
  // lock themselves.)
  CallbackReport takeReport(HostThread& t, int32_t timeoutMs, uint64_t hostFuncStream,
                            Stream*& outer);
  void endReport(const CallbackReport& report, Stream* outer);
  uint64_t hostFuncStream(aclrtStream s, bool& hasThread);
  bool adoptHostFuncStream(uint64_t stream);
  void launchServedHostFunc(HostThread& t, aclrtStream s, aclrtHostFunc fn, void* args);
  // Fails with ACL_ERROR_RT_THREAD_SUBSCRIBE unless `t` is the host-function thread of `stream`.
  void checkHostFuncThread(HostThread& t, uint64_t stream);
  // Whether the calling (server) thread's aclrtDestroyStream(Force) of `s` would pass its checks
  // (a served program runs its stream state callbacks before the call only then; takes the
  // lock itself).
  bool streamDestroyable(aclrtStream s);
  // The streams whose state callbacks a served program runs around a call of the calling (server)
  // thread (served_callbacks.h; takes the lock itself), by `question`:
  //   kMadeDefaultStream: the default stream its last aclrtSetDevice or aclrtCreateContext made
  //     (none or one);
  //   kContextGoing: those aclrtDestroyContext(`arg`) would announce, in order (DeviceContexts);
  //   kDeviceGoing / kDeviceGoingForce: those of aclrtResetDevice(`arg`) / ...Force.
  enum StreamStateQuestion : uint8_t {
    kMadeDefaultStream = 0,
    kContextGoing = 1,
    kDeviceGoing = 2,
    kDeviceGoingForce = 3,
  };
  std::vector<aclrtStream> servedStreamStates(uint8_t question, uint64_t arg);

  // ---- the program's allocators (acl/acl_rt_allocator.h)
  AllocatorDesc* createAllocatorDesc();
  AllocatorDesc& allocatorDesc(aclrtAllocatorDesc handle);
  void destroyAllocatorDesc(aclrtAllocatorDesc handle);
  void registerAllocator(HostThread& t, aclrtStream s, aclrtAllocatorDesc handle);
  // Fails as a description handle that names none does (NULL, or not made / destroyed already).
  [[noreturn]] static void refuseAllocatorDesc(aclrtAllocatorDesc handle);
  // A served program's registration: its description `copy` (nullptr: `handle` names none of the
  // program's), checked as registerAllocator checks the server's own.
  void registerAllocatorCopy(HostThread& t, aclrtStream s, aclrtAllocatorDesc handle,
                             const AllocatorDesc* copy);
  Stream& allocatorStream(HostThread& t, aclrtStream s);  // a non-NULL stream of the program
  // The registration of `t`'s process on the stream `s` names (nullptr: none). A stream's
  // allocators are by process: on a served machine each program registers its own.
  Stream::Allocator* registeredAllocator(HostThread& t, aclrtStream s);

  // ---- task failures: exception callbacks and the device's last error
  ExceptionReports& exceptions() { return exceptions_; }
  aclrtErrorInfo deviceError(int32_t deviceId) {
    return ExceptionReports::deviceError(device(deviceId));
  }
  // Kernel binaries (aclrtBinaryLoadFromFile ...), argument lists, and launches by handle.
  KernelLibrary& kernels() { return kernels_; }
  // Model run instances (aclmdlRI...), stream capture, labels and conditions; made with the
  // machine. A stream that records (captured, or bound to a model being built) hands its tasks
  // to it instead of running them.
  ModelRuns& modelRuns() { return made(modelRuns_); }
  // Whether `info` is a failure an exception callback is being given right now (under the lock).
  bool exceptionInfoLive(const rtExceptionInfo* info);
  // A served program's exception callbacks: the failures kept for the calling (server) thread,
  // taken; and, in the program, running them with their infos live for the getters.
  std::vector<ServedException> takeServedExceptions();
  void runServedExceptions(std::vector<ServedException>& failures);

  // A pointer as the trace shows it, the same in every run: "npu0+0x40", "pinned#2+0x0",
  // "pageable".
  std::string pointerName(const void* p) const;
  // "default", "npu0/3", or "invalid"
  std::string streamName(aclrtStream s) const { return streams_.name(s); }
  void endOfProcess();  // exit handler: report and trace of a program that never finalized
  // On the signal watcher's thread: the report and trace, as at exit, if the lock comes free.
  bool finishOnSignal();
  void closeTraceFromSignal();

  // ---- host threads the program creates and joins (from the pthread_create / pthread_join the
  // runtime's libraries put in front of the C library's): a thread created outside an API call is
  // numbered at once, after its creator, and starts at its creator's clock; a thread that joins
  // another goes on from the joined thread's clock if that is later.
  using CreateThread = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  int createThread(CreateThread create, pthread_t* thread, const pthread_attr_t* attr,
                   void* (*start)(void*), void* arg);
  void threadJoined(pthread_t thread);

  // ---- a machine served to the processes of a job (`ascendsim exec --shared`, runtime/remote):
  // the calling server thread stands for a program's thread (HostThreads::enroll) from now until
  // remoteThreadEnded(); the ones that never call for a program are internal.
  void enrollRemoteThread(uint32_t index, pid_t pid, pid_t tid, HostTrack track,
                          const MpiWaits* waitingOutside, uint64_t reportId);
  void remoteThreadEnded(bool processGone = false);
  void addInternalThread();
  void threadsChanged();  // wakes threads waiting for their turn
  // A program whose calls go to a served machine: the calls it does not send there (see
  // runtime/api/served_calls.h) are refused here with ACL_ERROR_RT_FEATURE_NOT_SUPPORT and `why`.
  void refuseLocalCalls(std::string why) { localRefusal_ = std::move(why); }

  // ---- what processes share by name: memory by key (IpcRegistry's); events and notifies are
  // the Events service's
  int32_t callerPid(const HostThread& t) const;  // the calling program's process id
  IpcRegistry& ipc() { return made(ipc_); }

  // ---- for reports and tests
  const std::vector<RuntimeWarning>& warnings() const { return warnings_; }
  const spec::SystemSpec& system() const { return spec_; }
  spec::Picoseconds simulatedNow() const;

 private:
  Runtime() = default;
  // A service made with the machine at the first aclInit; before that no call reaches it (they
  // need aclInit), so its absence is the runtime's own error.
  template <typename Service>
  static Service& made(const std::unique_ptr<Service>& service) {
    if (!service) throw std::logic_error("a service of the machine was used before aclInit");
    return *service;
  }
  HostThread& thread();
  static void onThreadExit(void* id);  // (a pthread key's destructor: calls threadExited)
  void threadExited(uint64_t pthreadId);
  void threadStarted();
  friend struct ThreadExitGuard;
  friend void* startHostThread(void*);
  friend class ServicePort;  // what services over the runtime (collectives) may use of it

  Device& device(int32_t id) { return deviceById(devices_, id); }
  // processReport's wait: the next callback report for `t` (ACL codes if none comes).
  // (`hostFuncStream`: a served program's host-function thread's stream; the wait ends with it.)
  CallbackReport nextReport(HostThread& t, int32_t timeoutMs, uint64_t hostFuncStream = 0);

  // Blocks thread `t` (in simulated time) until `done()` holds. Returns false on a deadlock:
  // nothing left to simulate and no other host thread that could still act.
  bool waitFor(HostThread& t, const std::function<bool()>& done);
  // As waitFor, but gives up at simulated time `deadline`; returns false on timeout.
  bool waitUntilDeadline(HostThread& t, const std::function<bool()>& done,
                         spec::Picoseconds deadline);
  void catchUp(HostThread& t);
  void warn(HostThread& t, std::string kind, std::string message);

  void runCopy(HostThread& t, const CopyPlan& plan, std::optional<aclrtStream> stream,
               std::function<void()> effect, uint64_t bytes);

  std::mutex mutex_;
  std::string localRefusal_;
  bool initialized_ = false;
  bool everInitialized_ = false;
  spec::SystemSpec spec_;
  std::unique_ptr<models::SimulatedSystem> system_;
  const spec::SystemSpec& machineSpec();              // the machine, or the one aclInit would load
  std::unique_ptr<spec::SystemSpec> preInitMachine_;  // read for aclrtGetSocName before aclInit
  Devices devices_;
  std::unique_ptr<MemoryManager> memory_;
  std::unique_ptr<CopyPlanner> copyPlanner_;
  HostThreads threads_;
  Streams streams_{ServicePort(*this)};
  std::vector<RuntimeWarning> warnings_;
  RunOutputs outputs_;
  int32_t overflowMode_ = -1;  // -1: not set, the machine's SoC's default
  HandleTable<DataBuffer> dataBuffers_;
  void openTrace();
  void hookSignals();
  void submitValueTask(HostThread& t, Stream& s, const models::MemoryPlace& place,
                       std::unique_ptr<models::Task> task);
  // A served machine (runtime/remote): a program's thread is known from its first call, so a
  // callback for a subscribed thread that has not called yet waits here for it; one for a
  // thread whose connection ended is dropped, as for a thread that exited.
  bool servesPrograms_ = false;
  std::map<uint64_t, std::vector<CallbackReport>> reportsForLaterThreads_;
  std::set<uint64_t> endedRemoteThreads_;
  ExceptionReports exceptions_{threads_};
  KernelLibrary kernels_;
  HandleTable<AllocatorDesc> allocatorDescs_;
  std::unique_ptr<VirtualMemory> virtualMemory_;    // made with the machine
  std::unique_ptr<HostRegistry> hosts_;             // made with the machine
  std::unique_ptr<IpcRegistry> ipc_;                // made with the machine
  std::unique_ptr<ModelRuns> modelRuns_;            // made with the machine
  std::unique_ptr<Events> events_;                  // made with the machine
  std::unique_ptr<DeviceContexts> deviceContexts_;  // made with the machine
  // Refuses a call that would block (synchronous copy, memset) while a stream capture forbids it.
  void refuseDuringCapture(HostThread& t, const char* what,
                           aclError code = ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
};

}  // namespace ascendsim::runtime
