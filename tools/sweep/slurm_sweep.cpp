#include "tools/sweep/slurm_sweep.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "spec/spec_writer.h"
#include "spec/system_loader.h"
#include "tools/atomic_file.h"
#include "tools/csv_table.h"
#include "tools/exit_codes.h"
#include "tools/machine_override.h"
#include "tools/sweep/sweep_grid.h"

namespace ascendsim::tools {
namespace fs = std::filesystem;
namespace {

constexpr const char* kManifest = "manifest.json";

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool inPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((fs::path(dir) / tool).c_str(), X_OK) == 0) return true;
  }
  return false;
}

struct Output {
  int status = -1;
  std::string text;  // stdout, then stderr
};

// Runs a command without a shell and collects what it prints.
Output capture(const std::vector<std::string>& argv) {
  Output out;
  int pipeFds[2];
  if (pipe(pipeFds) != 0) return out;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipeFds[1], STDOUT_FILENO);
    dup2(pipeFds[1], STDERR_FILENO);
    close(pipeFds[0]);
    close(pipeFds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipeFds[1]);
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(pipeFds[0], buf, sizeof buf)) > 0) out.text.append(buf, static_cast<size_t>(n));
  close(pipeFds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return out;
}

struct Manifest {
  std::string config, workload, out;
  std::vector<std::string> sets;
  bool dramStats = false;
  size_t shards = 0;
  std::vector<std::string> jobs;  // every submission's job id, oldest first

  bool sameSweep(const Manifest& o) const {
    return config == o.config && workload == o.workload && sets == o.sets &&
           dramStats == o.dramStats && shards == o.shards;
  }
};

std::optional<Manifest> readManifest(const fs::path& dir) {
  std::ifstream in(dir / kManifest);
  if (!in) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    Manifest m;
    m.config = j.at("config");
    m.workload = j.at("workload");
    m.out = j.at("out");
    m.sets = j.at("sets").get<std::vector<std::string>>();
    m.dramStats = j.at("dram_stats");
    m.shards = j.at("shards");
    m.jobs = j.at("jobs").get<std::vector<std::string>>();
    return m;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool writeManifest(const fs::path& dir, const Manifest& m, std::string& why) {
  nlohmann::ordered_json j;
  j["config"] = m.config;
  j["workload"] = m.workload;
  j["out"] = m.out;
  j["sets"] = m.sets;
  j["dram_stats"] = m.dramStats;
  j["shards"] = m.shards;
  j["jobs"] = m.jobs;
  return writeFileAtomically((dir / kManifest).string(), j.dump(2) + "\n", why);
}

std::string partFile(const fs::path& dir, size_t shard) {
  return (dir / ("part-" + std::to_string(shard) + ".csv")).string();
}

struct Grid {
  std::vector<SweepParameter> params;
  std::vector<std::vector<std::string>> points;
};

std::optional<Grid> gridOf(const std::vector<std::string>& sets, std::string& why) {
  Grid g;
  for (const std::string& s : sets) {
    auto p = parseSet(s, why);
    if (!p) return std::nullopt;
    g.params.push_back(*p);
  }
  if (!gridWithinLimit(g.params, why)) return std::nullopt;
  g.points = crossProduct(g.params);
  return g;
}

// The rows of the shards' part files that ran, by point; the header of the first file read.
std::map<std::vector<std::string>, Row> readParts(const fs::path& dir, const Manifest& m,
                                                  const Grid& g, Row& header,
                                                  std::set<size_t>& complete) {
  std::map<std::vector<std::string>, Row> rows;
  for (size_t shard = 0; shard < m.shards; ++shard) {
    Row h;
    std::vector<Row> part;
    if (!readCsv(partFile(dir, shard), h, part)) continue;
    if (header.empty()) header = h;
    if (h != header) continue;
    std::map<std::vector<std::string>, Row> mine;
    for (const Row& r : part) {
      if (r.size() == header.size())
        mine[Row(r.begin(), r.begin() + static_cast<long>(g.params.size()))] = r;
    }
    bool all = true;
    for (size_t i = shard; i < g.points.size(); i += m.shards) {
      auto it = mine.find(g.points[i]);
      if (it == mine.end() || it->second[g.params.size()] != "ok") all = false;
    }
    if (all) complete.insert(shard);
    rows.insert(mine.begin(), mine.end());
  }
  return rows;
}

struct TaskState {
  std::string state, exitCode, log;
};

// Adds the array tasks of `job` that `scontrol -o show job` lists: one line per task (pending
// tasks may share one line with a range such as ArrayTaskId=4-7,9).
void tasksFromScontrol(const std::string& text, std::map<size_t, TaskState>& tasks) {
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    auto field = [&](const std::string& key) {
      const size_t at = line.find(" " + key + "=");
      if (at == std::string::npos) return std::string();
      const size_t start = at + key.size() + 2;
      return line.substr(start, line.find(' ', start) - start);
    };
    const std::string ids = field("ArrayTaskId");
    if (ids.empty()) continue;
    TaskState s{field("JobState"), field("ExitCode"), field("StdOut")};
    std::stringstream parts(ids.substr(0, ids.find('%')));
    std::string part;
    while (std::getline(parts, part, ',')) {
      size_t first = 0, last = 0;
      if (std::sscanf(part.c_str(), "%zu-%zu", &first, &last) == 2) {
        for (size_t i = first; i <= last; ++i) tasks[i] = s;
      } else if (std::sscanf(part.c_str(), "%zu", &first) == 1) {
        tasks[first] = s;
      }
    }
  }
}

// What Slurm says about the tasks of the sweep's jobs (the latest submission of a task wins):
// from the controller while it remembers the job (MinJobAge), else from accounting.
std::map<size_t, TaskState> taskStates(const Manifest& m) {
  std::map<size_t, TaskState> tasks;
  for (const std::string& job : m.jobs) {
    const Output shown = capture({"scontrol", "-o", "show", "job", job});
    if (shown.status == 0) {
      tasksFromScontrol(shown.text, tasks);
      continue;
    }
    const Output acct =
        capture({"sacct", "-n", "-P", "-X", "-j", job, "--format=JobID,State,ExitCode"});
    if (acct.status != 0) continue;
    std::stringstream lines(acct.text);
    std::string line;
    while (std::getline(lines, line)) {
      size_t task = 0;
      const size_t bar = line.find('|'), under = line.find('_');
      if (bar == std::string::npos || under == std::string::npos || under > bar) continue;
      if (std::sscanf(line.c_str() + under + 1, "%zu", &task) != 1) continue;
      const size_t bar2 = line.find('|', bar + 1);
      tasks[task] = {line.substr(bar + 1, bar2 - bar - 1),
                     bar2 == std::string::npos ? "" : line.substr(bar2 + 1), ""};
    }
  }
  return tasks;
}

void listMissing(const fs::path& dir, const Manifest& m, const Grid& g,
                 const std::set<size_t>& complete) {
  const auto tasks = taskStates(m);
  for (size_t shard = 0; shard < m.shards; ++shard) {
    if (complete.count(shard)) continue;
    std::string points;
    for (size_t i = shard; i < g.points.size(); i += m.shards)
      points += (points.empty() ? "" : ", ") + std::to_string(i);
    auto it = tasks.find(shard);
    std::cerr << "  shard " << shard << " (point"
              << (points.find(',') == std::string::npos ? " " : "s ") << points << "): ";
    if (it == tasks.end()) {
      std::cerr << "no complete part file, Slurm does not know the task (" << partFile(dir, shard)
                << ")\n";
    } else {
      std::cerr << it->second.state
                << (it->second.exitCode.empty() ? "" : " exit " + it->second.exitCode) << ", log "
                << (it->second.log.empty() ? "unknown" : it->second.log) << "\n";
    }
  }
}

// The machine of one point: the base with the point's values applied, checked.
bool pointMachine(const std::string& base, const std::vector<SweepParameter>& params,
                  const std::vector<std::string>& values, const std::string& name,
                  std::string& why) {
  std::string yaml = base;
  for (size_t k = 0; k < params.size(); ++k) {
    auto next = applyOverride(yaml, params[k].key, values[k], why);
    if (!next) {
      why = "--set " + params[k].key + ": " + why;
      return false;
    }
    yaml = *next;
  }
  try {
    spec::loadSystemSpecFromText(yaml, name);
  } catch (const spec::ConfigError& e) {
    why = name + " is not a valid machine:\n" + e.what();
    return false;
  }
  return true;
}

std::string absolute(const std::string& path) {
  return path.empty() ? path : fs::absolute(path).lexically_normal().string();
}

// A machine file stays a file; a preset name stays a name.
std::string configArgument(const std::string& config) {
  return !config.empty() && fs::exists(config) ? absolute(config) : config;
}

std::string jobScript(const SlurmSweepOptions& o, const Manifest& m, const fs::path& dir,
                      const std::string& array) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by ascendsim sweep --slurm: one array task per shard of the grid.\n"
    << "#SBATCH --job-name=ascendsim-sweep\n"
    << "#SBATCH --array=" << array << (o.arrayLimit > 0 ? "%" + std::to_string(o.arrayLimit) : "")
    << "\n"
    << "#SBATCH --output=" << (dir / "task-%A_%a.log").string() << "\n"
    << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n";
  s << "exec " << shellQuote(o.self) << " sweep";
  if (!m.config.empty()) s << " --config " << shellQuote(m.config);
  s << " --workload " << shellQuote(m.workload);
  for (const std::string& set : m.sets) s << " --set " << shellQuote(set);
  if (m.dramStats) s << " --dram-stats";
  s << " --jobs 1 --shard \"${SLURM_ARRAY_TASK_ID}/" << m.shards << "\" --out "
    << shellQuote((dir / "part-").string()) << "\"${SLURM_ARRAY_TASK_ID}\"" << shellQuote(".csv")
    << "\n";
  return s.str();
}

bool waitForJob(const std::string& job) {
  size_t last = SIZE_MAX;
  for (;;) {
    const Output q = capture({"squeue", "-h", "-r", "-j", job, "-o", "%i %T"});
    if (q.status != 0) {
      // A job the controller has already forgotten is not queued any more.
      if (q.text.find("Invalid job id") != std::string::npos) return true;
      std::cerr << "ascendsim sweep: squeue failed: " << q.text;
      return false;
    }
    size_t left = 0;
    std::stringstream lines(q.text);
    std::string line;
    while (std::getline(lines, line)) left += !line.empty();
    if (left == 0) return true;
    if (left != last)
      std::cerr << "slurm: job " << job << ": " << left << " task(s) pending or running\n";
    last = left;
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

}  // namespace

bool isSlurmSweepDir(const std::string& path) {
  return fs::is_directory(path) && fs::exists(fs::path(path) / kManifest);
}

int submitSlurmSweep(const SlurmSweepOptions& o) {
  // Values that go into #SBATCH lines: one line each, no room for another directive or command.
  const auto plain = [](const std::string& v) {
    return v.find_first_not_of(
               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:-") ==
           std::string::npos;
  };
  for (const auto& [flag, value] :
       {std::make_pair("--partition", o.partition), std::make_pair("--time", o.time)}) {
    if (!plain(value)) {
      std::cerr << "ascendsim sweep " << flag << ": '" << value
                << "' has characters Slurm names and times never have (letters, digits, _ . , : - "
                   "only)\n";
      return kExitUsage;
    }
  }
  if (o.out.find_first_of("\n\r") != std::string::npos) {
    std::cerr << "ascendsim sweep --out: the path has a line break; it would end the job script's "
                 "#SBATCH line\n";
    return kExitUsage;
  }
  for (const char* tool : {"sbatch", "squeue", "scontrol"}) {
    if (!inPath(tool)) {
      std::cerr << "ascendsim sweep --slurm: '" << tool
                << "' is not on PATH: Slurm is not installed here (Debian: "
                << "apt-get install slurm-client; scripts/install-deps.sh --with-slurm installs a "
                   "local cluster's daemons too)\n";
      return kExitUsage;
    }
  }
  std::string why;
  const auto grid = gridOf(o.sets, why);
  if (!grid) {
    std::cerr << "ascendsim sweep: --set: " << why << "\n";
    return kExitUsage;
  }
  // Every point's machine is checked before anything is queued.
  std::string base;
  try {
    base = spec::writeSystemSpecYaml(spec::loadSystemSpecOrDefault(o.config));
    for (size_t i = 0; i < grid->points.size(); ++i) {
      if (!pointMachine(base, grid->params, grid->points[i], "point " + std::to_string(i), why)) {
        std::cerr << "ascendsim sweep: " << why << "\n";
        return kExitUsage;
      }
    }
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
  Manifest m;
  m.config = configArgument(o.config);
  m.workload = absolute(o.workload);
  m.out = absolute(o.out);
  m.sets = o.sets;
  m.dramStats = o.dramStats;
  m.shards = o.shards ? std::min(o.shards, grid->points.size()) : grid->points.size();
  const fs::path dir = m.out + ".slurm";
  if (auto old = readManifest(dir)) {
    if (!old->sameSweep(m)) {
      std::cerr << "ascendsim sweep --slurm: " << dir.string()
                << " holds another sweep (other settings, workload or "
                << "shards): remove it or choose another --out\n";
      return kExitUsage;
    }
    m.jobs = old->jobs;
  }
  std::error_code made;
  fs::create_directories(dir, made);
  if (made) {
    std::cerr << "ascendsim sweep: cannot make the folder " << dir << ": " << made.message()
              << "\n";
    return kExitFailure;
  }
  // Resubmission: only the shards without a complete part file.
  Row header;
  std::set<size_t> complete;
  readParts(dir, m, *grid, header, complete);
  std::string array;
  for (size_t shard = 0; shard < m.shards; ++shard) {
    if (!complete.count(shard)) array += (array.empty() ? "" : ",") + std::to_string(shard);
  }
  if (array.empty()) {
    std::cerr << "slurm: every shard of " << dir.string() << " is complete; merging\n";
    return mergeSlurmSweep(dir.string(), m.out);
  }
  const std::string script = (dir / "job.sh").string();
  if (!writeFileAtomically(script, jobScript(o, m, dir, array), why)) {
    std::cerr << "ascendsim sweep: " << why << "\n";
    return kExitFailure;
  }
  std::vector<std::string> sbatch{"sbatch", "--parsable"};
  sbatch.insert(sbatch.end(), o.sbatchArgs.begin(), o.sbatchArgs.end());
  sbatch.push_back(script);
  const Output submitted = capture(sbatch);
  std::string job = submitted.text.substr(0, submitted.text.find_first_of(";\n"));
  if (submitted.status != 0 || job.empty() ||
      job.find_first_not_of("0123456789") != std::string::npos) {
    std::cerr << "ascendsim sweep --slurm: sbatch failed (exit " << submitted.status
              << "): " << submitted.text;
    return kExitFailure;
  }
  m.jobs.push_back(job);
  if (!writeManifest(dir, m, why)) {
    std::cerr << "ascendsim sweep: " << why << "\n";
    return kExitFailure;
  }
  const size_t tasks = static_cast<size_t>(std::count(array.begin(), array.end(), ',')) + 1;
  std::cout << job << "\n";
  std::cerr << "slurm: submitted job " << job << ": " << tasks << " array task(s) of " << m.shards
            << " shard(s), " << grid->points.size() << " point(s); script " << script << "\n";
  if (!o.wait) {
    std::cerr << "slurm: when it ends: ascendsim sweep merge " << dir.string() << "\n";
    return kExitOk;
  }
  if (!waitForJob(job)) return kExitFailure;
  return mergeSlurmSweep(dir.string(), m.out);
}

int mergeSlurmSweep(const std::string& dirText, const std::string& outOverride) {
  const fs::path dir = dirText;
  const auto m = readManifest(dir);
  if (!m) {
    std::cerr << "ascendsim sweep merge: " << (dir / kManifest).string()
              << " is missing or unreadable\n";
    return kExitFailure;
  }
  std::string why;
  const auto grid = gridOf(m->sets, why);
  if (!grid) {
    std::cerr << "ascendsim sweep merge: the manifest's --set: " << why << "\n";
    return kExitFailure;
  }
  Row header;
  std::set<size_t> complete;
  const auto rows = readParts(dir, *m, *grid, header, complete);
  std::vector<Row> ordered;
  for (const auto& point : grid->points) {
    auto it = rows.find(point);
    if (it != rows.end()) ordered.push_back(it->second);
  }
  const std::string out = outOverride.empty() ? m->out : outOverride;
  if (!header.empty() && !writeOutput(out, csvText(header, ordered), "sweep merge"))
    return kExitFailure;
  if (complete.size() == m->shards) {
    std::cerr << "merged " << m->shards << " shard(s): " << ordered.size() << " point(s) in " << out
              << "\n";
    return kExitOk;
  }
  std::cerr << "merged " << complete.size() << " of " << m->shards << " shard(s) ("
            << ordered.size() << " of " << grid->points.size() << " point(s)) into "
            << (header.empty() ? std::string("nothing") : out) << "; incomplete:\n";
  listMissing(dir, *m, *grid, complete);
  std::cerr << "resubmit the missing shards with the same command and --slurm\n";
  return kExitFailure;
}

}  // namespace ascendsim::tools
