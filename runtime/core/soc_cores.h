#pragma once
// The cores of a device's SoC as CANN counts them. A2/A3 SoCs (910B, 910_93) have separate cube
// cores (AIC) and vector cores (AIV), two AIV per AIC (CANN platform_config: 910B4 20 + 40, 910_93
// 24 + 48); vector kernels run on the AIVs. Other SoCs (910A, 310P) have AI Cores with both units.
// `ai_core.cores` is the count vector kernels run on.

#include <algorithm>
#include <cstdint>
#include <string>

#include "spec/system_spec.h"

namespace ascendsim::runtime {

// The SoC family a version belongs to, as model compatibility goes: "Ascend910B" for
// Ascend910B1..B4, "Ascend910_93" for Ascend910_93xx, else the name itself.
inline std::string socFamily(const std::string& soc) {
  for (const char* family : {"Ascend910B", "Ascend910_93"}) {
    if (soc.rfind(family, 0) == 0) return family;
  }
  return soc;
}
inline bool isA2OrA3(const std::string& soc) {
  const std::string family = socFamily(soc);
  return family == "Ascend910B" || family == "Ascend910_93";
}
// Whether the SoC computes in the Inf/NaN overflow mode (its default; CANN: A2/A3 and 950 SoCs);
// the others (910A, 310P, 310B) know only saturation.
inline bool takesInfNan(const std::string& soc) {
  return isA2OrA3(soc) || soc.rfind("Ascend950", 0) == 0;
}
inline bool hasVectorCores(const spec::DeviceSpec& device) {
  return isA2OrA3(device.soc);
}
// Unified Buffer per core that runs vector kernels: the device's `aicore.unified_buffer`, whose
// default is the SoC's (spec::unifiedBufferDefault: 192 KiB on A2/A3 vector cores, 256 KiB else).
inline uint32_t unifiedBufferBytes(const spec::DeviceSpec& device) {
  const uint64_t bytes = device.aicore.unifiedBuffer;
  return static_cast<uint32_t>(bytes ? bytes : spec::unifiedBufferDefault(device.soc));
}
inline uint32_t vectorCoreCount(const spec::DeviceSpec& device) {
  return device.aicore.cores;
}
inline uint32_t cubeCoreCount(const spec::DeviceSpec& device) {
  return hasVectorCores(device) ? device.aicore.cores / 2 : device.aicore.cores;
}
// The cores a kernel may run on under aclrtSetDeviceResLimit's limits (0: not limited). A2/A3
// kernels run on the vector cores: the vector limit. Elsewhere they run on the AI Cores, which are
// the cube cores too (ACL_DEV_ATTR_CUBE_CORE_NUM counts them): either limit caps them.
inline uint32_t kernelCoreLimit(const spec::DeviceSpec& device, uint32_t cubeLimit,
                                uint32_t vectorLimit) {
  if (hasVectorCores(device) || cubeLimit == 0) return vectorLimit;
  return vectorLimit == 0 ? cubeLimit : std::min(cubeLimit, vectorLimit);
}

}  // namespace ascendsim::runtime
