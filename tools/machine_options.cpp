#include "tools/machine_options.h"

#include <cstdlib>
#include <filesystem>

#include "spec/diagnostics.h"
#include "spec/spec_writer.h"
#include "spec/system_loader.h"
#include "tools/machine_override.h"

namespace ascendsim::tools {

void addMachineOptions(CLI::App& cmd, MachineChoice& machine) {
  cmd.add_option("--config,-c", machine.config,
                 "Machine: a YAML file or a built-in preset (default: built-in default)");
  cmd.add_option("--set", machine.sets,
                 "KEY=VALUE: change one setting of the machine, named as `config show` names it "
                 "(devices[*].link.generation=5); repeatable");
}

namespace {
[[noreturn]] void refuse(const std::string& argument, const std::string& key,
                         const std::string& message) {
  spec::Diagnostics diagnostics;
  diagnostics.error(spec::SourceLocation{argument, 0, 0}, key, message);
  throw spec::ConfigError(diagnostics.items());
}
}  // namespace

std::string machineYaml(const MachineChoice& machine) {
  std::string yaml = spec::writeSystemSpecYaml(spec::loadSystemSpecOrDefault(machine.config));
  for (const std::string& set : machine.sets) {
    const std::string argument = "--set " + set;
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0)
      refuse(argument, set, "expected KEY=VALUE, such as devices[0].link.lanes=8");
    std::string why;
    const auto changed = applyOverride(yaml, set.substr(0, eq), set.substr(eq + 1), why);
    if (!changed) refuse(argument, set.substr(0, eq), why);
    try {
      spec::loadSystemSpecFromText(*changed, argument);  // each change must leave a valid machine
    } catch (const spec::ConfigError& e) {
      // Said of the argument: a line of the machine as written out means nothing to the user.
      spec::Diagnostics diagnostics;
      for (const spec::Diagnostic& d : e.diagnostics())
        diagnostics.error({argument, 0, 0}, d.keyPath, d.message);
      throw spec::ConfigError(diagnostics.items());
    }
    yaml = *changed;
  }
  return yaml;
}

spec::SystemSpec loadMachine(const MachineChoice& machine) {
  if (machine.sets.empty()) return spec::loadSystemSpecOrDefault(machine.config);
  return spec::loadSystemSpecFromText(machineYaml(machine), "--set " + machine.sets.back());
}

void exportMachine(const MachineChoice& machine) {
  if (machine.sets.empty()) {
    std::string ref = machine.config;
    std::error_code ec;
    // A file is named by its absolute path, so a program that changes directory still finds it.
    if (!ref.empty() && std::filesystem::exists(ref, ec))
      ref = std::filesystem::absolute(ref).string();
    if (!ref.empty()) setenv("ASCENDSIM_CONFIG", ref.c_str(), 1);
    unsetenv("ASCENDSIM_MACHINE_YAML");
    return;
  }
  setenv("ASCENDSIM_MACHINE_YAML", machineYaml(machine).c_str(), 1);
}

}  // namespace ascendsim::tools
