#include "runtime/report/copy_statistics.h"

#include <algorithm>
#include <cmath>

namespace ascendsim::runtime {

void CopyStatistics::add(uint64_t bytes, spec::Picoseconds duration) {
  uint64_t size = 1;
  while (size < bytes && size < (1ull << 63)) size <<= 1;
  SizeClass& s = sizes_[size];
  s.count++;
  s.bytes += bytes;
  s.time += duration;
  durations_[static_cast<size_t>(bucket(duration))]++;
  min_ = count_ == 0 ? duration : std::min(min_, duration);
  max_ = count_ == 0 ? duration : std::max(max_, duration);
  count_++;
}

// Durations below 16 ps have a bucket each; above, each octave [2^e, 2^(e+1)) splits into 16
// buckets of 2^(e-4) picoseconds.
int CopyStatistics::bucket(spec::Picoseconds d) {
  if (d < kSubBuckets) return static_cast<int>(std::max<spec::Picoseconds>(d, 0));
  const uint64_t v = static_cast<uint64_t>(d);
  const int e = 63 - __builtin_clzll(v);
  const int sub = static_cast<int>((v >> (e - 4)) & (kSubBuckets - 1));
  return kSubBuckets + (e - 4) * kSubBuckets + sub;
}

spec::Picoseconds CopyStatistics::upperEdge(int b) {
  if (b < kSubBuckets) return b;
  const int e = (b - kSubBuckets) / kSubBuckets + 4;
  const int sub = (b - kSubBuckets) % kSubBuckets;
  const uint64_t width = 1ull << (e - 4);
  return static_cast<spec::Picoseconds>((1ull << e) + (static_cast<uint64_t>(sub) + 1) * width - 1);
}

spec::Picoseconds CopyStatistics::percentile(double p) const {
  if (count_ == 0) return 0;
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += durations_[static_cast<size_t>(b)];
    if (seen >= rank) return std::clamp(upperEdge(b), min_, max_);
  }
  return max_;
}

}  // namespace ascendsim::runtime
