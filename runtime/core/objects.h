#pragma once
// The runtime's objects behind AscendCL handles. A handle is the object's address; it is looked
// up in the runtime's registry before use, so a stale or made-up handle is refused, never used.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "models/sched/device_scheduler.h"
#include "models/sched/stream_queue.h"
#include "runtime/core/device_memory.h"
#include "spec/system_spec.h"

// A failed task, as exception callbacks see it (aclrtExceptionInfo; read through the getters).
struct rtExceptionInfo {
  uint32_t taskId = 0;
  uint32_t streamId = 0;
  uint32_t threadId = 0;  // Linux thread id of the thread that submitted it
  uint32_t deviceId = 0;
  uint32_t errorCode = 0;      // the aclError its stream's synchronisation returns
  const void* args = nullptr;  // the kernel's arguments as it received them
  uint32_t argsBytes = 0;
  void* function = nullptr;  // the kernel's KernelFunction (aclrtFuncHandle)
};

namespace ascendsim::runtime {

// A kernel the program can name by handle (aclrtFuncHandle): one per kernel name launched with
// <<<...>>>, or per function aclrtBinaryGetFunction looked up.
struct KernelBinary;
struct KernelFunction {
  std::string name;
  // A kernel of a loaded binary (aclrtBinaryGetFunction): its entry runs one block over the
  // arguments as aclrtKernelArgsAppend lays them out, `argsBytes` long.
  void (*entry)(void*) = nullptr;
  uint32_t argsBytes = 0;
  KernelBinary* binary = nullptr;
};

// A kernel binary loaded by aclrtBinaryLoadFromFile (an ascendc_fatbin_library module).
struct KernelBinary {
  std::string path;
  std::shared_ptr<void> library;  // dlopen handle, closed when the last launch of it has ended
  std::map<std::string, std::unique_ptr<KernelFunction>> functions;  // looked up so far, by name
};

// The arguments of one launch being put together (aclrtKernelArgsInit ... Finalize).
struct KernelArgs {
  KernelFunction* function = nullptr;
  std::vector<uint8_t> bytes;
  struct Param {
    size_t offset, size;
    // A placeholder (aclrtKernelArgsAppendPlaceHolder): its 8 bytes are the device address of
    // `data` (aclrtKernelArgsGetPlaceHolderBuffer), copied to device memory at each launch. The
    // buffer is host memory of the runtime's source (shared with the programs of a served machine,
    // which write it).
    bool placeholder = false;
    std::shared_ptr<uint8_t> data;
    size_t dataBytes = 0;
  };
  std::vector<std::unique_ptr<Param>> params;  // aclrtParamHandle: one per append
  bool gotPlaceholderBuffer = false;           // no parameter may be appended after that
  bool finalized = false;
};

// A program's allocator description (acl/acl_rt_allocator.h): its object and functions.
struct AllocatorDesc {
  void* object = nullptr;
  void* (*alloc)(void*, size_t) = nullptr;
  void (*free)(void*, void*) = nullptr;
  void* (*allocAdvise)(void*, size_t, void*) = nullptr;
  void* (*addressOf)(void*) = nullptr;
};

struct Context;

struct Stream {
  Stream(uint32_t id, uint32_t depth) : queue(id, depth) {}
  struct Device* device = nullptr;
  Context* context = nullptr;  // nullptr for the runtime's internal streams
  models::StreamQueue queue;
  bool isDefault = false;
  uint32_t priority = 0;
  uint32_t flags = 0;
  uint64_t subscribedThread = 0;  // pthread id that processes its callbacks; 0 = none
  uint64_t hostFuncThread = 0;    // pthread id that runs its host functions (aclrtLaunchHostFunc)
  bool hostFuncThreadIsOwn = false;  // that thread is the runtime's, made for this stream
  // A task of it failed (an AI Core exception): the code and message its next synchronisation
  // reports.
  int32_t failure = 0;  // an aclError
  std::string failureMessage;
  // Its context stops on failure and one of its tasks failed: later tasks are skipped and new ones
  // refused (ACL_STOP_ON_FAILURE).
  std::shared_ptr<bool> stopped = std::make_shared<bool>(false);
  // aclrtAllocatorRegister: the description handle and a copy of it as registered, by process
  // (the registering program's pid on a served machine, 0 in-process).
  struct Allocator {
    void* handle = nullptr;
    AllocatorDesc desc;
  };
  std::map<int32_t, Allocator> allocators;
  // Host threads waiting on it right now (Streams::Use). A stream destroyed while one waits is
  // `destroyed` but kept until the last of them has woken and let it go.
  uint32_t users = 0;
  bool destroyed = false;
  // Its device's overflow mode when it was made was saturation (aclrtSetDeviceSatMode): the
  // floating results of its kernels and reductions are clamped (Inf: the largest value, NaN: 0).
  bool saturate = false;
};

struct Context {
  struct Device* device = nullptr;
  bool isDefault = false;
  Stream* defaultStream = nullptr;
  std::vector<Stream*> streams;  // created while this context was current (default one included)
  bool stopOnFailure = false;    // aclrtSetStreamFailureMode(ACL_STOP_ON_FAILURE) on one of them
  // Its release has begun (its streams' state callbacks run unlocked meanwhile): a second
  // destruction or reset of it is refused.
  bool releasing = false;
};

struct Notify {
  struct Device* device = nullptr;
  uint32_t id = 0;  // per device, from 0
  std::shared_ptr<models::SyncPoint> sync = std::make_shared<models::SyncPoint>();
};

struct Event {
  struct Device* device = nullptr;
  uint32_t flags = 0;
  std::shared_ptr<models::SyncPoint> sync = std::make_shared<models::SyncPoint>();
};

// Physical device memory (aclrtMallocPhysical): capacity of its device and a hidden range of its
// addresses where its bytes live (DeviceMemory::makeBacking), reached through every mapping of
// it. The allocating process's handle and each handle imported from its shareable handle hold it;
// the last one freed gives it back.
struct PhysicalBacking {
  struct Device* device = nullptr;
  uint64_t address = 0, size = 0;
  uint64_t handles = 0;
};

// A handle to physical memory (aclrtDrvMemHandle), held by one process.
struct PhysicalMemory {
  PhysicalBacking* backing = nullptr;
  int32_t owner = 0;       // the process holding the handle
  bool imported = false;   // made by aclrtMemImportFromShareableHandle
  uint64_t mappings = 0;   // mappings made through this handle
  uint64_t shareable = 0;  // its shareable handle once exported (0: none)
};

// aclDataBuffer: an address and a size the program owns.
struct DataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct Device {
  int id = 0;
  const spec::DeviceSpec* spec = nullptr;
  models::DeviceScheduler* scheduler = nullptr;
  std::unique_ptr<DeviceMemory> memory;
  // Each process's default context on the device (on a machine served to several processes,
  // each has its own, as on hardware), by process id.
  std::map<int32_t, Context*> defaultContexts;
  int explicitContexts = 0;
  // By process: (pthread ids of) its threads holding an aclrtSetDevice reference.
  std::map<int32_t, std::set<uint64_t>> setBy;
  std::set<int> peersEnabled;    // devices this one may copy to and from directly
  Stream* copyStream = nullptr;  // internal stream for synchronous copies and memsets
  uint32_t streams = 0;          // live streams, default and internal ones included
  uint32_t events = 0;
  uint32_t nextStreamId = 0;
  uint32_t nextNotifyId = 0;
  // Its last task failure, as aclrtGetErrorVerbose reports it (ACL_RT_NO_ERROR: none).
  int32_t errorType = 0;        // aclrtErrorType
  int32_t aicoreErrorType = 0;  // aclrtAicoreErrorType, when errorType is ACL_RT_ERROR_AICORE
  // aclrtSetDeviceResLimit: cores kernels may use (0: all of them).
  uint32_t cubeCoreLimit = 0;
  uint32_t vectorCoreLimit = 0;
  // aclrtFloatOverflowMode streams made on it take: 0 saturation, 1 Inf/NaN.
  int32_t overflowMode = 1;
};

// The machine's devices, by id.
using Devices = std::vector<std::unique_ptr<Device>>;
// Device `id`; fails as aclrtSetDevice does (ACL_ERROR_RT_INVALID_DEVICEID) when there is none.
Device& deviceById(const Devices& devices, int32_t id);

struct HostThread;
// The calling thread's current context; fails (ACL_ERROR_RT_CONTEXT_NULL) when it has none.
Context& requireContext(HostThread& t);
// Fails (ACL_ERROR_RT_STREAM_NOT_COMPLETE) when `t` runs a callback or host function of a stream
// on `d` (any device when nullptr): releasing that stream would wait for the function itself.
void refuseInsideCallback(const HostThread& t, const Device* d, const char* what);

}  // namespace ascendsim::runtime
