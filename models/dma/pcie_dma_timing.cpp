#include "models/dma/pcie_dma_timing.h"

#include <algorithm>

namespace ascendsim::models {

PcieDmaTiming::PcieDmaTiming(const spec::SystemSpec& sys) : sys_(sys), fabric_(sys) {}

ChunkTiming PcieDmaTiming::moveChunk(int device, const Task& task, uint64_t offset, Picoseconds ready) {
  const bool pageable = task.src.kind == MemoryPlace::Kind::HostPageable || task.dst.kind == MemoryPlace::Kind::HostPageable;
  const uint64_t chunk = pageable && sys_.runMode == spec::RunMode::Host
                             ? sys_.host.stagingBufferSize
                             : sys_.devices.at(static_cast<size_t>(device)).dma.chunkSize;
  const uint64_t bytes = std::min(chunk, task.bytes - offset);
  const auto [nextIssue, done] = pcie::PcieFabric::flow(fabric_.stages(device, task, bytes), ready);
  return {bytes, nextIssue, done};
}

}  // namespace ascendsim::models
