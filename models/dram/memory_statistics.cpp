#include "models/dram/memory_statistics.h"

#include <algorithm>

namespace ascendsim::models {
namespace {
constexpr uint64_t kPiece = 64;  // the replay's request size: one cache line, as CPUs and DMA issue
}

MemoryStatistics::MemoryStatistics(const spec::SystemSpec& sys) {
  memories_.push_back(
      {"host.memory", &sys.host.memory, makeMemoryTiming(sys.host.memory), {}, {}, 0});
  for (const spec::DeviceSpec& d : sys.devices) {
    memories_.push_back({d.name + ".memory", &d.memory, makeMemoryTiming(d.memory), {}, {}, 0});
  }
}

void MemoryStatistics::memoryAccess(int index, uint64_t address, uint64_t bytes, bool write,
                                    Picoseconds start, Picoseconds end) {
  if (bytes == 0) return;
  Memory& m = memory(index);
  // Addresses are the program's (host virtual, or device) addresses: folded into the memory's
  // capacity they keep their page and row locality.
  const uint64_t base = address % m.spec->capacity;
  const uint64_t pieces = (bytes + kPiece - 1) / kPiece;
  const double spacing = static_cast<double>(end - start) / static_cast<double>(pieces);
  for (uint64_t i = 0; i < pieces; ++i) {
    const uint64_t at = i * kPiece;
    const Picoseconds arrival = start + static_cast<Picoseconds>(spacing * static_cast<double>(i));
    m.timing->enqueue((base + at) % m.spec->capacity, std::min(kPiece, bytes - at), write, arrival);
  }
  bin(m, start / binWidth_);
}

void MemoryStatistics::bin(Memory& m, int64_t b) {
  const DramCounters now = m.timing->counters();
  const DramCounters delta = now.since(m.seen);
  if (delta.reads + delta.writes > 0) m.bins[b].add(delta);
  m.seen = now;
  m.lastBin = b;
}

void MemoryStatistics::finish() {
  for (Memory& m : memories_) {
    m.timing->drain();
    bin(m, m.lastBin);
  }
}

}  // namespace ascendsim::models
