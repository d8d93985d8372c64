#include "models/dram/dram_stats.h"

#include <algorithm>
#include <cmath>

namespace ascendsim::models {

void DramStats::add(const DramStats& o) {
  reads += o.reads;
  writes += o.writes;
  bytesRead += o.bytesRead;
  bytesWritten += o.bytesWritten;
  rowHits += o.rowHits;
  rowMisses += o.rowMisses;
  rowConflicts += o.rowConflicts;
  refreshes += o.refreshes;
  refreshPs += o.refreshPs;
  if (o.firstArrivalPs >= 0 && (firstArrivalPs < 0 || o.firstArrivalPs < firstArrivalPs))
    firstArrivalPs = o.firstArrivalPs;
  lastCompletionPs = std::max(lastCompletionPs, o.lastCompletionPs);
  readLatencySumPs += o.readLatencySumPs;
  for (size_t i = 0; i < readLatencyCycles.size(); ++i)
    readLatencyCycles[i] += o.readLatencyCycles[i];
  if (tckPs == 0) tckPs = o.tckPs;
}

double DramStats::bandwidth() const {
  if (firstArrivalPs < 0 || lastCompletionPs <= firstArrivalPs) return 0;
  return static_cast<double>(bytesRead + bytesWritten) /
         (static_cast<double>(lastCompletionPs - firstArrivalPs) * 1e-12);
}

double DramStats::meanReadLatencyNs() const {
  return reads ? static_cast<double>(readLatencySumPs) / static_cast<double>(reads) / 1000.0 : 0;
}

void DramStats::recordLongReadLatency(int64_t cycles) {
  if (cycles < 4096) {
    readLatencyCycles[static_cast<size_t>(std::max<int64_t>(cycles, 0))]++;
  } else {
    size_t bucket = 4096;
    for (int64_t c = cycles >> 12; c > 1 && bucket + 1 < readLatencyCycles.size(); c >>= 1)
      ++bucket;
    readLatencyCycles[bucket]++;
  }
}

double DramStats::readLatencyPercentileNs(double p) const {
  uint64_t total = 0;
  for (uint64_t c : readLatencyCycles) total += c;
  if (total == 0) return 0;
  const uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total)));
  uint64_t seen = 0;
  for (size_t i = 0; i < readLatencyCycles.size(); ++i) {
    seen += readLatencyCycles[i];
    if (seen >= rank) {
      const double cycles =
          i < 4096 ? static_cast<double>(i) : std::ldexp(4096.0, static_cast<int>(i - 4096) + 1);
      return cycles * static_cast<double>(tckPs) / 1000.0;
    }
  }
  return 0;
}

double DramStats::rowHitRate() const {
  const uint64_t all = rowHits + rowMisses + rowConflicts;
  return all ? static_cast<double>(rowHits) / static_cast<double>(all) : 0;
}

}  // namespace ascendsim::models
