#pragma once
// SystemSpec -> YAML with every field resolved (presets expanded, defaults written out).
// The output loads back into an identical SystemSpec.

#include <string>

#include "spec/system_spec.h"

namespace ascendsim::spec {

std::string writeSystemSpecYaml(const SystemSpec& sys);
// One memory section, every key written out (as `config show` writes it).
std::string writeMemorySpecYaml(const DramSpec& memory);
// A number in the shortest form that reads back as the same double ("0.8", not
// "0.80000000000000004"), as `config show` writes unitless figures.
std::string formatReal(double value);

}  // namespace ascendsim::spec
