/*
 * Ascend C kernels on AscendSim: kernels compiled for the host by ascendc_library (ascendc.cmake).
 * A launch `K<<<blockDim, l2ctrl, stream>>>(args)` becomes ascendsimLaunchAscendCKernel: a
 * KERNEL_AICORE task on `stream` whose blocks run, in block order, when the task starts, on the
 * device's memory at its own addresses. The other functions serve kernel_operator.h.
 */
#ifndef ASCENDSIM_ASCENDC_H_
#define ASCENDSIM_ASCENDC_H_

#include <stdint.h>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `entry(closure)` runs one block; `closureBytes` is the arguments' size (exception callbacks
 * report closure and size as the kernel's arguments); `release(closure)` (may be NULL) frees the
 * arguments when the task is done. blockDim 0 or above 65535: ACL_ERROR_RT_PARAM_INVALID. A block
 * that touches device memory outside every allocation of its device, or traps, makes the stream's
 * next synchronisation fail with ACL_ERROR_RT_AICORE_EXCEPTION /
 * ACL_ERROR_RT_AICORE_TRAP_EXCEPTION. */
ACL_FUNC_VISIBILITY aclError ascendsimLaunchAscendCKernel(const char* name, uint32_t blockDim,
                                                          aclrtStream stream,
                                                          void (*entry)(void* closure),
                                                          void* closure, uint32_t closureBytes,
                                                          void (*release)(void* closure));
/* The CPU-debug run of a kernel (tikicpulib.h's ICPU_RUN_KF): `entry(closure)` once per block,
 * blocks 0 .. blockDim-1 in order on the calling thread, on host memory, with no device and no
 * timing. ACL_SUCCESS; ACL_ERROR_INVALID_PARAM (no entry, blockDim 0); a block that traps stops
 * the run: ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, and a line on stderr names the block. */
ACL_FUNC_VISIBILITY int32_t ascendsimAscendCRunOnHost(const char* name, uint32_t blockDim,
                                                      void (*entry)(void* closure), void* closure);
/* The running block's index and the kernel's block count (0 and 1 outside a kernel). */
ACL_FUNC_VISIBILITY int64_t ascendsimAscendCBlockIdx(void);
ACL_FUNC_VISIBILITY int64_t ascendsimAscendCBlockNum(void);
/* Ascend C's trap: stops the running block; the kernel fails. */
ACL_FUNC_VISIBILITY void ascendsimAscendCTrap(void);
/* Bytes of Unified Buffer of the core the running kernel runs on (0 outside a kernel); a kernel
 * that asks for more (`reason` says what) stops and fails as with a fault of its own. */
ACL_FUNC_VISIBILITY uint32_t ascendsimAscendCUnifiedBufferBytes(void);
ACL_FUNC_VISIBILITY void ascendsimAscendCExceedResource(const char* reason);
/* What kernel_operator.h's vector interface tells the timing (docs/ascendc.md, "Timing"), each
 * ignored outside a kernel: a vector instruction over `bytes` (of its widest operand) writing the
 * local buffer `dst` from `src0` and `src1` (NULL: none); DataCopy of `bytes` between global memory
 * at `global` and the local buffer `local` (toGlobal: 1 when written out); the scalar unit reading
 * (write 0) or writing a local buffer; PipeBarrier<PIPE_ALL>. A local buffer is named by its start.
 */
ACL_FUNC_VISIBILITY void ascendsimAscendCVector(const void* dst, const void* src0, const void* src1,
                                                uint64_t bytes);
ACL_FUNC_VISIBILITY void ascendsimAscendCCopy(const void* global, const void* local, uint64_t bytes,
                                              int32_t toGlobal);
/* One copy instruction of `blocks` blocks of `blockBytes` each, `globalStride` bytes apart in
 * global memory from `global` (flags: 1 when written out, 2 when the copy out combines with what
 * global memory holds, atomic add / max / min, so that it reads those bytes too). */
ACL_FUNC_VISIBILITY void ascendsimAscendCCopyBlocks(const void* global, const void* local,
                                                    uint64_t blockBytes, uint64_t blocks,
                                                    uint64_t globalStride, int32_t flags);
ACL_FUNC_VISIBILITY void ascendsimAscendCLocalAccess(const void* buffer, int32_t write);
ACL_FUNC_VISIBILITY void ascendsimAscendCBarrier(void);
/* One test of a loop's condition in a kernel's own source (ascendsim-ascendc-prep writes
 * `ascendsim::ascendc::loopTest() && (condition)` into every for, while and do-while of the kernel
 * sources ascendc_library builds): the scalar unit's time for that iteration. Returns 1. */
ACL_FUNC_VISIBILITY int32_t ascendsimAscendCLoopTest(void);
/* kernel_operator.h's own code (the host stand-ins for vector instructions and DataCopy) runs
 * between enter 1 and enter 0: the loop tests counted then are not the kernel's scalar code. */
ACL_FUNC_VISIBILITY void ascendsimAscendCLibrary(int32_t enter);
/* Storage of a local buffer (kernel_operator.h's queues and TBuf): `bytes` zeroed bytes, 32-byte
 * aligned, followed by 32 bytes of slack and an inaccessible guard page (one precedes it too), so
 * that a kernel writing a LocalTensor past its end faults (the kernel fails with
 * ACL_ERROR_RT_VECTOR_CORE_EXCEPTION / ACL_ERROR_RT_AICORE_EXCEPTION) instead of corrupting the
 * host's heap. NULL when the host has no memory; free with ascendsimAscendCFreeLocalBuffer. */
ACL_FUNC_VISIBILITY void* ascendsimAscendCLocalBuffer(uint64_t bytes);
ACL_FUNC_VISIBILITY void ascendsimAscendCFreeLocalBuffer(void* buffer);

#ifdef __cplusplus
}

#include <cstring>
#include <type_traits>

namespace ascendsim {
namespace ascendc {
// The count ascendsim-ascendc-prep puts in every loop condition of a kernel's source: one test of
// the condition (true; nothing is counted in a constant expression, a constexpr function's loop).
constexpr bool loopTest() {
  return __builtin_is_constant_evaluated() || ascendsimAscendCLoopTest() != 0;
}
// An argument of a generated launch function aclrtlaunch_K (the header ascendc_library writes) as
// the kernel's parameter of type T: a pointer as it is, a structure copied from the host memory
// it is given at (as CANN passes a kernel's tiling structure), an arithmetic value converted.
template <class T, class A>
T launchArgument(A argument) {
  if constexpr (std::is_pointer_v<T>) {
    return static_cast<T>(argument);
  } else if constexpr (std::is_class_v<T> && std::is_same_v<A, void*>) {
    T value;
    std::memcpy(static_cast<void*>(&value), argument, sizeof value);
    return value;
  } else {
    return static_cast<T>(argument);
  }
}
// What a rewritten `<<<...>>>` launch calls: the kernel's call, its arguments captured by value.
template <class Body>
uint32_t launch(const char* name, uint32_t blockDim, void* /*l2ctrl*/, void* stream, Body body) {
  Body* closure = new Body(static_cast<Body&&>(body));
  return static_cast<uint32_t>(ascendsimLaunchAscendCKernel(
      name, blockDim, stream, [](void* c) { (*static_cast<Body*>(c))(); }, closure,
      static_cast<uint32_t>(sizeof(Body)), [](void* c) { delete static_cast<Body*>(c); }));
}
}  // namespace ascendc
}  // namespace ascendsim
#endif

#endif
