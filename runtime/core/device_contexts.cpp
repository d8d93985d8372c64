// Devices, peer access and contexts (the DeviceContexts service).

#include "runtime/core/device_contexts.h"

#include "models/dram/dram_standard.h"
#include "runtime/core/errors.h"

namespace ascendsim::runtime {

// ---------------------------------------------------------------- devices

void DeviceContexts::releaseContext(HostThread& t, Context& ctx) {
  streams_.releaseAll(t, ctx);
  port_.leaveContext(ctx);
  Device& d = *ctx.device;
  for (auto it = d.defaultContexts.begin(); it != d.defaultContexts.end();) {
    it = it->second == &ctx ? d.defaultContexts.erase(it) : std::next(it);
  }
  contexts_.erase(&ctx);
}

void DeviceContexts::releaseDeviceIfUnused(HostThread& t, Device& d) {
  if (!d.defaultContexts.empty() || d.explicitContexts > 0) return;
  d.peersEnabled.clear();
  if (ipc_.importsOn(d)) return;  // other processes still use memory exported from it
  if (d.memory->allocationCount() > 0) {
    port_.warn(t, "memory-not-freed",
               std::to_string(d.memory->allocationCount()) + " allocation(s) on device " +
                   std::to_string(d.id) + " were released by aclrtResetDevice without aclrtFree");
  }
  virtualMemory_.deviceReleased(d);
  memory_.releaseDevice(d);
  d.peersEnabled.clear();
  d.errorType = ACL_RT_NO_ERROR;  // a reset device starts clean
  d.aicoreErrorType = ACL_RT_AICORE_ERROR_UNKNOWN;
}

void DeviceContexts::set(HostThread& t, int32_t id) {
  Device& d = device(id);
  const int32_t pid = port_.callerPid(t);
  Context*& defaultContext = d.defaultContexts[pid];
  if (!defaultContext) {
    auto ctx = std::make_unique<Context>();
    ctx->device = &d;
    ctx->isDefault = true;
    Context& ref = contexts_.add(std::move(ctx));
    ref.defaultStream = &streams_.open(d, &ref, true);
    defaultContext = &ref;
  }
  d.setBy[pid].insert(t.pthreadId);
  t.current = defaultContext;
}

void DeviceContexts::reset(HostThread& t, int32_t id, bool force) {
  Device& d = device(id);
  // Only the calling process's hold on the device: other processes sharing it go on.
  const int32_t pid = port_.callerPid(t);
  std::set<uint64_t>& holders = d.setBy[pid];
  if (force || (holders.size() == 1 && holders.count(t.pthreadId)))
    refuseInsideCallback(t, &d, force ? "aclrtResetDeviceForce" : "aclrtResetDevice");
  if (force) {
    holders.clear();
  } else {
    holders.erase(t.pthreadId);
  }
  if (!holders.empty()) return;
  d.setBy.erase(pid);
  auto own = d.defaultContexts.find(pid);
  if (own == d.defaultContexts.end()) return;
  releaseContext(t, *own->second);
  releaseDeviceIfUnused(t, d);
}

int32_t DeviceContexts::current(HostThread& t) {
  return requireContext(t).device->id;
}

void DeviceContexts::synchronize(HostThread& t) {
  streams_.synchronizeDevice(t, *requireContext(t).device);
}

bool DeviceContexts::canAccessPeer(int32_t dev, int32_t peer) {
  device(dev);
  device(peer);
  if (dev == peer)
    fail(ACL_ERROR_INVALID_PARAM, "a device is not its own peer (deviceId == peerDeviceId)");
  return port_.directPath(dev, peer, nullptr);
}

uint64_t DeviceContexts::topology(int32_t dev, int32_t other) {
  device(dev);
  device(other);
  if (dev == other) fail(ACL_ERROR_INVALID_PARAM, "deviceId and otherDeviceId are the same device");
  return port_.topology(dev, other);
}

void DeviceContexts::enablePeerAccess(HostThread& t, int32_t peer, uint32_t flags) {
  if (flags != 0) fail(ACL_ERROR_FEATURE_UNSUPPORTED, "flags must be 0");
  Device& d = *requireContext(t).device;
  Device& p = device(peer);
  if (&d == &p) fail(ACL_ERROR_INVALID_PARAM, "peerDeviceId is the current device");
  std::string why;
  if (!port_.directPath(d.id, peer, &why)) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "devices " + std::to_string(d.id) + " and " +
                                               std::to_string(p.id) + " cannot be peers: " + why);
  }
  d.peersEnabled.insert(peer);
}

void DeviceContexts::disablePeerAccess(HostThread& t, int32_t peer) {
  Device& d = *requireContext(t).device;
  device(peer);
  if (!d.peersEnabled.erase(peer)) {
    fail(ACL_ERROR_INVALID_PARAM, "peer access from device " + std::to_string(d.id) +
                                      " to device " + std::to_string(peer) + " was not enabled");
  }
}

void DeviceContexts::memInfo(HostThread& t, int32_t attr, size_t* free, size_t* total) {
  Device& d = *requireContext(t).device;
  const bool hbmAttr = attr == ACL_HBM_MEM || attr == ACL_HBM_MEM_HUGE ||
                       attr == ACL_HBM_MEM_NORMAL || attr == ACL_HBM_MEM_P2P_HUGE ||
                       attr == ACL_HBM_MEM_P2P_NORMAL;
  const bool ddrAttr = attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE ||
                       attr == ACL_DDR_MEM_NORMAL || attr == ACL_DDR_MEM_P2P_HUGE ||
                       attr == ACL_DDR_MEM_P2P_NORMAL;
  if (!hbmAttr && !ddrAttr)
    fail(ACL_ERROR_INVALID_PARAM, "unknown aclrtMemAttr " + std::to_string(attr));
  const bool isHbm = models::dramStandard(d.spec->memory.standard).family ==
                     models::DramStandardRules::Family::Hbm;
  if (hbmAttr == isHbm) {
    *total = d.memory->capacity();
    *free = d.memory->capacity() - d.memory->used();
  } else {
    *total = 0;  // the device has no memory of that kind
    *free = 0;
  }
}

// ---------------------------------------------------------------- contexts

Context* DeviceContexts::createContext(HostThread& t, int32_t deviceId) {
  Device& d = device(deviceId);
  auto ctx = std::make_unique<Context>();
  ctx->device = &d;
  Context& ref = contexts_.add(std::move(ctx));
  try {
    ref.defaultStream = &streams_.open(d, &ref, true);
  } catch (...) {
    contexts_.erase(&ref);
    throw;
  }
  d.explicitContexts++;
  t.current = &ref;
  return &ref;
}

void DeviceContexts::destroyContext(HostThread& t, aclrtContext handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
  Context* ctx = contexts_.find(handle);
  if (!ctx)
    fail(ACL_ERROR_RT_INVALID_HANDLE,
         "context " + describePointer(handle) + " does not exist (destroyed already?)");
  if (ctx->isDefault)
    fail(
        ACL_ERROR_INVALID_PARAM,
        "the default context of a device is released by aclrtResetDevice, not aclrtDestroyContext");
  Device& d = *ctx->device;
  if (t.inCallbackOf && t.inCallbackOf->context == ctx)
    refuseInsideCallback(t, &d, "aclrtDestroyContext");
  releaseContext(t, *ctx);
  d.explicitContexts--;
  releaseDeviceIfUnused(t, d);
}

void DeviceContexts::setCurrentContext(HostThread& t, aclrtContext handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
  Context* ctx = contexts_.find(handle);
  if (!ctx)
    fail(ACL_ERROR_RT_INVALID_HANDLE,
         "context " + describePointer(handle) + " does not exist (destroyed already?)");
  t.current = ctx;
}

void DeviceContexts::openCopyStreams() {
  for (auto& d : devices_) d->copyStream = &streams_.open(*d, nullptr, false);
}

void DeviceContexts::releaseAll(HostThread& t) {
  // Let every queued task finish, then release what the program left behind.
  for (Context* ctx : contexts_.all()) {
    if (contexts_.find(ctx)) releaseContext(t, *ctx);  // (another thread may release it meanwhile)
  }
  for (auto& d : devices_) {
    streams_.close(t, *d->copyStream);
    d->copyStream = nullptr;
    d->defaultContexts.clear();
    d->explicitContexts = 0;
    d->setBy.clear();
    d->peersEnabled.clear();
    d->cubeCoreLimit = d->vectorCoreLimit = 0;
  }
}

}  // namespace ascendsim::runtime
