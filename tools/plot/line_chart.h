#pragma once
// A line chart as a standalone SVG document, laid out around its text: the canvas grows with the
// legend (outside the plot area, one entry per series) and with long tick labels, so nothing is
// cut off.

#include <string>
#include <utility>
#include <vector>

namespace ascendsim::tools {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>>
      points;  // (x, y); with categories, x is the category's index
};

enum class XScale {
  Log2Bytes,  // byte counts on a log2 axis, labelled 64KiB ... 1GiB
  Log2,       // positive numbers growing by factors, labelled at powers of two
  Linear,     // numbers
  Categories  // names, evenly spaced in the order given
};

struct ChartAxes {
  std::string xTitle = "copy size", yTitle = "GB/s";
  XScale xScale = XScale::Log2Bytes;
  std::vector<std::string> categories;  // for XScale::Categories
};

std::string lineChartSvg(const std::string& title, const std::vector<ChartSeries>& series,
                         const ChartAxes& axes = {});

// The scale for a swept key's values: sizes with units -> Log2Bytes; positive numbers spanning a
// factor of 4 or more -> Log2; other numbers -> Linear; anything else -> Categories.
XScale xScaleFor(const std::vector<std::string>& values);
// A value on that scale (categories: its index among `categories`); false if it is not one.
bool xValue(const std::string& text, XScale scale, const std::vector<std::string>& categories,
            double& x);

}  // namespace ascendsim::tools
