#pragma once
// `ascendsim bandwidth`: host-device, device-device and peer-to-peer bandwidth of a simulated
// machine, as a device-by-device matrix and a sweep over sizes.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ascendsim::tools {

// "64B..1GiB x4" (from, to, factor) or a comma-separated list "4KiB,1MiB". nullopt + why if bad.
std::optional<std::vector<uint64_t>> parseSizes(const std::string& text, std::string& why);

}  // namespace ascendsim::tools
