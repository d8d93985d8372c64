#include "tools/sweep/sweep_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

#include "tools/atomic_file.h"
#include "tools/exit_codes.h"
#include "tools/plot/heat_map.h"
#include "tools/plot/line_chart.h"
#include "tools/plot/svg_text.h"

namespace ascendsim::tools {
namespace {

bool figureValue(const std::string& text, double& y) {
  char* end = nullptr;
  y = std::strtod(text.c_str(), &end);
  return !text.empty() && end && *end == '\0' && std::isfinite(y);
}

size_t column(const Row& header, const std::string& name) {
  return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

int heatMap(const Row& header, const std::vector<Row>& rows,
            const std::vector<SweepParameter>& params, size_t fi, size_t xi, size_t yi,
            const std::string& svgPath) {
  for (size_t p = 0; p < params.size(); ++p) {
    if (p != xi && p != yi && params[p].values.size() > 1) {
      std::cerr << "ascendsim sweep: a heat map shows two keys; " << params[p].key
                << " has several values too (plot lines, or sweep it separately)\n";
      return kExitUsage;
    }
  }
  HeatMap m;
  m.title = columnTitle(header[fi]) + " by " + params[xi].key + " and " + params[yi].key;
  m.xTitle = params[xi].key;
  m.yTitle = params[yi].key;
  m.valueTitle = columnTitle(header[fi]);
  m.columns = params[xi].values;
  m.rows = params[yi].values;
  m.values.assign(m.rows.size(), std::vector<std::optional<double>>(m.columns.size()));
  for (const Row& r : rows) {
    double v = 0;
    if (r[params.size()] != "ok" || r[fi].empty()) continue;
    if (!figureValue(r[fi], v)) {
      std::cerr << "ascendsim sweep: cannot plot: " << header[fi] << " = '" << r[fi]
                << "' is not a number\n";
      return kExitUsage;
    }
    const size_t c = static_cast<size_t>(std::find(m.columns.begin(), m.columns.end(), r[xi]) -
                                         m.columns.begin());
    const size_t w =
        static_cast<size_t>(std::find(m.rows.begin(), m.rows.end(), r[yi]) - m.rows.begin());
    if (c < m.columns.size() && w < m.rows.size()) m.values[w][c] = v;
  }
  return writeOutput(svgPath, heatMapSvg(m), "sweep") ? kExitOk : kExitFailure;
}

}  // namespace

int plotSweep(const Row& header, const std::vector<Row>& rows,
              const std::vector<SweepParameter>& params, const std::string& figure,
              const std::string& against, const std::string& by, const std::string& svgPath) {
  const size_t fi = column(header, figure), xi = column(header, against);
  const size_t yi = by.empty() ? header.size() : column(header, by);
  if (fi >= header.size() || fi < params.size() || xi >= params.size() ||
      (!by.empty() && (yi >= params.size() || yi == xi))) {
    std::cerr << "ascendsim sweep: --plot needs a figure column, --against a --set key"
              << (by.empty() ? "" : " and --by another --set key") << "\n";
    return kExitUsage;
  }
  if (!by.empty()) return heatMap(header, rows, params, fi, xi, yi, svgPath);
  ChartAxes axes;
  axes.xTitle = against;
  axes.yTitle = columnTitle(figure);
  axes.xScale = xScaleFor(params[xi].values);
  if (axes.xScale == XScale::Categories) axes.categories = params[xi].values;
  // One line per combination of the other keys, in sweep order.
  std::vector<ChartSeries> series;
  std::map<std::string, size_t> index;
  for (const Row& r : rows) {
    if (r[params.size()] != "ok" || r[fi].empty()) continue;
    std::string name;
    for (size_t p = 0; p < params.size(); ++p) {
      if (p != xi) name += (name.empty() ? "" : ", ") + params[p].key + "=" + r[p];
    }
    if (name.empty()) name = columnTitle(figure);
    double x = 0, y = 0;
    if (!xValue(r[xi], axes.xScale, axes.categories, x)) {
      std::cerr << "ascendsim sweep: cannot plot: " << against << " = '" << r[xi]
                << "' is not on the x axis\n";
      return kExitUsage;
    }
    if (!figureValue(r[fi], y)) {
      std::cerr << "ascendsim sweep: cannot plot: " << figure << " = '" << r[fi]
                << "' is not a number\n";
      return kExitUsage;
    }
    auto [it, added] = index.emplace(name, series.size());
    if (added) series.push_back({name, {}});
    series[it->second].points.push_back({x, y});
  }
  for (auto& s : series) std::sort(s.points.begin(), s.points.end());
  return writeOutput(svgPath,
                     lineChartSvg(columnTitle(figure) + " against " + against, series, axes),
                     "sweep")
             ? kExitOk
             : kExitFailure;
}

}  // namespace ascendsim::tools
