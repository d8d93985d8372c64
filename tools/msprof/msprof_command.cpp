// `ascendsim msprof` and the `msprof` command installed beside it: runs a program on the simulator
// as CANN's msprof runs it on hardware, and leaves a profile folder in msprof's layout
// (docs/traces.md, "msprof"):
//   msprof --output=DIR ./app args            msprof --application="./app args" --output=DIR
//   msprof op [--output=DIR] ./app args       (a run of the app, profiled the same way)
// The runtime collects (ASCENDSIM_PROFILE: one aclprof collection of every device from aclInit,
// runtime/core/profiling.h) and writes DIR/PROF_<n>_<time>_<letters>/mindstudio_profiler_output/
// msprof_<time>.json; this command then exports msprof's summary tables from that timeline, beside
// it: op_summary_<time>.csv (kernels), task_time_<time>.csv (every task) and
// api_statistic_<time>.csv (AscendCL calls), with msprof's column names.

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "spec/system_loader.h"
#include "tools/exec_command.h"
#include "tools/exit_codes.h"
#include "tools/machine_options.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace {
namespace fs = std::filesystem;

// The ACL_PROF_* bits (acl/acl_prof.h) the switches turn on.
constexpr uint64_t kAclApi = 0x0001, kTaskTime = 0x0002, kRuntimeApi = 0x0100;

struct MsprofOptions {
  MachineChoice machine;
  bool op = false;  // `msprof op`
  std::string output;
  std::string application;           // --application="./app args"
  std::vector<std::string> command;  // or the program and its arguments at the end
  bool acl = true, runtimeApi = false, taskTime = true;
};

const char* kUsage =
    "Usage: msprof [--output=DIR] [--ascendcl=on|off] [--runtime-api=on|off]\n"
    "              [--task-time=on|off] [--config=MACHINE] [--set=KEY=VALUE ...] APP [ARGS...]\n"
    "       msprof --application=\"APP ARGS\" [options]\n"
    "       msprof op [--output=DIR] APP [ARGS...]\n"
    "Runs APP on the simulator and writes DIR/PROF_*/mindstudio_profiler_output/ (msprof_*.json,\n"
    "op_summary_*.csv, task_time_*.csv, api_statistic_*.csv). DIR defaults to the current folder.\n"
    "--config and --set choose the machine as for `ascendsim exec`.\n";

// on or off; --task-time also takes msprof's levels l0 and l1 (both collect the tasks' times).
bool onOff(const std::string& option, const std::string& value, bool& out, std::string& why) {
  if (value == "on" || (option == "--task-time" && (value == "l1" || value == "l0"))) {
    out = true;
  } else if (value == "off") {
    out = false;
  } else {
    why = option + "=" + value + ": expected on or off";
    return false;
  }
  return true;
}

// msprof's own syntax: --key=value options, then the program and its arguments.
bool parse(const std::vector<std::string>& args, MsprofOptions& o, std::string& why) {
  size_t i = 0;
  if (i < args.size() && args[i] == "op") {
    o.op = true;
    ++i;
  }
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) break;
    const size_t eq = a.find('=');
    const std::string key = a.substr(0, eq);
    if (eq == std::string::npos) {
      why = "'" + a + "': msprof options are written --key=value";
      return false;
    }
    const std::string value = a.substr(eq + 1);
    if (key == "--output") {
      o.output = value;
    } else if (key == "--application" && !o.op) {
      o.application = value;
    } else if (key == "--ascendcl" && !o.op) {
      if (!onOff(key, value, o.acl, why)) return false;
    } else if (key == "--runtime-api" && !o.op) {
      if (!onOff(key, value, o.runtimeApi, why)) return false;
    } else if (key == "--task-time" && !o.op) {
      if (!onOff(key, value, o.taskTime, why)) return false;
    } else if (key == "--config") {
      o.machine.config = value;
    } else if (key == "--set") {
      o.machine.sets.push_back(value);
    } else {
      why = "'" + key + "' is not an option the simulator's msprof " + (o.op ? "op " : "") +
            "takes (it takes --output" +
            (o.op ? "" : ", --application, --ascendcl, --runtime-api, --task-time") +
            ", --config and --set); the simulator has no hardware counters to collect";
      return false;
    }
  }
  for (; i < args.size(); ++i) o.command.push_back(args[i]);
  if (o.application.empty() == o.command.empty()) {
    why = o.command.empty()
              ? "no program to profile: give it last, or as --application=\"APP ARGS\""
              : "give the program either last or as --application, not both";
    return false;
  }
  if (!o.acl && !o.runtimeApi && !o.taskTime) {
    why = "--ascendcl=off, --runtime-api=off and --task-time=off leave nothing to collect";
    return false;
  }
  return true;
}

std::string micros(double us) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", us);
  return text;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void writeCsv(const fs::path& path, const std::vector<std::string>& header,
              const std::vector<std::vector<std::string>>& rows) {
  std::ofstream out(path);
  for (size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << csvField(header[i]);
  out << "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csvField(row[i]);
    out << "\n";
  }
}

// msprof's summary tables of one timeline, beside it, named with its time stamp.
bool exportSummaries(const fs::path& timeline, std::string& why) {
  std::ifstream in(timeline);
  nlohmann::json events;
  try {
    in >> events;
  } catch (const std::exception& e) {
    why = timeline.string() + " is not a complete trace: " + e.what();
    return false;
  }
  const std::string name = timeline.stem().string();  // msprof_<stamp>
  const std::string stamp = name.substr(name.find('_') + 1);
  const fs::path dir = timeline.parent_path();

  struct Slice {
    int pid;
    std::string name, cat;
    double ts, dur;
    const nlohmann::json* args;
  };
  std::vector<Slice> slices;
  for (const auto& e : events) {
    if (e.value("ph", "") != "X") continue;
    slices.push_back({e.value("pid", 0), e.value("name", ""), e.value("cat", ""),
                      e.value("ts", 0.0), e.value("dur", 0.0), &e["args"]});
  }
  auto number = [](const Slice& s, const char* key) -> std::string {
    if (!s.args->contains(key)) return "N/A";
    return std::to_string((*s.args)[key].get<uint64_t>());
  };
  // Stream of each task (the kernels' AI Core slices name only their task).
  std::map<std::pair<int, std::string>, std::string> streamOf;
  for (const Slice& s : slices) {
    if (s.cat == "task") streamOf[{s.pid, number(s, "task_id")}] = number(s, "stream");
  }

  std::vector<std::vector<std::string>> ops, tasks;
  std::map<std::pair<int, std::string>, double> lastEnd;  // per device and stream
  for (const Slice& s : slices) {
    if (s.cat != "kernel") continue;
    const std::string task = number(s, "task_id");
    const std::string stream = streamOf.count({s.pid, task}) ? streamOf[{s.pid, task}] : "N/A";
    auto last = lastEnd.find({s.pid, stream});
    const double wait = last == lastEnd.end() ? 0.0 : std::max(0.0, s.ts - last->second);
    lastEnd[{s.pid, stream}] = s.ts + s.dur;
    ops.push_back({std::to_string(s.pid - 1), "N/A", task, stream, s.name, s.name, "AI_CORE",
                   micros(s.ts), micros(s.dur), micros(wait)});
  }
  for (const Slice& s : slices) {
    if (s.cat != "task") continue;
    const std::string kernel =
        s.args->contains("kernel") ? (*s.args)["kernel"].get<std::string>() : s.name;
    tasks.push_back({std::to_string(s.pid - 1), kernel, s.name, number(s, "stream"),
                     number(s, "task_id"), micros(s.dur), micros(s.ts), micros(s.ts + s.dur)});
  }
  struct Stat {
    double sum = 0, sumSquares = 0, min = 0, max = 0;
    uint64_t count = 0;
  };
  std::map<std::string, Stat> apis;
  for (const Slice& s : slices) {
    if (s.cat != "api") continue;
    Stat& st = apis[s.name];
    st.min = st.count ? std::min(st.min, s.dur) : s.dur;
    st.max = st.count ? std::max(st.max, s.dur) : s.dur;
    st.sum += s.dur;
    st.sumSquares += s.dur * s.dur;
    ++st.count;
  }
  std::vector<std::vector<std::string>> apiRows;
  for (const auto& [api, st] : apis) {
    const double mean = st.sum / static_cast<double>(st.count);
    const double variance =
        std::max(0.0, st.sumSquares / static_cast<double>(st.count) - mean * mean);
    apiRows.push_back({"host", "AscendCL", api, micros(st.sum), std::to_string(st.count),
                       micros(mean), micros(st.min), micros(st.max), micros(variance)});
  }
  writeCsv(dir / ("op_summary_" + stamp + ".csv"),
           {"Device_id", "Model ID", "Task ID", "Stream ID", "Op Name", "OP Type", "Task Type",
            "Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)"},
           ops);
  writeCsv(dir / ("task_time_" + stamp + ".csv"),
           {"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id", "task_time(us)",
            "task_start(us)", "task_stop(us)"},
           tasks);
  writeCsv(dir / ("api_statistic_" + stamp + ".csv"),
           {"Device_id", "Level", "API Name", "Time(us)", "Count", "Avg(us)", "Min(us)", "Max(us)",
            "Variance"},
           apiRows);
  return true;
}

std::set<fs::path> profFolders(const fs::path& dir) {
  std::set<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("PROF_", 0) == 0)
      out.insert(entry.path());
  }
  return out;
}

int runMsprof(const std::vector<std::string>& args) {
  MsprofOptions o;
  std::string why;
  if (!parse(args, o, why)) {
    std::cerr << "msprof: " << why << "\n" << kUsage;
    return kExitUsage;
  }
  std::error_code ec;
  const fs::path output = fs::absolute(o.output.empty() ? "." : o.output, ec);
  fs::create_directories(output, ec);
  if (ec || !fs::is_directory(output) || ::access(output.c_str(), W_OK | X_OK) != 0) {
    std::cerr << "msprof: --output=" << output.string() << ": cannot create or write to this folder"
              << (ec ? ": " + ec.message() : std::string()) << "\n";
    return kExitUsage;
  }
  if (!o.machine.config.empty() || !o.machine.sets.empty()) {
    try {
      loadMachine(o.machine);
    } catch (const spec::ConfigError& e) {
      std::cerr << e.what() << "\n";
      return kExitBadConfig;
    }
  }
  exportMachine(o.machine);
  const uint64_t types =
      (o.acl ? kAclApi : 0) | (o.runtimeApi ? kRuntimeApi : 0) | (o.taskTime ? kTaskTime : 0);
  setenv("ASCENDSIM_PROFILE", output.c_str(), 1);
  setenv("ASCENDSIM_PROFILE_TYPES", std::to_string(types).c_str(), 1);
  useSimulatorLibrary();

  const std::set<fs::path> before = profFolders(output);
  std::cout.flush();
  const pid_t child = fork();
  if (child < 0) {
    std::cerr << "msprof: cannot start the program: " << std::strerror(errno) << "\n";
    return kExitFailure;
  }
  if (child == 0) {
    if (!o.application.empty()) {
      // As msprof does, --application is a command line: the shell splits it.
      const std::string line = "exec " + o.application;
      execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    } else {
      std::vector<char*> argv;
      for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());
    }
    const std::string text = "msprof: cannot run '" +
                             (o.command.empty() ? o.application : o.command[0]) +
                             "': " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, text.data(), text.size());
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status)     ? WEXITSTATUS(status)
                   : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                         : 1;

  int written = 0;
  for (const fs::path& folder : profFolders(output)) {
    if (before.count(folder)) continue;
    for (const auto& entry : fs::directory_iterator(folder / "mindstudio_profiler_output", ec)) {
      const std::string file = entry.path().filename().string();
      if (file.rfind("msprof_", 0) != 0 || entry.path().extension() != ".json") continue;
      if (!exportSummaries(entry.path(), why)) {
        std::cerr << "msprof: " << why << "\n";
        continue;
      }
      ++written;
    }
    std::cerr << "[INFO] Profiling data of the simulated run is in " << folder.string() << "\n";
  }
  if (written == 0) {
    std::cerr << "msprof: the program wrote no profile (did it call aclInit?)\n";
    return code != 0 ? code : kExitFailure;
  }
  return code;
}

void addMsprofCommand(CLI::App& cmd, int& exitCode) {
  cmd.allow_extras();
  cmd.prefix_command();
  cmd.set_help_flag();  // msprof's options, not CLI11's: --help is read below
  cmd.footer(kUsage);
  cmd.callback([&cmd, &exitCode] {
    const std::vector<std::string> args = cmd.remaining();
    for (const std::string& a : args) {
      if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        exitCode = kExitOk;
        return;
      }
      if (a.rfind("-", 0) != 0 && a != "op") break;  // the program's own --help is its own
    }
    exitCode = runMsprof(args);
  });
}

const SubcommandRegistration kRegistered{
    {"subcommand",
     "msprof",
     "Profile a program on the simulator as CANN's msprof does (also installed as `msprof`)",
     {},
     {}},
    addMsprofCommand};

}  // namespace
}  // namespace ascendsim::tools
