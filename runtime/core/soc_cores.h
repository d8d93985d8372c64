#pragma once
// The cores of a device's SoC as CANN counts them. A2/A3 SoCs (910B, 910_93) have separate cube
// cores (AIC) and vector cores (AIV), two AIV per AIC (CANN platform_config: 910B4 20 + 40, 910_93
// 24 + 48); vector kernels run on the AIVs. Other SoCs (910A, 310P) have AI Cores with both units.
// `ai_core.cores` is the count vector kernels run on.

#include <cstdint>

#include "spec/system_spec.h"

namespace ascendsim::runtime {

inline bool hasVectorCores(const spec::DeviceSpec& device) {
  return device.soc.rfind("Ascend910B", 0) == 0 || device.soc.rfind("Ascend910_93", 0) == 0;
}
inline uint32_t vectorCoreCount(const spec::DeviceSpec& device) { return device.aicore.cores; }
inline uint32_t cubeCoreCount(const spec::DeviceSpec& device) {
  return hasVectorCores(device) ? device.aicore.cores / 2 : device.aicore.cores;
}

}  // namespace ascendsim::runtime
