#include "tools/collectives/collectives_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/hccl/data_types.h"
#include "tools/csv_table.h"
#include "tools/plot/line_chart.h"

namespace ascendsim::tools {
namespace {

// hccl_test's row format (data size, time, algorithm bandwidth, check) and ours after it.
std::string rowText(uint64_t dataSize, double us, double alg, const std::string& check,
                    double bus) {
  char line[160];
  std::snprintf(line, sizeof line, "%-17llu | %-14.2f | %-20.5f | %-13s | %.5f\n",
                static_cast<unsigned long long>(dataSize), us, alg, check.c_str(), bus);
  return line;
}

}  // namespace

std::string CollectivesReport::headerLine(uint64_t minBytes, uint64_t maxBytes) const {
  char line[200];
  std::snprintf(line, sizeof line,
                "the minbytes is %llu, maxbytes is %llu, iters is %d, warmup_iters is %d\n",
                static_cast<unsigned long long>(minBytes),
                static_cast<unsigned long long>(maxBytes), s_.iters, s_.warmupIters);
  return line;
}

std::string CollectivesReport::tableHeader() {
  // hccl_test's titles (its source spells "aveg_time"), then the bus bandwidth.
  return "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result: | "
         "bus_bandwidth(GB/s):\n";
}

std::string CollectivesReport::add(const SizeResult& result) {
  ReportRow row;
  row.dataSize = result.dataSize;
  row.count = result.layout.count;
  row.avgUs = result.ranks.at(s_.root).avgUs;
  // bytes / us = 1e6 bytes/s; / 1e3 = GB/s (hccl_test's B_US_TO_GB_S).
  row.algGBps = row.avgUs > 0 ? static_cast<double>(result.layout.algBytes) / row.avgUs / 1e3 : 0;
  row.busGBps = row.algGBps * s_.collective.busFactor(s_.ranks);
  // success when every checked rank's output is exact; failed when any is not; NULL unchecked.
  row.check = "NULL";
  std::ostringstream out;
  for (size_t r = 0; r < result.ranks.size(); ++r) {
    const RankResult& rank = result.ranks[r];
    row.rankAvgUs.push_back(rank.avgUs);
    if (rank.check == CheckResult::Success && row.check == "NULL") row.check = "success";
    if (rank.check != CheckResult::Failed) continue;
    row.check = "failed";
    char line[200];
    std::snprintf(line, sizeof line,
                  "local rank_id %zu, check result failed, %-17llu | %-14.2f | %-20.5f | failed\n",
                  r, static_cast<unsigned long long>(result.dataSize), rank.avgUs,
                  static_cast<double>(result.layout.algBytes) / rank.avgUs / 1e3);
    out << line;
    if (s_.check >= 2 && rank.mismatch) {
      const Mismatch& m = *rank.mismatch;
      const uint32_t size = runtime::hccl::elementSize(s_.dataType);
      std::snprintf(line, sizeof line,
                    "  rank %zu: %llu byte(s) differ; the first is byte %llu (element %llu): "
                    "expected 0x%02x, got 0x%02x\n",
                    r, static_cast<unsigned long long>(m.differingBytes),
                    static_cast<unsigned long long>(m.firstOffset),
                    static_cast<unsigned long long>(m.firstOffset / size), m.expected, m.actual);
      out << line;
    }
  }
  out << rowText(row.dataSize, row.avgUs, row.algGBps, row.check, row.busGBps);
  rows_.push_back(row);
  return out.str();
}

bool CollectivesReport::anyCheckFailed() const {
  for (const ReportRow& r : rows_) {
    if (r.check == "failed") return true;
  }
  return false;
}

std::string CollectivesReport::describe() const {
  std::string text = s_.collective.name() + ", " + std::to_string(s_.ranks) + " ranks, " +
                     runtime::hccl::dataTypeName(s_.dataType);
  if (s_.collective.reduces()) text += ", " + runtime::hccl::reduceOpName(s_.op);
  if (s_.collective.hasRoot()) text += ", root " + std::to_string(s_.root);
  return text;
}

std::string CollectivesReport::csv() const {
  const Row header{"op",
                   "ranks",
                   "datatype",
                   "reduce_op",
                   "root",
                   "data_size_bytes",
                   "count",
                   "avg_time_us",
                   "alg_bandwidth_GBps",
                   "bus_bandwidth_GBps",
                   "check_result"};
  std::vector<Row> rows;
  for (const ReportRow& r : rows_) {
    char us[32], alg[32], bus[32];
    std::snprintf(us, sizeof us, "%.4f", r.avgUs);
    std::snprintf(alg, sizeof alg, "%.5f", r.algGBps);
    std::snprintf(bus, sizeof bus, "%.5f", r.busGBps);
    rows.push_back({s_.collective.name(), std::to_string(s_.ranks),
                    runtime::hccl::dataTypeName(s_.dataType),
                    s_.collective.reduces() ? runtime::hccl::reduceOpName(s_.op) : "",
                    s_.collective.hasRoot() ? std::to_string(s_.root) : "",
                    std::to_string(r.dataSize), std::to_string(r.count), us, alg, bus, r.check});
  }
  return csvText(header, rows);
}

std::string CollectivesReport::json() const {
  nlohmann::ordered_json j;
  j["machine"] = machine_;
  j["op"] = s_.collective.name();
  j["hccl_call"] = s_.collective.hcclCall();
  j["ranks"] = s_.ranks;
  j["datatype"] = runtime::hccl::dataTypeName(s_.dataType);
  if (s_.collective.reduces()) j["reduce_op"] = runtime::hccl::reduceOpName(s_.op);
  if (s_.collective.hasRoot()) j["root"] = s_.root;
  j["iters"] = s_.iters;
  j["warmup_iters"] = s_.warmupIters;
  j["bus_factor"] = s_.collective.busFactor(s_.ranks);
  j["units"] =
      "avg_time_us: the root rank's simulated time per call; GBps: 1e9 bytes/s; alg_bandwidth = "
      "data size (hccl_test's convention) / avg_time; bus_bandwidth = alg_bandwidth x bus_factor";
  j["rows"] = nlohmann::ordered_json::array();
  for (const ReportRow& r : rows_) {
    j["rows"].push_back({{"data_size_bytes", r.dataSize},
                         {"count", r.count},
                         {"avg_time_us", r.avgUs},
                         {"alg_bandwidth_GBps", r.algGBps},
                         {"bus_bandwidth_GBps", r.busGBps},
                         {"check_result", r.check},
                         {"rank_avg_time_us", r.rankAvgUs}});
  }
  return j.dump(2) + "\n";
}

std::string CollectivesReport::svg() const {
  ChartSeries alg{"alg_bandwidth", {}}, bus{"bus_bandwidth", {}};
  for (const ReportRow& r : rows_) {
    alg.points.push_back({static_cast<double>(r.dataSize), r.algGBps});
    bus.points.push_back({static_cast<double>(r.dataSize), r.busGBps});
  }
  ChartAxes axes;
  axes.xTitle = "data size (hccl_test's -b convention)";
  axes.yTitle = "GB/s";
  return lineChartSvg(describe() + " on " + machine_, {alg, bus}, axes);
}

}  // namespace ascendsim::tools
