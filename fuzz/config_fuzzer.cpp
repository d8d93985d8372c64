// libFuzzer target: any bytes as a machine config. Must end in a SystemSpec or a ConfigError, in
// bounded time and memory; never a crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "spec/system_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ascendsim::spec::loadSystemSpecFromText(text, "fuzz.yaml");
  } catch (const ascendsim::spec::ConfigError&) {
  }
  return 0;
}
