#include "tools/viewer_input.h"

#include <nlohmann/json.hpp>

namespace ascendsim::tools {

bool acceptTrace(std::string& trace) {
  if (nlohmann::json::accept(trace)) return true;
  // A trace cut off by a crash still parses once its array is closed.
  if (nlohmann::json::accept(trace + "\n]")) {
    trace += "\n]";
    return true;
  }
  return false;
}

std::string scriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ascendsim::tools
