#pragma once
// `ascendsim sweep`: a workload over a grid of machine settings, each point in its own process.

#include <CLI/CLI.hpp>

namespace ascendsim::tools {

void addSweepCommand(CLI::App& app, int& exitCode);

}  // namespace ascendsim::tools
