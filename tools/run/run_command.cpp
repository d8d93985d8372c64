// `ascendsim run --config MACHINE --workload W.yaml`: replays a workload script.

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "runtime/trace/output_file.h"
#include "spec/system_loader.h"
#include "tools/exit_codes.h"
#include "tools/machine_options.h"
#include "tools/run/workload_player.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace {

struct RunOptions {
  MachineChoice machine;
  std::string workload, trace, traceFormat, report, reportFormat;
  bool dramStats = false;
  bool timingOnly = false;
};

int runWorkload(const RunOptions& o) {
  Workload w;
  try {
    if (!o.machine.config.empty() || !o.machine.sets.empty()) loadMachine(o.machine);
    w = readWorkload(o.workload);
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
  for (const std::string& output : {o.trace, o.report}) {
    if (runtime::sameFile(output, o.workload)) {
      std::cerr << "ascendsim run: '" << output
                << "' is the workload itself; an output must not overwrite it\n";
      return kExitUsage;
    }
  }
  exportMachine(o.machine);
  if (!o.trace.empty()) setenv("ASCENDSIM_TRACE", o.trace.c_str(), 1);
  if (!o.traceFormat.empty()) setenv("ASCENDSIM_TRACE_FORMAT", o.traceFormat.c_str(), 1);
  if (!o.report.empty()) setenv("ASCENDSIM_REPORT", o.report.c_str(), 1);
  if (!o.reportFormat.empty()) setenv("ASCENDSIM_REPORT_FORMAT", o.reportFormat.c_str(), 1);
  if (o.dramStats) setenv("ASCENDSIM_DRAM_STATS", "1", 1);
  if (o.timingOnly) setenv("ASCENDSIM_DATA", "timing-only", 1);
  setenv("ASCENDSIM_SUMMARY", "1", 0);  // the summary on stderr, unless the user said
  std::cout << "running " << (w.name.empty() ? o.workload : w.name) << " (" << w.threads.size()
            << " host thread(s))" << std::endl;
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
  addMachineOptions(*cmd, o->machine);
  cmd->add_option("--workload,-w", o->workload, "Workload script (YAML)")->required();
  cmd->add_option("--trace", o->trace,
                  "Write the timing trace to this file (.pftrace: Perfetto's protobuf trace; "
                  ".sqlite or .db: an SQLite database)");
  cmd->add_option("--trace-format", o->traceFormat,
                  "Trace format: chrome-json, perfetto or sqlite (ascendsim config kinds)")
      ->check(CLI::IsMember(kinds::kindNames("trace-format")));
  cmd->add_option("--report", o->report,
                  "Write the run report to this file (JSON; .txt: the summary; .csv: one table)");
  cmd->add_option("--report-format", o->reportFormat,
                  "Report format whatever the file's name: json, text or csv (config kinds)")
      ->check(CLI::IsMember(kinds::kindNames("report-format")));
  cmd->add_flag("--timing-only", o->timingOnly,
                "Move no bytes (ASCENDSIM_DATA=timing-only): the same times without the memory "
                "the bytes would take");
  cmd->add_flag("--dram-stats", o->dramStats,
                "Replay memory traffic through the DRAM models: row hits, refresh, read latency in "
                "the report and trace");
  cmd->footer(
      "Example: ascendsim run --config atlas-800t-a2 --workload traces/workloads/all-to-host.yaml "
      "--trace t.json");
  cmd->callback([o, &exitCode] { exitCode = runWorkload(*o); });
}

namespace {
const SubcommandRegistration kRegistered{
    {"subcommand",
     "run",
     "Replay a workload script through the AscendCL API (format: traces/README.md)",
     {},
     {}},
    addRunCommand};
}  // namespace

}  // namespace ascendsim::tools
