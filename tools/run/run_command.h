#pragma once
// `ascendsim run --config MACHINE --workload W.yaml`: replays a workload script.

#include <CLI/CLI.hpp>

namespace ascendsim::tools {

void addRunCommand(CLI::App& app, int& exitCode);

}  // namespace ascendsim::tools
