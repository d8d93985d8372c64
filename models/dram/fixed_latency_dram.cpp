#include "models/dram/fixed_latency_dram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ascendsim::models {
namespace {
const DramModelRegistration kRegistered{
    {"dram-model",
     "fixed-latency",
     "a fixed latency plus bytes over the peak bandwidth; no banks",
     {},
     {}},
    [](const spec::DramSpec& m) { return std::make_unique<FixedLatencyDram>(m); }};
}  // namespace

FixedLatencyDram::FixedLatencyDram(const spec::DramSpec& m) : peak_(m.peakBandwidth()) {
  const int64_t perClock = static_cast<int64_t>(m.dataRate / m.clock + 0.5);
  latency_ = (m.timings.tRCDRD + m.timings.tCL + m.burstLength / perClock) * m.tCK();
  stats_.tckPs = m.tCK();
}

void FixedLatencyDram::enqueue(uint64_t, uint64_t bytes, bool write, Picoseconds arrival) {
  const Picoseconds start = std::max(arrival, busyUntil_);
  lastStart_ = start;
  busyUntil_ =
      start + static_cast<Picoseconds>(std::llround(static_cast<double>(bytes) / peak_ * 1e12));
  const Picoseconds end = busyUntil_ + latency_;
  lastEnd_ = std::max(lastEnd_, end);
  groupEnd_ = std::max(groupEnd_, end);
  if (write) {
    stats_.writes++;
    stats_.bytesWritten += bytes;
  } else {
    stats_.reads++;
    stats_.bytesRead += bytes;
    stats_.readLatencySumPs += static_cast<uint64_t>(end - arrival);
    stats_.recordReadLatency((end - arrival) / stats_.tckPs);
  }
  if (stats_.firstArrivalPs < 0 || arrival < stats_.firstArrivalPs) stats_.firstArrivalPs = arrival;
  stats_.lastCompletionPs = std::max(stats_.lastCompletionPs, end);
}

Picoseconds FixedLatencyDram::drain() {
  return lastEnd_;
}

}  // namespace ascendsim::models
