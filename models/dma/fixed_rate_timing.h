#pragma once
// Interim copy timing: setup latency plus bytes over the narrowest rate on the path: the PCIe
// link's line rate, each memory's sustained sequential rate as its DRAM model measures it, and
// for pageable memory the CPU's staging copy. No protocol overheads or contention between
// channels; the PCIe/DMA models replace it behind TransferTiming.

#include <vector>

#include "models/dma/transfer_timing.h"
#include "models/dram/sustained_bandwidth.h"
#include "models/machine/router.h"

namespace ascendsim::models {

class FixedRateTiming : public TransferTiming {
 public:
  FixedRateTiming(const spec::SystemSpec& sys, Router& router);
  ChunkTiming moveChunk(int device, const Task& task, uint64_t offset, Picoseconds ready) override;
  const char* name() const override { return "fixed-rate"; }
  uint32_t readWindow(int, const Task&) const override {
    return 1u << 30;
  }  // no protocol: nothing to bound

  // Bytes per second a transfer of this kind gets (exposed for tests).
  double rate(int device, const Task& task);

 private:
  double rateIgnoringEngine(int device, const Task& task);
  const SustainedRates& memoryOf(const MemoryPlace& place) const;
  const spec::SystemSpec& sys_;
  Router& router_;
  SustainedRates host_;
  std::vector<SustainedRates> devices_;
};

}  // namespace ascendsim::models
