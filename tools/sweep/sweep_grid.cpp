#include "tools/sweep/sweep_grid.h"

#include "spec/spec_writer.h"
#include "spec/system_loader.h"

#include <algorithm>
#include <sstream>

namespace ascendsim::tools {

std::optional<SweepParameter> parseSet(const std::string& text, std::string& why) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    why = "expected KEY=v1,v2,... (e.g. devices[*].link.generation=3,4,5), got '" + text + "'";
    return std::nullopt;
  }
  SweepParameter p{text.substr(0, eq), {}};
  std::stringstream in(text.substr(eq + 1));
  std::string v;
  while (std::getline(in, v, ',')) {
    if (!v.empty()) p.values.push_back(v);
  }
  if (p.values.empty()) {
    why = "no values for " + p.key;
    return std::nullopt;
  }
  return p;
}

bool gridWithinLimit(const std::vector<SweepParameter>& params, std::string& why) {
  size_t points = 1;
  for (const SweepParameter& p : params) {
    points *= std::max<size_t>(1, p.values.size());
    if (points > kMaxSweepPoints) {
      why = "the grid has more than " + std::to_string(kMaxSweepPoints) +
            " points; split the study into several sweeps";
      return false;
    }
  }
  return true;
}

std::vector<std::vector<std::string>> crossProduct(const std::vector<SweepParameter>& params) {
  std::vector<std::vector<std::string>> points{{}};
  for (const SweepParameter& p : params) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : points) {
      for (const std::string& v : p.values) {
        auto point = prefix;
        point.push_back(v);
        next.push_back(std::move(point));
      }
    }
    points = std::move(next);
  }
  return points;
}

}  // namespace ascendsim::tools
