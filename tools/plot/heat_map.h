#pragma once
// A heat map of one figure over two swept keys, as a standalone SVG document: a cell per pair of
// values with the figure written in it, coloured on a scale shown beside the grid.

#include <optional>
#include <string>
#include <vector>

namespace ascendsim::tools {

struct HeatMap {
  std::string title, xTitle, yTitle, valueTitle;
  std::vector<std::string> columns, rows;                  // the two keys' values, in sweep order
  std::vector<std::vector<std::optional<double>>> values;  // [row][column]; empty: no result
};

std::string heatMapSvg(const HeatMap& map);

}  // namespace ascendsim::tools
