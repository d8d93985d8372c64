#pragma once
// The arithmetic of a kernel on the AI Cores. A kernel is cut into steps: in each step every core
// moves one tile of traffic (`aicore.tile_size`) between device memory and its on-chip buffer and
// runs its vector unit over it. The copy models stream these steps through device memory, where
// they meet DMA traffic; this file says how big a step is and how long the cores need for it.

#include <cstdint>

#include "models/sched/task.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

// The share of a kernel's work that falls in one step.
struct KernelSlice {
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t ops = 0;
};

// Traffic bytes of one step: every core moves one tile.
uint64_t kernelStepBytes(const spec::AiCoreSpec& cores);

// The part of `work` in traffic bytes [offset, offset + length) of its total (read + written),
// with operations spread in proportion; consecutive slices add up exactly to the whole.
KernelSlice sliceOf(const KernelWork& work, uint64_t offset, uint64_t length);

// Time the cores need for `slice` on their own: the slowest of the vector units and the cores'
// load and store paths (which overlap, as the double-buffered kernels do).
Picoseconds coreTime(const spec::AiCoreSpec& cores, const KernelSlice& slice, uint32_t opBytes);

}  // namespace ascendsim::models
