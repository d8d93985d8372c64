#include "models/compute/ai_core_work.h"

#include <algorithm>
#include <cmath>

namespace ascendsim::models {
namespace {

__extension__ typedef unsigned __int128 Wide;

// floor(total * part / whole) without overflow for any 64-bit sizes.
uint64_t scaled(uint64_t total, uint64_t part, uint64_t whole) {
  return static_cast<uint64_t>(static_cast<Wide>(total) * part / whole);
}

Picoseconds cyclesTime(double cycles, double clock) {
  return static_cast<Picoseconds>(std::ceil(cycles / clock * 1e12));
}

}  // namespace

uint64_t kernelStepBytes(const spec::AiCoreSpec& cores) {
  return cores.tileSize;
}

uint64_t kernelWindowBytes(const spec::AiCoreSpec& cores) {
  return 2 * uint64_t{cores.cores} * cores.tileSize;
}

KernelSlice sliceOf(const KernelWork& work, uint64_t offset, uint64_t length) {
  const uint64_t total =
      work.bytesRead + work.bytesWritten + work.hostBytesRead + work.hostBytesWritten;
  KernelSlice s;
  s.costed = work.costed;
  if (total == 0) {  // pure arithmetic: one step
    s.ops = work.ops;
    s.scalarOps = work.scalarOps;
    s.blocks = work.blocks;
    s.coreCycles = work.coreCycles;
    return s;
  }
  const uint64_t end = std::min(total, offset + length);
  s.coreCycles = scaled(work.coreCycles, end, total) - scaled(work.coreCycles, offset, total);
  s.blocks = work.blocks;
  s.scalarOps = scaled(work.scalarOps, end, total) - scaled(work.scalarOps, offset, total);
  s.readFrom = scaled(work.bytesRead, offset, total);
  s.writtenFrom = scaled(work.bytesWritten, offset, total);
  s.bytesRead = scaled(work.bytesRead, end, total) - s.readFrom;
  s.bytesWritten = scaled(work.bytesWritten, end, total) - s.writtenFrom;
  s.ops = scaled(work.ops, end, total) - scaled(work.ops, offset, total);
  s.hostRead = scaled(work.hostBytesRead, end, total) - scaled(work.hostBytesRead, offset, total);
  s.hostWritten =
      scaled(work.hostBytesWritten, end, total) - scaled(work.hostBytesWritten, offset, total);
  return s;
}

Picoseconds coreTime(const spec::AiCoreSpec& c, const KernelSlice& s, uint32_t opBytes) {
  if (s.costed)
    return cyclesTime(static_cast<double>(s.coreCycles), c.clock);  // (Ascend C kernels)
  // A kernel of fewer blocks than cores keeps the others idle.
  const double n = s.blocks > 0 ? std::min<double>(s.blocks, c.cores) : c.cores;
  const double vector = static_cast<double>(s.ops) * opBytes / (n * c.vectorBytesPerCycle);
  const double load = static_cast<double>(s.bytesRead) / (n * c.readBytesPerCycle);
  const double store = static_cast<double>(s.bytesWritten) / (n * c.writeBytesPerCycle);
  const double scalar = static_cast<double>(s.scalarOps) / (n * c.scalarOpsPerCycle);
  return cyclesTime(std::max({vector, load, store}) + scalar, c.clock);
}

}  // namespace ascendsim::models
