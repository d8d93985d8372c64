// Devices, peer access and contexts.

#include <algorithm>

#include "models/dram/dram_standard.h"
#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"
#include "runtime/core/soc_cores.h"

namespace ascendsim::runtime {

// ---------------------------------------------------------------- devices

Device& deviceById(const Devices& devices, int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= devices.size()) {
    fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id " + std::to_string(id) +
                                            " is out of range; this machine has " +
                                            std::to_string(devices.size()) + " device(s), 0 to " +
                                            std::to_string(static_cast<int>(devices.size()) - 1));
  }
  return *devices[static_cast<size_t>(id)];
}

Device& Runtime::device(int32_t id) {
  return deviceById(devices_, id);
}

Stream& Runtime::newStream(Device& d, Context* ctx, bool isDefault) {
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

void Runtime::deleteStream(Stream& s) {
  if (modelRuns_) modelRuns_->forgetStream(s);
  s.device->scheduler->detach(s.queue);
  s.device->streams--;
  if (s.context) {
    auto& v = s.context->streams;
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
  }
  s.destroyed = true;
  s.context = nullptr;  // (its context may go next)
  if (s.users > 0) {
    destroyedStreams_.push_back(streams_.take(&s));  // a waiter still looks at it
  } else {
    streams_.erase(&s);
  }
}

Runtime::StreamUse::~StreamUse() {
  if (--s_.users > 0 || !s_.destroyed) return;
  auto& gone = rt_.destroyedStreams_;
  gone.erase(std::remove_if(gone.begin(), gone.end(),
                            [this](const std::unique_ptr<Stream>& p) { return p.get() == &s_; }),
             gone.end());
}

void Runtime::refuseInsideCallback(HostThread& t, const Device* d, const char* what) {
  const Stream* running = t.inCallbackOf;
  if (!running || (d && running->device != d)) return;
  fail(ACL_ERROR_RT_STREAM_NOT_COMPLETE,
       std::string("deadlock: ") + what + " from inside a callback or host function of stream " +
           std::to_string(running->queue.id()) + " of device " +
           std::to_string(running->device->id) +
           " would wait for that stream, which goes on only when the function returns; "
           "call it after the function has returned");
}

void Runtime::releaseContext(HostThread& t, Context& ctx) {
  const std::vector<Stream*> streams = ctx.streams;
  for (Stream* s : streams) {
    // Waiting lets other threads destroy streams: skip the gone, keep this one while waiting.
    if (!streams_.find(s)) continue;
    StreamUse use(*this, *s);
    const bool idle = waitFor(t, [s] { return s->queue.idle(); });
    if (s->destroyed) continue;
    if (!idle) {
      warn(t, "tasks-dropped",
           std::to_string(s->queue.pending()) + " task(s) of stream " +
               std::to_string(s->queue.id()) + " could never run and were dropped");
      while (!s->queue.idle()) s->queue.popHead(system_->now());
    }
    t.now = std::max(t.now, s->queue.lastCompletion());
    deleteStream(*s);
  }
  threads_.forEach([&](HostThread& th) {
    if (th.current == &ctx) th.current = nullptr;
  });
  Device& d = *ctx.device;
  for (auto it = d.defaultContexts.begin(); it != d.defaultContexts.end();) {
    it = it->second == &ctx ? d.defaultContexts.erase(it) : std::next(it);
  }
  contexts_.erase(&ctx);
}

void Runtime::releaseDeviceIfUnused(Device& d) {
  if (!d.defaultContexts.empty() || d.explicitContexts > 0) return;
  d.peersEnabled.clear();
  if (ipc().importsOn(d)) return;  // other processes still use memory exported from it
  if (d.memory->allocationCount() > 0) {
    warn(thread(), "memory-not-freed",
         std::to_string(d.memory->allocationCount()) + " allocation(s) on device " +
             std::to_string(d.id) + " were released by aclrtResetDevice without aclrtFree");
  }
  virtualMemory().deviceReleased(d);
  memory_->releaseDevice(d);
  d.peersEnabled.clear();
  d.errorType = ACL_RT_NO_ERROR;  // a reset device starts clean
  d.aicoreErrorType = ACL_RT_AICORE_ERROR_UNKNOWN;
}

void Runtime::setDevice(HostThread& t, int32_t id) {
  Device& d = device(id);
  const int32_t pid = callerPid(t);
  Context*& defaultContext = d.defaultContexts[pid];
  if (!defaultContext) {
    auto ctx = std::make_unique<Context>();
    ctx->device = &d;
    ctx->isDefault = true;
    Context& ref = contexts_.add(std::move(ctx));
    ref.defaultStream = &newStream(d, &ref, true);
    defaultContext = &ref;
  }
  d.setBy[pid].insert(t.pthreadId);
  t.current = defaultContext;
}

void Runtime::resetDevice(HostThread& t, int32_t id, bool force) {
  Device& d = device(id);
  // Only the calling process's hold on the device: other processes sharing it go on.
  const int32_t pid = callerPid(t);
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
  releaseDeviceIfUnused(d);
}

Context& Runtime::requireContext(HostThread& t) {
  if (!t.current)
    fail(ACL_ERROR_RT_CONTEXT_NULL,
         "this thread has no current context: call aclrtSetDevice or aclrtSetCurrentContext first");
  return *t.current;
}

int32_t Runtime::currentDevice(HostThread& t) {
  return requireContext(t).device->id;
}

void Runtime::synchronizeDevice(HostThread& t) {
  Device& d = *requireContext(t).device;
  // Waiting lets other threads create and destroy streams: go over a snapshot, skipping the gone.
  for (Stream* s : streams_.all()) {
    if (streams_.find(s) && s->device == &d) waitStream(t, *s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  }
  t.now += overheads().synchronize;
  for (Stream* s : streams_.all()) {
    if (streams_.find(s) && s->device == &d) reportStreamFailure(*s);
  }
}

aclrtRunMode Runtime::runMode() {
  return machineSpec().runMode == spec::RunMode::Host ? ACL_HOST : ACL_DEVICE;
}

bool Runtime::canAccessPeer(int32_t dev, int32_t peer) {
  Device& a = device(dev);
  Device& b = device(peer);
  if (dev == peer)
    fail(ACL_ERROR_INVALID_PARAM, "a device is not its own peer (deviceId == peerDeviceId)");
  (void)a;
  (void)b;
  return system_->router().peersAllowed(dev, peer);
}

uint64_t Runtime::devicesTopology(int32_t dev, int32_t other) {
  device(dev);
  device(other);
  if (dev == other) fail(ACL_ERROR_INVALID_PARAM, "deviceId and otherDeviceId are the same device");
  return static_cast<uint64_t>(system_->router().topology(dev, other));
}

void Runtime::enablePeerAccess(HostThread& t, int32_t peer, uint32_t flags) {
  if (flags != 0) fail(ACL_ERROR_FEATURE_UNSUPPORTED, "flags must be 0");
  Device& d = *requireContext(t).device;
  Device& p = device(peer);
  if (&d == &p) fail(ACL_ERROR_INVALID_PARAM, "peerDeviceId is the current device");
  std::string why;
  if (!system_->router().peersAllowed(d.id, peer, &why)) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "devices " + std::to_string(d.id) + " and " +
                                               std::to_string(p.id) + " cannot be peers: " + why);
  }
  d.peersEnabled.insert(peer);
}

void Runtime::disablePeerAccess(HostThread& t, int32_t peer) {
  Device& d = *requireContext(t).device;
  device(peer);
  if (!d.peersEnabled.erase(peer)) {
    fail(ACL_ERROR_INVALID_PARAM, "peer access from device " + std::to_string(d.id) +
                                      " to device " + std::to_string(peer) + " was not enabled");
  }
}

void Runtime::memInfo(HostThread& t, int32_t attr, size_t* free, size_t* total) {
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

Context* Runtime::createContext(HostThread& t, int32_t deviceId) {
  Device& d = device(deviceId);
  auto ctx = std::make_unique<Context>();
  ctx->device = &d;
  Context& ref = contexts_.add(std::move(ctx));
  try {
    ref.defaultStream = &newStream(d, &ref, true);
  } catch (...) {
    contexts_.erase(&ref);
    throw;
  }
  d.explicitContexts++;
  t.current = &ref;
  return &ref;
}

void Runtime::destroyContext(HostThread& t, aclrtContext handle) {
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
  releaseDeviceIfUnused(d);
}

void Runtime::setCurrentContext(HostThread& t, aclrtContext handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
  Context* ctx = contexts_.find(handle);
  if (!ctx)
    fail(ACL_ERROR_RT_INVALID_HANDLE,
         "context " + describePointer(handle) + " does not exist (destroyed already?)");
  t.current = ctx;
}

Context* Runtime::currentContext(HostThread& t) {
  return &requireContext(t);
}

void Runtime::setOverflowMode(HostThread& t, int32_t mode) {
  overflowMode_ = mode;
  if (t.current && contexts_.find(t.current)) t.current->device->overflowMode = mode;
}

int32_t Runtime::overflowMode() {
  if (overflowMode_ >= 0) return overflowMode_;
  return takesInfNan(socName()) ? ACL_RT_OVERFLOW_MODE_INFNAN : ACL_RT_OVERFLOW_MODE_SATURATION;
}

}  // namespace ascendsim::runtime
