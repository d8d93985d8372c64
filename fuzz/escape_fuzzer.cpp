// libFuzzer target: any bytes as a name in the trace. The escaped text inside quotes must be one
// valid JSON string (nlohmann's parser also refuses invalid UTF-8), and escaping valid UTF-8
// without control characters must give it back unchanged after parsing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/trace/trace_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name(reinterpret_cast<const char*>(data), size);
  const std::string json = "\"" + ascendsim::runtime::TraceWriter::escape(name) + "\"";
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception&) {
    std::abort();  // escape() produced text that is not a JSON string
  }
  if (!parsed.is_string()) std::abort();
  // Round trip: whatever survives is the input with invalid bytes replaced, never longer than
  // three bytes (U+FFFD) per input byte.
  if (parsed.get<std::string>().size() > 3 * size) std::abort();
  return 0;
}
