// What a program can ask about a device: its attributes, status, utilisation and the cores its
// kernels may use (aclrtGetDeviceInfo, aclrtQueryDeviceStatus, aclrtGetDeviceUtilizationRate,
// aclrtSetDeviceResLimit...).

#include <algorithm>

#include "runtime/core/device_contexts.h"
#include "runtime/core/errors.h"
#include "runtime/core/soc_cores.h"

namespace ascendsim::runtime {
namespace {

uint32_t coreCount(const spec::DeviceSpec& d, int32_t type) {
  return type == ACL_RT_DEV_RES_CUBE_CORE ? cubeCoreCount(d) : vectorCoreCount(d);
}

void checkResourceType(int32_t type) {
  if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "type " + std::to_string(type) + " is not an aclrtDevResLimitType (0, 1)");
  }
}

int32_t percent(spec::Picoseconds busy, spec::Picoseconds span) {
  if (span <= 0) return 0;
  return static_cast<int32_t>(std::min<int64_t>(100, busy * 100 / span));
}

}  // namespace

int64_t DeviceContexts::info(int32_t id, int32_t attr) {
  const Device& d = device(id);
  switch (attr) {
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM: return cubeCoreCount(*d.spec);
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: return vectorCoreCount(*d.spec);
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE: return unifiedBufferBytes(*d.spec);
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: return static_cast<int64_t>(d.memory->capacity());
    case ACL_DEV_ATTR_PHY_CHIP_ID: return d.id;
    case ACL_DEV_ATTR_IS_VIRTUAL: return 0;
    default:
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "attribute " + std::to_string(attr) +
               " is not one the simulated machine describes (AI Core, cube and "
               "vector core counts, Unified Buffer, total memory, chip id, is-virtual)");
  }
}

aclrtUtilizationInfo DeviceContexts::utilization(int32_t id) {
  const Device& d = device(id);
  const std::string prefix = d.spec->name + ".";
  spec::Picoseconds cores = 0, memory = 0;
  for (const models::Resource& r : port_.resources()) {
    if (r.name == prefix + "aicore") cores = r.busy;
    if (r.name == prefix + "memory") memory = r.busy;
  }
  // CANN fills cubeUtilization with the AI Cores' share (RT_UTIL_TYPE_AICORE) and
  // vectorUtilization with the vector cores' (RT_UTIL_TYPE_AIVECTOR) (hicann/runtime
  // src/acl/aclrt_impl/device.cpp). Kernels run on the vector cores of an A2/A3 SoC, whose cube
  // cores (AIC) nothing simulated runs on; elsewhere they run on the AI Cores, which hold the cube
  // units, and both fields report those cores.
  const spec::Picoseconds cube = hasVectorCores(*d.spec) ? 0 : cores;
  const spec::Picoseconds span = port_.simulatedNow();
  aclrtUtilizationInfo info{};
  info.cubeUtilization = percent(cube, span);
  info.vectorUtilization = percent(cores, span);
  info.memoryUtilization = percent(memory, span);
  return info;
}

aclrtDeviceStatus DeviceContexts::status(int32_t id) {
  // A task that faulted on the device (an AI Core exception, a kernel trap) leaves it abnormal
  // until it is reset: aclrtResetDevice releasing its last reference, or aclrtResetDeviceForce.
  return device(id).errorType != ACL_RT_NO_ERROR ? ACL_RT_DEVICE_STATUS_ABNORMAL
                                                 : ACL_RT_DEVICE_STATUS_NORMAL;
}

int32_t DeviceContexts::capability(int32_t id, int32_t feature) {
  const Device& d = device(id);
  if (feature != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
      feature != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV) {
    fail(ACL_ERROR_INVALID_PARAM,
         "devFeatureType " + std::to_string(feature) + " is not an aclrtDevFeatureType (1, 21)");
  }
  // CANN lists aclrtGetDeviceCapability for the A2/A3 (and 950) products only (hicann/runtime
  // docs/api_docs/aclrtGetDeviceCapability.md). On them, task update of AI Core kernels is
  // supported (hicann/runtime example/0_quickstart/3_cross_version prints 1 on an Ascend910B3) and
  // cross-device memory-queue events are (the runtime's own unit tests expect FEATURE_SUPPORT for
  // the 910B, "CloudV2"). Other SoCs: neither.
  return isA2OrA3(d.spec->soc) ? ACL_DEV_FEATURE_SUPPORT : ACL_DEV_FEATURE_NOT_SUPPORT;
}

void DeviceContexts::setResourceLimit(int32_t id, int32_t type, uint32_t value) {
  checkResourceType(type);
  Device& d = device(id);
  const uint32_t total = coreCount(*d.spec, type);
  if (value == 0 || value > total) {
    fail(ACL_ERROR_RT_PARAM_INVALID, "value " + std::to_string(value) + " must be 1.." +
                                         std::to_string(total) + " (the device's " +
                                         (type == ACL_RT_DEV_RES_CUBE_CORE ? "cube" : "vector") +
                                         " cores)");
  }
  (type == ACL_RT_DEV_RES_CUBE_CORE ? d.cubeCoreLimit : d.vectorCoreLimit) = value;
}

uint32_t DeviceContexts::resourceLimit(int32_t id, int32_t type) {
  checkResourceType(type);
  const Device& d = device(id);
  const uint32_t limit = type == ACL_RT_DEV_RES_CUBE_CORE ? d.cubeCoreLimit : d.vectorCoreLimit;
  return limit ? limit : coreCount(*d.spec, type);
}

void DeviceContexts::resetResourceLimits(int32_t id) {
  Device& d = device(id);
  d.cubeCoreLimit = 0;
  d.vectorCoreLimit = 0;
}

}  // namespace ascendsim::runtime
