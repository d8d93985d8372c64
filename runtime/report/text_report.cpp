// The readable report: totals by kind of copy and by kernel, the five busiest resources, DRAM
// statistics and the first warnings of each kind; what `ascendsim run` and `exec` print at the end.

#include <algorithm>
#include <cstdio>

#include "runtime/report/report_figures.h"
#include "runtime/report/report_format.h"

namespace ascendsim::runtime {
namespace {

using namespace report;

std::string textReport(const ReportInput& in) {
  const RunReport& r = in.report;
  std::string out;
  char line[256];
  std::snprintf(
      line, sizeof line,
      "AscendSim report (%s): %llu copies and memsets%s over %.3f ms of simulated time\n",
      r.machine().name.c_str(), static_cast<unsigned long long>(r.copiesSeen()),
      r.kernelsSeen() ? (", " + std::to_string(r.kernelsSeen()) + " kernels").c_str() : "",
      micros(r.span()) / 1000);
  out += line;
  if (!r.copyTotals().empty()) {
    out += "  kind        count          bytes     time (ms)   GB/s (bytes / summed time)\n";
    for (const auto& [kind, k] : r.copyTotals()) {
      std::snprintf(line, sizeof line, "  %-8s %8llu %14llu %13.3f %8.2f\n", kind.c_str(),
                    static_cast<unsigned long long>(k.count),
                    static_cast<unsigned long long>(k.bytes), micros(k.time) / 1000,
                    gbps(k.bytes, k.time));
      out += line;
    }
  }
  if (!r.kernelTotals().empty()) {
    out += "  kernel      count  traffic bytes     time (ms)   GB/s (traffic / summed time)\n";
    for (const auto& [name, k] : r.kernelTotals()) {
      const uint64_t traffic = k.bytesRead + k.bytesWritten;
      std::snprintf(line, sizeof line, "  %-10s %6llu %14llu %13.3f %8.2f\n", name.c_str(),
                    static_cast<unsigned long long>(k.count),
                    static_cast<unsigned long long>(traffic), micros(k.time) / 1000,
                    gbps(traffic, k.time));
      out += line;
    }
  }
  std::vector<const models::Resource*> busiest;
  for (const auto& x : in.resources) {
    if (x.chunks) busiest.push_back(&x);
  }
  std::sort(busiest.begin(), busiest.end(), [](auto* a, auto* b) { return a->busy > b->busy; });
  if (!busiest.empty()) {
    out += "  busiest resources        bytes   utilisation   GB/s while busy\n";
    for (size_t i = 0; i < std::min<size_t>(5, busiest.size()); ++i) {
      const auto* x = busiest[i];
      std::snprintf(line, sizeof line, "  %-20s %12llu %12.1f%% %12.2f\n", x->name.c_str(),
                    static_cast<unsigned long long>(x->bytes),
                    100.0 * utilisation(x->busy, r.span()), gbps(x->bytes, x->busy));
      out += line;
    }
  }
  if (r.memoryStatistics()) {
    out +=
        "  DRAM statistics   GB/s   row hits  misses  conflicts  refresh (us)  read latency mean / "
        "p99 (ns)\n";
    for (const auto& m : r.memoryStatistics()->memories()) {
      const models::DramStats d = m.timing->totalStats();
      if (!sawTraffic(d)) continue;
      std::snprintf(line, sizeof line, "  %-14s %8.2f %9.1f%% %7llu %10llu %13.1f %12.1f / %.1f\n",
                    m.name.c_str(), d.bandwidth() / 1e9, 100.0 * d.rowHitRate(),
                    static_cast<unsigned long long>(d.rowMisses),
                    static_cast<unsigned long long>(d.rowConflicts), micros(d.refreshPs),
                    d.meanReadLatencyNs(), d.readLatencyPercentileNs(99));
      out += line;
    }
  }
  // Each kind of warning: its first three, then how many more (the JSON report has them all).
  std::map<std::string, int> shown;
  for (const RuntimeWarning& w : in.warnings) {
    if (++shown[w.kind] <= 3) out += "  warning (" + w.kind + "): " + w.message + "\n";
  }
  for (const auto& [kind, n] : shown) {
    if (n > 3) out += "  warning (" + kind + "): " + std::to_string(n - 3) + " more like these\n";
  }
  return out;
}

const ReportFormatRegistration kRegistered{
    {"report-format",
     "text",
     "the readable summary `ascendsim run` and `exec` print: totals, busiest resources, warnings",
     {},
     {}},
    {{".txt"}, textReport}};

}  // namespace

}  // namespace ascendsim::runtime
