// The JSON report (schema: docs/report.md): every figure RunReport holds, each copy's row (the
// first RunReport::kMaxCopies), the fabric's resources and the warnings.

#include "runtime/report/report_figures.h"
#include "runtime/report/report_format.h"

namespace ascendsim::runtime {
namespace {

using namespace report;

std::string jsonReport(const ReportInput& in) {
  const RunReport& r = in.report;
  nlohmann::ordered_json out;
  out["schema"] = "ascendsim-report/1";
  out["machine"] = r.machine().name;
  out["simulated_span_us"] = micros(r.span());
  nlohmann::ordered_json copies = nlohmann::ordered_json::array();
  for (const RunReport::Copy& c : r.copies()) {
    copies.push_back({{"task", c.task},
                      {"device", r.machine().devices.at(static_cast<size_t>(c.device)).name},
                      {"stream", c.stream},
                      {"kind", c.kind},
                      {"bytes", c.bytes},
                      {"submit_us", micros(c.submit)},
                      {"start_us", micros(c.start)},
                      {"end_us", micros(c.end)},
                      {"GBps", gbps(c.bytes, c.end - c.start)}});
  }
  out["copies"] = copies;
  out["copies_total"] = r.copiesSeen();
  nlohmann::ordered_json totals = nlohmann::ordered_json::object();
  for (const auto& [kind, k] : r.copyTotals()) {
    const CopyStatistics& st = r.copyStatistics().at(kind);
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
  out["copy_totals"] = totals;
  // Every device's copies together: the bytes it moved over the time from its first copy's start
  // to its last one's end, and all devices' bytes over the time from the first copy's start to the
  // last one's end (the machine's aggregate).
  nlohmann::ordered_json byDevice = nlohmann::ordered_json::array();
  uint64_t allBytes = 0;
  spec::Picoseconds first = -1, last = 0;
  for (const auto& [index, d] : r.deviceTotals()) {
    allBytes += d.bytes;
    if (first < 0 || d.first < first) first = d.first;
    last = std::max(last, d.last);
    byDevice.push_back({{"device", r.machine().devices.at(static_cast<size_t>(index)).name},
                        {"copies", d.count},
                        {"bytes", d.bytes},
                        {"first_us", micros(d.first)},
                        {"last_us", micros(d.last)},
                        {"GBps", gbps(d.bytes, d.last - d.first)}});
  }
  out["device_copy_totals"] = byDevice;
  out["copies_GBps"] = gbps(allBytes, first < 0 ? 0 : last - first);
  nlohmann::ordered_json kernels = nlohmann::ordered_json::object();
  for (const auto& [name, k] : r.kernelTotals()) {
    kernels[name] = {{"count", k.count},
                     {"bytes_read", k.bytesRead},
                     {"bytes_written", k.bytesWritten},
                     {"ops", k.ops},
                     {"time_us", micros(k.time)},
                     {"GBps", gbps(k.bytesRead + k.bytesWritten, k.time)}};
  }
  out["kernel_totals"] = kernels;
  nlohmann::ordered_json streams = nlohmann::ordered_json::array();
  for (const auto& [key, s] : r.streams()) {
    streams.push_back({{"device", r.machine().devices.at(static_cast<size_t>(key.first)).name},
                       {"stream", key.second},
                       {"tasks", s.tasks},
                       {"busy_us", micros(s.busy)},
                       {"first_us", micros(s.first)},
                       {"last_us", micros(s.last)}});
  }
  out["streams"] = streams;
  nlohmann::ordered_json res = nlohmann::ordered_json::array();
  for (const models::Resource& x : in.resources) {
    if (x.chunks == 0) continue;
    res.push_back({{"name", x.name},
                   {"bytes", x.bytes},
                   {"busy_us", micros(x.busy)},
                   {"utilisation", utilisation(x.busy, r.span())},
                   {"mean_GBps", gbps(x.bytes, r.span())},
                   {"busy_GBps", gbps(x.bytes, x.busy)}});
  }
  out["resources"] = res;
  if (r.memoryStatistics()) {
    nlohmann::ordered_json memories = nlohmann::ordered_json::array();
    for (const auto& m : r.memoryStatistics()->memories()) {
      const models::DramStats total = m.timing->totalStats();
      if (!sawTraffic(total)) continue;
      nlohmann::ordered_json entry = {{"name", m.name}, {"model", m.timing->name()}};
      entry.update(dramStatsJson(total));
      nlohmann::ordered_json channels = nlohmann::ordered_json::array();
      for (const models::DramStats& c : m.timing->channelStats())
        channels.push_back(dramStatsJson(c));
      entry["channels"] = channels;
      memories.push_back(entry);
    }
    out["memories"] = memories;
  }
  nlohmann::ordered_json warn = nlohmann::ordered_json::array();
  for (const RuntimeWarning& w : in.warnings)
    warn.push_back({{"kind", w.kind}, {"message", w.message}, {"at_us", micros(w.when)}});
  out["warnings"] = warn;
  // Names come from the program (kernel names): bytes that are not UTF-8 become U+FFFD.
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

const ReportFormatRegistration kRegistered{
    {"report-format",
     "json",
     "every figure of the run as JSON (schema ascendsim-report/1, docs/report.md); the default",
     {},
     {}},
    {{".json"}, jsonReport}};

}  // namespace
}  // namespace ascendsim::runtime
