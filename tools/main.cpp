// ascendsim: the command line of the AscendSim simulator.

#include <CLI/CLI.hpp>
#include <iostream>

#include "tools/exit_codes.h"
#include "tools/subcommand.h"

int main(int argc, char** argv) {
  CLI::App app{
      "AscendSim: a cycle-approximate simulator of the Ascend NPU memory and DMA subsystem"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ascendsim 0.1.0");
  app.footer(
      "Examples:\n"
      "  ascendsim bandwidth --config atlas-800t-a2\n"
      "  ascendsim config show atlas-800t-a2 --tree\n"
      "  ascendsim exec --config atlas-800t-a2 --trace app.json -- ./my_acl_app\n"
      "  ascendsim view app.json -o app.html\n"
      "Each command's --help has more; docs/cli.md documents them all.");
  int exitCode = ascendsim::tools::kExitOk;
  ascendsim::tools::addRegisteredSubcommands(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : ascendsim::tools::kExitUsage;
  } catch (const std::exception& e) {
    // Whatever a command did not foresee (a file system refusing, memory running out) is said
    // plainly and fails the command; it never ends the process with an abort.
    std::cerr << "ascendsim: " << e.what() << "\n";
    return ascendsim::tools::kExitFailure;
  }
  return exitCode;
}
