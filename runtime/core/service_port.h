#pragma once
// What a service built over the runtime (the collectives of runtime/hccl, the Ascend C launches of
// runtime/ascendc, data queues, reductions) may do, inside one of its API calls (Runtime::call
// holds the lock): find the program's stream, make streams of its own, take device memory, queue
// the tasks it builds, and wait in simulated time. Nothing else of the Runtime is the service's;
// the runtime knows nothing of the service.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl_rt.h"
#include "models/resource/resource.h"
#include "models/task/task.h"
#include "runtime/core/exception_reports.h"
#include "runtime/core/host_thread.h"
#include "runtime/core/kernel_library.h"
#include "runtime/core/managed_memory.h"
#include "runtime/core/memory_manager.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

class Runtime;

class ServicePort {
 public:
  explicit ServicePort(Runtime& runtime) : rt_(runtime) {}

  // The stream a handle names (NULL: the current context's default stream); fails with the
  // runtime's codes as its own calls do.
  Stream& stream(HostThread& t, aclrtStream handle);
  // The calling thread's current device; fails when it has none.
  int32_t currentDevice(HostThread& t);
  uint32_t deviceCount();
  const spec::DeviceSpec& deviceSpec(int32_t device);  // its SoC, engines, memory ...
  // How two devices are connected (ACL_RT_DEVS_TOPOLOGY_* bits) and whether their DMA may move
  // data between their memories directly (`why` says what is missing when not).
  uint64_t topology(int32_t a, int32_t b);
  bool directPath(int32_t a, int32_t b, std::string* why);
  // Whether `a` and `b` are NPUs of different servers of a cluster, joined by their NICs and the
  // cluster's switch (HCCL's RDMA writes between servers).
  bool networkPath(int32_t a, int32_t b);

  // A stream of the service's own on `device`: not a handle programs see, but waited for by
  // aclrtSynchronizeDevice like every stream of the device.
  Stream& createStream(int32_t device);
  // Waits until its tasks have ended (tasks that can never run are dropped) and deletes it; a
  // stream the runtime has already released (aclFinalize) is left alone.
  void releaseStream(HostThread& t, Stream* s);

  // Device memory on `device`, `bytes` long (capacity of that device); nullptr when it is full.
  void* allocate(int32_t device, uint64_t bytes);
  // Releases what allocate() returned, once the queued tasks that use it have ended; memory the
  // runtime has already released (the device was reset, aclFinalize) is left alone.
  void release(void* p);
  // The place of [p, p + bytes): fails (the runtime's code) when it leaves its allocation.
  models::MemoryPlace place(const void* p, uint64_t bytes, const char* role);
  MemoryManager& memory();

  // The machine's devices (their memories, specs and peers), for kernels that reach them in place.
  const Devices& devices();
  // Whether `s` still lives (a task's end may find its stream destroyed).
  bool streamAlive(const Stream* s);
  // Host memory kernels reach in place: registered mapped ranges and managed allocations.
  std::vector<std::pair<uint64_t, uint64_t>> hostRangesForKernels();
  ManagedMemory& managed();
  KernelLibrary& kernels();
  ExceptionReports& exceptions();

  // Queues `task` on `s` at the thread's present, holding nothing: the caller holds what it uses.
  void queue(HostThread& t, Stream& s, std::unique_ptr<models::Task> task);
  // Queues `task` on `s` at the thread's present. The memories of its device sides (a kernel's:
  // the one it writes) live until it ends, whatever the program frees meanwhile.
  void submit(HostThread& t, Stream& s, std::unique_ptr<models::Task> task);
  // Blocks `t`, in simulated time, until `done()` holds; false when it never can (a deadlock: no
  // task left that could end the wait and no other thread that could still act).
  bool waitUntil(HostThread& t, const std::function<bool()>& done);
  // As waitUntil, but gives up at simulated time `deadline` (false then too).
  bool waitUntilDeadline(HostThread& t, const std::function<bool()>& done,
                         spec::Picoseconds deadline);
  // Simulates the machine up to the thread's present (before a query of what has ended by then).
  void catchUp(HostThread& t);
  // Tells waiting threads that something they wait for has changed outside the machine.
  void changed();

  // ---- for the devices and contexts service (DeviceContexts) and streams (Streams)
  // No thread has `ctx` as its current context any more (it is being released).
  void leaveContext(const Context& ctx);
  // A warning for the report (kind, message), at the thread's present.
  void warn(HostThread& t, std::string kind, std::string message);
  // The machine's resources so far (what they carried, how long they were busy), and its present.
  const models::ResourceTable& resources();
  spec::Picoseconds simulatedNow();
  // Runs `fn` without the runtime's lock (a program's function that may call AscendCL itself).
  void runUnlocked(HostThread& t, const std::function<void()>& fn);

  // Device `id` of the machine (its counters: events, notify ids), and the machine's API costs.
  Device& device(int32_t id);
  const spec::ApiOverheads& overheads();
  // The process the calling program's thread belongs to (a served machine's client, or this one).
  int32_t callerPid(const HostThread& t);

 private:
  Runtime& rt_;
};

}  // namespace ascendsim::runtime
