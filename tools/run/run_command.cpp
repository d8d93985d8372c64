// `ascendsim run --config MACHINE --workload W.yaml`: replays a workload script.

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "spec/system_loader.h"
#include "tools/exit_codes.h"
#include "tools/run/workload_player.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace {

struct RunOptions {
  std::string config, workload, trace, traceFormat, report;
  bool dramStats = false;
};

int runWorkload(const RunOptions& o) {
  Workload w;
  try {
    if (!o.config.empty()) spec::loadSystemSpec(o.config);
    w = readWorkload(o.workload);
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
  std::string machine = o.config;
  std::error_code ec;
  if (!machine.empty() && std::filesystem::exists(machine, ec)) machine = std::filesystem::absolute(machine).string();
  if (!machine.empty()) setenv("ASCENDSIM_CONFIG", machine.c_str(), 1);
  if (!o.trace.empty()) setenv("ASCENDSIM_TRACE", o.trace.c_str(), 1);
  if (!o.traceFormat.empty()) setenv("ASCENDSIM_TRACE_FORMAT", o.traceFormat.c_str(), 1);
  if (!o.report.empty()) setenv("ASCENDSIM_REPORT", o.report.c_str(), 1);
  if (o.dramStats) setenv("ASCENDSIM_DRAM_STATS", "1", 1);
  std::cout << "running " << (w.name.empty() ? o.workload : w.name) << " (" << w.threads.size() << " host thread(s))" << std::endl;
  const std::string failure = playWorkload(w);
  if (!failure.empty()) {
    std::cerr << failure << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void addRunCommand(CLI::App& command, int& exitCode) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = &command;
  cmd->add_option("--config,-c", o->config, "Machine: a YAML file or a built-in preset (default: built-in default)");
  cmd->add_option("--workload,-w", o->workload, "Workload script (YAML)")->required();
  cmd->add_option("--trace", o->trace, "Write the timing trace to this file (.sqlite or .db: an SQLite database)");
  cmd->add_option("--trace-format", o->traceFormat, "Trace format: chrome-json or sqlite (ascendsim config kinds)")
      ->check(CLI::IsMember(kinds::kindNames("trace-format")));
  cmd->add_option("--report", o->report, "Write the JSON run report to this file");
  cmd->add_flag("--dram-stats", o->dramStats,
                "Replay memory traffic through the DRAM models: row hits, refresh, read latency in the report and trace");
  cmd->footer("Example: ascendsim run --config atlas-800t-a2 --workload traces/workloads/all-to-host.yaml --trace t.json");
  cmd->callback([o, &exitCode] { exitCode = runWorkload(*o); });
}

namespace {
const SubcommandRegistration kRegistered{{"subcommand", "run", "Replay a workload script through the AscendCL API (format: traces/README.md)", {}, {}}, addRunCommand};
}  // namespace

}  // namespace ascendsim::tools
