// DRAM model benchmark: simulated bandwidth, latency and row-hit rate, and how many requests the
// model simulates per second of wall time and per second of CPU time (the process's user + system
// time, which a shared machine disturbs less), for synthetic access patterns or a request trace in
// DRAMSys's or Ramulator's format (docs/performance.md).
//
//   build/release/bench/dram_bench [--memory NAME|FILE]... [--mapping M] [--pattern P]...
//                                  [--requests N]... [--trace FILE [--format stl|ramulator]]
//
// Requests are offered as fast as the controller's queues take them (closed loop: a request
// enters its channel's queue when a slot frees), so bandwidth is what the memory sustains and
// latency is queueing plus service.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "bench/dram_trace.h"
#include "models/dram/memory_timing.h"
#include "spec/diagnostics.h"
#include "spec/system_loader.h"

using namespace ascendsim;

namespace {

struct Pattern {
  const char* name;
  bool random;
  uint64_t stride;  // sequential patterns
  int writeEvery;   // 0: reads only; 1: all writes; 3: every third is a write
};

const Pattern kPatterns[] = {
    {"sequential read", false, 64, 0},     {"random read", true, 0, 0},
    {"sequential write", false, 64, 1},    {"random 2:1 read/write", true, 0, 3},
    {"4KiB-strided read", false, 4096, 0},
};

const uint64_t kSpan = 1ull << 30;  // random and strided addresses fall in 1 GiB

// CPU time of this process so far, in seconds (user + system).
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Wall and CPU time since construction.
struct Stopwatch {
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  double cpu0 = cpuSeconds();
  double wall() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  }
  double cpu() const { return cpuSeconds() - cpu0; }
};

struct Memory {
  std::string label;
  spec::DramSpec spec;
};

void printHeader() {
  std::printf("%-10s %-22s %9s %10s %8s %9s %9s %9s %10s %11s\n", "memory", "pattern", "requests",
              "GB/s", "of peak", "mean ns", "p99 ns", "row hits", "Mreq/s", "Mreq/cpu s");
}

void printRow(const Memory& m, const std::string& what, uint64_t n, models::MemoryTiming& timing,
              const Stopwatch& clock) {
  const double wall = clock.wall(), cpu = clock.cpu();
  const models::DramStats s = timing.totalStats();
  std::printf("%-10s %-22s %9llu %10.1f %7.1f%% %9.1f %9.1f %8.1f%% %10.2f %11.2f\n",
              m.label.c_str(), what.c_str(), static_cast<unsigned long long>(n),
              s.bandwidth() / 1e9, 100.0 * s.bandwidth() / m.spec.peakBandwidth(),
              s.meanReadLatencyNs(), s.readLatencyPercentileNs(99), 100.0 * s.rowHitRate(),
              static_cast<double>(n) / wall / 1e6, static_cast<double>(n) / cpu / 1e6);
}

void runPattern(const Memory& m, const Pattern& p, uint64_t n, uint64_t requestBytes) {
  auto timing = models::makeMemoryTiming(m.spec);
  std::mt19937_64 rng(42);
  const uint64_t span = std::min(kSpan, m.spec.capacity);
  const Stopwatch clock;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t address;
    if (p.random) {
      address = (rng() % (span / requestBytes)) * requestBytes;
    } else {
      const uint64_t linear = i * (p.stride == 64 ? requestBytes : p.stride);
      address = linear % span + (linear / span) * requestBytes;
    }
    const bool write = p.writeEvery == 1 || (p.writeEvery > 1 && i % p.writeEvery == 0);
    timing->enqueue(address, requestBytes, write, 0);
  }
  timing->drain();
  printRow(m, p.name, n, *timing, clock);
}

int runTrace(const Memory& m, const std::vector<bench::TraceRequest>& trace,
             const std::string& name, uint64_t requestBytes) {
  for (size_t i = 0; i < trace.size(); ++i) {
    if (trace[i].address + requestBytes > m.spec.capacity) {
      std::fprintf(stderr,
                   "dram_bench: %s: request %zu at 0x%llx is beyond the memory's %llu bytes\n",
                   name.c_str(), i + 1, static_cast<unsigned long long>(trace[i].address),
                   static_cast<unsigned long long>(m.spec.capacity));
      return 2;
    }
  }
  auto timing = models::makeMemoryTiming(m.spec);
  const Stopwatch clock;
  for (const bench::TraceRequest& r : trace) timing->enqueue(r.address, requestBytes, r.write, 0);
  timing->drain();
  printRow(m, name, trace.size(), *timing, clock);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dram_bench: the DRAM model's bandwidth, latency and row hits, and its speed"};
  std::vector<std::string> memories, patterns;
  std::vector<uint64_t> sizes;
  std::string mapping, tracePath, format = "detect";
  uint64_t requestBytes = 64;
  app.add_option("--memory,-m", memories,
                 "A built-in memory preset (hbm2, hbm2e, hbm3, ddr4-3200, ddr5-4800, lpddr4x) or a "
                 "YAML memory file; "
                 "repeatable (default: hbm2e and ddr4-3200)");
  app.add_option("--mapping", mapping,
                 "Address mapping: interleaved, bank-group-interleaved, page or a field list");
  std::string patternNames;
  for (const Pattern& p : kPatterns)
    patternNames += std::string(patternNames.empty() ? "" : ", ") + "\"" + p.name + "\"";
  app.add_option("--pattern,-p", patterns, "Only these patterns: " + patternNames);
  app.add_option("--requests,-n", sizes,
                 "Requests per pattern; repeatable (default 1000000 and 4000000)");
  app.add_option("--request-bytes", requestBytes, "Bytes per request (default 64)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--trace,-t", tracePath, "Replay this trace instead of the patterns");
  app.add_option("--format", format, "Trace format: stl (DRAMSys), ramulator (LD/ST) or detect")
      ->check(CLI::IsMember({"detect", "stl", "ramulator"}));
  CLI11_PARSE(app, argc, argv);

  for (const std::string& p : patterns) {
    bool known = false;
    for (const Pattern& k : kPatterns) known = known || p == k.name;
    if (!known) {
      std::fprintf(stderr, "dram_bench: unknown pattern '%s'; patterns: %s\n", p.c_str(),
                   patternNames.c_str());
      return 2;
    }
  }
  if (memories.empty()) memories = {"hbm2e", "ddr4-3200"};
  if (sizes.empty()) sizes = {1000000, 4000000};
  std::vector<Memory> loaded;
  for (const std::string& ref : memories) {
    try {
      loaded.push_back({ref.size() > 10 ? ref.substr(ref.size() - 10) : ref,
                        spec::loadMemorySpec(
                            ref, mapping.empty() ? "" : "address_mapping: \"" + mapping + "\"\n")});
    } catch (const spec::ConfigError& e) {
      std::fprintf(stderr, "dram_bench: %s\n", e.what());
      return 2;
    }
  }
  if (!tracePath.empty()) {
    std::vector<bench::TraceRequest> trace;
    std::string why;
    const auto f = format == "stl"         ? bench::TraceFormat::Stl
                   : format == "ramulator" ? bench::TraceFormat::Ramulator
                                           : bench::TraceFormat::Detect;
    if (!bench::readTrace(tracePath, f, trace, why)) {
      std::fprintf(stderr, "dram_bench: %s\n", why.c_str());
      return 2;
    }
    printHeader();
    const std::string name =
        tracePath.size() > 22 ? "..." + tracePath.substr(tracePath.size() - 19) : tracePath;
    for (const Memory& m : loaded) {
      if (const int rc = runTrace(m, trace, name, requestBytes); rc != 0) return rc;
    }
    return 0;
  }
  printHeader();
  for (const Memory& m : loaded) {
    for (const Pattern& p : kPatterns) {
      bool wanted = patterns.empty();
      for (const std::string& name : patterns) wanted = wanted || name == p.name;
      if (!wanted) continue;
      for (uint64_t n : sizes) runPattern(m, p, n, requestBytes);
    }
  }
  return 0;
}
