#pragma once
// What the report keeps of every copy of one kind, whatever their number, in bounded memory:
// exact counts, bytes and summed durations per size class (sizes up to each power of two), and
// the durations' percentiles from a histogram whose buckets are 1/16 of an octave wide (a
// percentile is the upper edge of its bucket, at most 6.25 % above the exact one; the minimum and
// the maximum are exact).

#include <array>
#include <cstdint>
#include <map>

#include "spec/units.h"

namespace ascendsim::runtime {

class CopyStatistics {
 public:
  void add(uint64_t bytes, spec::Picoseconds duration);

  struct SizeClass {
    uint64_t count = 0, bytes = 0;
    spec::Picoseconds time = 0;
  };
  // By the smallest power of two at least each copy's size.
  const std::map<uint64_t, SizeClass>& sizes() const { return sizes_; }
  uint64_t count() const { return count_; }
  // The duration at or below which a fraction `p` (0 < p <= 1) of the copies took.
  spec::Picoseconds percentile(double p) const;
  spec::Picoseconds shortest() const { return min_; }
  spec::Picoseconds longest() const { return max_; }

 private:
  static constexpr int kSubBuckets = 16;  // per octave
  static constexpr int kBuckets = kSubBuckets + 64 * kSubBuckets;
  static int bucket(spec::Picoseconds d);
  static spec::Picoseconds upperEdge(int bucket);
  std::map<uint64_t, SizeClass> sizes_;
  std::array<uint64_t, kBuckets> durations_{};
  uint64_t count_ = 0;
  spec::Picoseconds min_ = 0, max_ = 0;
};

}  // namespace ascendsim::runtime
