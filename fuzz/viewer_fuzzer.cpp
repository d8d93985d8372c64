// libFuzzer target: any bytes as the trace `ascendsim view` puts into its page (issue #34). A
// trace it accepts must be JSON (or close to it with "\n]"), and what goes inside the page's
// <script> must hold no '<' (no "</script" or "<!--<script" can end or change the element) and
// parse to the same JSON value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/viewer_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string trace(reinterpret_cast<const char*>(data), size);
  if (!ascendsim::tools::acceptTrace(trace)) return 0;
  const std::string safe = ascendsim::tools::scriptSafe(trace);
  if (safe.find('<') != std::string::npos) std::abort();
  try {
    if (nlohmann::json::parse(safe) != nlohmann::json::parse(trace)) std::abort();
  } catch (const nlohmann::json::exception&) {
    std::abort();  // accepted, yet not JSON
  }
  return 0;
}
