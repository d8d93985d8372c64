#include "tools/bandwidth/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "spec/units.h"

namespace ascendsim::tools {
namespace {
const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}
}  // namespace

std::string svgChart(const std::string& title, const std::vector<ChartSeries>& series, const ChartAxes& axes) {
  const double W = 820, H = 480, L = 70, R = 170, T = 40, B = 50;
  double minX = 1e300, maxX = 0, maxY = 0;
  for (const auto& s : series) {
    for (const auto& [b, g] : s.points) {
      minX = std::min(minX, std::log2(static_cast<double>(b)));
      maxX = std::max(maxX, std::log2(static_cast<double>(b)));
      maxY = std::max(maxY, g);
    }
  }
  if (maxX <= minX) maxX = minX + 1;
  if (maxY <= 0) maxY = 1;
  maxY *= 1.1;
  auto px = [&](double lx) { return L + (lx - minX) / (maxX - minX) * (W - L - R); };
  auto py = [&](double g) { return H - B - g / maxY * (H - T - B); };
  char buf[512];
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"820\" height=\"480\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::snprintf(buf, sizeof buf, "<text x=\"%g\" y=\"24\" font-size=\"15\">%s</text>\n", L, escape(title).c_str());
  svg += buf;
  // Axes, grid and ticks: powers of two on x, round GB/s on y.
  std::snprintf(buf, sizeof buf, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n",
                L, H - B, W - R, H - B, L, T, L, H - B);
  svg += buf;
  const int steps = std::max(1, static_cast<int>((maxX - minX) / 8));
  for (int e = static_cast<int>(std::ceil(minX)); e <= static_cast<int>(maxX); e += steps) {
    const std::string label = axes.xBytes ? spec::formatBytes(uint64_t{1} << e) : std::to_string(uint64_t{1} << e);
    std::snprintf(buf, sizeof buf, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#ddd\"/><text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                  px(e), T, px(e), H - B, px(e), H - B + 16, label.c_str());
    svg += buf;
  }
  // A 1, 2 or 5 times a power of ten step: about eight ticks.
  const double raw = maxY / 8, decade = std::pow(10, std::floor(std::log10(raw)));
  const double yStep = decade * (raw / decade > 5 ? 10 : raw / decade > 2 ? 5 : raw / decade > 1 ? 2 : 1);
  for (double g = 0; g <= maxY; g += yStep) {
    std::snprintf(buf, sizeof buf, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#eee\"/><text x=\"%g\" y=\"%g\" text-anchor=\"end\">%g</text>\n",
                  L, py(g), W - R, py(g), L - 6, py(g) + 4, g);
    svg += buf;
  }
  std::snprintf(buf, sizeof buf, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n<text x=\"16\" y=\"%g\" transform=\"rotate(-90 16 %g)\" text-anchor=\"middle\">%s</text>\n",
                (L + W - R) / 2, H - 12, escape(axes.xTitle).c_str(), (T + H - B) / 2, (T + H - B) / 2, escape(axes.yTitle).c_str());
  svg += buf;
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = kColors[i % 8];
    std::string points;
    for (const auto& [b, g] : series[i].points) {
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", px(std::log2(static_cast<double>(b))), py(g));
      points += buf;
    }
    if (!points.empty()) {
      svg += "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" + std::string(color) + "\" points=\"" + points + "\"/>\n";
    }
    std::snprintf(buf, sizeof buf, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"3\"/><text x=\"%g\" y=\"%g\">%s</text>\n",
                  W - R + 14, T + 14 + 20.0 * i, W - R + 38, T + 14 + 20.0 * i, color, W - R + 44, T + 18 + 20.0 * i,
                  escape(series[i].name).c_str());
    svg += buf;
  }
  return svg + "</svg>\n";
}

}  // namespace ascendsim::tools
