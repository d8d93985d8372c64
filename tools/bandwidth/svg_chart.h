#pragma once
// A line chart of bandwidth against size (log scale) as a standalone SVG document.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ascendsim::tools {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<uint64_t, double>> points;  // (bytes, GB/s)
};

struct ChartAxes {
  std::string xTitle = "copy size", yTitle = "GB/s";
  bool xBytes = true;  // x values are byte counts (labels 4KiB, 1MiB); else plain numbers
};

// x on a log2 scale (sizes, lanes, generations all grow by factors).
std::string svgChart(const std::string& title, const std::vector<ChartSeries>& series, const ChartAxes& axes = {});

}  // namespace ascendsim::tools
