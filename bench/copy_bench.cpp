// Copy benchmark: wall time and simulated throughput of 1 GiB H2D copies through the PCIe/DMA
// model (or D2D copies inside device memory with --d2d), on one device or on several at once,
// with per-hop chunk counts and peak memory. --timing cycle times device memory burst by burst.
//
//   build/release/bench/copy_bench [--devices N] [--chunk BYTES] [--gib G] [--machine PRESET]
//                                  [--timing sustained|cycle] [--d2d 1] [--runs 0] [--replay 0]
//   bash bench/copy_bench.sh        (the matrix of docs/performance.md)
//
// SystemC elaborates one machine per process, so each configuration is its own run.
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/system/simulated_system.h"
#include "spec/system_loader.h"

using namespace ascendsim;

namespace {
const char* kUsage =
    "usage: copy_bench [--devices N] [--chunk BYTES] [--gib G] [--machine PRESET]\n"
    "                  [--timing sustained|cycle] [--d2d 0|1] [--runs 0|1] [--replay 0|1]\n"
    "Wall time and simulated throughput of G GiB (1) of H2D copies, or D2D copies inside device\n"
    "memory with --d2d 1, on N devices (1) of PRESET (atlas-800t-a2) at once; --runs 0 moves\n"
    "every piece one by one (runs of steady pieces in one step are the default); --replay 0\n"
    "turns the DRAM model's drain replay off (memory.drain_replay: off), for comparison.\n";

// A whole number, all of `text`; throws with the option's name otherwise.
uint64_t wholeNumber(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end || errno)
    throw std::invalid_argument(option + ": '" + text + "' is not a whole number");
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  int devices = 1;
  uint64_t chunk = 0;  // 0: the machine's default
  uint64_t gib = 1;
  std::string preset = "atlas-800t-a2";
  std::string timing;  // empty: the machine's own
  bool d2d = false;
  bool runs = true;  // steady pieces moved as runs (--runs 0: piece by piece)
  int replay = -1;   // the DRAM model's drain replay (memory.drain_replay): -1 the machine's own
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string option = argv[i];
      if (option == "--help" || option == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      }
      if (i + 1 >= argc) throw std::invalid_argument(option + ": a value must follow");
      const std::string value = argv[++i];
      if (option == "--timing") {
        timing = value;
      } else if (option == "--d2d") {
        d2d = wholeNumber(option, value) != 0;
      } else if (option == "--replay") {
        replay = wholeNumber(option, value) != 0;
      } else if (option == "--runs") {
        runs = wholeNumber(option, value) != 0;
      } else if (option == "--devices") {
        devices = static_cast<int>(std::min<uint64_t>(wholeNumber(option, value), 1024));
      } else if (option == "--chunk") {
        chunk = wholeNumber(option, value);
      } else if (option == "--gib") {
        gib = wholeNumber(option, value);
      } else if (option == "--machine") {
        preset = value;
      } else {
        throw std::invalid_argument("unknown option '" + option + "'");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "copy_bench: %s\n%s", e.what(), kUsage);
    return 2;
  }
  spec::SystemSpec sys = spec::loadSystemSpec(preset);
  if (devices > static_cast<int>(sys.devices.size()))
    devices = static_cast<int>(sys.devices.size());
  for (auto& d : sys.devices) {
    if (chunk) d.dma.chunkSize = chunk;
    if (!timing.empty()) d.memory.timing = timing;
    if (replay >= 0) d.memory.drainReplay = replay != 0;
  }
  const auto wall0 = std::chrono::steady_clock::now();
  models::SimulatedSystem system(sys);
  system.setPieceRuns(runs);
  const uint64_t bytes = gib << 30;
  std::vector<std::unique_ptr<models::StreamQueue>> streams;
  std::vector<models::Picoseconds> ends(static_cast<size_t>(devices), -1);
  // The runtime splits H2D copies into 64 MiB tasks and D2D copies into 4 GiB ones; do the same.
  const uint64_t task = d2d ? 4ull << 30 : 64ull << 20;
  for (int d = 0; d < devices; ++d) {
    streams.push_back(std::make_unique<models::StreamQueue>(static_cast<uint32_t>(d), 1024));
    system.device(static_cast<size_t>(d)).attach(*streams.back());
    for (uint64_t off = 0; off < bytes; off += task) {
      auto t = std::make_unique<models::Task>();
      t->kind = models::TaskKind::Copy;
      t->src = d2d ? models::MemoryPlace{models::MemoryPlace::Kind::Device, d, off}
                   : models::MemoryPlace{models::MemoryPlace::Kind::HostPinned, -1, off};
      t->dst = {models::MemoryPlace::Kind::Device, d, (d2d ? bytes + (256ull << 10) : 0) + off};
      t->bytes = std::min<uint64_t>(task, bytes - off);
      models::Task* raw = t.get();
      t->effect = [&ends, d, raw] { ends[static_cast<size_t>(d)] = raw->endTime; };
      system.device(static_cast<size_t>(d)).submit(*streams.back(), std::move(t));
    }
  }
  system.runUntil([&] {
    for (auto& s : streams)
      if (!s->idle()) return false;
    return true;
  });
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  models::Picoseconds last = 0;
  for (auto e : ends) last = std::max(last, e);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double simulated = static_cast<double>(last) * 1e-12;
  std::printf("%s: %d device(s) x %llu GiB %s, chunk %llu B, memory timing %s\n", preset.c_str(),
              devices, static_cast<unsigned long long>(gib), d2d ? "D2D" : "H2D",
              static_cast<unsigned long long>(sys.devices[0].dma.chunkSize),
              sys.devices[0].memory.timing.c_str());
  std::printf("  simulated time %.3f ms, aggregate %.2f GB/s (%.2f GB/s per device)\n",
              simulated * 1e3, static_cast<double>(bytes) * devices / simulated / 1e9,
              static_cast<double>(bytes) / simulated / 1e9);
  std::printf("  wall time %.3f s, peak resident memory %ld MiB\n", wall, usage.ru_maxrss / 1024);
  uint64_t events = 0;
  std::printf("  chunks per hop:");
  for (const auto& r : system.graph().resources()) {
    if (r.chunks == 0) continue;
    events += r.chunks;
    std::printf(" %s=%llu", r.name.c_str(), static_cast<unsigned long long>(r.chunks));
  }
  std::printf("\n  hop events %llu, %.2f million per second of wall time\n",
              static_cast<unsigned long long>(events), static_cast<double>(events) / wall / 1e6);
  return 0;
}
