// `ascendsim validate`: runs the validation cases (validation_cases.h) and prints one table of
// every figure against its reference: as text, markdown (docs/validation.md's table) or CSV.
// Each measurement runs in a child process (SystemC elaborates one machine per process), at most
// --jobs at once; a case outside its tolerance fails the command unless it is a documented miss.

#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "tools/atomic_file.h"
#include "tools/csv_table.h"
#include "tools/exit_codes.h"
#include "tools/subcommand.h"
#include "tools/validate/validation_cases.h"

namespace ascendsim::tools::validate {
namespace {

struct Options {
  bool quick = false, list = false;
  std::vector<std::string> patterns;
  std::string format = "text", output;
  int jobs = 2;
  double timeout = 900;
};

// What one measurement gave: its figures, or why it failed.
struct Outcome {
  Figures figures;
  std::string error;
};

bool matches(const ValidationCase& c, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const std::string& p : patterns) {
    const bool glob = p.find_first_of("*?[") != std::string::npos;
    if (glob ? fnmatch(p.c_str(), c.id.c_str(), 0) == 0 : c.id.find(p) != std::string::npos)
      return true;
  }
  return false;
}

bool writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// In the child: run the measurement, write "name<TAB>value" lines (or "error<TAB>why") and end.
[[noreturn]] void runChild(const Measurement& m, int fd) {
  // The table is the parent's standard output: anything the models print goes to standard error.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  std::string out;
  try {
    for (const auto& [name, value] : m.run()) {
      char number[64];
      std::snprintf(number, sizeof number, "%.17g", value);
      out += name + "\t" + number + "\n";
    }
    out += "end\t0\n";
  } catch (const std::exception& e) {
    std::string why = e.what();
    for (char& ch : why) {
      if (ch == '\n' || ch == '\t') ch = ' ';
    }
    out = "error\t" + why + "\n";
  }
  writeAll(fd, out);
  close(fd);
  _exit(0);
}

Outcome parseChild(const std::string& text) {
  Outcome o;
  bool ended = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string name = line.substr(0, tab), value = line.substr(tab + 1);
    if (name == "error") {
      o.error = value;
      return o;
    }
    if (name == "end") {
      ended = true;
      continue;
    }
    o.figures[name] = std::strtod(value.c_str(), nullptr);
  }
  if (!ended) o.error = "the measurement ended without its figures";
  return o;
}

// Runs the measurements, at most `jobs` at once, each in a child process.
std::map<std::string, Outcome> runMeasurements(const std::vector<const Measurement*>& toRun,
                                               const Options& o) {
  using Clock = std::chrono::steady_clock;
  struct Running {
    const Measurement* m;
    pid_t pid;
    int fd;
    Clock::time_point start;
    std::string text;
    bool killed = false;
  };
  std::map<std::string, Outcome> outcomes;
  std::vector<Running> running;
  size_t next = 0, done = 0;
  auto finish = [&](Running& r) {
    close(r.fd);
    int status = 0;
    while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
    Outcome out = parseChild(r.text);
    if (r.killed) {
      char why[96];
      std::snprintf(why, sizeof why, "stopped after %g s (--timeout)", o.timeout);
      out = Outcome{{}, why};
    } else if (WIFSIGNALED(status)) {
      out =
          Outcome{{},
                  std::string("the measurement died of signal ") +
                      std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")"};
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !out.error.empty()) {
      out.error += " (it exited with " + std::to_string(WEXITSTATUS(status)) + ")";
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
    ++done;
    std::fprintf(stderr, "validate: [%zu/%zu] %s: %.1f s%s%s\n", done, toRun.size(),
                 r.m->id.c_str(), seconds, out.error.empty() ? "" : ": ", out.error.c_str());
    outcomes[r.m->id] = out;
  };
  while (done < toRun.size()) {
    while (next < toRun.size() && static_cast<int>(running.size()) < o.jobs) {
      int fds[2];
      if (pipe2(fds, O_CLOEXEC) != 0) {
        outcomes[toRun[next]->id] = Outcome{{}, std::string("pipe: ") + std::strerror(errno)};
        ++next;
        ++done;
        continue;
      }
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      const pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        runChild(*toRun[next], fds[1]);
      }
      close(fds[1]);
      if (pid < 0) {
        close(fds[0]);
        outcomes[toRun[next]->id] = Outcome{{}, std::string("fork: ") + std::strerror(errno)};
        ++done;
      } else {
        running.push_back({toRun[next], pid, fds[0], Clock::now(), "", false});
      }
      ++next;
    }
    if (running.empty()) continue;
    std::vector<pollfd> polls;
    for (const Running& r : running) polls.push_back({r.fd, POLLIN, 0});
    const int ready = poll(polls.data(), polls.size(), 200);
    if (ready < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + strerror(errno));
    for (size_t i = running.size(); i-- > 0;) {
      Running& r = running[i];
      bool ended = false;
      if (ready > 0 && (polls[i].revents & (POLLIN | POLLHUP | POLLERR))) {
        char buf[4096];
        const ssize_t n = read(r.fd, buf, sizeof buf);
        if (n > 0)
          r.text.append(buf, static_cast<size_t>(n));
        else if (n == 0 || errno != EINTR)
          ended = true;
      }
      if (!ended && !r.killed &&
          std::chrono::duration<double>(Clock::now() - r.start).count() > o.timeout) {
        kill(r.pid, SIGKILL);
        r.killed = true;
      }
      if (ended) {
        finish(r);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  return outcomes;
}

// A reference figure without trailing zeros: 55.28, 20.673, 358.66, 38.
std::string figureText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string referenceText(const ValidationCase& c) {
  return (c.low == c.high ? figureText(c.low) : figureText(c.low) + "-" + figureText(c.high)) +
         " " + c.unit;
}

struct CaseRow {
  const ValidationCase* c = nullptr;
  const Measurement* m = nullptr;
  bool measured = false;
  double model = 0, gap = 0;
  std::string result;  // ok, miss (documented), FAIL, error: ...
  bool failed = false;
};

CaseRow judge(const ValidationCase& c, const Measurement& m,
              const std::map<std::string, Outcome>& outcomes) {
  CaseRow r;
  r.c = &c;
  r.m = &m;
  const Outcome& out = outcomes.at(m.id);
  if (!out.error.empty()) {
    r.result = "error: " + out.error;
    r.failed = true;
    return r;
  }
  const auto it = out.figures.find(c.figure);
  if (it == out.figures.end() || !std::isfinite(it->second)) {
    r.result = "error: the measurement gave no figure '" + c.figure + "'";
    r.failed = true;
    return r;
  }
  r.measured = true;
  r.model = it->second;
  r.gap = gapFromRange(r.model, c.low, c.high);
  if (std::fabs(r.gap) <= c.tolerance) {
    // A documented miss the model now meets: its declaration can go.
    r.result = c.knownMiss.empty() ? "ok" : "ok (no longer a miss)";
  } else if (!c.knownMiss.empty()) {
    r.result = "miss (documented)";
  } else {
    r.result = "FAIL";
    r.failed = true;
  }
  return r;
}

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
std::string gapText(const CaseRow& r) {
  if (!r.measured) return "-";
  // Two decimals of a percent: the tightest tolerances are 0.1 %.
  const std::string g = fixed(100 * r.gap, 2);
  return (r.gap > 0 && g != "0.00" ? "+" : "") + (g == "-0.00" ? "0.00" : g) + " %";
}
std::string modelText(const CaseRow& r) {
  return r.measured ? fixed(r.model, 3) + " " + r.c->unit : "-";
}
std::string toleranceText(const ValidationCase& c) {
  return figureText(100 * c.tolerance) + " %";
}

std::string markdownCell(std::string s) {
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

std::string summary(const std::vector<CaseRow>& rows) {
  size_t ok = 0, misses = 0, failed = 0, notRun = 0;
  for (const CaseRow& r : rows) {
    if (r.result.rfind("not run", 0) == 0)
      ++notRun;
    else if (r.result.rfind("ok", 0) == 0)
      ++ok;
    else if (r.failed)
      ++failed;
    else
      ++misses;
  }
  const std::string count = std::to_string(rows.size()) + (rows.size() == 1 ? " case" : " cases");
  if (notRun == rows.size()) return count + ", not run (--list)";
  return count + ": " + std::to_string(ok) + " within tolerance, " + std::to_string(misses) +
         " documented miss" + (misses == 1 ? "" : "es") + ", " + std::to_string(failed) + " failed";
}

std::string markdown(const std::vector<CaseRow>& rows) {
  std::ostringstream out;
  out << "| case | figure | reference | model | gap | tolerance | result | basis | source | "
         "machine and workload | why this tolerance |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const CaseRow& r : rows) {
    const ValidationCase& c = *r.c;
    std::string result = r.result;
    if (r.result == "miss (documented)") result += ": " + c.knownMiss;
    out << "| `" << c.id << "` | " << markdownCell(c.what) << " | " << referenceText(c) << " | "
        << modelText(r) << " | " << gapText(r) << " | " << toleranceText(c) << " | "
        << markdownCell(result) << " | " << basisName(c.basis) << " | " << markdownCell(c.source)
        << " | " << markdownCell(r.m->machine) << " | " << markdownCell(c.why) << " |\n";
  }
  out << "\n" << summary(rows) << ".\n";
  return out.str();
}

std::string text(const std::vector<CaseRow>& rows) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-46s %20s %14s %9s %5s  %s\n", "case", "reference", "model",
                "gap", "tol", "result");
  out << line;
  for (const CaseRow& r : rows) {
    std::snprintf(line, sizeof line, "%-46s %20s %14s %9s %5s  %s\n", r.c->id.c_str(),
                  referenceText(*r.c).c_str(), modelText(r).c_str(), gapText(r).c_str(),
                  toleranceText(*r.c).c_str(), r.result.c_str());
    out << line;
  }
  out << summary(rows) << "\n";
  return out.str();
}

std::string csv(const std::vector<CaseRow>& rows) {
  std::vector<tools::Row> table;
  for (const CaseRow& r : rows) {
    const ValidationCase& c = *r.c;
    table.push_back({c.id, c.area, c.what, fixed(c.low, 6), fixed(c.high, 6), c.unit,
                     r.measured ? fixed(r.model, 6) : "", r.measured ? fixed(r.gap, 6) : "",
                     fixed(c.tolerance, 6), r.result, basisName(c.basis), c.source, r.m->machine,
                     c.why, c.knownMiss});
  }
  return csvText({"case", "area", "figure", "reference_low", "reference_high", "unit", "model",
                  "gap", "tolerance", "result", "basis", "source", "machine_and_workload",
                  "why_this_tolerance", "known_miss"},
                 table);
}

// Writes the table in the chosen format to --output or stdout.
bool emit(const std::vector<CaseRow>& rows, const Options& o) {
  const std::string table = o.format == "markdown" ? markdown(rows)
                            : o.format == "csv"    ? csv(rows)
                                                   : text(rows);
  if (!o.output.empty()) return writeOutput(o.output, table, "validate");
  std::cout << table;
  return true;
}

const Measurement* measurementOf(const ValidationCase& c) {
  for (const Measurement& m : measurements()) {
    if (m.id == c.measurement) return &m;
  }
  return nullptr;
}

int runValidate(const Options& o) {
  if (o.jobs < 1) {
    std::cerr << "ascendsim validate: --jobs must be 1 or more\n";
    return kExitUsage;
  }
  if (!(o.timeout > 0)) {
    std::cerr << "ascendsim validate: --timeout must be more than 0 seconds\n";
    return kExitUsage;
  }
  std::vector<const ValidationCase*> chosen;
  for (const ValidationCase& c : cases()) {
    if ((!o.quick || c.quick) && matches(c, o.patterns)) chosen.push_back(&c);
  }
  if (chosen.empty()) {
    std::cerr << "ascendsim validate: no case matches";
    for (const std::string& p : o.patterns) std::cerr << " '" << p << "'";
    std::cerr << (o.quick ? " among the --quick cases" : "")
              << "; `ascendsim validate --list` names them\n";
    return kExitUsage;
  }
  if (o.list) {
    // The table without running anything: the result says whether CI's subset has the case.
    std::vector<CaseRow> rows;
    for (const ValidationCase* c : chosen) {
      CaseRow r;
      r.c = c;
      r.m = measurementOf(*c);
      if (!r.m) throw std::logic_error("case " + c->id + " names no measurement " + c->measurement);
      r.result = c->quick ? "not run (in --quick)" : "not run";
      rows.push_back(r);
    }
    return emit(rows, o) ? kExitOk : kExitFailure;
  }
  std::vector<const Measurement*> toRun;
  std::set<std::string> seen;
  for (const ValidationCase* c : chosen) {
    const Measurement* m = measurementOf(*c);
    if (!m) throw std::logic_error("case " + c->id + " names no measurement " + c->measurement);
    if (seen.insert(m->id).second) toRun.push_back(m);
  }
  const std::map<std::string, Outcome> outcomes = runMeasurements(toRun, o);
  std::vector<CaseRow> rows;
  bool failed = false;
  for (const ValidationCase* c : chosen) {
    rows.push_back(judge(*c, *measurementOf(*c), outcomes));
    failed = failed || rows.back().failed;
  }
  if (!emit(rows, o)) return kExitFailure;
  if (failed) std::cerr << "ascendsim validate: " << summary(rows) << "\n";
  return failed ? kExitFailure : kExitOk;
}

void addValidateCommand(CLI::App& cmd, int& exitCode) {
  auto o = std::make_shared<Options>();
  cmd.add_flag("--quick", o->quick, "Only the small subset CI runs (under 30 s)");
  cmd.add_option("--case", o->patterns,
                 "Only the cases whose name contains this text, or matches it as a glob "
                 "(hbm3/*); repeatable");
  cmd.add_option("--format,-f", o->format, "text (default), markdown or csv")
      ->check(CLI::IsMember({"text", "markdown", "csv"}));
  cmd.add_option("--output,-o", o->output, "Write the table to this file instead of stdout");
  cmd.add_option("--jobs,-j", o->jobs, "Measurements run at once, each a process (default 2)");
  cmd.add_option("--timeout", o->timeout,
                 "Seconds one measurement may take before it is stopped and fails (default 900)");
  cmd.add_flag("--list", o->list,
               "The table of the cases (after --quick and --case) without running them");
  cmd.footer(
      "Each case compares one figure of the model with a published measurement or an\n"
      "established simulator's output, within a stated tolerance (docs/validation.md).\n"
      "Exit status 1 when a case is outside its tolerance and not a documented miss.\n"
      "Examples:\n"
      "  ascendsim validate --quick\n"
      "  ascendsim validate --case 'hbm3/*' --format csv -o hbm3.csv\n"
      "  ascendsim validate --format markdown");
  cmd.callback([o, &exitCode] { exitCode = runValidate(*o); });
}

const SubcommandRegistration kRegistered{
    {"subcommand",
     "validate",
     "Compare the models' figures with published measurements and reference simulators",
     {},
     {}},
    addValidateCommand};

}  // namespace
}  // namespace ascendsim::tools::validate
