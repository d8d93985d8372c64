#pragma once
// SystemSpec -> YAML with every field resolved (presets expanded, defaults written out).
// The output loads back into an identical SystemSpec.

#include <string>

#include "spec/system_spec.h"

namespace ascendsim::spec {

std::string writeSystemSpecYaml(const SystemSpec& sys);
// One memory section, every key written out (as `config show` writes it).
std::string writeMemorySpecYaml(const DramSpec& memory);

}  // namespace ascendsim::spec
