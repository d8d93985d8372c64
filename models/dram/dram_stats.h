#pragma once
// Counters a DRAM model keeps per channel, and their sum.

#include <array>
#include <cstddef>
#include <cstdint>

namespace ascendsim::models {

// The scalar counters of DramStats, cheap to sum and subtract (for statistics over time).
struct DramCounters {
  uint64_t reads = 0, writes = 0, rowHits = 0, rowMisses = 0, rowConflicts = 0,
           readLatencySumPs = 0;
  void add(const DramCounters& o) {
    reads += o.reads;
    writes += o.writes;
    rowHits += o.rowHits;
    rowMisses += o.rowMisses;
    rowConflicts += o.rowConflicts;
    readLatencySumPs += o.readLatencySumPs;
  }
  DramCounters since(const DramCounters& before) const {
    return {reads - before.reads,
            writes - before.writes,
            rowHits - before.rowHits,
            rowMisses - before.rowMisses,
            rowConflicts - before.rowConflicts,
            readLatencySumPs - before.readLatencySumPs};
  }
};

struct DramStats {
  uint64_t reads = 0, writes = 0;  // bursts
  uint64_t bytesRead = 0, bytesWritten = 0;
  uint64_t rowHits = 0, rowMisses = 0,
           rowConflicts = 0;  // miss: bank closed; conflict: other row open
  uint64_t refreshes = 0;
  int64_t refreshPs = 0;  // time the channel spent refreshing
  int64_t firstArrivalPs = -1, lastCompletionPs = -1;
  uint64_t readLatencySumPs = 0;
  // Read latency histogram in clock cycles: exact below 4096, then one bucket per power of two.
  std::array<uint64_t, 4096 + 32> readLatencyCycles{};
  int64_t tckPs = 0;

  void add(const DramStats& other);
  double bandwidth() const;  // bytes/s between the first arrival and the last completion
  double meanReadLatencyNs() const;
  double readLatencyPercentileNs(double p) const;
  double rowHitRate() const;
  void recordReadLatency(int64_t cycles) {
    if (cycles >= 0 && cycles < 4096) {
      readLatencyCycles[static_cast<std::size_t>(cycles)]++;
    } else {
      recordLongReadLatency(cycles);
    }
  }
  void recordLongReadLatency(int64_t cycles);  // below 0 (as 0) or from 4096 on
  DramCounters counters() const {
    return {reads, writes, rowHits, rowMisses, rowConflicts, readLatencySumPs};
  }
};

}  // namespace ascendsim::models
