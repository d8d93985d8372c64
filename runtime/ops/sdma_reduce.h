#pragma once
// The DMA engine's inline reduction (SDMA reduce): a device-to-device copy whose engine combines
// each element it writes with the one already at the destination, dst = dst op src. HCCL's
// collectives (runtime/hccl) and aclrtReduceAsync queue the same task: it moves through the
// engine, links and memories as the copy it is (the engine reduces at its copy rate), and the
// reduction is applied to the bytes when it ends. The arithmetic is exact on the bytes: integers
// wrap as the hardware's adders do; float16 and bfloat16 are computed in float and rounded to
// nearest even once per element.

#include <cstdint>
#include <memory>

#include "models/task/task.h"
#include "runtime/core/memory_manager.h"

namespace ascendsim::runtime::ops {

// Element types the reductions know, whichever API named them (HcclDataType, aclDataType).
enum class ReduceElement {
  Int8,
  Int16,
  Int32,
  Int64,
  Uint8,
  Uint16,
  Uint32,
  Uint64,
  Fp16,
  Bf16,
  Fp32,
  Fp64
};
enum class ReduceOp { Sum, Prod, Max, Min };

uint32_t reduceElementSize(ReduceElement element);

// acc[i] = acc[i] op in[i] for `count` elements; `saturate` (the stream's saturation mode,
// aclrtSetDeviceSatMode): floating results that are Inf become the type's largest value, NaN 0.
void reduceElements(uint8_t* acc, const uint8_t* in, uint64_t count, ReduceElement element,
                    ReduceOp op, bool saturate = false);

// dst = dst op src over the whole elements of `bytes` of device memory (trailing bytes that make
// no whole element are left as they were), a MiB at a time so that a large reduction needs no
// copy of its whole operands.
void reduceDeviceBytes(MemoryManager& memory, const models::MemoryPlace& dst,
                       const models::MemoryPlace& src, uint64_t bytes, ReduceElement element,
                       ReduceOp op, bool saturate = false);

// The copy task of an SDMA reduce of `bytes` from src into dst (both device memory), with the
// reduction as its data effect.
std::unique_ptr<models::Task> sdmaReduceTask(MemoryManager& memory, const models::MemoryPlace& dst,
                                             const models::MemoryPlace& src, uint64_t bytes,
                                             ReduceElement element, ReduceOp op,
                                             bool saturate = false);

}  // namespace ascendsim::runtime::ops
