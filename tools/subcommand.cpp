#include "tools/subcommand.h"

namespace ascendsim::tools {

void addRegisteredSubcommands(CLI::App& app, int& exitCode) {
  kinds::Registry<SubcommandDefinition>::instance().forEach(
      [&](const kinds::KindInfo& info, const SubcommandDefinition& define) {
        define(*app.add_subcommand(info.name, info.summary), exitCode);
      });
}

}  // namespace ascendsim::tools
