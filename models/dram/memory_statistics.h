#pragma once
// DRAM statistics of a run: every access the fabric makes to the host's memory and to each
// device's memory is replayed, at the address and over the time the fabric booked it, through
// that memory's DRAM model (`memory.model`), which counts row hits, misses and conflicts,
// refreshes and read latency per channel. The fabric's timing does not depend on it; the replay
// costs simulation time, so it runs only when asked for (trace.dram_stats, ASCENDSIM_DRAM_STATS).

#include <memory>
#include <string>
#include <vector>

#include "models/dram/memory_timing.h"
#include "models/dram/memory_traffic.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class MemoryStatistics : public MemoryTrafficObserver {
 public:
  explicit MemoryStatistics(const spec::SystemSpec& sys);
  void memoryAccess(int memory, uint64_t address, uint64_t bytes, bool write, Picoseconds start,
                    Picoseconds end) override;
  // Issues everything still queued, so the statistics are complete.
  void finish();

  struct Memory {
    std::string name;  // "host.memory", "npu0.memory"
    const spec::DramSpec* spec;
    std::unique_ptr<MemoryTiming> timing;
  };
  const std::vector<Memory>& memories() const { return memories_; }

 private:
  Memory& memory(int index) { return memories_.at(static_cast<size_t>(index + 1)); }
  std::vector<Memory> memories_;  // the host's first, then one per device
};

}  // namespace ascendsim::models
