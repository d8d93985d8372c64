// DRAM model benchmark: simulated bandwidth, latency and row-hit rate, and how many requests the
// model simulates per second of wall time, for the access patterns of docs/performance.md.
//
//   build/release/bench/dram_bench [--requests N]...
//
// Every request is 64 bytes. Requests are offered as fast as the controller's queues take them
// (closed loop: a request enters its channel's queue when a slot frees), so bandwidth is what the
// memory sustains and latency is queueing plus service.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "models/dram/memory_timing.h"
#include "spec/system_loader.h"

using namespace ascendsim;

namespace {

spec::DramSpec memoryPreset(const std::string& preset) {
  const std::string yaml = "host: { memory: { preset: ddr4-3200 } }\n"
                           "devices: [ { port: rc.0, memory: { preset: " + preset + " } } ]\n";
  return spec::loadSystemSpecFromText(yaml, "bench.yaml").devices[0].memory;
}

struct Pattern {
  const char* name;
  bool random;
  uint64_t stride;    // sequential patterns
  int writeEvery;     // 0: reads only; 1: all writes; 3: every third is a write
};

const uint64_t kSpan = 1ull << 30;  // random addresses fall in 1 GiB

void run(const std::string& preset, const Pattern& p, uint64_t n) {
  const spec::DramSpec mem = memoryPreset(preset);
  auto timing = models::makeMemoryTiming(mem);
  std::mt19937_64 rng(42);
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t address;
    if (p.random) {
      address = (rng() % (kSpan / 64)) * 64;
    } else {
      const uint64_t linear = i * p.stride;
      address = linear % kSpan + (linear / kSpan) * 64;
    }
    const bool write = p.writeEvery == 1 || (p.writeEvery > 1 && i % p.writeEvery == 0);
    timing->enqueue(address, 64, write, 0);
  }
  timing->drain();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const models::DramStats s = timing->totalStats();
  std::printf("%-10s %-22s %9llu %10.1f %7.1f%% %9.1f %9.1f %8.1f%% %10.2f\n", preset.c_str(), p.name,
              static_cast<unsigned long long>(n), s.bandwidth() / 1e9, 100.0 * s.bandwidth() / mem.peakBandwidth(),
              s.meanReadLatencyNs(), s.readLatencyPercentileNs(99), 100.0 * s.rowHitRate(),
              static_cast<double>(n) / wall / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes;
  std::string onlyMemory, onlyPattern;  // --memory hbm2e, --pattern "random read": a subset
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--requests") == 0) sizes.push_back(std::stoull(argv[++i]));
    else if (std::strcmp(argv[i], "--memory") == 0) onlyMemory = argv[++i];
    else if (std::strcmp(argv[i], "--pattern") == 0) onlyPattern = argv[++i];
  }
  if (sizes.empty()) sizes = {1000000, 4000000};
  const Pattern patterns[] = {
      {"sequential read", false, 64, 0},
      {"random read", true, 0, 0},
      {"sequential write", false, 64, 1},
      {"random 2:1 read/write", true, 0, 3},
      {"4KiB-strided read", false, 4096, 0},
  };
  std::printf("%-10s %-22s %9s %10s %8s %9s %9s %9s %10s\n", "memory", "pattern", "requests", "GB/s",
              "of peak", "mean ns", "p99 ns", "row hits", "Mreq/s");
  for (const char* preset : {"hbm2e", "ddr4-3200"}) {
    if (!onlyMemory.empty() && onlyMemory != preset) continue;
    for (const Pattern& p : patterns) {
      if (!onlyPattern.empty() && onlyPattern != p.name) continue;
      for (uint64_t n : sizes) run(preset, p, n);
    }
  }
  return 0;
}
