#pragma once
// `ascendsim exec [--config FILE] -- PROGRAM [ARGS...]`: runs a dynamically linked AscendCL
// program on the simulator.

#include <CLI/CLI.hpp>

namespace ascendsim::tools {

void addExecCommand(CLI::App& app, int& exitCode);

}  // namespace ascendsim::tools
