#pragma once
// A device memory from a preset with overrides, read through the real config loader, for the DRAM
// model tests.

#include <string>

#include "spec/system_loader.h"

namespace ascendsim::models {

inline spec::DramSpec memory(const std::string& preset, const std::string& overrides = "") {
  const std::string yaml =
      "host: { memory: { preset: ddr4-3200 } }\n"
      "devices: [ { port: rc.0, memory: { preset: " +
      preset + overrides + " } } ]\n";
  return spec::loadSystemSpecFromText(yaml, "test.yaml").devices[0].memory;
}

}  // namespace ascendsim::models
