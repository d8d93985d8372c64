#include "models/dma/pcie_dma_timing.h"

#include <algorithm>

#include "models/compute/ai_core_work.h"

namespace ascendsim::models {

PcieDmaTiming::PcieDmaTiming(const spec::SystemSpec& sys) : sys_(sys), fabric_(sys) {
  runsOnDevice_ = sys.runMode == spec::RunMode::Device;
}

ChunkTiming PcieDmaTiming::moveChunk(int device, const Task& task, uint64_t offset, Picoseconds ready) {
  if (task.kind == TaskKind::Kernel) return kernelStep(device, task, offset, ready);
  const bool pageable = task.src.kind == MemoryPlace::Kind::HostPageable || task.dst.kind == MemoryPlace::Kind::HostPageable;
  const uint64_t chunk = pageable && sys_.runMode == spec::RunMode::Host
                             ? sys_.host.stagingBufferSize
                             : sys_.devices.at(static_cast<size_t>(device)).dma.chunkSize;
  const uint64_t bytes = std::min(chunk, task.bytes - offset);
  const std::vector<pcie::Stage> stages = fabric_.stages(device, task, bytes);
  const auto [nextIssue, done] = pcie::PcieFabric::flow(stages, ready, observer_ ? &spans_ : nullptr);
  if (observer_) {
    for (size_t i = 0; i < stages.size(); ++i) {
      if (stages[i].memory == pcie::Stage::kNotMemory) continue;
      reportTransfer(task, offset, bytes, stages[i].reads, stages[i].writes, spans_[i].first, spans_[i].second);
    }
  }
  return {bytes, nextIssue, done};
}

// One step of a kernel: the AI Cores share device memory with the DMA channels chunk by chunk.
ChunkTiming PcieDmaTiming::kernelStep(int device, const Task& task, uint64_t offset, Picoseconds ready) {
  const spec::AiCoreSpec& cores = sys_.devices.at(static_cast<size_t>(device)).aicore;
  const uint64_t length = std::min(kernelStepBytes(cores), task.bytes - offset);
  const KernelSlice s = sliceOf(task.kernel, offset, length);
  const auto stages = fabric_.kernelStages(device, s.bytesRead, s.bytesWritten, coreTime(cores, s, task.kernel.opBytes));
  const auto [nextIssue, done] = pcie::PcieFabric::flow(stages, ready, observer_ ? &spans_ : nullptr);
  if (observer_ && length > 0) reportKernel(device, task.kernel, offset, length, spans_.front().first, spans_.front().second);
  return {length, nextIssue, done};
}

}  // namespace ascendsim::models
