#pragma once
// "pcie": the DMA engine moves a copy in chunks of `dma.chunk_size` (a pageable copy in chunks of
// `host.staging_buffer`); each chunk flows through the fabric's resources (read tags, each link
// direction with its TLP, DLLP and encoding overheads, switch ports, root complex, memories).
// The channel starts its next chunk as soon as the first resource on the way frees, so chunks
// pipeline, and chunks of other channels and devices contend for shared links and memories.

#include "models/dma/transfer_timing.h"
#include "models/pcie/pcie_fabric.h"

namespace ascendsim::models {

class PcieDmaTiming : public TransferTiming {
 public:
  explicit PcieDmaTiming(const spec::SystemSpec& sys);
  ChunkTiming moveChunk(int device, const Task& task, uint64_t offset, Picoseconds ready) override;
  const char* name() const override { return "pcie"; }
  pcie::PcieFabric& fabric() { return fabric_; }

 private:
  ChunkTiming kernelStep(int device, const Task& task, uint64_t offset, Picoseconds ready);
  const spec::SystemSpec& sys_;
  pcie::PcieFabric fabric_;
  std::vector<std::pair<Picoseconds, Picoseconds>> spans_;  // stage bookings of the last chunk
};

}  // namespace ascendsim::models
