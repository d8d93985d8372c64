#pragma once
// "fixed-latency": every access waits for the memory to be free, moves its bytes at the peak
// bandwidth, then pays a fixed latency (tRCDRD + tCL + one burst). No banks, no refresh: a quick
// first-order model and a reference for the banked one.

#include <map>

#include "models/dram/memory_timing.h"

namespace ascendsim::models {

class FixedLatencyDram : public MemoryTiming {
 public:
  explicit FixedLatencyDram(const spec::DramSpec& memory);
  void enqueue(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival) override;
  Picoseconds drain() override;
  Picoseconds admitted() const override { return lastStart_; }
  // (Requests are served as they are queued: a group's end is known when it is marked.)
  uint64_t mark() override {
    groupEnds_[nextGroup_] = groupEnd_;
    groupEnd_ = 0;
    return nextGroup_++;
  }
  Picoseconds issueGroup(uint64_t group) override {
    const auto it = groupEnds_.find(group);
    if (it == groupEnds_.end()) return 0;
    const Picoseconds end = it->second;
    groupEnds_.erase(it);
    return end;
  }
  DramStats totalStats() const override { return stats_; }
  std::vector<DramStats> channelStats() const override { return {stats_}; }
  DramCounters counters() const override { return stats_.counters(); }
  const char* name() const override { return "fixed-latency"; }

 private:
  double peak_;
  Picoseconds latency_;
  Picoseconds busyUntil_ = 0;
  Picoseconds lastEnd_ = 0;
  Picoseconds lastStart_ = 0;  // service start of the latest request
  Picoseconds groupEnd_ = 0;   // of the requests queued since the last mark
  uint64_t nextGroup_ = 0;
  std::map<uint64_t, Picoseconds> groupEnds_;  // marked and not yet asked for
  DramStats stats_;
};

}  // namespace ascendsim::models
