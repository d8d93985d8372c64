#pragma once
// The machine's PCIe fabric and memories as resources a DMA chunk occupies: each link direction,
// each switch's upstream port, the root complex, host memory, each device's memory and each
// device's pool of read tags. A resource serves one chunk at a time; contention is resolved by
// each resource's busy-until time, chunk by chunk.

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "models/sched/task.h"
#include "spec/system_spec.h"

namespace ascendsim::models::pcie {

struct Resource {
  std::string name;       // "npu0.link.up", "sw0.uplink.down", "host.memory", ...
  uint64_t bytes = 0;     // bytes it carried (wire bytes for links)
  uint64_t chunks = 0;    // chunks that crossed it (simulation events at this hop)
  Picoseconds busy = 0;   // time it was occupied
  std::deque<std::pair<Picoseconds, Picoseconds>> reserved;  // [start, end), sorted, none before `now`
  // Bandwidth samples for the trace: bytes per bin of `binWidth` (0: not sampled), by bin index.
  Picoseconds binWidth = 0;
  std::map<int64_t, double> bins;
  void sample(Picoseconds start, Picoseconds end, uint64_t bytes);

  // Books the earliest [start, start + length) with start >= earliest that overlaps nothing booked;
  // forgets bookings that ended by `now` (nothing earlier can be asked for any more).
  Picoseconds reserve(Picoseconds earliest, Picoseconds length, Picoseconds now);
  // Small TLPs (read requests) interleave with the bulk traffic TLP by TLP: they go at `earliest`
  // and push the end of the bookings back by their length, so the bulk flows absorb their share.
  Picoseconds interleave(Picoseconds earliest, Picoseconds length, Picoseconds now);
};

// One step of a chunk's way: occupy `resource` for `occupancy`, then the head of the chunk moves
// on after `latency` (cut-through), while its tail follows.
struct Stage {
  Resource* resource;
  Picoseconds occupancy;
  Picoseconds latency;
  uint64_t bytes;
  bool wholeChunk = false;  // store and forward: starts after the whole chunk arrived, and hands
                            // it on only when done (the CPU's copy through the staging buffer)
  bool interleaved = false; // small TLPs that slip in between other traffic (read requests)
  bool rateOnly = false;    // a budget, not a pipe (read tags): bookings space chunks out at its
                            // rate, but a chunk's bytes do not wait for its occupancy
  int memory = kNotMemory;  // for memory stages: MemoryTrafficObserver's index of the memory
  bool reads = false, writes = false;  // what a memory stage does to it
  static constexpr int kNotMemory = -2;
};

class PcieFabric {
 public:
  explicit PcieFabric(const spec::SystemSpec& sys);

  // The stages one chunk of `bytes` crosses for a copy from `src` to `dst` run by `device`'s DMA
  // (a memset has no source), in order.
  std::vector<Stage> stages(int device, const Task& task, uint64_t bytes) const;
  // The stages of one tile of a kernel on `device`: device memory serves its reads and writes, and
  // the AI Cores work for `cores`.
  std::vector<Stage> kernelStages(int device, uint64_t bytesRead, uint64_t bytesWritten, Picoseconds cores) const;
  // Runs a chunk through its stages from `ready` on, reserving each resource. Returns when the
  // first stage frees (the channel may start its next chunk) and when the chunk's last byte lands.
  // `spans`, when given, receives each stage's booked [start, end).
  static std::pair<Picoseconds, Picoseconds> flow(const std::vector<Stage>& stages, Picoseconds ready,
                                                  std::vector<std::pair<Picoseconds, Picoseconds>>* spans = nullptr);

  const std::vector<Resource>& resources() const { return resources_; }
  std::vector<Resource>& resources() { return resources_; }
  // Payload bytes per second of a long transfer of `chunk`-byte pieces on `device`'s path to
  // the host, as the protocol arithmetic gives it (for reports and tests).
  double hostReadRate(int device, uint64_t chunk) const;
  double hostWriteRate(int device, uint64_t chunk) const;

 private:
  struct Hop {  // one link on a device's way up to the root complex
    const spec::PcieLinkSpec* link;
    size_t up, down;          // resource indices of its two directions
    Picoseconds switchLatency;  // of the switch at its upper end (0 at the root complex)
  };
  struct DevicePath {
    std::vector<Hop> hops;    // the device's own link first
    uint64_t mps, mrrs, split;
    bool ecrc;
    size_t memory, tags, aicore;
    double tagRate;           // bytes/s its read tags sustain: tags x MRRS / round trip
  };

  size_t add(std::string name);
  void upStages(const DevicePath& p, uint64_t wireBytes, size_t hopCount, std::vector<Stage>& out,
                bool requests = false) const;
  void downStages(const DevicePath& p, uint64_t wireBytes, size_t hopCount, std::vector<Stage>& out) const;
  Stage memoryStage(size_t resource, uint64_t bytes, double rate, Picoseconds latency, int memory, bool reads,
                    bool writes) const;

  const spec::SystemSpec& sys_;
  mutable std::vector<Resource> resources_;
  std::vector<DevicePath> paths_;
  size_t hostMemory_, hostCpu_;
  double hostRead_, hostWrite_;
  std::vector<double> deviceRead_, deviceWrite_;
  Picoseconds hostLatency_;
  std::vector<Picoseconds> deviceLatency_;
};

// Time for `bytes` at `rate` bytes/s, in whole picoseconds (rounded up).
Picoseconds transferTime(uint64_t bytes, double rate);

}  // namespace ascendsim::models::pcie
