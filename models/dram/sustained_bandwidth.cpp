#include "models/dram/sustained_bandwidth.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "models/dram/memory_timing.h"

namespace ascendsim::models {
namespace {

double efficiency(const spec::DramSpec& one, bool write) {
  auto timing = makeMemoryTiming(one);
  const uint64_t burst = one.burstBytes();
  const double burstCycles = static_cast<double>(one.burstLength) / (one.dataRate / one.clock);
  const uint64_t bursts = std::max<uint64_t>(4096, static_cast<uint64_t>(4.0 * one.timings.tREFI / burstCycles));
  for (uint64_t i = 0; i < bursts; ++i) timing->enqueue(i * burst, burst, write, 0);
  timing->drain();
  return timing->totalStats().bandwidth() / one.peakBandwidth();
}

std::string key(const spec::DramSpec& m) {
  const spec::DramTimings& t = m.timings;
  std::string k = m.model + "/" + m.addressMapping;
  for (double v : {double(m.ranks), double(m.bankGroups), double(m.banksPerGroup), double(m.pageSize), double(m.busWidth),
                   double(m.burstLength), m.clock, m.dataRate, double(t.tCL), double(t.tCWL), double(t.tRCDRD),
                   double(t.tRCDWR), double(t.tRP), double(t.tRAS), double(t.tRC), double(t.tCCD_S), double(t.tCCD_L),
                   double(t.tRRD_S), double(t.tRRD_L), double(t.tFAW), double(t.tWR), double(t.tWTR_S), double(t.tWTR_L),
                   double(t.tRTW), double(t.tRTP), double(t.tREFI), double(t.tRFC), double(t.tRFCpb),
                   double(m.queueDepth), double(m.interleaveGranule), double(static_cast<int>(m.pagePolicy))}) {
    k += "/" + std::to_string(v);
  }
  return k;
}

}  // namespace

SustainedRates sustainedSequentialRates(const spec::DramSpec& memory) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<double, double>> cache;  // efficiencies per memory kind
  spec::DramSpec one = memory;
  one.stacks = one.channels = one.pseudoChannels = 1;
  one.capacity = memory.rows() * one.ranks * one.bankGroups * one.banksPerGroup * one.pageSize;
  std::pair<double, double> eff;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key(one));
    if (it == cache.end()) it = cache.emplace(key(one), std::make_pair(efficiency(one, false), efficiency(one, true))).first;
    eff = it->second;
  }
  return {eff.first * memory.peakBandwidth(), eff.second * memory.peakBandwidth()};
}

}  // namespace ascendsim::models
