#pragma once
// Devices and contexts: which devices each process holds (aclrtSetDevice / aclrtResetDevice),
// contexts and the calling thread's current one, peer access, device attributes, status,
// utilisation and core limits. A service over the scheduling core (ServicePort): a context's
// streams are made, waited for and released by Streams, and a device whose last holder lets it
// go gives its memory back to MemoryManager, VirtualMemory and IpcRegistry; the runtime hands it
// all four. The runtime makes it with the machine and knows nothing else of it.

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "runtime/core/handle_table.h"
#include "runtime/core/host_thread.h"
#include "runtime/core/ipc_registry.h"
#include "runtime/core/memory_manager.h"
#include "runtime/core/objects.h"
#include "runtime/core/service_port.h"
#include "runtime/core/streams.h"
#include "runtime/core/virtual_memory.h"

namespace ascendsim::runtime {

class DeviceContexts {
 public:
  DeviceContexts(ServicePort port, Devices& devices, Streams& streams, MemoryManager& memory,
                 VirtualMemory& vm, IpcRegistry& ipc)
      : port_(port),
        devices_(devices),
        streams_(streams),
        memory_(memory),
        virtualMemory_(vm),
        ipc_(ipc) {}

  // ---- devices: a process's threads hold a device (and its default context) from
  // aclrtSetDevice to their aclrtResetDevice; `force` lets every hold go (aclrtResetDeviceForce).
  void set(HostThread& t, int32_t id);
  void reset(HostThread& t, int32_t id, bool force = false);
  uint32_t count() const { return static_cast<uint32_t>(devices_.size()); }
  // Device `id`; fails as aclrtSetDevice does for a bad id.
  Device& device(int32_t id) { return deviceById(devices_, id); }
  // The current context's device, and waiting for every stream of it (aclrtSynchronizeDevice).
  int32_t current(HostThread& t);
  void synchronize(HostThread& t);
  bool canAccessPeer(int32_t dev, int32_t peer);
  uint64_t topology(int32_t dev, int32_t other);  // ACL_RT_DEVS_TOPOLOGY_* bits
  void enablePeerAccess(HostThread& t, int32_t peer, uint32_t flags);
  void disablePeerAccess(HostThread& t, int32_t peer);
  void memInfo(HostThread& t, int32_t attr, size_t* free, size_t* total);
  int64_t info(int32_t dev, int32_t attr);  // aclrtGetDeviceInfo
  aclrtUtilizationInfo utilization(int32_t dev);
  aclrtDeviceStatus status(int32_t dev);             // aclrtQueryDeviceStatus
  int32_t capability(int32_t dev, int32_t feature);  // aclrtGetDeviceCapability
  void setResourceLimit(int32_t dev, int32_t type, uint32_t value);
  uint32_t resourceLimit(int32_t dev, int32_t type);
  void resetResourceLimits(int32_t dev);

  // ---- contexts
  Context* createContext(HostThread& t, int32_t deviceId);
  void destroyContext(HostThread& t, aclrtContext ctx);
  void setCurrentContext(HostThread& t, aclrtContext ctx);
  Context* currentContext(HostThread& t) { return &requireContext(t); }
  // The context `handle` names if it lives, else nullptr.
  Context* findContext(const void* handle) const { return contexts_.find(handle); }

  // ---- stream state callbacks (aclrtRegStreamStateCallback) of default streams and of the
  // streams a teardown releases, as CANN runs them (device_contexts.cpp)
  // The streams whose ACL_RT_STREAM_STATE_DESTROY_PRE callbacks aclrtDestroyContext(ctx), or
  // aclrtResetDevice(device) / aclrtResetDeviceForce (`force`), would run, in their order; none
  // for a call its checks refuse or that releases no context. A served program runs them before
  // it sends the call.
  std::vector<Stream*> goingWithContext(HostThread& t, aclrtContext ctx);
  std::vector<Stream*> goingWithDevice(HostThread& t, int32_t device, bool force);

  // aclInit: each device's internal stream for synchronous copies and memsets (Device::copyStream).
  void openCopyStreams();
  // aclFinalize: every context goes (their queued tasks end first), each device's internal copy
  // stream too, and the devices forget who held them, their peers and their core limits.
  void releaseAll(HostThread& t);

 private:
  // How a context goes: destroyed (aclrtDestroyContext), the default one at the device's last
  // reset, or quietly (aclFinalize, which in CANN releases no context: no state callback runs).
  enum class Teardown { Destroy, Reset, Quiet };
  void releaseContext(HostThread& t, Context& ctx, Teardown how);
  // The default context `reset(t, d, force)` would release, or nullptr (checks as reset's).
  Context* releasedByReset(HostThread& t, Device& d, bool force);
  // Fails with ACL_ERROR_RT_CONTEXT_RELEASE_ERROR when `ctx` is being released (`what`: the call).
  static void refuseWhileReleasing(const Context& ctx, const char* what);
  void releaseDeviceIfUnused(HostThread& t, Device& d);

  ServicePort port_;
  Devices& devices_;
  Streams& streams_;
  MemoryManager& memory_;
  VirtualMemory& virtualMemory_;
  IpcRegistry& ipc_;
  HandleTable<Context> contexts_;
};

}  // namespace ascendsim::runtime
