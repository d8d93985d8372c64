#pragma once
// Questions about a machine's PCIe tree that the runtime and models ask.

#include <optional>
#include <string>
#include <vector>

#include "spec/system_spec.h"

namespace ascendsim::spec {

// The switches from a device's port up to the root complex, nearest first. Empty for a device on
// a root port or with no PCIe link.
std::vector<std::string> switchesAbove(const SystemSpec& sys, const DeviceSpec& device);

// The nearest switch both devices sit under, if any. Peer-to-peer copies are allowed exactly
// when there is one: their traffic then turns around in that switch, never in the root complex.
std::optional<std::string> commonSwitch(const SystemSpec& sys, const DeviceSpec& a, const DeviceSpec& b);

}  // namespace ascendsim::spec
