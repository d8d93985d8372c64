// libFuzzer target: any bytes as a workload script. Must end in a Workload or a ConfigError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "spec/diagnostics.h"
#include "tools/run/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ascendsim::tools::readWorkloadText(text, "fuzz.yaml");
  } catch (const ascendsim::spec::ConfigError&) {
  }
  return 0;
}
