#pragma once
// The arithmetic of a kernel on the AI Cores. A kernel's traffic moves in tiles (`aicore.tile_size`
// bytes between device memory and a core's on-chip buffer); every core double-buffers, so up to
// two tiles per core are in flight, and the vector units work on the tiles that have arrived. The
// copy models stream the tiles through device memory one by one, where they interleave with DMA
// chunks at a comparable grain; this file says how big a step is, how many may be in flight, and
// how long the cores need for one.

#include <cstdint>

#include "models/task/task.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

// The share of a kernel's work that falls in one step.
struct KernelSlice {
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t ops = 0;
  uint64_t scalarOps = 0;
  uint32_t blocks = 0;                     // cores the scalar code runs on at most (0: all)
  uint64_t readFrom = 0, writtenFrom = 0;  // where in the read and write streams the slice starts
  uint64_t hostRead = 0, hostWritten = 0;  // host memory reached in place (zero copy)
  bool costed = false;                     // KernelWork::costed: the cores take `coreCycles`
  uint64_t coreCycles = 0;
};

// Traffic bytes of one step: one tile.
uint64_t kernelStepBytes(const spec::AiCoreSpec& cores);
// Traffic bytes in flight at most: two tiles per core.
uint64_t kernelWindowBytes(const spec::AiCoreSpec& cores);

// The part of `work` in traffic bytes [offset, offset + length) of its total (read + written,
// device and host), with operations spread in proportion; consecutive slices add up exactly to the
// whole.
KernelSlice sliceOf(const KernelWork& work, uint64_t offset, uint64_t length);

// Time the cores together need for `slice`, spread over all of them (or over as many as the
// kernel has blocks): the slowest of the vector units and the cores' load and store paths (which
// overlap, as the double-buffered kernels do), plus the scalar instructions at
// `scalar_ops_per_cycle`.
Picoseconds coreTime(const spec::AiCoreSpec& cores, const KernelSlice& slice, uint32_t opBytes);

}  // namespace ascendsim::models
