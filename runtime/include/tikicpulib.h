/*
 * tikicpulib.h for the CPU-debug build of Ascend C kernels (the vendor templates' `-r cpu`): the
 * kernels are compiled by the host compiler as they are, linked into the program, and run on the
 * host with ICPU_RUN_KF, without a device or AscendCL. Global memory is host memory from GmAlloc.
 *   x = AscendC::GmAlloc(bytes);
 *   ICPU_RUN_KF(kernel, blockDim, x, y, z);   // blocks 0 .. blockDim-1, one after the other
 *   AscendC::GmFree(x);
 * The blocks run in order on the calling thread (CANN's CPU debug runs them in processes of their
 * own); nothing is timed. A trap stops the run and is reported on stderr.
 */
#ifndef ASCENDSIM_TIKICPULIB_H_
#define ASCENDSIM_TIKICPULIB_H_

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ascendsim/ascendc.h"
#include "kernel_operator.h"

// The cores a CPU-debug kernel is written for (AscendC::SetKernelMode). AscendSim runs every
// kernel as a vector kernel, whichever is set.
enum class KernelMode { MIX_MODE, AIC_MODE, AIV_MODE };

namespace AscendC {
// Global memory for a CPU-debug kernel: `size` bytes of zeroed host memory, 32-byte aligned.
inline void* GmAlloc(size_t size) {
  const size_t rounded = (size + 31) / 32 * 32;
  void* p = std::aligned_alloc(32, rounded > 0 ? rounded : 32);
  if (p) std::memset(p, 0, rounded > 0 ? rounded : 32);
  return p;
}
inline void GmFree(void* p) {
  std::free(p);
}
inline void SetKernelMode(KernelMode) {}
}  // namespace AscendC

namespace ascendsim {
namespace ascendc {
// ICPU_RUN_KF's body: `body` (the kernel's call) once per block; returns the run's code.
template <class Body>
int32_t runOnHost(const char* name, uint32_t blockDim, Body body) {
  return ascendsimAscendCRunOnHost(
      name, blockDim, [](void* c) { (*static_cast<Body*>(c))(); }, &body);
}
}  // namespace ascendc
}  // namespace ascendsim

// Runs kernel `func` with `blockdim` blocks on the given arguments (pointers from GmAlloc, values).
#define ICPU_RUN_KF(func, blockdim, ...)                                \
  ascendsim::ascendc::runOnHost(#func, static_cast<uint32_t>(blockdim), \
                                [&]() { func(__VA_ARGS__); })

#endif
