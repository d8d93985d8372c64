#pragma once
// A command of the `ascendsim` tool. Each command registers itself from its own file with its
// name and one-line description (the "subcommand" kinds of spec/kind_registry.h); main() adds
// every registered command, so a new command is its file, its CMake line and its test.

#include <CLI/CLI.hpp>
#include <functional>

#include "spec/kind_registry.h"

namespace ascendsim::tools {

// Fills in the options and callback of the command `cmd` (already named and described);
// the callback stores the command's result in `exitCode`.
using SubcommandDefinition = std::function<void(CLI::App& cmd, int& exitCode)>;
using SubcommandRegistration = kinds::Registration<SubcommandDefinition>;

// Adds every registered command to `app`.
void addRegisteredSubcommands(CLI::App& app, int& exitCode);

}  // namespace ascendsim::tools
