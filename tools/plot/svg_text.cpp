#include "tools/plot/svg_text.h"

#include <cmath>
#include <cstdio>

namespace ascendsim::tools {

std::string svgEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

double textWidth(const std::string& text, double fontSize) {
  double em = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte: one character counted once
    em += (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '@') ? 0.95
          : (c >= 'A' && c <= 'Z')                                   ? 0.72
                                                                     : 0.62;
  }
  return em * fontSize;
}

double niceStep(double max, int count) {
  if (max <= 0) return 1;
  const double raw = max / count, decade = std::pow(10, std::floor(std::log10(raw)));
  const double f = raw / decade;
  return decade * (f > 5 ? 10 : f > 2 ? 5 : f > 1 ? 2 : 1);
}

std::string tickLabel(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", std::fabs(v) < 1e-12 ? 0.0 : v);
  return buf;
}

std::string columnTitle(const std::string& column) {
  struct Unit {
    const char* suffix;
    const char* unit;
  };
  static const Unit units[] = {{"_GBps", "GB/s"},     {"_us", "us"},
                               {"_ns", "ns"},         {"_ms", "ms"},
                               {"_rate", "fraction"}, {"_utilisation", "fraction"}};
  std::string name = column, unit;
  for (const Unit& u : units) {
    const std::string suffix = u.suffix;
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      if (suffix == "_rate" || suffix == "_utilisation") {
        unit = u.unit;
      } else {
        name.resize(name.size() - suffix.size());
        unit = u.unit;
      }
      break;
    }
  }
  for (char& c : name) {
    if (c == '_') c = ' ';
  }
  return unit.empty() ? name : name + " (" + unit + ")";
}

}  // namespace ascendsim::tools
