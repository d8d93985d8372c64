#include "tools/plot/heat_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/plot/svg_text.h"

namespace ascendsim::tools {
namespace {
constexpr double kFont = 12, kTitleFont = 15, kCellH = 28, kBarW = 16, kBarH = 160;

std::string cellText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// From pale to deep blue as `f` goes from 0 to 1.
std::string shade(double f) {
  const double lo[3] = {239, 246, 255}, hi[3] = {8, 48, 107};
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(lo[0] + (hi[0] - lo[0]) * f),
                static_cast<int>(lo[1] + (hi[1] - lo[1]) * f),
                static_cast<int>(lo[2] + (hi[2] - lo[2]) * f));
  return buf;
}
}  // namespace

std::string heatMapSvg(const HeatMap& m) {
  double lo = 1e300, hi = -1e300;
  double cellW = 48;
  for (const auto& row : m.values) {
    for (const auto& v : row) {
      if (!v) continue;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
      cellW = std::max(cellW, textWidth(cellText(*v), kFont) + 16);
    }
  }
  if (lo > hi) lo = hi = 0;
  double columnLabelW = 0, rowLabelW = 0;
  for (const auto& c : m.columns) columnLabelW = std::max(columnLabelW, textWidth(c, kFont));
  for (const auto& r : m.rows) rowLabelW = std::max(rowLabelW, textWidth(r, kFont));
  // Column labels that do not fit over their cell are slanted.
  const bool slanted = columnLabelW + 8 > cellW;
  const double columnLabelH = slanted ? columnLabelW * 0.71 + kFont : kFont + 6;
  const double L = 14 + kFont + 10 + rowLabelW + 8;
  const double T = 48;  // below the title
  const double gridW = cellW * static_cast<double>(m.columns.size()),
               gridH = kCellH * static_cast<double>(m.rows.size());
  const double barLabelW = std::max(textWidth(cellText(hi), kFont), textWidth(cellText(lo), kFont));
  const double valueTitleW = textWidth(m.valueTitle, kFont);
  const double barX = L + gridW + 24;
  const double W =
      std::max({barX + kBarW + 8 + barLabelW + 16, barX + valueTitleW + 16,
                textWidth(m.title, kTitleFont) + 32, L + textWidth(m.xTitle, kFont) + 16});
  const double gridBottom = T + gridH;
  // The row key's title runs up the left side: the drawing is at least as tall as it is long.
  const double yTitleSpan = std::max(gridH, textWidth(m.yTitle, kFont) + 10);
  const double H =
      std::max({gridBottom + columnLabelH + 10 + kFont + 14, T + kBarH + 30, T + yTitleSpan + 10});
  char buf[1024];
  std::string svg;
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"sans-serif\" font-size=\"%g\">\n<rect width=\"100%%\" "
                "height=\"100%%\" fill=\"white\"/>\n"
                "<text x=\"16\" y=\"24\" font-size=\"%g\">%s</text>\n",
                std::ceil(W), std::ceil(H), std::ceil(W), std::ceil(H), kFont, kTitleFont,
                svgEscape(m.title).c_str());
  svg += buf;
  for (size_t r = 0; r < m.rows.size(); ++r) {
    const double y = T + kCellH * static_cast<double>(r);
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  L - 8, y + kCellH / 2 + 4, svgEscape(m.rows[r]).c_str());
    svg += buf;
    for (size_t c = 0; c < m.columns.size(); ++c) {
      const double x = L + cellW * static_cast<double>(c);
      const auto& v =
          r < m.values.size() && c < m.values[r].size() ? m.values[r][c] : std::optional<double>();
      const double f = v && hi > lo ? (*v - lo) / (hi - lo) : 0.5;
      std::snprintf(buf, sizeof buf,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                    "stroke=\"white\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n",
                    x, y, cellW, kCellH, v ? shade(f).c_str() : "#dddddd", x + cellW / 2,
                    y + kCellH / 2 + 4, v && f > 0.55 ? "white" : "black",
                    v ? cellText(*v).c_str() : "-");
      svg += buf;
    }
  }
  for (size_t c = 0; c < m.columns.size(); ++c) {
    const double x = L + cellW * (static_cast<double>(c) + 0.5);
    if (slanted) {
      std::snprintf(buf, sizeof buf,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-45 %.1f "
                    "%.1f)\">%s</text>\n",
                    x, gridBottom + 14, x, gridBottom + 14, svgEscape(m.columns[c]).c_str());
    } else {
      std::snprintf(buf, sizeof buf,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
                    gridBottom + 18, svgEscape(m.columns[c]).c_str());
    }
    svg += buf;
  }
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n"
                "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
                "text-anchor=\"middle\">%s</text>\n",
                L, gridBottom + columnLabelH + 10 + kFont, svgEscape(m.xTitle).c_str(),
                14 + kFont / 2, T + yTitleSpan / 2, 14 + kFont / 2, T + yTitleSpan / 2,
                svgEscape(m.yTitle).c_str());
  svg += buf;
  // The colour scale: the largest value at the top.
  for (int i = 0; i < 16; ++i) {
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", barX,
                  T + kBarH / 16 * i, kBarW, kBarH / 16 + 0.5, shade(1.0 - i / 15.0).c_str());
    svg += buf;
  }
  std::snprintf(buf, sizeof buf,
                "\n<text x=\"%.1f\" y=\"%.1f\">%s</text><text x=\"%.1f\" y=\"%.1f\">%s</text>"
                "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                barX + kBarW + 6, T + 10, cellText(hi).c_str(), barX + kBarW + 6, T + kBarH,
                cellText(lo).c_str(), barX, T + kBarH + 20, svgEscape(m.valueTitle).c_str());
  svg += buf;
  return svg + "</svg>\n";
}

}  // namespace ascendsim::tools
