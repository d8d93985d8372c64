// `ascendsim calibrate MEASURED.csv --config X -o Y.yaml`: fits the host's root-complex
// efficiency and the DMA setup latency so that the probe's copy times on the simulated machine
// match the ones measured on a real one (docs/calibration.md).

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "spec/spec_writer.h"
#include "spec/system_loader.h"
#include "spec/units.h"
#include "tools/atomic_file.h"
#include "tools/calibrate/calibration_fit.h"
#include "tools/calibrate/copy_times.h"
#include "tools/exec_command.h"
#include "tools/exit_codes.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace fs = std::filesystem;
namespace {

struct CalibrateOptions {
  std::string measured, config, out, probe;
  int device = 0;
  int iterations = 8;
  double maxRmsPercent = 5;  // a fit with a larger rms relative error fails (docs/calibration.md)
};

// The fitted settings' bounds: efficiency in [0.05, 1], setup latency at least 0.
constexpr double kEfficiencyLow = 0.05, kEfficiencyHigh = 1.0;

// How a fitted setting ended.
enum class Outcome {
  Converged,     // the measurements ask for no further change
  AtBound,       // the measurements ask to move it beyond its bound
  NotFitted,     // the measurements cannot say (one size per direction)
  NoEffect,      // moving it does not move what it should (the root complex does not limit)
  NotConverged,  // still moving after --iterations runs
};

// The two settings being fitted.
struct Fitted {
  double efficiency = 1;
  spec::Picoseconds setup = 0;
};

void apply(const Fitted& f, spec::SystemSpec& sys) {
  sys.rootComplex.efficiency = f.efficiency;
  for (spec::DeviceSpec& d : sys.devices) d.dma.setupLatency = f.setup;
}

std::string fittedText(const Fitted& f) {
  std::ostringstream s;
  s << "efficiency " << std::setprecision(4) << f.efficiency << ", setup_latency "
    << spec::formatDuration(f.setup);
  return s.str();
}

// The probe beside an installed ascendsim, else the one in this build tree.
std::string defaultProbe() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / "ascendsim-calibration-probe")) {
    return (self.parent_path() / "ascendsim-calibration-probe").string();
  }
  return ASCENDSIM_BUILD_PROBE;
}

// The most distinct copy sizes a table may hold: the probe gets them on its command line, as one
// argument of at most 128 KiB (Linux's limit for one argument; 4096 sizes of up to 20 digits and a
// comma fit), and runs each once per fitting step.
constexpr size_t kMostSizes = 4096;

// SIGINT, SIGTERM or SIGHUP while calibrate runs: the probe is stopped, the working directory
// removed, and the signal then ends calibrate as it would have.
volatile sig_atomic_t gStopSignal = 0;
void onStopSignal(int sig) {
  gStopSignal = sig;
}

// The working directory: removed on every way out of calibrate.
class WorkingDirectory {
 public:
  bool make(std::string& why) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);  // TMPDIR, or /tmp
    if (ec) base = "/tmp";
    std::string pattern = (base / "ascendsim-calibrate-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      why = "cannot make a working directory in " + base.string();
      return false;
    }
    path_ = pattern;
    return true;
  }
  const fs::path& path() const { return path_; }
  ~WorkingDirectory() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }

 private:
  fs::path path_;
};

// Runs the probe program on a candidate machine in a child process (SystemC elaborates one
// machine per process) and reads back its table.
class ProbeRunner {
 public:
  ProbeRunner(std::string probe, int device, const std::vector<CopyTime>& measured, fs::path dir)
      : probe_(std::move(probe)), device_(std::to_string(device)), dir_(std::move(dir)) {
    std::set<uint64_t> sizes;
    for (const CopyTime& m : measured) sizes.insert(m.size);
    for (uint64_t s : sizes) sizes_ += (sizes_.empty() ? "" : ",") + std::to_string(s);
  }

  // The simulated time of each measured row, in order.
  bool run(const spec::SystemSpec& machine, const std::vector<CopyTime>& measured,
           std::vector<double>& simulated, std::string& why) {
    const std::string n = std::to_string(++runs_);
    const fs::path yaml = dir_ / ("candidate-" + n + ".yaml");
    const fs::path csv = dir_ / ("probe-" + n + ".csv");
    const fs::path log = dir_ / ("probe-" + n + ".log");
    if (!writeFileAtomically(yaml.string(), spec::writeSystemSpecYaml(machine), why)) return false;
    const pid_t pid = fork();
    if (pid < 0) {
      why = "cannot start the probe: fork failed";
      return false;
    }
    if (pid == 0) {
      if (!std::freopen(log.c_str(), "w", stdout) || !std::freopen(log.c_str(), "a", stderr))
        _exit(126);
      setenv("ASCENDSIM_CONFIG", yaml.c_str(), 1);
      setenv("ASCENDSIM_SUMMARY", "0", 1);
      unsetenv("ASCENDSIM_TRACE");
      unsetenv("ASCENDSIM_REPORT");
      useSimulatorLibrary();
      execl(probe_.c_str(), probe_.c_str(), "--device", device_.c_str(), "--sizes", sizes_.c_str(),
            "--repeat", "1", "--out", csv.c_str(), static_cast<char*>(nullptr));
      std::fprintf(stderr, "cannot run %s\n", probe_.c_str());
      _exit(127);
    }
    int status = 0;
    pid_t waited = 0;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
      if (gStopSignal != 0) kill(pid, SIGTERM);  // (then reaped here)
    }
    if (gStopSignal != 0) {
      why = std::string("stopped by ") + strsignal(gStopSignal) + "\n";
      return false;
    }
    if (waited != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      why = "the probe " + probe_ + " failed on the simulated machine (" + yaml.string() +
            "); its output:\n" + tail(log);
      return false;
    }
    std::vector<CopyTime> got;
    if (!readCopyTimes(csv.string(), got, why)) return false;
    std::map<std::pair<uint64_t, std::string>, double> bySize;
    for (const CopyTime& g : got) bySize[{g.size, g.direction}] = g.seconds;
    simulated.clear();
    for (const CopyTime& m : measured) {
      auto it = bySize.find({m.size, m.direction});
      if (it == bySize.end()) {
        why = "the probe gave no time for " + std::to_string(m.size) + " B " + m.direction;
        return false;
      }
      simulated.push_back(it->second);
    }
    return true;
  }

 private:
  static std::string tail(const fs::path& log) {
    std::ifstream in(log);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::string out;
    for (size_t i = lines.size() > 20 ? lines.size() - 20 : 0; i < lines.size(); ++i)
      out += "  " + lines[i] + "\n";
    return out;
  }

  std::string probe_, device_, sizes_;
  fs::path dir_;
  int runs_ = 0;
};

std::string residualTable(const std::vector<CopyTime>& measured,
                          const std::vector<double>& simulated, const Residuals& r) {
  std::ostringstream s;
  char line[160];
  std::snprintf(line, sizeof line, "%14s  %-4s %15s %15s %9s\n", "size (B)", "dir", "measured (us)",
                "simulated (us)", "error");
  s << line;
  for (size_t i = 0; i < measured.size(); ++i) {
    std::snprintf(line, sizeof line, "%14llu  %-4s %15.3f %15.3f %+8.2f%%\n",
                  static_cast<unsigned long long>(measured[i].size), measured[i].direction.c_str(),
                  measured[i].seconds * 1e6, simulated[i] * 1e6, r.relative[i] * 100);
    s << line;
  }
  return s.str();
}

std::string commented(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string l; std::getline(in, l);) out += "#   " + l + "\n";
  return out;
}

int calibrate(const CalibrateOptions& o) {
  std::vector<CopyTime> measured;
  std::string why;
  if (!readCopyTimes(o.measured, measured, why)) {
    std::cerr << "ascendsim calibrate: " << why << "\n";
    return kExitUsage;
  }
  spec::SystemSpec sys;
  try {
    sys = spec::loadSystemSpecOrDefault(o.config);
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
  if (o.device < 0 || static_cast<size_t>(o.device) >= sys.devices.size()) {
    std::cerr << "ascendsim calibrate: --device " << o.device << ": the machine has "
              << sys.devices.size() << " device(s)\n";
    return kExitUsage;
  }
  const std::string probe = o.probe.empty() ? defaultProbe() : o.probe;
  if (access(probe.c_str(), X_OK) != 0) {
    std::cerr << "ascendsim calibrate: the probe program " << probe
              << " is not there (give it with --probe)\n";
    return kExitUsage;
  }
  std::set<uint64_t> sizes;
  for (const CopyTime& m : measured) sizes.insert(m.size);
  if (sizes.size() > kMostSizes) {
    std::cerr << "ascendsim calibrate: " << o.measured << " has " << sizes.size()
              << " different copy sizes; at most " << kMostSizes
              << " (the probe runs each on every fitting step; a few dozen suffice)\n";
    return kExitUsage;
  }
  WorkingDirectory work;
  if (!work.make(why)) {
    std::cerr << "ascendsim calibrate: " << why << "\n";
    return kExitFailure;
  }
  const fs::path& dir = work.path();
  // A signal stops the probe and ends calibrate after its directory is gone (not SA_RESTART:
  // the wait for the probe is interrupted).
  struct sigaction stop {
  }, previous[3];
  stop.sa_handler = onStopSignal;
  sigemptyset(&stop.sa_mask);
  const int stopSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i) sigaction(stopSignals[i], &stop, &previous[i]);
  struct RestoreSignals {
    const int* signals;
    struct sigaction* previous;
    ~RestoreSignals() {
      for (int i = 0; i < 3; ++i) sigaction(signals[i], &previous[i], nullptr);
    }
  } restore{stopSignals, previous};
  ProbeRunner runner(probe, o.device, measured, dir);

  const Fitted start{sys.rootComplex.efficiency,
                     sys.devices[static_cast<size_t>(o.device)].dma.setupLatency};
  Fitted f = start;
  std::vector<double> simulated;
  Outcome rate = Outcome::NotConverged, setup = Outcome::NotConverged;
  double lastRatio = 0, lastEfficiency = -1, ratio = 1, shift = 0;
  for (int iteration = 1;; ++iteration) {
    spec::SystemSpec candidate = sys;
    apply(f, candidate);
    if (!runner.run(candidate, measured, simulated, why)) {
      std::cerr << "ascendsim calibrate: " << why;
      if (gStopSignal != 0) return -gStopSignal;  // (the caller ends by the signal)
      return kExitFailure;
    }
    ratio = 1;
    const bool rateMeasured = slopeRatio(measured, simulated, ratio);
    shift = bestShift(measured, simulated);
    const Residuals r = residualsOf(measured, simulated);
    if (!std::isfinite(ratio) || !std::isfinite(shift) || !std::isfinite(r.rms)) {
      // (Times too small or too large to compare in doubles: nothing sensible can be written.)
      std::cerr << "ascendsim calibrate: the fit is not a number (the measured times are out of "
                   "any range a copy can take: check the seconds column)\n";
      return kExitFailure;
    }
    char step[200];
    std::snprintf(step, sizeof step,
                  ": time per byte x%.4f to match, every copy %+.3f us; rms error %.2f %%\n", ratio,
                  shift * 1e6, r.rms * 100);
    std::cerr << "calibrate: step " << iteration << ": " << fittedText(f) << step;
    // Where each setting stands on this run. Efficiency: converged when the time per byte agrees
    // within 0.2 % or the next step would not change it at the fit's resolution (1e-4); at its
    // bound when the measurements ask to go beyond 1 or below 0.05; without effect when a change
    // of efficiency left the time per byte where it was.
    const double next = rateMeasured ? std::round(f.efficiency / ratio * 1e4) / 1e4 : f.efficiency;
    if (!rateMeasured) {
      rate = Outcome::NotFitted;
    } else if (std::fabs(ratio - 1) < 2e-3) {
      rate = Outcome::Converged;
    } else if ((next > kEfficiencyHigh && f.efficiency >= kEfficiencyHigh) ||
               (next < kEfficiencyLow && f.efficiency <= kEfficiencyLow)) {
      rate = Outcome::AtBound;
    } else if (rate != Outcome::NoEffect && lastEfficiency >= 0 && f.efficiency != lastEfficiency &&
               std::fabs(std::log(ratio / lastRatio)) < 1e-4) {
      rate = Outcome::NoEffect;
    } else if (next == f.efficiency) {
      rate = Outcome::Converged;
    } else if (rate != Outcome::NoEffect) {
      rate = Outcome::NotConverged;
    }
    // Setup latency: converged when the best shift is under 5 ns; at its bound when it is 0 and
    // the copies would need less than no setup time.
    if (std::fabs(shift) < 5e-9) {
      setup = Outcome::Converged;
    } else if (f.setup == 0 && shift < 0) {
      setup = Outcome::AtBound;
    } else {
      setup = Outcome::NotConverged;
    }
    const bool rateDone = rate != Outcome::NotConverged;
    const bool setupDone = setup != Outcome::NotConverged;
    if ((rateDone && setupDone) || iteration >= o.iterations) break;
    lastRatio = ratio;
    lastEfficiency = f.efficiency;
    // Converged within 0.2 % still refines while the setup latency moves.
    if (rate == Outcome::NotConverged || rate == Outcome::Converged)
      f.efficiency = std::clamp(next, kEfficiencyLow, kEfficiencyHigh);
    const double nextSetup = std::max(0.0, static_cast<double>(f.setup) + shift * 1e12);
    f.setup = static_cast<spec::Picoseconds>(std::llround(nextSetup / 1000) * 1000);  // whole ns
  }

  const Residuals r = residualsOf(measured, simulated);
  const std::string table = residualTable(measured, simulated, r);
  std::cout << table;
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(2);
  summary << "fitted " << fittedText(f) << " (from " << fittedText(start) << "); rms error "
          << r.rms * 100 << " %, worst " << r.relative[r.worst] * 100 << " % ("
          << measured[r.worst].size << " B " << measured[r.worst].direction << ", line "
          << measured[r.worst].line << ")";
  std::cout << summary.str() << "\n";
  char pct[64];
  std::snprintf(pct, sizeof pct, "x%.4f", ratio);
  const std::string rateText = [&]() -> std::string {
    switch (rate) {
      case Outcome::Converged: return "converged: the time per byte agrees within 0.2 %";
      case Outcome::AtBound:
        return f.efficiency >= kEfficiencyHigh
                   ? "at its upper bound 1: the measured copies are faster than the model "
                     "even at efficiency 1 (their time per byte is the model's " +
                         std::string(pct) +
                         "); check the links' generation, lanes, mps, mrrs and tags"
                   : "at its lower bound 0.05: the measured copies are slower than the model "
                     "even at efficiency 0.05 (their time per byte is the model's " +
                         std::string(pct) + ")";
      case Outcome::NotFitted:
        return "not fitted: one size per direction (measure at least two sizes)";
      case Outcome::NoEffect:
        return "not fitted: the root complex does not limit these copies (efficiency does not "
               "move their rate)";
      case Outcome::NotConverged: break;
    }
    return "did not converge in " + std::to_string(o.iterations) + " steps (time per byte " +
           std::string(pct) + " off; raise --iterations)";
  }();
  char us[64];
  std::snprintf(us, sizeof us, "%+.3f us", shift * 1e6);
  const std::string setupText =
      setup == Outcome::Converged ? "converged: the best further shift is under 5 ns"
      : setup == Outcome::AtBound
          ? "at its lower bound 0: the copies would need " + std::string(us) +
                " each with no setup latency at all; the fixed costs elsewhere "
                "(root_complex.latency, link latency, scheduler.task_launch) are too large"
          : "did not converge in " + std::to_string(o.iterations) + " steps (every copy " +
                std::string(us) + " off; raise --iterations)";
  std::cout << "note: efficiency " << rateText << "\n";
  std::cout << "note: setup_latency " << setupText << "\n";
  // The verdict: a fit that leaves more than --max-rms, or needs a setting beyond its bound, does
  // not describe the measurements, and no calibrated machine is written.
  std::vector<std::string> failures;
  if (rate == Outcome::AtBound) failures.push_back("efficiency sits at its bound");
  if (setup == Outcome::AtBound) failures.push_back("setup_latency sits at its bound");
  if (r.rms * 100 > o.maxRmsPercent) {
    char line[240];
    std::snprintf(line, sizeof line,
                  "the rms error %.2f %% exceeds the threshold of %.2f %% (--max-rms)%s",
                  r.rms * 100, o.maxRmsPercent,
                  failures.empty() ? ": the measurements have a shape that one rate and one fixed "
                                     "cost per copy cannot take"
                                   : "");
    failures.push_back(line);
  }
  if (gStopSignal != 0) return -gStopSignal;
  if (!failures.empty()) {
    std::string all;
    for (const std::string& x : failures) all += (all.empty() ? "" : "; ") + x;
    std::cout << "calibrate: the fit does not describe the measurements: " << all
              << (o.out.empty() ? "" : "; " + o.out + " not written") << "\n";
    return kExitFailure;
  }
  if (!o.out.empty()) {
    spec::SystemSpec result = sys;
    apply(f, result);
    const std::string header =
        "# Calibrated by `ascendsim calibrate " + o.measured +
        (o.config.empty() ? "" : " --config " + o.config) + "`: " +
        "pcie.root_complex.efficiency and every device's dma.setup_latency\n# were fitted to "
        "the measured copy times; " +
        summary.str() + ".\n# efficiency " + rateText + ".\n# setup_latency " + setupText + ".\n" +
        commented(table);
    if (!writeOutput(o.out, header + spec::writeSystemSpecYaml(result), "calibrate"))
      return kExitFailure;
    std::cout << "wrote " << o.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void addCalibrateCommand(CLI::App& command, int& exitCode) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = &command;
  cmd->add_option("measured", o->measured,
                  "CSV of measured copies: size,direction,seconds (the calibration probe's output)")
      ->required();
  cmd->add_option(
      "--config,-c", o->config,
      "Machine to calibrate: a YAML file or a built-in preset (default: built-in default)");
  cmd->add_option("--out,-o", o->out, "Write the calibrated machine (YAML) to this file");
  cmd->add_option("--device,-d", o->device, "The device the probe measured (default 0)");
  cmd->add_option(
      "--probe", o->probe,
      "The probe program to run on the simulator (default: ascendsim-calibration-probe)");
  cmd->add_option("--iterations", o->iterations, "Most probe runs on the simulator (default 8)")
      ->check(CLI::Range(1, 50));
  cmd->add_option("--max-rms", o->maxRmsPercent,
                  "Fail (exit 1, nothing written) when the fit's rms relative error exceeds this "
                  "many percent (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->footer(
      "Measure on the real machine with the probe (examples/calibration_probe, built against "
      "CANN):\n"
      "  ascendsim-calibration-probe --out measured.csv\n"
      "then: ascendsim calibrate measured.csv --config atlas-800t-a2 -o calibrated.yaml\n"
      "The probe runs again on the simulated machine for each trial; docs/calibration.md explains "
      "the fit.");
  cmd->callback([o, &exitCode] {
    exitCode = calibrate(*o);
    if (exitCode < 0) {  // stopped by a signal, its working directory gone: end by it
      std::fflush(nullptr);
      std::signal(-exitCode, SIG_DFL);
      std::raise(-exitCode);
      exitCode = kExitFailure;
    }
  });
}

namespace {
const SubcommandRegistration kRegistered{{"subcommand",
                                          "calibrate",
                                          "Fit the root-complex efficiency and DMA setup latency "
                                          "to copy times measured on a real machine",
                                          {},
                                          {}},
                                         addCalibrateCommand};
}  // namespace

}  // namespace ascendsim::tools
