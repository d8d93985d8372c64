#include "models/dram/sustained_bandwidth.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "models/dram/memory_timing.h"
#include "spec/spec_writer.h"

namespace ascendsim::models {
namespace {

double efficiency(const spec::DramSpec& one, bool write) {
  auto timing = makeMemoryTiming(one);
  const uint64_t burst = one.burstBytes();
  const double burstCycles = static_cast<double>(one.burstLength) / (one.dataRate / one.clock);
  const uint64_t bursts =
      std::max<uint64_t>(4096, static_cast<uint64_t>(4.0 * one.timings.tREFI / burstCycles));
  for (uint64_t i = 0; i < bursts; ++i) timing->enqueue(i * burst, burst, write, 0);
  timing->drain();
  return timing->totalStats().bandwidth() / one.peakBandwidth();
}

// Efficiency of a copy on one channel: reads of a batch of bursts, then as many writes to another
// place, and again. A batch is the channel's part of the memory's write buffer (`write_buffer`),
// or its write queue when that is larger: the writes wait there while reads go first and leave
// together when it is full. Averaged over
// destinations 0..7 rows further than half the memory, so that source and destination rows meet
// in the same bank, the same group and elsewhere, as arbitrary buffers do. Bytes copied per second
// over the peak.
double copyEfficiency(const spec::DramSpec& one, uint64_t batch) {
  const uint64_t burst = one.burstBytes();
  const double burstCycles = static_cast<double>(one.burstLength) / (one.dataRate / one.clock);
  const uint64_t bursts = std::max<uint64_t>(
      {4096, 8 * batch, static_cast<uint64_t>(4.0 * one.timings.tREFI / burstCycles)});
  constexpr int kDestinations = 8;
  double sum = 0;
  for (int d = 0; d < kDestinations; ++d) {
    auto timing = makeMemoryTiming(one);
    const uint64_t destination = one.capacity / 2 + static_cast<uint64_t>(d) * one.pageSize;
    for (uint64_t i = 0; i < bursts; i += batch) {
      for (uint64_t j = i; j < i + batch; ++j) timing->enqueue(j * burst, burst, false, 0);
      for (uint64_t j = i; j < i + batch; ++j)
        timing->enqueue(destination + j * burst, burst, true, 0);
    }
    timing->drain();
    sum += timing->totalStats().bandwidth() / 2;  // it counts reads and writes; a copy moves half
  }
  return sum / kDestinations / one.peakBandwidth();
}

// Efficiency of reads and writes from many streams at once: requests of one interleave granule
// (bursts of one row) at random places, `readShare` of them reads, spread evenly (an error
// accumulator decides each request). Bytes read and written per second over the peak.
double mixedEfficiency(const spec::DramSpec& one, double readShare) {
  auto timing = makeMemoryTiming(one);
  const uint64_t burst = one.burstBytes();
  const uint64_t request = std::max(burst, std::min(one.interleaveGranule, one.pageSize));
  const uint64_t perRequest = std::max<uint64_t>(1, request / burst);
  const double burstCycles = static_cast<double>(one.burstLength) / (one.dataRate / one.clock);
  const uint64_t bursts =
      std::max<uint64_t>(4096, static_cast<uint64_t>(4.0 * one.timings.tREFI / burstCycles));
  const uint64_t places = std::max<uint64_t>(1, one.capacity / (perRequest * burst));
  uint64_t state = 0x2545F4914F6CDD1Dull;  // a fixed seed: the rate is the same on every run
  double reads = 0;
  for (uint64_t i = 0; i < bursts; i += perRequest) {
    state ^= state << 13;  // xorshift64
    state ^= state >> 7;
    state ^= state << 17;
    const uint64_t at = state % places * perRequest * burst;
    reads += readShare;
    const bool write = reads < 1.0;
    if (!write) reads -= 1.0;
    for (uint64_t j = 0; j < perRequest; ++j) timing->enqueue(at + j * burst, burst, write, 0);
  }
  timing->drain();
  return timing->totalStats().bandwidth() / one.peakBandwidth();
}

// One channel's part of `memory` (its capacity kept per channel), for the measurements above.
spec::DramSpec oneChannel(const spec::DramSpec& memory) {
  spec::DramSpec one = memory;
  one.stacks = one.channels = one.pseudoChannels = 1;
  one.capacity = memory.rows() * one.ranks * one.bankGroups * one.banksPerGroup * one.pageSize;
  return one;
}

}  // namespace

// The memory written out whole as `config show` writes it (every field, exactly), so no setting
// can be left out of the key and serve a stale rate to a what-if study.
std::string sustainedRatesKey(const spec::DramSpec& memory) {
  return spec::writeMemorySpecYaml(memory);
}

SustainedRates sustainedSequentialRates(const spec::DramSpec& memory) {
  static std::mutex mutex;
  static std::map<std::string, SustainedRates> cache;  // efficiencies per memory kind
  const spec::DramSpec one = oneChannel(memory);
  // The channel's part of the write buffer, in bursts; without one, its write queue still gathers
  // `write_queue_depth` writes.
  // Batches beyond 8192 bursts pay turnarounds too rarely to matter (under 0.5 %) and would only
  // lengthen the measurement (a 1 TiB buffer would take billions of bursts).
  const uint64_t batch = std::min<uint64_t>(
      8192, std::max<uint64_t>(
                {1, memory.effectiveWriteQueueDepth(),
                 memory.writeBuffer / memory.independentChannels() / memory.burstBytes()}));
  SustainedRates eff;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const std::string k = sustainedRatesKey(one) + "/" + std::to_string(batch);
    auto it = cache.find(k);
    if (it == cache.end()) {
      it = cache
               .emplace(k, SustainedRates{efficiency(one, false), efficiency(one, true),
                                          copyEfficiency(one, batch)})
               .first;
    }
    eff = it->second;
  }
  const double peak = memory.peakBandwidth();
  return {eff.read * peak, eff.write * peak, eff.copy * peak};
}

double sustainedMixedRate(const spec::DramSpec& memory, double readShare) {
  static std::mutex mutex;
  static std::map<std::string, double> cache;  // efficiencies per memory kind and read share
  const spec::DramSpec one = oneChannel(memory);
  double eff = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const std::string k = sustainedRatesKey(one) + "/" + std::to_string(readShare);
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, mixedEfficiency(one, readShare)).first;
    eff = it->second;
  }
  return eff * memory.peakBandwidth();
}

}  // namespace ascendsim::models
