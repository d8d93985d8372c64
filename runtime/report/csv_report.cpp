// The report as one CSV table for spreadsheets and scripts that compare runs: a row per kind of
// copy, per device, per kernel, per stream and per busy fabric resource, all with the same
// columns (docs/report.md says what each column means for each section).

#include <cstdio>

#include "runtime/report/report_figures.h"
#include "runtime/report/report_format.h"

namespace ascendsim::runtime {
namespace {

using namespace report;

// A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

struct Row {
  std::string section, name;
  uint64_t count = 0, bytes = 0;
  spec::Picoseconds time = 0;
  double gbps = 0;
  std::string p50, p99, utilisation;  // empty where the section has none
};

std::string line(const Row& r) {
  return field(r.section) + "," + field(r.name) + "," + std::to_string(r.count) + "," +
         std::to_string(r.bytes) + "," + number(micros(r.time)) + "," + number(r.gbps) + "," +
         r.p50 + "," + r.p99 + "," + r.utilisation + "\n";
}

std::string csvReport(const ReportInput& in) {
  const RunReport& r = in.report;
  const auto deviceName = [&](int d) {
    return r.machine().devices.at(static_cast<size_t>(d)).name;
  };
  std::string out = "section,name,count,bytes,time_us,GBps,p50_us,p99_us,utilisation\n";
  for (const auto& [kind, k] : r.copyTotals()) {
    const CopyStatistics& st = r.copyStatistics().at(kind);
    out += line({"copies", kind, k.count, k.bytes, k.time, gbps(k.bytes, k.time),
                 number(micros(st.percentile(0.5))), number(micros(st.percentile(0.99))), ""});
  }
  for (const auto& [index, d] : r.deviceTotals()) {
    const spec::Picoseconds span = d.first < 0 ? 0 : d.last - d.first;
    out += line(
        {"device", deviceName(index), d.count, d.bytes, span, gbps(d.bytes, span), "", "", ""});
  }
  for (const auto& [name, k] : r.kernelTotals()) {
    const uint64_t traffic = k.bytesRead + k.bytesWritten;
    out += line({"kernel", name, k.count, traffic, k.time, gbps(traffic, k.time), "", "", ""});
  }
  for (const auto& [key, s] : r.streams()) {
    out += line({"stream", deviceName(key.first) + "/" + std::to_string(key.second), s.tasks, 0,
                 s.busy, 0, "", "", number(utilisation(s.busy, r.span()))});
  }
  for (const models::Resource& x : in.resources) {
    if (x.chunks == 0) continue;
    out += line({"resource", x.name, x.chunks, x.bytes, x.busy, gbps(x.bytes, x.busy), "", "",
                 number(utilisation(x.busy, r.span()))});
  }
  return out;
}

const ReportFormatRegistration kRegistered{
    {"report-format",
     "csv",
     "one CSV table: a row per kind of copy, device, kernel, stream and busy resource",
     {},
     {}},
    {{".csv"}, csvReport}};

}  // namespace
}  // namespace ascendsim::runtime
