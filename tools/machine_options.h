#pragma once
// The machine a command runs on: `--config FILE|PRESET` and any number of `--set KEY=VALUE`, each
// a setting as `ascendsim config show` names it (`devices[0].link.generation=5`, or
// `devices[*].link.lanes=8` for every device), applied in order to the resolved machine. Every
// command that takes --config takes --set, so a what-if is one flag on the command a user
// already runs.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "spec/system_spec.h"

namespace ascendsim::tools {

struct MachineChoice {
  std::string config;             // a file or a built-in preset; empty: the built-in default
  std::vector<std::string> sets;  // "KEY=VALUE", in the order given
};

// Adds --config,-c and --set to `cmd`.
void addMachineOptions(CLI::App& cmd, MachineChoice& machine);

// The machine with every --set applied. A bad --config or --set throws spec::ConfigError; an
// error a --set causes names that argument (`--set KEY=VALUE:LINE:COL: error: ...`).
spec::SystemSpec loadMachine(const MachineChoice& machine);
// The same machine written out whole (as `config show` writes it).
std::string machineYaml(const MachineChoice& machine);

// Hands the machine to the programs this process starts: ASCENDSIM_CONFIG names --config when no
// --set is given; otherwise ASCENDSIM_MACHINE_YAML holds the changed machine itself.
void exportMachine(const MachineChoice& machine);

}  // namespace ascendsim::tools
