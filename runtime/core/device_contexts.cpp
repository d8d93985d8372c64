// Devices, peer access and contexts (the DeviceContexts service).

#include "runtime/core/device_contexts.h"

#include <algorithm>

#include "models/dram/dram_standard.h"
#include "runtime/core/errors.h"

namespace ascendsim::runtime {

// ---------------------------------------------------------------- devices

// Stream state callbacks (aclrtRegStreamStateCallback) as CANN runs them (hicann/runtime,
// src/runtime): the setup of every stream (Stream::Setup, core/src/stream/stream.cc) runs
// ACL_RT_STREAM_STATE_CREATE_POST, a context's default stream included (Context::Setup and, for
// the device's primary stream, RawDevice::Start); a teardown runs ACL_RT_STREAM_STATE_DESTROY_PRE:
// - aclrtDestroyContext (ApiImpl::ContextDestroy, api/impl/api_impl.cc): for the default stream
//   first ("make sure that the slave stream is destroyed behind the mainstream"), then
//   Context::TearDown (core/src/context/context.cc) for each stream created in the context, in
//   creation order, each just before it goes (TearDownOwnedStreamsOnContextTearDown ->
//   TearDownStreamAndFinalize -> NotifyStreamDestroyPre), and for the default stream again as it
//   goes (TearDownContextStream(defaultStream_, "default"): not a primary context).
// - the device's last aclrtResetDevice(Force) (Runtime::ExecutePrimaryTearDown, core/src/
//   runtime.cc): for the device's default stream (PrimaryContextCallBack), then Context::TearDown
//   for the context's streams as above; the default stream goes with the device, unannounced.
// - aclFinalize releases no context in CANN (aclFinalizeInternal, src/acl/aclrt_impl/acl.cpp),
//   and at process exit the runtime runs none (NotifyStreamDestroyPre, PrimaryContextCallBack:
//   not while the process exits): what AscendSim's aclFinalize releases goes quietly.
void DeviceContexts::releaseContext(HostThread& t, Context& ctx, Teardown how) {
  ctx.releasing = true;
  Stream* const defaultStream = ctx.defaultStream;
  auto firstOwn = [&ctx]() -> Stream* {
    for (Stream* s : ctx.streams) {
      if (!s->isDefault) return s;
    }
    return nullptr;
  };
  auto owned = [&ctx](const Stream* s) {
    return std::find(ctx.streams.begin(), ctx.streams.end(), s) != ctx.streams.end();
  };
  // (Each callback runs unlocked: another thread, or the callback, may destroy streams.)
  if (how != Teardown::Quiet && defaultStream)
    streams_.stateChanged(t, defaultStream, ACL_RT_STREAM_STATE_DESTROY_PRE);
  while (Stream* s = firstOwn()) {
    if (how != Teardown::Quiet) {
      streams_.stateChanged(t, s, ACL_RT_STREAM_STATE_DESTROY_PRE);
      if (!owned(s)) continue;
    }
    streams_.releaseOfContext(t, *s);
  }
  if (how == Teardown::Destroy && defaultStream && owned(defaultStream))
    streams_.stateChanged(t, defaultStream, ACL_RT_STREAM_STATE_DESTROY_PRE);
  // The default stream, and any a callback made in the context meanwhile.
  while (!ctx.streams.empty()) streams_.releaseOfContext(t, *ctx.streams.front());
  port_.leaveContext(ctx);
  Device& d = *ctx.device;
  for (auto it = d.defaultContexts.begin(); it != d.defaultContexts.end();) {
    it = it->second == &ctx ? d.defaultContexts.erase(it) : std::next(it);
  }
  contexts_.erase(&ctx);
}

void DeviceContexts::refuseWhileReleasing(const Context& ctx, const char* what) {
  // CANN refuses a context being destroyed (ApiImpl::ContextDestroy: RT_ERROR_CONTEXT_DEL,
  // ACL_ERROR_RT_CONTEXT_RELEASE_ERROR).
  if (!ctx.releasing) return;
  fail(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
       std::string(what) + ": the " +
           (ctx.isDefault ? "default context of device " : "context on device ") +
           std::to_string(ctx.device->id) +
           " is being released (its stream state callbacks are running)");
}

std::vector<Stream*> DeviceContexts::goingWithContext(HostThread& t, aclrtContext handle) {
  Context* ctx = handle ? contexts_.find(handle) : nullptr;
  // (Refused by destroyContext's checks: nothing goes.)
  if (!ctx || ctx->isDefault || ctx->releasing) return {};
  if (t.inCallbackOf && t.inCallbackOf->context == ctx) return {};
  std::vector<Stream*> going{ctx->defaultStream};
  for (Stream* s : ctx->streams) {
    if (!s->isDefault) going.push_back(s);
  }
  going.push_back(ctx->defaultStream);
  return going;
}

std::vector<Stream*> DeviceContexts::goingWithDevice(HostThread& t, int32_t id, bool force) {
  if (id < 0 || static_cast<size_t>(id) >= devices_.size()) return {};
  Context* ctx = releasedByReset(t, device(id), force);
  if (!ctx) return {};
  std::vector<Stream*> going{ctx->defaultStream};
  for (Stream* s : ctx->streams) {
    if (!s->isDefault) going.push_back(s);
  }
  return going;
}

Context* DeviceContexts::releasedByReset(HostThread& t, Device& d, bool force) {
  const int32_t pid = port_.callerPid(t);
  auto own = d.defaultContexts.find(pid);
  if (own == d.defaultContexts.end() || !own->second || own->second->releasing) return nullptr;
  auto held = d.setBy.find(pid);
  const size_t holders = held == d.setBy.end() ? 0 : held->second.size();
  const bool mine = held != d.setBy.end() && held->second.count(t.pthreadId);
  if ((force || (holders == 1 && mine)) && t.inCallbackOf && t.inCallbackOf->device == &d)
    return nullptr;  // (refused: inside a callback of the device's stream)
  if (!force && holders > (mine ? 1u : 0u)) return nullptr;  // other threads still hold it
  return own->second;
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
  t.madeDefaultStream = nullptr;
  Context*& defaultContext = d.defaultContexts[pid];
  if (defaultContext) refuseWhileReleasing(*defaultContext, "aclrtSetDevice");
  if (!defaultContext) {
    auto ctx = std::make_unique<Context>();
    ctx->device = &d;
    ctx->isDefault = true;
    Context& ref = contexts_.add(std::move(ctx));
    ref.defaultStream = &streams_.open(d, &ref, true);
    defaultContext = &ref;
    t.madeDefaultStream = ref.defaultStream;
  }
  d.setBy[pid].insert(t.pthreadId);
  t.current = defaultContext;
  // The device's default stream is made (CANN: RawDevice::Start's primary stream setup).
  if (t.madeDefaultStream)
    streams_.stateChanged(t, t.madeDefaultStream, ACL_RT_STREAM_STATE_CREATE_POST);
}

void DeviceContexts::reset(HostThread& t, int32_t id, bool force) {
  Device& d = device(id);
  // Only the calling process's hold on the device: other processes sharing it go on.
  const int32_t pid = port_.callerPid(t);
  if (auto own = d.defaultContexts.find(pid); own != d.defaultContexts.end() && own->second)
    refuseWhileReleasing(*own->second, force ? "aclrtResetDeviceForce" : "aclrtResetDevice");
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
  releaseContext(t, *own->second, Teardown::Reset);
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
  t.madeDefaultStream = nullptr;
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
  // Its default stream is made (CANN: Context::Setup).
  t.madeDefaultStream = ref.defaultStream;
  streams_.stateChanged(t, ref.defaultStream, ACL_RT_STREAM_STATE_CREATE_POST);
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
  refuseWhileReleasing(*ctx, "aclrtDestroyContext");
  Device& d = *ctx->device;
  if (t.inCallbackOf && t.inCallbackOf->context == ctx)
    refuseInsideCallback(t, &d, "aclrtDestroyContext");
  releaseContext(t, *ctx, Teardown::Destroy);
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
  for (Context* ctx : contexts_.all()) refuseWhileReleasing(*ctx, "aclFinalize");
  // Let every queued task finish, then release what the program left behind.
  for (Context* ctx : contexts_.all()) {
    // (Another thread may release it meanwhile.)
    if (contexts_.find(ctx)) releaseContext(t, *ctx, Teardown::Quiet);
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
