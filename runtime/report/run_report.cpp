#include "runtime/report/run_report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace ascendsim::runtime {
namespace {

double micros(spec::Picoseconds ps) {
  return static_cast<double>(ps) / 1e6;
}
double gbps(uint64_t bytes, spec::Picoseconds ps) {
  return ps > 0 ? static_cast<double>(bytes) / (static_cast<double>(ps) * 1e-12) / 1e9 : 0;
}

nlohmann::ordered_json statsJson(const models::DramStats& d) {
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

bool sawTraffic(const models::DramStats& d) {
  return d.reads + d.writes > 0;
}

}  // namespace

std::vector<RunReport::MemoryArgs> RunReport::memoryStatisticsArgs() const {
  std::vector<MemoryArgs> out;
  if (!memoryStats_) return out;
  const auto& memories = memoryStats_->memories();
  for (size_t i = 0; i < memories.size(); ++i) {
    const models::DramStats total = memories[i].timing->totalStats();
    if (!sawTraffic(total)) continue;
    const auto stats = statsJson(total);
    TraceArgs args;
    for (auto it = stats.begin(); it != stats.end(); ++it)
      args.push_back(TraceArg::json(it.key(), it.value().dump()));
    out.push_back({static_cast<int>(i), memories[i].name, std::move(args)});
  }
  return out;
}

std::string RunReport::kindOf(const models::Task& t) const {
  using K = models::MemoryPlace::Kind;
  if (t.kind == models::TaskKind::Memset) return "memset";
  const bool srcDev = t.src.kind == K::Device, dstDev = t.dst.kind == K::Device;
  if (sys_.runMode == spec::RunMode::Device) return "local";
  if (srcDev && dstDev) return t.src.device == t.dst.device ? "D2D" : "P2P";
  return srcDev ? "D2H" : "H2D";
}

void RunReport::taskEnded(int device, const models::StreamQueue& stream, const models::Task& task) {
  StreamStats& s = streams_[{device, stream.id()}];
  s.tasks++;
  s.busy += task.endTime - task.startTime;
  if (s.first < 0) s.first = task.startTime;
  s.last = std::max(s.last, task.endTime);
  if (first_ < 0 || task.startTime < first_) first_ = task.startTime;
  last_ = std::max(last_, task.endTime);
  if (task.kind == models::TaskKind::Kernel) {
    KernelTotals& k = kernels_[task.kernel.name];
    k.count++;
    k.bytesRead += task.kernel.bytesRead;
    k.bytesWritten += task.kernel.bytesWritten;
    k.ops += task.kernel.ops;
    k.time += task.endTime - task.startTime;
    ++kernelsSeen_;
    return;
  }
  if (task.kind != models::TaskKind::Copy && task.kind != models::TaskKind::Memset) return;
  const std::string kind = kindOf(task);
  KindTotals& k = totals_[kind];
  k.count++;
  k.bytes += task.bytes;
  k.time += task.endTime - task.startTime;
  statistics_[kind].add(task.bytes, task.endTime - task.startTime);
  DeviceTotals& d = devices_[device];
  d.count++;
  d.bytes += task.bytes;
  if (d.first < 0 || task.startTime < d.first) d.first = task.startTime;
  d.last = std::max(d.last, task.endTime);
  ++copiesSeen_;
  if (copies_.size() < kMaxCopies) {
    copies_.push_back({task.id, device, stream.id(), kind, task.bytes, task.submitTime,
                       task.startTime, task.endTime});
  }
}

std::string RunReport::json(const std::vector<RuntimeWarning>& warnings,
                            const models::ResourceTable& resources) const {
  nlohmann::ordered_json r;
  r["schema"] = "ascendsim-report/1";
  r["machine"] = sys_.name;
  r["simulated_span_us"] = micros(span());
  nlohmann::ordered_json copies = nlohmann::ordered_json::array();
  for (const Copy& c : copies_) {
    copies.push_back({{"task", c.task},
                      {"device", sys_.devices.at(static_cast<size_t>(c.device)).name},
                      {"stream", c.stream},
                      {"kind", c.kind},
                      {"bytes", c.bytes},
                      {"submit_us", micros(c.submit)},
                      {"start_us", micros(c.start)},
                      {"end_us", micros(c.end)},
                      {"GBps", gbps(c.bytes, c.end - c.start)}});
  }
  r["copies"] = copies;
  r["copies_total"] = copiesSeen_;
  nlohmann::ordered_json totals = nlohmann::ordered_json::object();
  for (const auto& [kind, k] : totals_) {
    const CopyStatistics& st = statistics_.at(kind);
    nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
    for (const auto& [upTo, c] : st.sizes()) {
      sizes.push_back({{"up_to_bytes", upTo},
                       {"count", c.count},
                       {"bytes", c.bytes},
                       {"time_us", micros(c.time)},
                       {"GBps", gbps(c.bytes, c.time)}});
    }
    totals[kind] = {{"count", k.count},
                    {"bytes", k.bytes},
                    {"time_us", micros(k.time)},
                    {"GBps", gbps(k.bytes, k.time)},
                    {"sizes", sizes},
                    {"duration_us",
                     {{"min", micros(st.shortest())},
                      {"p50", micros(st.percentile(0.5))},
                      {"p90", micros(st.percentile(0.9))},
                      {"p99", micros(st.percentile(0.99))},
                      {"max", micros(st.longest())}}}};
  }
  r["copy_totals"] = totals;
  // Every device's copies together: the bytes it moved over the time from its first copy's start
  // to its last one's end, and all devices' bytes over the time from the first copy's start to the
  // last one's end (the machine's aggregate).
  nlohmann::ordered_json byDevice = nlohmann::ordered_json::array();
  uint64_t allBytes = 0;
  spec::Picoseconds first = -1, last = 0;
  for (const auto& [index, d] : devices_) {
    allBytes += d.bytes;
    if (first < 0 || d.first < first) first = d.first;
    last = std::max(last, d.last);
    byDevice.push_back({{"device", sys_.devices.at(static_cast<size_t>(index)).name},
                        {"copies", d.count},
                        {"bytes", d.bytes},
                        {"first_us", micros(d.first)},
                        {"last_us", micros(d.last)},
                        {"GBps", gbps(d.bytes, d.last - d.first)}});
  }
  r["device_copy_totals"] = byDevice;
  r["copies_GBps"] = gbps(allBytes, first < 0 ? 0 : last - first);
  nlohmann::ordered_json kernels = nlohmann::ordered_json::object();
  for (const auto& [name, k] : kernels_) {
    kernels[name] = {{"count", k.count},
                     {"bytes_read", k.bytesRead},
                     {"bytes_written", k.bytesWritten},
                     {"ops", k.ops},
                     {"time_us", micros(k.time)},
                     {"GBps", gbps(k.bytesRead + k.bytesWritten, k.time)}};
  }
  r["kernel_totals"] = kernels;
  nlohmann::ordered_json streams = nlohmann::ordered_json::array();
  for (const auto& [key, s] : streams_) {
    streams.push_back({{"device", sys_.devices.at(static_cast<size_t>(key.first)).name},
                       {"stream", key.second},
                       {"tasks", s.tasks},
                       {"busy_us", micros(s.busy)},
                       {"first_us", micros(s.first)},
                       {"last_us", micros(s.last)}});
  }
  r["streams"] = streams;
  nlohmann::ordered_json res = nlohmann::ordered_json::array();
  for (const models::Resource& x : resources) {
    if (x.chunks == 0) continue;
    res.push_back({{"name", x.name},
                   {"bytes", x.bytes},
                   {"busy_us", micros(x.busy)},
                   {"utilisation", span() > 0 ? std::min(1.0, static_cast<double>(x.busy) /
                                                                  static_cast<double>(span()))
                                              : 0.0},
                   {"mean_GBps", gbps(x.bytes, span())},
                   {"busy_GBps", gbps(x.bytes, x.busy)}});
  }
  r["resources"] = res;
  if (memoryStats_) {
    nlohmann::ordered_json memories = nlohmann::ordered_json::array();
    for (const auto& m : memoryStats_->memories()) {
      const models::DramStats total = m.timing->totalStats();
      if (!sawTraffic(total)) continue;
      nlohmann::ordered_json entry = {{"name", m.name}, {"model", m.timing->name()}};
      entry.update(statsJson(total));
      nlohmann::ordered_json channels = nlohmann::ordered_json::array();
      for (const models::DramStats& c : m.timing->channelStats()) channels.push_back(statsJson(c));
      entry["channels"] = channels;
      memories.push_back(entry);
    }
    r["memories"] = memories;
  }
  nlohmann::ordered_json warn = nlohmann::ordered_json::array();
  for (const RuntimeWarning& w : warnings)
    warn.push_back({{"kind", w.kind}, {"message", w.message}, {"at_us", micros(w.when)}});
  r["warnings"] = warn;
  // Names come from the program (kernel names): bytes that are not UTF-8 become U+FFFD.
  return r.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string RunReport::table(const std::vector<RuntimeWarning>& warnings,
                             const models::ResourceTable& resources) const {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line,
                "AscendSim report (%s): %llu copies and memsets%s over %.3f ms of simulated time\n",
                sys_.name.c_str(), static_cast<unsigned long long>(copiesSeen_),
                kernelsSeen_ ? (", " + std::to_string(kernelsSeen_) + " kernels").c_str() : "",
                micros(span()) / 1000);
  out += line;
  if (!totals_.empty()) {
    out += "  kind        count          bytes     time (ms)   GB/s (bytes / summed time)\n";
    for (const auto& [kind, k] : totals_) {
      std::snprintf(line, sizeof line, "  %-8s %8llu %14llu %13.3f %8.2f\n", kind.c_str(),
                    static_cast<unsigned long long>(k.count),
                    static_cast<unsigned long long>(k.bytes), micros(k.time) / 1000,
                    gbps(k.bytes, k.time));
      out += line;
    }
  }
  if (!kernels_.empty()) {
    out += "  kernel      count  traffic bytes     time (ms)   GB/s (traffic / summed time)\n";
    for (const auto& [name, k] : kernels_) {
      const uint64_t traffic = k.bytesRead + k.bytesWritten;
      std::snprintf(line, sizeof line, "  %-10s %6llu %14llu %13.3f %8.2f\n", name.c_str(),
                    static_cast<unsigned long long>(k.count),
                    static_cast<unsigned long long>(traffic), micros(k.time) / 1000,
                    gbps(traffic, k.time));
      out += line;
    }
  }
  std::vector<const models::Resource*> busiest;
  for (const auto& x : resources) {
    if (x.chunks) busiest.push_back(&x);
  }
  std::sort(busiest.begin(), busiest.end(), [](auto* a, auto* b) { return a->busy > b->busy; });
  if (!busiest.empty()) {
    out += "  busiest resources        bytes   utilisation   GB/s while busy\n";
    for (size_t i = 0; i < std::min<size_t>(5, busiest.size()); ++i) {
      const auto* x = busiest[i];
      std::snprintf(line, sizeof line, "  %-20s %12llu %12.1f%% %12.2f\n", x->name.c_str(),
                    static_cast<unsigned long long>(x->bytes),
                    span() > 0 ? 100.0 * std::min(1.0, static_cast<double>(x->busy) /
                                                           static_cast<double>(span()))
                               : 0.0,
                    gbps(x->bytes, x->busy));
      out += line;
    }
  }
  if (memoryStats_) {
    out +=
        "  DRAM statistics   GB/s   row hits  misses  conflicts  refresh (us)  read latency mean / "
        "p99 (ns)\n";
    for (const auto& m : memoryStats_->memories()) {
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
  for (const RuntimeWarning& w : warnings) {
    if (++shown[w.kind] <= 3) out += "  warning (" + w.kind + "): " + w.message + "\n";
  }
  for (const auto& [kind, n] : shown) {
    if (n > 3) out += "  warning (" + kind + "): " + std::to_string(n - 3) + " more like these\n";
  }
  return out;
}

}  // namespace ascendsim::runtime
