#pragma once
// DRAM statistics of a run: every access the fabric makes to the host's memory and to each
// device's memory is replayed, at the address and over the time the fabric booked it, through
// that memory's DRAM model (`memory.model`), which counts row hits, misses and conflicts,
// refreshes and read latency per channel. The fabric's timing does not depend on it; the replay
// costs simulation time, so it runs only when asked for (trace.dram_stats, ASCENDSIM_DRAM_STATS).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/dram/memory_timing.h"
#include "models/task/memory_traffic.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class MemoryStatistics : public MemoryTrafficObserver {
 public:
  explicit MemoryStatistics(const spec::SystemSpec& sys);
  void memoryAccess(int memory, uint64_t address, uint64_t bytes, bool write, Picoseconds start,
                    Picoseconds end) override;
  // Issues everything still queued, so the statistics are complete.
  void finish();

  // Counters over time: the requests each access's replay issued, by bins of `width` of its
  // start time (what the trace's counters show; issuing lags arrival by the queue's depth).
  void setBinWidth(Picoseconds width) { binWidth_ = width; }

  struct Memory {
    std::string name;  // "host.memory", "npu0.memory"
    const spec::DramSpec* spec;
    std::unique_ptr<MemoryTiming> timing;
    std::map<int64_t, DramCounters> bins;
    DramCounters seen;    // counters already put in a bin
    int64_t lastBin = 0;  // where what is still queued goes at the end
  };
  Picoseconds binWidth() const { return binWidth_; }
  const std::vector<Memory>& memories() const { return memories_; }

 private:
  Memory& memory(int index) { return memories_.at(static_cast<size_t>(index + 1)); }
  void bin(Memory& m, int64_t bin);
  std::vector<Memory> memories_;  // the host's first, then one per device
  Picoseconds binWidth_ = 10000000;
};

}  // namespace ascendsim::models
