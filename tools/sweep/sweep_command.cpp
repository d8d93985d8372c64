// `ascendsim sweep`: a workload over a grid of machine settings, each point in its own process.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
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

#include "spec/spec_writer.h"
#include "spec/system_loader.h"
#include "spec/units.h"
#include "tools/atomic_file.h"
#include "tools/csv_table.h"
#include "tools/exit_codes.h"
#include "tools/machine_override.h"
#include "tools/subcommand.h"
#include "tools/sweep/slurm_sweep.h"
#include "tools/sweep/sweep_grid.h"
#include "tools/sweep/sweep_plot.h"

namespace ascendsim::tools {
namespace fs = std::filesystem;
namespace {

const std::vector<std::string> kFigures = {"status",
                                           "simulated_span_us",
                                           "copies",
                                           "H2D_GBps",
                                           "D2H_GBps",
                                           "D2D_GBps",
                                           "P2P_GBps",
                                           "memset_GBps",
                                           "local_GBps",
                                           "busiest_resource",
                                           "busiest_utilisation",
                                           "kernels",
                                           "kernel_time_us",
                                           "host_row_hit_rate",
                                           "device_row_hit_rate",
                                           "device_read_latency_ns",
                                           "copies_GBps",
                                           "devices_copying",
                                           "per_device_GBps"};

struct SweepOptions {
  std::string config, workload, out, json, shard, plot, against, by;
  std::vector<std::string> sets;
  int jobs = 2;
  bool dramStats = false;
  // As a Slurm job array
  bool slurm = false, wait = false;
  size_t shards = 0;
  std::string partition, time;
  int arrayLimit = 0;
  std::vector<std::string> sbatchArgs;
};

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
};

std::string jsonText(const Row& header, const std::vector<Row>& rows) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const Row& r : rows) {
    nlohmann::ordered_json o;
    for (size_t i = 0; i < header.size() && i < r.size(); ++i) o[header[i]] = r[i];
    j.push_back(o);
  }
  return j.dump(2) + "\n";
}

// The figures of one point's report, in kFigures order (after status).
Row figuresOf(const std::string& reportPath) {
  std::ifstream in(reportPath);
  const nlohmann::json r = nlohmann::json::parse(in);
  char buf[64];
  auto num = [&](double v) {
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  Row row{"ok", num(r["simulated_span_us"].get<double>()),
          std::to_string(r["copies_total"].get<uint64_t>())};
  for (const char* kind : {"H2D", "D2H", "D2D", "P2P", "memset", "local"}) {
    row.push_back(
        r["copy_totals"].contains(kind) ? num(r["copy_totals"][kind]["GBps"].get<double>()) : "");
  }
  std::string busiest;
  double util = -1;
  for (const auto& x : r["resources"]) {
    if (x["utilisation"].get<double>() > util) {
      util = x["utilisation"].get<double>();
      busiest = x["name"];
    }
  }
  row.push_back(busiest);
  row.push_back(util >= 0 ? num(util) : "");
  // Kernels (operators and workload `compute` steps): how many, and their summed task time.
  uint64_t kernels = 0;
  double kernelUs = 0;
  if (r.contains("kernel_totals")) {
    for (const auto& [name, k] : r["kernel_totals"].items()) {
      kernels += k["count"].get<uint64_t>();
      kernelUs += k["time_us"].get<double>();
    }
  }
  row.push_back(std::to_string(kernels));
  row.push_back(num(kernelUs));
  // With --dram-stats: the host memory's row-hit rate, and over all device memories the row-hit
  // rate and mean read latency, weighted by their traffic.
  std::string hostHits, deviceHits, deviceLatency;
  if (r.contains("memories")) {
    double hits = 0, accesses = 0, latencySum = 0, reads = 0;
    for (const auto& m : r["memories"]) {
      const double n = m["row_hits"].get<double>() + m["row_misses"].get<double>() +
                       m["row_conflicts"].get<double>();
      if (m["name"] == "host.memory") {
        hostHits = num(m["row_hit_rate"].get<double>());
        continue;
      }
      hits += m["row_hits"].get<double>();
      accesses += n;
      const double bytesRead = m["bytes_read"].get<double>();
      latencySum += m["mean_read_latency_ns"].get<double>() * bytesRead;
      reads += bytesRead;
    }
    if (accesses > 0) deviceHits = num(hits / accesses);
    if (reads > 0) deviceLatency = num(latencySum / reads);
  }
  row.push_back(hostHits);
  row.push_back(deviceHits);
  row.push_back(deviceLatency);
  // Several devices: all their copies' bytes over the time from the first start to the last end,
  // how many devices copied, and the mean of their own rates (each over its own copies' time).
  std::string aggregate, copying, perDevice;
  if (r.contains("device_copy_totals") && !r["device_copy_totals"].empty()) {
    aggregate = num(r["copies_GBps"].get<double>());
    double sum = 0;
    for (const auto& d : r["device_copy_totals"]) sum += d["GBps"].get<double>();
    copying = std::to_string(r["device_copy_totals"].size());
    perDevice = num(sum / static_cast<double>(r["device_copy_totals"].size()));
  }
  row.push_back(aggregate);
  row.push_back(copying);
  row.push_back(perDevice);
  return row;
}

std::string lastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

struct Running {
  size_t point;
  std::chrono::steady_clock::time_point started;
};

int runSweep(const SweepOptions& o) {
  std::string why;
  std::vector<SweepParameter> params;
  for (const std::string& s : o.sets) {
    auto p = parseSet(s, why);
    if (!p) {
      std::cerr << "ascendsim sweep: --set: " << why << "\n";
      return kExitUsage;
    }
    params.push_back(*p);
  }
  if (!gridWithinLimit(params, why)) {
    std::cerr << "ascendsim sweep: --set: " << why << "\n";
    return kExitUsage;
  }
  size_t shardIndex = 0, shardCount = 1;
  if (!o.shard.empty()) {
    if (std::sscanf(o.shard.c_str(), "%zu/%zu", &shardIndex, &shardCount) != 2 || shardCount == 0 ||
        shardIndex >= shardCount) {
      std::cerr << "ascendsim sweep: --shard: expected i/N with 0 <= i < N (e.g. 3/16), got '"
                << o.shard << "'\n";
      return kExitUsage;
    }
  }
  if (o.jobs < 1) {
    std::cerr << "ascendsim sweep: --jobs must be 1 or more\n";
    return kExitUsage;
  }
  std::string base;
  try {
    base = spec::writeSystemSpecYaml(spec::loadSystemSpecOrDefault(o.config));
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
  // Every point's machine, checked before anything runs.
  const auto grid = crossProduct(params);
  std::vector<size_t> mine;
  for (size_t i = 0; i < grid.size(); ++i) {
    if (i % shardCount == shardIndex) mine.push_back(i);
  }
  const fs::path dir = o.out + ".points";
  std::error_code made;
  fs::create_directories(dir, made);
  if (made) {
    std::cerr << "ascendsim sweep: cannot make the folder " << dir
              << " beside --out: " << made.message() << "\n";
    return kExitFailure;
  }
  std::vector<std::string> machines(grid.size());
  for (size_t i : mine) {
    std::string yaml = base;
    for (size_t k = 0; k < params.size(); ++k) {
      auto next = applyOverride(yaml, params[k].key, grid[i][k], why);
      if (!next) {
        std::cerr << "ascendsim sweep: --set " << params[k].key << ": " << why << "\n";
        return kExitUsage;
      }
      yaml = *next;
    }
    const std::string path = (dir / ("point-" + std::to_string(i) + ".yaml")).string();
    try {
      spec::loadSystemSpecFromText(yaml, path);
    } catch (const spec::ConfigError& e) {
      std::cerr << "ascendsim sweep: point " << i << " is not a valid machine:\n"
                << e.what() << "\n";
      return kExitBadConfig;
    }
    if (!writeOutput(path, yaml, "sweep")) return kExitFailure;
    machines[i] = path;
  }
  Row header;
  for (const auto& p : params) header.push_back(p.key);
  header.insert(header.end(), kFigures.begin(), kFigures.end());
  // Resume: points already done in the output are kept and skipped.
  std::map<Row, Row> done;
  {
    Row oldHeader;
    std::vector<Row> oldRows;
    if (readCsv(o.out, oldHeader, oldRows) && oldHeader == header) {
      for (const Row& r : oldRows) {
        if (r.size() == header.size() && r[params.size()] == "ok")
          done[Row(r.begin(), r.begin() + static_cast<long>(params.size()))] = r;
      }
    }
  }
  std::vector<size_t> pending;
  for (size_t i : mine) {
    if (!done.count(grid[i])) pending.push_back(i);
  }
  std::cerr << "sweep: " << grid.size() << " point(s)"
            << (shardCount > 1 ? ", shard " + o.shard + ": " + std::to_string(mine.size()) : "")
            << ", " << mine.size() - pending.size() << " already done, " << pending.size()
            << " to run, " << o.jobs << " at a time\n";

  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    std::cerr << "ascendsim sweep: cannot find its own executable\n";
    return kExitFailure;
  }
  self[n] = '\0';
  const auto t0 = std::chrono::steady_clock::now();
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  std::map<pid_t, Running> running;
  size_t next = 0, finished = 0, failed = 0;
  auto save = [&] {
    // Rows in the grid's order (the first --set varying slowest), not the values' text order
    // ("2, 4, 8, 64", never "2, 4, 64, 8"); rows of an older table that are not on the grid last.
    std::vector<Row> rows;
    std::set<Row> listed;
    for (const Row& point : grid) {
      auto it = done.find(point);
      if (it != done.end() && listed.insert(point).second) rows.push_back(it->second);
    }
    for (const auto& [k, r] : done) {
      if (!listed.count(k)) rows.push_back(r);
    }
    return writeFileAtomically(o.out, csvText(header, rows), why) &&
           (o.json.empty() || writeFileAtomically(o.json, jsonText(header, rows), why));
  };
  // The table is written whole now and at the end (in the grid's order); in between each point's
  // row is appended as it finishes (one write), so a sweep of N points writes O(N) bytes, not
  // O(N^2), and a sweep that is stopped keeps every finished point for the next one to resume.
  if (!save()) {
    std::cerr << "ascendsim sweep: " << why << "\n";
    return kExitFailure;
  }
  auto append = [&](const Row& row) {
    const std::string line = csvText(Row{}, {row}).substr(1);  // (no header: its line is empty)
    const int fd = ::open(o.out.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    const bool written =
        fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    if (!written) why = "cannot append to '" + o.out + "': " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return written;
  };
  while (next < pending.size() || !running.empty()) {
    while (next < pending.size() && static_cast<int>(running.size()) < o.jobs) {
      const size_t i = pending[next++];
      const std::string report = (dir / ("point-" + std::to_string(i) + ".report.json")).string();
      const std::string log = (dir / ("point-" + std::to_string(i) + ".log")).string();
      const pid_t pid = fork();
      if (pid == 0) {
        std::freopen(log.c_str(), "w", stdout);
        std::freopen(log.c_str(), "a", stderr);
        setenv("ASCENDSIM_SUMMARY", "0", 1);
        unsetenv("ASCENDSIM_TRACE");
        if (o.dramStats) setenv("ASCENDSIM_DRAM_STATS", "1", 1);
        execl(self, "ascendsim", "run", "--config", machines[i].c_str(), "--workload",
              o.workload.c_str(), "--report", report.c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      running[pid] = {i, std::chrono::steady_clock::now()};
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t i = it->second.point;
    running.erase(it);
    ++finished;
    Row row(grid[i]);
    const std::string report = (dir / ("point-" + std::to_string(i) + ".report.json")).string();
    Row figures;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      try {
        figures = figuresOf(report);
      } catch (const std::exception& e) {
        figures = {std::string("failed: unreadable report: ") + e.what()};
      }
    } else {
      figures = {"failed (exit " +
                 std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
                 "): " + lastLine((dir / ("point-" + std::to_string(i) + ".log")).string())};
    }
    if (figures[0] != "ok") ++failed;
    figures.resize(kFigures.size());
    row.insert(row.end(), figures.begin(), figures.end());
    done[grid[i]] = row;
    if (!append(row)) {
      std::cerr << "\nascendsim sweep: " << why << "\n";
      return kExitFailure;
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double left =
        elapsed / static_cast<double>(finished) * static_cast<double>(pending.size() - finished);
    // A bar redrawn in place on a terminal; in a pipe or a log file, one clean line per point.
    if (terminal) {
      const int width = 30, filled = static_cast<int>(width * finished / pending.size());
      std::fprintf(stderr, "\r[%s%s] %zu/%zu points, %zu running, about %.0f s left   ",
                   std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                   finished, pending.size(), running.size(), left);
    } else {
      std::fprintf(stderr, "ascendsim sweep: %zu/%zu points, %zu running, about %.0f s left\n",
                   finished, pending.size(), running.size(), left);
    }
  }
  if (terminal) std::fprintf(stderr, "\n");
  if (!save()) {
    std::cerr << "ascendsim sweep: " << why << "\n";
    return kExitFailure;
  }
  if (!o.plot.empty()) {
    std::vector<Row> rows;
    for (const Row& point : grid) {
      auto it = done.find(point);
      if (it != done.end()) rows.push_back(it->second);
    }
    const std::string svgPath = fs::path(o.out).replace_extension(".svg").string();
    const int plotted = plotSweep(header, rows, params, o.plot, o.against, o.by, svgPath);
    if (plotted != kExitOk) {
      std::cerr << "(results: " << o.out << ")\n";
      return plotted;
    }
    std::cerr << "plot: " << svgPath << "\n";
  }
  std::cerr << "results: " << o.out << " (" << done.size() << " point(s), " << failed
            << " failed this run)\n";
  return failed ? kExitFailure : kExitOk;
}

int runMerge(const MergeOptions& o) {
  Row header;
  std::map<Row, Row> all;
  size_t keyColumns = 0;
  for (const std::string& path : o.inputs) {
    Row h;
    std::vector<Row> rows;
    std::string whyNot;
    if (!readCsv(path, h, rows, &whyNot)) {
      std::cerr << "ascendsim sweep merge: cannot read '" << path << "'"
                << (whyNot.empty() ? "" : ": " + whyNot) << "\n";
      return kExitFailure;
    }
    if (header.empty()) {
      header = h;
      keyColumns = static_cast<size_t>(std::find(h.begin(), h.end(), "status") - h.begin());
    } else if (h != header) {
      std::cerr << "ascendsim sweep merge: '" << path
                << "' has other columns than the first file\n";
      return kExitFailure;
    }
    for (const Row& r : rows)
      all[Row(r.begin(), r.begin() + static_cast<long>(std::min(keyColumns, r.size())))] = r;
  }
  std::vector<Row> rows;
  for (const auto& [k, r] : all) rows.push_back(r);
  // By value, numbers as numbers ("8" before "16", "250ns" before "1us" only if written alike):
  // the shards' grid is not known here.
  std::stable_sort(rows.begin(), rows.end(), [keyColumns](const Row& a, const Row& b) {
    for (size_t k = 0; k < keyColumns && k < a.size() && k < b.size(); ++k) {
      if (a[k] == b[k]) continue;
      char* endA = nullptr;
      char* endB = nullptr;
      const double x = std::strtod(a[k].c_str(), &endA), y = std::strtod(b[k].c_str(), &endB);
      const bool numbers =
          endA != a[k].c_str() && endB != b[k].c_str() && std::string(endA) == std::string(endB);
      if (numbers && x != y) return x < y;
      return a[k] < b[k];
    }
    return false;
  });
  if (!writeOutput(o.out, csvText(header, rows), "sweep merge")) return kExitFailure;
  std::cerr << "merged " << o.inputs.size() << " file(s): " << rows.size() << " point(s) in "
            << o.out << "\n";
  return kExitOk;
}

}  // namespace

void addSweepCommand(CLI::App& command, int& exitCode) {
  auto o = std::make_shared<SweepOptions>();
  auto m = std::make_shared<MergeOptions>();
  CLI::App* cmd = &command;
  cmd->add_option("--config,-c", o->config,
                  "Base machine: a YAML file or a built-in preset (default: built-in default)");
  cmd->add_option("--workload,-w", o->workload, "Workload script to run at every point");
  cmd->add_option(
      "--set", o->sets,
      "KEY=v1,v2,...: a machine setting as `config show` names it; [*] for every list item");
  cmd->add_option("--jobs,-j", o->jobs, "Points run at once (default 2)");
  cmd->add_option("--out,-o", o->out,
                  "Results CSV (points already in it are skipped: rerun to resume)");
  cmd->add_option("--json", o->json, "Results as JSON too");
  cmd->add_flag(
      "--dram-stats", o->dramStats,
      "Replay each point's memory traffic through the DRAM models: row-hit and latency columns");
  cmd->add_option("--shard", o->shard,
                  "i/N: run only points with index % N == i (0-based), for cluster job arrays");
  cmd->add_option("--plot", o->plot, "Draw this result column ...");
  cmd->add_option("--against", o->against,
                  "... against this --set key (x axis), as OUT with .svg: a line per combination "
                  "of the other keys");
  cmd->add_option("--by", o->by,
                  "... or a heat map over --against (columns) and this second --set key (rows)");
  cmd->add_flag("--slurm", o->slurm,
                "Submit the grid as a Slurm job array (one task per shard, parts in OUT.slurm/)");
  cmd->add_option("--shards", o->shards,
                  "With --slurm: array tasks to split the grid into (default: one per point)");
  cmd->add_option("--partition", o->partition, "With --slurm: the partition to run in");
  cmd->add_option("--time", o->time,
                  "With --slurm: each task's time limit (sbatch --time, e.g. 00:30:00)");
  cmd->add_option("--array-limit", o->arrayLimit, "With --slurm: at most this many tasks at once");
  cmd->add_option("--sbatch-arg", o->sbatchArgs,
                  "With --slurm: one more argument for sbatch (repeat for more)")
      ->allow_extra_args(false);
  cmd->add_flag("--wait", o->wait,
                "With --slurm: wait for the array to end (squeue), then merge into OUT");
  cmd->footer(
      "Example: ascendsim sweep --config atlas-800t-a2 --workload "
      "traces/workloads/all-to-host.yaml \\\n"
      "    --set 'pcie.switches[*].link.generation=3,4,5' --jobs 2 --out gen.csv --plot D2H_GBps "
      "--against 'pcie.switches[*].link.generation'\n"
      "Merge shards: ascendsim sweep merge part-*.csv --out all.csv\n"
      "On Slurm: ascendsim sweep ... --out gen.csv --slurm --partition P --time 00:30:00 [--wait]; "
      "then ascendsim sweep merge gen.csv.slurm");
  CLI::App* merge = cmd->add_subcommand("merge", "Join the result files of sweep shards");
  merge
      ->add_option("inputs", m->inputs,
                   "Shard result CSVs, or the OUT.slurm directory of a --slurm sweep")
      ->required();
  merge->add_option("--out,-o", m->out,
                    "Merged CSV (for a --slurm directory: its sweep's OUT unless given)");
  merge->callback([m, &exitCode] {
    if (m->inputs.size() == 1 && isSlurmSweepDir(m->inputs[0])) {
      exitCode = mergeSlurmSweep(m->inputs[0], m->out);
      return;
    }
    if (m->out.empty()) {
      std::cerr << "ascendsim sweep merge: --out is needed to merge part files\n";
      exitCode = kExitUsage;
      return;
    }
    exitCode = runMerge(*m);
  });
  cmd->callback([o, cmd, merge, &exitCode] {
    if (merge->parsed()) return;
    if (o->workload.empty() || o->out.empty() || o->sets.empty()) {
      std::cerr << "ascendsim sweep: needs --workload, --out and at least one --set (see --help)\n";
      exitCode = kExitUsage;
      return;
    }
    (void)cmd;
    if (o->slurm) {
      if (o->arrayLimit < 0) {
        std::cerr
            << "ascendsim sweep --slurm: --array-limit must be 1 or more (0: Slurm's choice)\n";
        exitCode = kExitUsage;
        return;
      }
      if (!o->shard.empty() || !o->plot.empty()) {
        std::cerr << "ascendsim sweep --slurm: --shard and --plot do not apply (each task runs a "
                     "shard; plot the merged table)\n";
        exitCode = kExitUsage;
        return;
      }
      char self[4096];
      const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
      if (n <= 0) {
        std::cerr << "ascendsim sweep: cannot find its own executable\n";
        exitCode = kExitFailure;
        return;
      }
      SlurmSweepOptions s;
      s.self = std::string(self, static_cast<size_t>(n));
      s.config = o->config;
      s.workload = o->workload;
      s.out = o->out;
      s.sets = o->sets;
      s.dramStats = o->dramStats;
      s.shards = o->shards;
      s.partition = o->partition;
      s.time = o->time;
      s.arrayLimit = o->arrayLimit;
      s.sbatchArgs = o->sbatchArgs;
      s.wait = o->wait;
      exitCode = submitSlurmSweep(s);
      return;
    }
    if (o->wait || !o->partition.empty() || !o->time.empty() || o->arrayLimit ||
        !o->sbatchArgs.empty() || o->shards) {
      std::cerr << "ascendsim sweep: --wait, --partition, --time, --array-limit, --sbatch-arg and "
                   "--shards need --slurm\n";
      exitCode = kExitUsage;
      return;
    }
    exitCode = runSweep(*o);
  });
}

namespace {
const SubcommandRegistration kRegistered{
    {"subcommand",
     "sweep",
     "Run a workload over a grid of machine settings, each point in its own process",
     {},
     {}},
    addSweepCommand};
}  // namespace

}  // namespace ascendsim::tools
