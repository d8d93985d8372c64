#pragma once
// Interim copy timing: setup latency plus bytes over the narrowest rate on the path (link line
// rate, memory peak, and for pageable memory the CPU's staging copy). No protocol overheads or
// contention between channels; the PCIe/DMA models replace it behind TransferTiming.

#include "models/dma/transfer_timing.h"

namespace ascendsim::models {

class FixedRateTiming : public TransferTiming {
 public:
  explicit FixedRateTiming(const spec::SystemSpec& sys);
  Picoseconds duration(int device, const Task& task) const override;
  const char* name() const override { return "fixed-rate"; }

  // Bytes per second a transfer of this kind gets (exposed for tests).
  double rate(int device, const Task& task) const;

 private:
  double sideRate(const MemoryPlace& place) const;
  const spec::SystemSpec& sys_;
};

}  // namespace ascendsim::models
