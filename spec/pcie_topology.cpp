#include "spec/pcie_topology.h"

#include <algorithm>

namespace ascendsim::spec {

std::vector<std::string> switchesAbove(const SystemSpec& sys, const DeviceSpec& device) {
  std::vector<std::string> path;
  auto port = parsePortRef(device.port);
  while (port && port->owner != "rc") {
    const PcieSwitchSpec* sw = sys.findSwitch(port->owner);
    // Validated configs form a tree; the size bound only guards hand-built specs.
    if (!sw || path.size() > sys.switches.size()) break;
    path.push_back(sw->name);
    port = parsePortRef(sw->upstream);
  }
  return path;
}

std::optional<std::string> commonSwitch(const SystemSpec& sys, const DeviceSpec& a, const DeviceSpec& b) {
  const std::vector<std::string> above = switchesAbove(sys, b);
  for (const std::string& sw : switchesAbove(sys, a)) {
    if (std::find(above.begin(), above.end(), sw) != above.end()) return sw;
  }
  return std::nullopt;
}

}  // namespace ascendsim::spec
