/*
 * kernel_operator.h for Ascend C kernels compiled for the host by AscendSim's ascendc_library
 * (ascendc.cmake). The kernel qualifiers are empty; block_idx / block_num and
 * AscendC::GetBlockIdx / GetBlockNum name the running block; AscendC::printf prints in block order
 * at the kernel's simulated start; trap() stops the block (the kernel fails with
 * ACL_ERROR_RT_AICORE_TRAP_EXCEPTION). Global memory is the device's memory at its own addresses:
 * scalar code reads and writes it through __gm__ pointers.
 */
#ifndef ASCENDSIM_KERNEL_OPERATOR_H_
#define ASCENDSIM_KERNEL_OPERATOR_H_

#include <cstdint>
#include <cstdio>

#include "ascendsim/ascendc.h"

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__

namespace AscendC {

inline int64_t GetBlockIdx() { return ascendsimAscendCBlockIdx(); }
inline int64_t GetBlockNum() { return ascendsimAscendCBlockNum(); }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
template <typename... Args>
inline void printf(const char* format, Args... args) {
  std::printf(format, args...);
  std::fflush(stdout);
}
#pragma GCC diagnostic pop

inline void trap() { ascendsimAscendCTrap(); }

}  // namespace AscendC

#define block_idx (AscendC::GetBlockIdx())
#define block_num (AscendC::GetBlockNum())

#endif
