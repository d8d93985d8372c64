#include "runtime/core/copy_planner.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace ascendsim::runtime {

using models::MemoryPlace;

namespace {

const char* placeName(const MemoryPlace& p) {
  switch (p.kind) {
    case MemoryPlace::Kind::Device: return "device memory";
    case MemoryPlace::Kind::HostPinned: return "pinned host memory";
    case MemoryPlace::Kind::HostPageable: return "pageable host memory";
  }
  return "?";
}

}  // namespace

const char* copyKindName(int32_t kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE";
    default: return "unknown kind";
  }
}

CopyPlanner::CopyPlanner(const spec::SystemSpec& spec, MemoryManager& memory,
                         const std::vector<std::unique_ptr<Device>>& devices)
    : spec_(spec), memory_(memory), devices_(devices) {}

CopyPlan CopyPlanner::plan(Device* current, void* dst, uint64_t dstBytes, const void* src,
                           uint64_t srcBytes, int32_t kind, bool async) const {
  if (!dst || !src) fail(ACL_ERROR_INVALID_PARAM, std::string(!dst ? "dst" : "src") + " is NULL");
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
    fail(ACL_ERROR_INVALID_PARAM, "unsupported aclrtMemcpyKind " + std::to_string(kind));
  }
  CopyPlan plan;
  plan.dst = memory_.resolve(dst, dstBytes, "dst");
  plan.src = memory_.resolve(src, srcBytes, "src");
  const uint64_t count = std::max(dstBytes, srcBytes);

  if (spec_.runMode == spec::RunMode::Device) {
    // RC mode: host and device share the device's memory; every copy is a local device copy.
    Device& d = current ? *current : *devices_.front();
    for (MemoryPlace* side : {&plan.dst, &plan.src}) {
      if (!isDevice(*side)) *side = MemoryPlace{MemoryPlace::Kind::HostPinned, -1, side->address};
    }
    plan.engine = &d;
    plan.maxTaskBytes = kMaxDeviceCopyBytes;
    return plan;
  }

  const bool dstDev = isDevice(plan.dst), srcDev = isDevice(plan.src);
  bool kindOk = true;
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: kindOk = !dstDev && !srcDev; break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: kindOk = dstDev && !srcDev; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: kindOk = !dstDev && srcDev; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: kindOk = dstDev && srcDev; break;
    default: break;  // ACL_MEMCPY_DEFAULT: the direction follows the addresses
  }
  if (!kindOk) {
    fail(ACL_ERROR_RT_PARAM_INVALID, std::string(copyKindName(kind)) +
                                         " does not match the pointers: src is " +
                                         placeName(plan.src) + ", dst is " + placeName(plan.dst));
  }
  if (!dstDev && !srcDev) {
    if (async)
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "asynchronous host-to-host copies are not supported in run mode host");
    return plan;  // the CPU copies
  }
  plan.pageable = plan.dst.kind == MemoryPlace::Kind::HostPageable ||
                  plan.src.kind == MemoryPlace::Kind::HostPageable;
  if (dstDev && srcDev) {
    if (count > kMaxDeviceCopyBytes) {
      fail(ACL_ERROR_RT_PARAM_INVALID, "a device-to-device copy carries at most 4 GiB; split it");
    }
    plan.maxTaskBytes = kMaxDeviceCopyBytes;
    Device& a = *devices_[static_cast<size_t>(plan.src.device)];
    Device& b = *devices_[static_cast<size_t>(plan.dst.device)];
    Device& engine = (current == &b) ? b : a;
    if (&a != &b) {
      Device& other = &engine == &a ? b : a;
      if (!engine.peersEnabled.count(other.id)) {
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             "copy between device " + std::to_string(a.id) + " and device " + std::to_string(b.id) +
                 " needs peer access: call aclrtDeviceEnablePeerAccess(" +
                 std::to_string(other.id) + ", 0) with device " + std::to_string(engine.id) +
                 " current");
      }
    }
    plan.engine = &engine;
    return plan;
  }
  plan.engine = devices_[static_cast<size_t>(dstDev ? plan.dst.device : plan.src.device)].get();
  return plan;
}

}  // namespace ascendsim::runtime
