#include "tools/plot/line_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "spec/units.h"
#include "tools/plot/svg_text.h"

namespace ascendsim::tools {
namespace {
const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                         "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
constexpr double kFont = 12, kTitleFont = 15, kPlotW = 560, kPlotH = 320, kLegendRow = 18;

bool plainNumber(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && end && *end == '\0' && std::isfinite(out);
}

struct Tick {
  double at;  // in axis units (log2 of the value on log scales)
  std::string label;
};

// Ticks along x, in axis units, and the axis's range.
std::vector<Tick> xTicks(const ChartAxes& axes, const std::vector<ChartSeries>& series, double& lo,
                         double& hi) {
  std::vector<Tick> ticks;
  if (axes.xScale == XScale::Categories) {
    lo = -0.5;
    hi = static_cast<double>(axes.categories.size()) - 0.5;
    for (size_t i = 0; i < axes.categories.size(); ++i)
      ticks.push_back({static_cast<double>(i), axes.categories[i]});
    return ticks;
  }
  const bool log = axes.xScale != XScale::Linear;
  double minX = 1e300, maxX = -1e300;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      const double v = log ? std::log2(x) : x;
      minX = std::min(minX, v);
      maxX = std::max(maxX, v);
    }
  }
  if (minX > maxX) minX = maxX = 0;
  if (log) {
    lo = std::floor(minX);
    hi = std::max(std::ceil(maxX), lo + 1);
    for (double e = lo; e <= hi; ++e) {
      const double v = std::pow(2.0, e);
      ticks.push_back({e, axes.xScale == XScale::Log2Bytes && e >= 0
                              ? spec::formatBytes(static_cast<uint64_t>(v))
                              : tickLabel(v)});
    }
    return ticks;
  }
  const double span = maxX > minX ? maxX - minX : std::max(1.0, std::fabs(maxX));
  const double step = niceStep(span, 6);
  lo = std::floor(minX / step) * step;
  hi = std::ceil(maxX / step) * step;
  if (hi <= lo) hi = lo + step;
  for (double v = lo; v <= hi + step / 2; v += step) ticks.push_back({v, tickLabel(v)});
  return ticks;
}
}  // namespace

XScale xScaleFor(const std::vector<std::string>& values) {
  bool numbers = true, sizes = true, anyUnit = false, positive = true;
  double lo = 1e300, hi = -1e300;
  for (const std::string& v : values) {
    double x = 0;
    std::string why;
    if (!spec::parseBytes(v, why)) sizes = false;
    if (v.find_first_not_of("0123456789. ") != std::string::npos) anyUnit = true;
    if (!plainNumber(v, x)) {
      numbers = false;
      continue;
    }
    positive = positive && x > 0;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (sizes && anyUnit) return XScale::Log2Bytes;
  if (!numbers || values.empty()) return XScale::Categories;
  return positive && hi >= 4 * lo ? XScale::Log2 : XScale::Linear;
}

bool xValue(const std::string& text, XScale scale, const std::vector<std::string>& categories,
            double& x) {
  switch (scale) {
    case XScale::Log2Bytes: {
      std::string why;
      const auto bytes = spec::parseBytes(text, why);
      if (!bytes || *bytes == 0) return false;
      x = static_cast<double>(*bytes);
      return true;
    }
    case XScale::Log2: return plainNumber(text, x) && x > 0;
    case XScale::Linear: return plainNumber(text, x);
    case XScale::Categories: {
      const auto it = std::find(categories.begin(), categories.end(), text);
      x = static_cast<double>(it - categories.begin());
      return it != categories.end();
    }
  }
  return false;
}

std::string lineChartSvg(const std::string& title, const std::vector<ChartSeries>& series,
                         const ChartAxes& axes) {
  // y: from 0 (or below, for negative figures) to a round value over the largest.
  double minY = 0, maxY = 0;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      minY = std::min(minY, y);
      maxY = std::max(maxY, y);
    }
  }
  if (maxY <= minY) maxY = minY + 1;
  const double yStep = niceStep(maxY - minY, 8);
  const double yLo = std::floor(minY / yStep) * yStep, yHi = std::ceil(maxY * 1.02 / yStep) * yStep;
  std::vector<std::string> yLabels;
  double yLabelW = 0;
  for (double v = yLo; v <= yHi + yStep / 2; v += yStep) {
    yLabels.push_back(tickLabel(v));
    yLabelW = std::max(yLabelW, textWidth(yLabels.back(), kFont));
  }
  double xLo = 0, xHi = 1;
  std::vector<Tick> ticks = xTicks(axes, series, xLo, xHi);
  // x labels: all of them if they fit side by side, else every k-th (numbers) or slanted
  // (categories, which must all be named).
  double xLabelW = 0;
  for (const Tick& t : ticks) xLabelW = std::max(xLabelW, textWidth(t.label, kFont));
  const double slot = ticks.size() > 1 ? kPlotW / (xHi - xLo) : kPlotW;
  size_t every = 1;
  bool slanted = false;
  if (xLabelW + 8 > slot) {
    if (axes.xScale == XScale::Categories) {
      slanted = true;
    } else {
      every = static_cast<size_t>(std::ceil((xLabelW + 8) / slot));
    }
  }
  const double xLabelH = slanted ? xLabelW * 0.71 + kFont : kFont + 4;
  // Legend, outside the plot on the right: as wide as its longest name.
  double legendW = 0;
  for (const auto& s : series) legendW = std::max(legendW, textWidth(s.name, kFont));
  legendW = series.empty() ? 0 : legendW + 40;
  const double L = 14 + kFont + 10 + yLabelW + 8;  // y title, gap, tick labels, gap
  const double T = 40, plotRight = L + kPlotW;
  const double B = 10 + xLabelH + 10 + kFont + 10;  // tick labels, gap, x title, margin
  const double legendH = 10 + kLegendRow * static_cast<double>(series.size());
  const double H = T + std::max(kPlotH, legendH) + B;
  const double W = std::max(plotRight + (legendW > 0 ? 24 + legendW : 20),
                            textWidth(title, kTitleFont) + 2 * 16);
  const double plotBottom = T + kPlotH;

  auto px = [&](double x) {
    const double v =
        axes.xScale == XScale::Log2Bytes || axes.xScale == XScale::Log2 ? std::log2(x) : x;
    return L + (v - xLo) / (xHi - xLo) * kPlotW;
  };
  auto pxAxis = [&](double at) { return L + (at - xLo) / (xHi - xLo) * kPlotW; };
  auto py = [&](double y) { return plotBottom - (y - yLo) / (yHi - yLo) * kPlotH; };
  char buf[1024];
  std::string svg;
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"sans-serif\" font-size=\"%g\">\n<rect width=\"100%%\" "
                "height=\"100%%\" fill=\"white\"/>\n",
                std::ceil(W), std::ceil(H), std::ceil(W), std::ceil(H), kFont);
  svg += buf;
  std::snprintf(buf, sizeof buf, "<text x=\"16\" y=\"24\" font-size=\"%g\">%s</text>\n", kTitleFont,
                svgEscape(title).c_str());
  svg += buf;
  // Grid and y ticks.
  for (size_t i = 0; i < yLabels.size(); ++i) {
    const double y = py(yLo + yStep * static_cast<double>(i));
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  L, y, plotRight, y, L - 4, y, L, y, L - 7, y + 4, yLabels[i].c_str());
    svg += buf;
  }
  // x ticks.
  for (size_t i = 0; i < ticks.size(); ++i) {
    const double x = pxAxis(ticks[i].at);
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
                  x, T, x, plotBottom, x, plotBottom, x, plotBottom + 4);
    svg += buf;
    if (i % every != 0) continue;
    if (slanted) {
      std::snprintf(buf, sizeof buf,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-45 %.1f "
                    "%.1f)\">%s</text>\n",
                    x, plotBottom + 14, x, plotBottom + 14, svgEscape(ticks[i].label).c_str());
    } else {
      std::snprintf(buf, sizeof buf,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
                    plotBottom + 18, svgEscape(ticks[i].label).c_str());
    }
    svg += buf;
  }
  // Axes and titles.
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n"
                "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
                "text-anchor=\"middle\">%s</text>\n",
                L, plotBottom, plotRight, plotBottom, L, T, L, plotBottom, L + kPlotW / 2,
                plotBottom + 10 + xLabelH + 10 + kFont, svgEscape(axes.xTitle).c_str(),
                14 + kFont / 2, T + kPlotH / 2, 14 + kFont / 2, T + kPlotH / 2,
                svgEscape(axes.yTitle).c_str());
  svg += buf;
  // Series: a line through the points and a marker on each (a lone point stays visible). Series
  // that coincide stay visible too: earlier ones are drawn wider, and each has its own dashes.
  static const char* kDashes[] = {"", "7 3", "2 3", "9 3 2 3"};
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = kColors[i % (sizeof kColors / sizeof kColors[0])];
    const std::string dash =
        kDashes[i % 4][0] ? std::string(" stroke-dasharray=\"") + kDashes[i % 4] + "\"" : "";
    const double width = 2 + std::min(6.0, 1.5 * static_cast<double>(series.size() - 1 - i));
    const double radius = width / 2 + 2;
    std::string points, markers;
    for (const auto& [x, y] : series[i].points) {
      const double cx = axes.xScale == XScale::Categories ? pxAxis(x) : px(x);
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", cx, py(y));
      points += buf;
      std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>", cx,
                    py(y), radius, color);
      markers += buf;
    }
    if (series[i].points.size() > 1) {
      std::snprintf(buf, sizeof buf,
                    "<polyline fill=\"none\" stroke-width=\"%.1f\" stroke=\"%s\"%s points=\"",
                    width, color, dash.c_str());
      svg += buf + points + "\"/>\n";
    }
    svg += markers + "\n";
    const double ly = T + 10 + kLegendRow * static_cast<double>(i);
    std::snprintf(buf, sizeof buf,
                  "<line class=\"legend\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                  "stroke=\"%s\" stroke-width=\"3\"%s/>"
                  "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                  plotRight + 24, ly, plotRight + 48, ly, color, dash.c_str(), plotRight + 56,
                  ly + 4, svgEscape(series[i].name).c_str());
    svg += buf;
  }
  return svg + "</svg>\n";
}

}  // namespace ascendsim::tools
