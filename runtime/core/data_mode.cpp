#include "runtime/core/data_mode.h"

#include <cstdlib>

namespace ascendsim::runtime {
namespace {

struct Choice {
  DataMode mode = DataMode::Full;
  std::string error;
};

const Choice& choice() {
  static const Choice c = [] {
    Choice r;
    const char* text = std::getenv("ASCENDSIM_DATA");
    const std::string value = text ? text : "";
    if (value.empty() || value == "full") return r;
    if (value == "timing-only") {
      r.mode = DataMode::TimingOnly;
    } else {
      r.error = "ASCENDSIM_DATA is '" + value + "': full or timing-only";
    }
    return r;
  }();
  return c;
}

}  // namespace

DataMode dataMode() {
  return choice().mode;
}

const std::string& dataModeError() {
  return choice().error;
}

}  // namespace ascendsim::runtime
