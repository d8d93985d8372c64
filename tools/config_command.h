#pragma once
// `ascendsim config check FILE...` and `ascendsim config show [FILE]`.

#include <CLI/CLI.hpp>

namespace ascendsim::tools {

// Registers the `config` subcommand on the application; `exitCode` receives its result.
void addConfigCommand(CLI::App& app, int& exitCode);

}  // namespace ascendsim::tools
