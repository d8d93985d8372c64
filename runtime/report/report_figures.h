#pragma once
// Units the report formats share: microseconds, GB/s, and a memory's DRAM statistics as JSON (the
// JSON report's and the trace's).

#include <nlohmann/json.hpp>

#include "models/dram/memory_statistics.h"
#include "spec/units.h"

namespace ascendsim::runtime::report {

inline double micros(spec::Picoseconds ps) {
  return static_cast<double>(ps) / 1e6;
}
inline double gbps(uint64_t bytes, spec::Picoseconds ps) {
  return ps > 0 ? static_cast<double>(bytes) / (static_cast<double>(ps) * 1e-12) / 1e9 : 0;
}
// A resource's share of the run's span it was busy, at most 1.
inline double utilisation(spec::Picoseconds busy, spec::Picoseconds span) {
  return span > 0 ? std::min(1.0, static_cast<double>(busy) / static_cast<double>(span)) : 0.0;
}

inline nlohmann::ordered_json dramStatsJson(const models::DramStats& d) {
  return {{"bytes_read", d.bytesRead},
          {"bytes_written", d.bytesWritten},
          {"GBps", d.bandwidth() / 1e9},
          {"row_hits", d.rowHits},
          {"row_misses", d.rowMisses},
          {"row_conflicts", d.rowConflicts},
          {"row_hit_rate", d.rowHitRate()},
          {"refreshes", d.refreshes},
          {"refresh_us", micros(d.refreshPs)},
          {"mean_read_latency_ns", d.meanReadLatencyNs()},
          {"p99_read_latency_ns", d.readLatencyPercentileNs(99)}};
}

inline bool sawTraffic(const models::DramStats& d) {
  return d.reads + d.writes > 0;
}

}  // namespace ascendsim::runtime::report
