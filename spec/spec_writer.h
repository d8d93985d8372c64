#pragma once
// SystemSpec -> YAML with every field resolved (presets expanded, defaults written out).
// The output loads back into an identical SystemSpec.

#include <string>

#include "spec/system_spec.h"

namespace ascendsim::spec {

std::string writeSystemSpecYaml(const SystemSpec& sys);

}  // namespace ascendsim::spec
