#pragma once
// `ascendsim bandwidth`: host-device, device-device and peer-to-peer bandwidth of a simulated
// machine, as a device-by-device matrix and a sweep over sizes.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "spec/system_spec.h"

namespace ascendsim::tools {

// One measured copy (or an aggregate of several) of a bandwidth test.
struct BandwidthRecord {
  std::string test, src, dst;  // "all" for the aggregate of all-to-host and host-to-all
  uint64_t size = 0;
  double timeUs = 0, gbps = 0;
  std::string status = "ok";  // or "refused: ..."
};

// Tests of `ascendsim bandwidth` (h2d, d2h, d2d, p2p, bidir, all-to-host, host-to-all, add) at
// one size on `sys`, one after another as the command runs them: their records, one per copy
// plus aggregates. The machine is elaborated here, so a process calls this once (SystemC
// elaborates once per process). An unknown test throws std::invalid_argument.
std::vector<BandwidthRecord> measureBandwidth(const spec::SystemSpec& sys, bool pageable,
                                              const std::vector<std::string>& tests, uint64_t size);

// "64B..1GiB x4" (from, to, factor) or a comma-separated list "4KiB,1MiB". nullopt + why if bad.
std::optional<std::vector<uint64_t>> parseSizes(const std::string& text, std::string& why);

}  // namespace ascendsim::tools
