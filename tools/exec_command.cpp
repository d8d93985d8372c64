#include "tools/exec_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/patience.h"
#include "runtime/core/runtime.h"
#include "runtime/remote/machine_server.h"
#include "runtime/remote/protocol.h"
#include "spec/system_loader.h"
#include "tools/exit_codes.h"
#include "tools/machine_options.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace fs = std::filesystem;

std::string ascendclLibraryDirectory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = self.parent_path().parent_path() / "lib64";
    if (fs::exists(installed / "libascendcl.so")) return installed.string();
  }
  return ASCENDSIM_BUILD_LIBDIR;
}

void useSimulatorLibrary() {
  std::string path = ascendclLibraryDirectory();
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) path += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);
}

namespace {

struct ExecOptions {
  MachineChoice machine;
  std::string trace;
  std::string traceFormat;
  std::string report;
  std::string reportFormat;
  bool dramStats = false;
  bool timingOnly = false;
  bool shared = false;
  std::vector<std::string> command;
};

pid_t gJob = 0;

// The environment of the job's command, made before the fork (the child of a process with
// threads may do nothing but exec: another thread may hold the allocator's lock): the machine's
// socket, and the job's MPI calls that wait for other processes seen by the machine
// (runtime/remote/mpi_waits.c), preloaded ahead of whatever the user preloads.
// ASCENDSIM_MPI_WAITS=0 leaves them unseen (then such waits are ordered as busy work).
std::vector<std::string> jobEnvironment(const std::string& socket) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    if (!vars.count(name)) order.push_back(name);
    vars[name] = eq == std::string::npos ? "" : entry.substr(eq + 1);
  }
  auto set = [&](const std::string& name, const std::string& value) {
    if (!vars.count(name)) order.push_back(name);
    vars[name] = value;
  };
  set(remote::kSocketVariable, socket);
  const bool off = vars.count("ASCENDSIM_MPI_WAITS") && vars["ASCENDSIM_MPI_WAITS"] == "0";
  const fs::path library = fs::path(ascendclLibraryDirectory()) / "libascendsim_mpi_waits.so";
  if (!off && fs::exists(library)) {
    const std::string old = vars.count("LD_PRELOAD") ? vars["LD_PRELOAD"] : "";
    set("LD_PRELOAD", library.string() + (old.empty() ? "" : ":" + old));
    // A program built with AddressSanitizer refuses to start when a library is loaded before its
    // runtime unless told that this is fine.
    const std::string asan = vars.count("ASAN_OPTIONS") ? vars["ASAN_OPTIONS"] : "";
    if (asan.find("verify_asan_link_order") == std::string::npos)
      set("ASAN_OPTIONS", asan + (asan.empty() ? "" : ":") + "verify_asan_link_order=0");
  }
  std::vector<std::string> env;
  for (const std::string& name : order) env.push_back(name + "=" + vars[name]);
  return env;
}

void passOn(int sig) {
  if (gJob > 0) kill(gJob, sig);
}

// Serves one machine to the command and every process under it, then writes the job's report
// and trace when the command has ended.
int runShared(const std::vector<char*>& argv) {
  for (const char* name : {"ASCENDSIM_DEADLOCK_PATIENCE", "ASCENDSIM_ORDER_PATIENCE"}) {
    const char* text = std::getenv(name);
    if (text && !runtime::isPositiveSeconds(text)) {
      std::cerr << "ascendsim exec --shared: " << name << "=\"" << text
                << "\" is not a positive number of seconds (for example 0.5 or 10)\n";
      return kExitBadConfig;
    }
  }
  // Processes of a job wait for each other in ways the server cannot see (sleeping while another
  // process gets ready): a wait nothing seems able to end is called a deadlock after 10 s here,
  // not 2, unless the user says otherwise.
  setenv("ASCENDSIM_DEADLOCK_PATIENCE", "10", 0);
  // A rank busy outside AscendCL is waited for up to 5 s of its CPU time, not 0.5: the same host
  // work (an hccl test rank checking 64 MiB between two calls) took 0.06 to 0.49 s of CPU on a
  // loaded machine, and a rank passed in one run and waited for in the next gave another report.
  setenv("ASCENDSIM_ORDER_PATIENCE", "5", 0);
  std::unique_ptr<remote::MachineServer> server;
  try {
    server = std::make_unique<remote::MachineServer>();
  } catch (const std::exception& e) {
    std::cerr << "ascendsim exec --shared: cannot serve the machine: " << e.what() << "\n";
    return kExitBadConfig;
  }
  server->start();
  runtime::Runtime::instance().addInternalThread();  // this thread only waits for the job
  const std::vector<std::string> environment = jobEnvironment(server->socketPath());
  std::vector<char*> envp;
  for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string cannotRun = std::string("ascendsim exec: cannot run '") + argv[0] + "'\n";
  gJob = fork();
  if (gJob < 0) {
    std::cerr << "ascendsim exec: cannot start '" << argv[0] << "': " << std::strerror(errno)
              << "\n";
    return 127;
  }
  if (gJob == 0) {
    execvpe(argv[0], argv.data(), envp.data());
    (void)!write(STDERR_FILENO, cannotRun.data(), cannotRun.size());
    _exit(127);
  }
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, passOn);
  int status = 0;
  while (waitpid(gJob, &status, 0) < 0 && errno == EINTR) {
  }
  // Processes the command left behind may still be connected: a short grace, then they lose the
  // machine (their calls fail with a message) and the outputs are written.
  server->stop(std::chrono::seconds(5));  // the report and trace are written at exit
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

int runExec(const ExecOptions& o) {
  if (!o.machine.config.empty() || !o.machine.sets.empty()) {
    try {
      loadMachine(o.machine);  // refuse a bad machine before the program starts
    } catch (const spec::ConfigError& e) {
      std::cerr << e.what() << "\n";
      return kExitBadConfig;
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
  // How far the run has got, in the terminal's title (never in the program's lines).
  if (isatty(STDERR_FILENO)) setenv("ASCENDSIM_PROGRESS", "title", 0);
  useSimulatorLibrary();

  std::vector<char*> argv;
  for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (o.shared) return runShared(argv);
  execvp(argv[0], argv.data());
  std::cerr << "ascendsim exec: cannot run '" << o.command[0] << "': " << std::strerror(errno)
            << "\n";
  return 127;
}

}  // namespace

void addExecCommand(CLI::App& command, int& exitCode) {
  auto opts = std::make_shared<ExecOptions>();
  CLI::App* exec = &command;
  addMachineOptions(*exec, opts->machine);
  exec->add_option("--trace,-t", opts->trace,
                   "Write the timing trace to this file (Chrome Trace Event JSON for Perfetto; "
                   ".pftrace: Perfetto's protobuf trace; .sqlite or .db: SQLite)");
  exec->add_option("--trace-format", opts->traceFormat,
                   "Trace format: chrome-json, perfetto or sqlite (ascendsim config kinds)")
      ->check(CLI::IsMember(kinds::kindNames("trace-format")));
  exec->add_option("--report,-r", opts->report,
                   "Write the run report to this file (JSON; .txt: the summary; .csv: one table)");
  exec->add_option("--report-format", opts->reportFormat,
                   "Report format whatever the file's name: json, text or csv (config kinds)")
      ->check(CLI::IsMember(kinds::kindNames("report-format")));
  exec->add_flag("--dram-stats", opts->dramStats,
                 "Replay memory traffic through the DRAM models: row hits, refresh, read latency "
                 "in the report and trace");
  exec->add_flag("--timing-only", opts->timingOnly,
                 "Move no bytes (ASCENDSIM_DATA=timing-only): the same times without the memory "
                 "the bytes would take; device memory reads give zeros where no kernel wrote");
  exec->add_flag("--shared", opts->shared,
                 "Serve ONE machine to the program and every process it starts (mpirun, fork, "
                 "scripts): they share devices, links and memory, IPC works between them, and "
                 "the trace and report cover the whole job (docs/multiprocess.md)");
  exec->add_option("command", opts->command, "The program and its arguments, after --")->required();
  exec->footer(
      "The program's exit code is ascendsim's. Its libascendcl.so is AscendSim's, found through\n"
      "LD_LIBRARY_PATH; the machine is passed in ASCENDSIM_CONFIG.\n"
      "Example: ascendsim exec --config atlas-800t-a2 --trace app.json -- ./my_app --input "
      "data.bin");
  exec->callback([opts, &exitCode] { exitCode = runExec(*opts); });
}

namespace {
const SubcommandRegistration kRegistered{
    {"subcommand",
     "exec",
     "Run an AscendCL program (linked against libascendcl.so) on the simulator",
     {},
     {}},
    addExecCommand};
}  // namespace

}  // namespace ascendsim::tools
