#pragma once
// What the SVG charts share: escaping, how wide a label will be drawn, round tick steps and the
// title of a result column with its unit.

#include <string>
#include <vector>

namespace ascendsim::tools {

std::string svgEscape(const std::string& s);
// Width of `text` in px at `fontSize` in a sans-serif face, erring wide (the layout must hold it
// whatever font the viewer picks: every character counted as 0.62 em, wide ones more).
double textWidth(const std::string& text, double fontSize);
// About `count` round steps (1, 2 or 5 times a power of ten) from 0 to at least `max`.
double niceStep(double max, int count);
// "12.5", "1e+03": tick labels without trailing zeros.
std::string tickLabel(double v);
// A sweep column as an axis title: "D2H_GBps" -> "D2H (GB/s)", "simulated_span_us" ->
// "simulated span (us)"; other names with underscores turned into spaces.
std::string columnTitle(const std::string& column);

}  // namespace ascendsim::tools
