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

std::string svgChart(const std::string& title, const std::vector<ChartSeries>& series);

}  // namespace ascendsim::tools
