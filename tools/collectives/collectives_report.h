#pragma once
// What `ascendsim collectives` prints and writes: hccl_test's header line and table (its column
// titles and number formats, hicann/oam-tools
// src/hccl_test/common/src/hccl_opbase_rootinfo_base.cc, with bus bandwidth as a fifth column), and
// the same rows as CSV, JSON and an SVG chart of bandwidth against data size.

#include <string>
#include <vector>

#include "tools/collectives/collective_bench.h"

namespace ascendsim::tools {

// One row: the root rank's time, as hccl_test prints it from its root rank.
struct ReportRow {
  uint64_t dataSize = 0, count = 0;
  double avgUs = 0, algGBps = 0, busGBps = 0;
  std::string check;  // success, failed, NULL
  std::vector<double> rankAvgUs;
};

class CollectivesReport {
 public:
  CollectivesReport(const BenchSettings& settings, std::string machine)
      : s_(settings), machine_(std::move(machine)) {}

  // "the minbytes is ..., maxbytes is ..., iters is ..., warmup_iters is ..."
  std::string headerLine(uint64_t minBytes, uint64_t maxBytes) const;
  static std::string tableHeader();
  // Records one size; returns its text: a line per rank whose check failed, then the row.
  std::string add(const SizeResult& result);
  bool anyCheckFailed() const;

  std::string csv() const;
  std::string json() const;
  std::string svg() const;

 private:
  std::string describe() const;  // "all_gather, 8 ranks, fp32" (and op, root where they apply)

  BenchSettings s_;
  std::string machine_;
  std::vector<ReportRow> rows_;
};

}  // namespace ascendsim::tools
