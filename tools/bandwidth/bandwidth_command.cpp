#include "tools/bandwidth/bandwidth_command.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "spec/system_loader.h"
#include "tools/atomic_file.h"
#include "tools/bandwidth/bandwidth_runner.h"
#include "tools/exit_codes.h"
#include "tools/machine_options.h"
#include "tools/plot/line_chart.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace {

using models::MemoryPlace;

const std::vector<std::string> kAllTests = {"h2d",   "d2h",         "d2d",         "p2p",
                                            "bidir", "all-to-host", "host-to-all", "add"};

struct Options {
  std::vector<std::string> sizeWords{"64KiB..256MiB", "x4"};
  MachineChoice machine;
  std::string memory = "pinned", tests = "h2d,d2h,d2d,p2p,bidir,all-to-host,host-to-all";
  std::string csv, json, svg, trace, matrixSize;
};

using Record = BandwidthRecord;

double rate(uint64_t bytes, spec::Picoseconds t) {
  return t > 0 ? static_cast<double>(bytes) / (static_cast<double>(t) * 1e-12) / 1e9 : 0;
}

class Bandwidth {
 public:
  Bandwidth(const spec::SystemSpec& sys, bool pageable, const std::string& trace)
      : runner_(sys, trace), sys_(runner_.spec()), pageable_(pageable) {}

  MemoryPlace host() const {
    return {pageable_ ? MemoryPlace::Kind::HostPageable : MemoryPlace::Kind::HostPinned, -1, 0};
  }
  static MemoryPlace dev(int d) { return {MemoryPlace::Kind::Device, d, 0}; }
  std::string name(int d) const { return sys_.devices.at(static_cast<size_t>(d)).name; }
  int devices() const { return static_cast<int>(sys_.devices.size()); }

  // One test at one size: its records (one per copy, plus aggregates).
  std::vector<Record> run(const std::string& test, uint64_t size) {
    std::vector<Record> out;
    auto one = [&](const std::string& t, const std::string& src, const std::string& dst,
                   const CopyRequest& c) {
      const spec::Picoseconds time = runner_.runTogether({c})[0];
      out.push_back({t, src, dst, size, static_cast<double>(time) / 1e6, rate(size, time), "ok"});
    };
    if (test == "h2d") {
      for (int d = 0; d < devices(); ++d) one(test, "host", name(d), {d, host(), dev(d), size});
    } else if (test == "d2h") {
      for (int d = 0; d < devices(); ++d) one(test, name(d), "host", {d, dev(d), host(), size});
    } else if (test == "add") {
      // A STREAM-style add on the AI Cores: c = a + b over float32 arrays of `size` bytes each; its
      // rate counts all three arrays' traffic (3 x size), as STREAM does.
      for (int d = 0; d < devices(); ++d) {
        CopyRequest k{d, dev(d), dev(d), 0};
        k.kernel.name = "add";
        k.kernel.bytesRead = 2 * size;
        k.kernel.bytesWritten = size;
        k.kernel.ops = size / 4;
        const spec::Picoseconds time = runner_.runTogether({k})[0];
        out.push_back({test, name(d), name(d), size, static_cast<double>(time) / 1e6,
                       rate(3 * size, time), "ok"});
      }
    } else if (test == "d2d") {
      for (int d = 0; d < devices(); ++d) one(test, name(d), name(d), {d, dev(d), dev(d), size});
    } else if (test == "p2p") {
      for (int a = 0; a < devices(); ++a) {
        for (int b = 0; b < devices(); ++b) {
          if (a == b) continue;
          std::string why;
          if (!runner_.system().router().peersAllowed(a, b, &why)) {
            out.push_back({test, name(a), name(b), size, 0, 0, "refused: " + why});
          } else {
            one(test, name(a), name(b), {a, dev(a), dev(b), size});
          }
        }
      }
    } else if (test == "bidir") {
      for (int d = 0; d < devices(); ++d) {
        // As nvbandwidth's host_to_device_bidirectional_memcpy_ce and its D2H twin: the measured
        // copy of `size` runs beside a copy twice as large the other way, so that the other
        // direction is busy for the whole measurement; only the measured copy is timed.
        const auto h2d =
            runner_.runTogether({{d, host(), dev(d), size}, {d, dev(d), host(), 2 * size}});
        const auto d2h =
            runner_.runTogether({{d, dev(d), host(), size}, {d, host(), dev(d), 2 * size}});
        out.push_back({"bidir h2d", "host", name(d), size, static_cast<double>(h2d[0]) / 1e6,
                       rate(size, h2d[0]), "ok"});
        out.push_back({"bidir d2h", name(d), "host", size, static_cast<double>(d2h[0]) / 1e6,
                       rate(size, d2h[0]), "ok"});
        // Both directions' sum as rocm-bandwidth-test counts it: two copies of `size` started
        // together, 2 x size over the time until the later ends.
        const auto t = runner_.runTogether({{d, host(), dev(d), size}, {d, dev(d), host(), size}});
        const spec::Picoseconds both = std::max(t[0], t[1]);
        out.push_back({"bidir", "host", name(d), size, static_cast<double>(both) / 1e6,
                       rate(2 * size, both), "ok"});
      }
    } else {  // all-to-host, host-to-all
      const bool up = test == "all-to-host";
      std::vector<CopyRequest> copies;
      for (int d = 0; d < devices(); ++d)
        copies.push_back(up ? CopyRequest{d, dev(d), host(), size}
                            : CopyRequest{d, host(), dev(d), size});
      const auto t = runner_.runTogether(copies);
      spec::Picoseconds last = 0;
      for (int d = 0; d < devices(); ++d) {
        out.push_back({test, up ? name(d) : "host", up ? "host" : name(d), size,
                       static_cast<double>(t[static_cast<size_t>(d)]) / 1e6,
                       rate(size, t[static_cast<size_t>(d)]), "ok"});
        last = std::max(last, t[static_cast<size_t>(d)]);
      }
      out.push_back({test, up ? "all" : "host", up ? "host" : "all", size,
                     static_cast<double>(last) / 1e6,
                     rate(size * static_cast<uint64_t>(devices()), last), "ok"});
    }
    return out;
  }

 private:
  BandwidthRunner runner_;
  const spec::SystemSpec& sys_;
  bool pageable_;
};

std::string cell(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%9.2f", v);
  return buf;
}

std::string matrixTable(const std::string& test, const std::vector<Record>& recs,
                        const std::vector<std::string>& devs) {
  std::ostringstream out;
  if (test == "p2p") {
    out << "          ";
    for (const auto& d : devs)
      out << " " << std::string(std::max<int>(0, 9 - static_cast<int>(d.size())), ' ') << d;
    out << "\n";
    for (const auto& a : devs) {
      out << std::string(std::max<int>(0, 10 - static_cast<int>(a.size())), ' ') << a;
      for (const auto& b : devs) {
        std::string v = "        -";
        for (const auto& r : recs) {
          if (r.src == a && r.dst == b) v = r.status == "ok" ? cell(r.gbps) : "      n/a";
        }
        out << " " << v;
      }
      out << "\n";
    }
    out << "  (rows: source, columns: destination; n/a: peer access refused, see "
           "aclrtGetDevicesTopo)\n";
    return out.str();
  }
  for (const auto& r : recs) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-12s %-8s -> %-8s %s GB/s  %10.3f us\n", r.test.c_str(),
                  r.src.c_str(), r.dst.c_str(), cell(r.gbps).c_str(), r.timeUs);
    out << line;
  }
  return out.str();
}

int runBandwidth(const Options& o) {
  std::string why;
  std::string sizeText;
  for (const auto& w : o.sizeWords) sizeText += (sizeText.empty() ? "" : " ") + w;
  auto sizes = parseSizes(sizeText, why);
  if (!sizes) {
    std::cerr << "ascendsim bandwidth: --sizes: " << why << "\n";
    return kExitUsage;
  }
  std::vector<std::string> tests;
  {
    std::stringstream in(o.tests);
    std::string t;
    while (std::getline(in, t, ',')) {
      if (std::find(kAllTests.begin(), kAllTests.end(), t) == kAllTests.end()) {
        std::cerr << "ascendsim bandwidth: --tests: unknown test '" << t
                  << "'; choose from h2d, d2h, d2d, p2p, bidir, all-to-host, host-to-all, add\n";
        return kExitUsage;
      }
      tests.push_back(t);
    }
  }
  uint64_t matrixSize = sizes->back();
  if (!o.matrixSize.empty()) {
    auto m = spec::parseBytes(o.matrixSize, why);
    if (!m || *m == 0) {
      std::cerr << "ascendsim bandwidth: --matrix-size: " << (m ? "must be more than 0" : why)
                << "\n";
      return kExitUsage;
    }
    matrixSize = *m;
  }
  spec::SystemSpec sys;
  try {
    sys = loadMachine(o.machine);
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
  // Every copy needs its buffers: a size no device (or the host) can hold is refused, as a run on
  // the real machine would fail to allocate it. Device-to-device copies hold source and
  // destination.
  {
    uint64_t smallest = UINT64_MAX;
    for (const auto& d : sys.devices) smallest = std::min(smallest, d.memory.capacity);
    const bool d2d = std::find(tests.begin(), tests.end(), "d2d") != tests.end() ||
                     std::find(tests.begin(), tests.end(), "add") != tests.end();
    const uint64_t largest = std::max(*std::max_element(sizes->begin(), sizes->end()), matrixSize);
    const uint64_t deviceNeed =
        d2d ? (largest > UINT64_MAX / 2 ? UINT64_MAX : 2 * largest) : largest;
    if (!sys.devices.empty() && deviceNeed > smallest) {
      std::cerr << "ascendsim bandwidth: " << spec::describeBytes(largest)
                << " copies do not fit: the smallest device has " << spec::describeBytes(smallest)
                << (d2d ? " and device-to-device copies hold two buffers" : "") << "\n";
      return kExitUsage;
    }
    if (largest > sys.host.memory.capacity) {
      std::cerr << "ascendsim bandwidth: " << spec::describeBytes(largest)
                << " copies do not fit in the host's "
                << spec::describeBytes(sys.host.memory.capacity) << "\n";
      return kExitUsage;
    }
  }
  std::unique_ptr<Bandwidth> bw;
  try {
    bw = std::make_unique<Bandwidth>(sys, o.memory == "pageable", o.trace);
  } catch (const std::exception& e) {
    std::cerr << "ascendsim bandwidth: " << e.what() << "\n";
    return kExitFailure;
  }
  std::vector<std::string> devs;
  for (const auto& d : sys.devices) devs.push_back(d.name);

  std::cout
      << "AscendSim bandwidth: " << (sys.name.empty() ? o.machine.config : sys.name) << ", "
      << sys.devices.size() << " device(s), " << o.memory << " host memory\n"
      << "GB/s = 10^9 bytes per second; each copy timed from its submission to its last byte\n";
  std::vector<Record> all;
  std::map<std::string, std::vector<std::pair<uint64_t, double>>>
      series;  // for the sweep and the chart
  for (const std::string& test : tests) {
    std::vector<uint64_t> runSizes = *sizes;
    if (std::find(runSizes.begin(), runSizes.end(), matrixSize) == runSizes.end())
      runSizes.push_back(matrixSize);
    std::vector<Record> atMatrix;
    for (uint64_t size : runSizes) {
      std::vector<Record> recs = bw->run(test, size);
      if (size == matrixSize) atMatrix = recs;
      // The sweep follows the first device (or the aggregate for the all-device tests).
      for (const Record& r : recs) {
        const bool pick =
            test == "all-to-host" || test == "host-to-all" ? (r.src == "all" || r.dst == "all")
            : test == "bidir"                              ? r.test == "bidir"
                              : r.status == "ok" && (r.src == devs[0] || r.dst == devs[0]);
        if (pick && std::find(sizes->begin(), sizes->end(), size) != sizes->end()) {
          auto& s = series[test];
          if (s.empty() || s.back().first != size) s.push_back({size, r.gbps});
        }
      }
      if (std::find(sizes->begin(), sizes->end(), size) != sizes->end() || size == matrixSize) {
        all.insert(all.end(), recs.begin(), recs.end());
      }
    }
    std::cout << "\n"
              << test << " at " << spec::formatBytes(matrixSize) << "\n"
              << matrixTable(test, atMatrix, devs);
  }
  // The size sweep: one column per test.
  std::cout << "\nsize sweep (GB/s; " << devs[0]
            << ", or all devices for all-to-host and host-to-all)\n        size";
  for (const auto& t : tests)
    std::cout << " " << std::string(std::max<int>(0, 12 - static_cast<int>(t.size())), ' ') << t;
  std::cout << "\n";
  for (uint64_t size : *sizes) {
    std::cout << std::string(
                     std::max<int>(0, 12 - static_cast<int>(spec::formatBytes(size).size())), ' ')
              << spec::formatBytes(size);
    for (const auto& t : tests) {
      double v = -1;
      for (const auto& [s, g] : series[t]) {
        if (s == size) v = g;
      }
      std::cout << (v < 0 ? "          n/a" : "    " + cell(v));
    }
    std::cout << "\n";
  }

  if (!o.csv.empty()) {
    std::ostringstream csv;
    csv << "test,src,dst,size_bytes,memory,time_us,GBps,status\n";
    for (const auto& r : all) {
      char line[256];
      std::snprintf(line, sizeof line, "%s,%s,%s,%llu,%s,%.6f,%.6f,%s\n", r.test.c_str(),
                    r.src.c_str(), r.dst.c_str(), static_cast<unsigned long long>(r.size),
                    o.memory.c_str(), r.timeUs, r.gbps, r.status.c_str());
      csv << line;
    }
    if (!writeOutput(o.csv, csv.str(), "bandwidth")) return kExitFailure;
  }
  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["machine"] = sys.name;
    j["memory"] = o.memory;
    j["unit"] = "GB/s = 1e9 bytes/s; time from submission to last byte";
    j["records"] = nlohmann::ordered_json::array();
    for (const auto& r : all) {
      j["records"].push_back({{"test", r.test},
                              {"src", r.src},
                              {"dst", r.dst},
                              {"size_bytes", r.size},
                              {"time_us", r.timeUs},
                              {"GBps", r.gbps},
                              {"status", r.status}});
    }
    if (!writeOutput(o.json, j.dump(2) + "\n", "bandwidth")) return kExitFailure;
  }
  if (!o.svg.empty()) {
    std::vector<ChartSeries> lines;
    for (const auto& t : tests) {
      ChartSeries line{t, {}};
      for (const auto& [bytes, gbps] : series[t])
        line.points.push_back({static_cast<double>(bytes), gbps});
      lines.push_back(line);
    }
    if (!writeOutput(o.svg, lineChartSvg("Bandwidth against copy size: " + sys.name, lines),
                     "bandwidth"))
      return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

std::optional<std::vector<uint64_t>> parseSizes(const std::string& text, std::string& why) {
  std::vector<uint64_t> out;
  const auto dots = text.find("..");
  if (dots != std::string::npos) {
    std::string rest = text.substr(dots + 2);
    double factor = 2;
    const auto x = rest.find('x');
    if (x != std::string::npos) {
      std::string f = rest.substr(x + 1);
      rest = rest.substr(0, x);
      auto n = spec::parseInteger(f, why);
      if (!n || *n < 2) {
        why = "the step after 'x' must be a whole number of 2 or more, got '" + f + "'";
        return std::nullopt;
      }
      factor = static_cast<double>(*n);
    }
    auto from = spec::parseBytes(text.substr(0, dots), why);
    auto to = spec::parseBytes(rest, why);
    if (!from || !to) return std::nullopt;
    if (*from == 0 || *to < *from) {
      why = "a range goes from a size above 0 up to a larger one, e.g. 64B..1GiB x4";
      return std::nullopt;
    }
    for (double s = static_cast<double>(*from); s <= static_cast<double>(*to) * 1.0000001;
         s *= factor) {
      out.push_back(static_cast<uint64_t>(std::llround(s)));
    }
  } else {
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
      auto v = spec::parseBytes(item, why);
      if (!v) return std::nullopt;
      if (*v == 0) {
        why = "sizes must be above 0";
        return std::nullopt;
      }
      out.push_back(*v);
    }
    std::sort(out.begin(), out.end());
  }
  if (out.empty()) {
    why = "no sizes";
    return std::nullopt;
  }
  return out;
}

std::vector<BandwidthRecord> measureBandwidth(const spec::SystemSpec& sys, bool pageable,
                                              const std::vector<std::string>& tests,
                                              uint64_t size) {
  for (const std::string& test : tests) {
    if (std::find(kAllTests.begin(), kAllTests.end(), test) == kAllTests.end())
      throw std::invalid_argument("no bandwidth test '" + test + "'");
  }
  Bandwidth bw(sys, pageable, "");
  std::vector<BandwidthRecord> out;
  for (const std::string& test : tests) {
    const std::vector<BandwidthRecord> recs = bw.run(test, size);
    out.insert(out.end(), recs.begin(), recs.end());
  }
  return out;
}

void addBandwidthCommand(CLI::App& command, int& exitCode) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = &command;
  addMachineOptions(*cmd, o->machine);
  cmd->add_option("--sizes,-s", o->sizeWords,
                  "Copy sizes: a range FROM..TO xFACTOR or a list (default 64KiB..256MiB x4)")
      ->expected(1, 2);
  cmd->add_option("--memory,-m", o->memory, "Host memory: pinned (aclrtMallocHost) or pageable")
      ->check(CLI::IsMember({"pinned", "pageable"}));
  cmd->add_option("--tests,-t", o->tests,
                  "Comma-separated: h2d, d2h, d2d, p2p, bidir, all-to-host, host-to-all (the "
                  "default), and add (a STREAM-style "
                  "add on each device's AI Cores)");
  cmd->add_option("--matrix-size", o->matrixSize,
                  "Size for the device matrices (default: the largest size)");
  cmd->add_option("--csv", o->csv, "Write every measurement as CSV");
  cmd->add_option("--json", o->json, "Write every measurement as JSON");
  cmd->add_option("--svg", o->svg, "Draw bandwidth against size as an SVG chart");
  cmd->add_option("--trace", o->trace, "Write the timing trace of all the copies");
  cmd->footer(
      "Examples:\n  ascendsim bandwidth\n  ascendsim bandwidth --config atlas-800t-a2 --tests "
      "p2p,all-to-host --sizes 256MiB\n"
      "  ascendsim bandwidth --sizes 64B..64MiB x2 --tests h2d,d2h --svg sweep.svg --csv "
      "sweep.csv");
  cmd->callback([o, &exitCode] { exitCode = runBandwidth(*o); });
}

namespace {
const SubcommandRegistration kRegistered{
    {"subcommand",
     "bandwidth",
     "Measure copy bandwidth on the simulated machine (like nvbandwidth)",
     {},
     {}},
    addBandwidthCommand};
}  // namespace

}  // namespace ascendsim::tools
