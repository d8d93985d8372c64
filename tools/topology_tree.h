#pragma once
// Draws a machine's PCIe tree as text for `ascendsim config show`.

#include <string>

#include "spec/system_spec.h"

namespace ascendsim::tools {

std::string drawTopologyTree(const spec::SystemSpec& sys);

}  // namespace ascendsim::tools
