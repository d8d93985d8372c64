#pragma once
// "sustained": a memory charges each piece its bytes at the rate its DRAM model sustains for long
// sequential traffic (refresh, row switches and bank timing included, measured once per memory
// kind), plus the idle latency of its first access. Fast; blind to access patterns.

#include "models/dram/sustained_bandwidth.h"
#include "models/memory/memory.h"

namespace ascendsim::models {

class SustainedMemory : public Memory {
 public:
  // `share`: the part of `spec`'s channels this memory has (a NUMA node's part of host DDR).
  SustainedMemory(const std::string& name, const spec::DramSpec& spec, double share,
                  int observerIndex, ResourceTable& table);
  Stage access(const Shape& shape, bool reads, bool writes, Picoseconds latency) override;
  double readRate() const override { return rates_.read; }
  double writeRate() const override { return rates_.write; }
  Picoseconds readLatency() const override { return latency_; }
  double mixedRate(double readShare) const override {
    return sustainedMixedRate(spec_, readShare) * share_;
  }

 private:
  spec::DramSpec spec_;
  double share_;
  SustainedRates rates_;
  Picoseconds latency_;
  uint64_t burst_;
};

}  // namespace ascendsim::models
