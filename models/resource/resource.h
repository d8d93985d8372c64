#pragma once
// What a chunk of a transfer occupies on its way: a Resource is anything that serves one piece of
// traffic at a time (a link direction, a memory's bus, a CPU core copying, a DMA read-tag budget).
// Contention is resolved by each resource's booked intervals: a piece takes the earliest gap that
// fits, so nothing ticks.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spec/units.h"

namespace ascendsim::models {

using spec::Picoseconds;

// An interval a resource is booked for, and whose traffic booked it (0: nobody said).
struct Booking {
  Picoseconds start, end;
  int owner = 0;
  bool operator==(const Booking& o) const {
    return start == o.start && end == o.end && owner == o.owner;
  }
};

// A run of identical pieces moved in one step while nobody else uses their way
// (models/sched/solo_run.h). Whoever books one of its resources first stops it at that instant.
class HeldPath {
 public:
  virtual ~HeldPath() = default;
  // Everything of the run issued before `t` happened; what comes after is moved piece by piece.
  virtual void yieldAt(Picoseconds t) = 0;
};

struct Resource {
  std::string name;              // "npu0.link.up", "sw0.uplink.down", "host.memory", ...
  uint64_t bytes = 0;            // bytes it carried (wire bytes for links)
  uint64_t chunks = 0;           // pieces that crossed it (simulation events at this hop)
  Picoseconds busy = 0;          // time it was occupied
  std::deque<Booking> reserved;  // [start, end), sorted, none before `now`
  HeldPath* heldBy = nullptr;    // a run of pieces is using it and has not booked it yet
  // Bandwidth samples for the trace: bytes per bin of `binWidth` (0: not sampled), by bin index.
  Picoseconds binWidth = 0;
  std::map<int64_t, double> bins;
  // Negative bytes take back what was sampled.
  void sample(Picoseconds start, Picoseconds end, double bytes);

  // Books the earliest [start, start + length) with start >= earliest that overlaps nothing booked;
  // forgets bookings that ended by `now` (nothing earlier can be asked for any more).
  Picoseconds reserve(Picoseconds earliest, Picoseconds length, Picoseconds now, int owner = 0);
  // Small TLPs (read requests) interleave with the bulk traffic TLP by TLP: they go at `earliest`
  // and push the end of the bookings back by their length, so the bulk flows absorb their share.
  Picoseconds interleave(Picoseconds earliest, Picoseconds length, Picoseconds now, int owner = 0);
};

// Every resource of a machine, in a stable order and at stable addresses (resources may be added
// while it runs: a host thread's CPU copy engine appears with its first pageable copy).
class ResourceTable {
 public:
  Resource& add(std::string name);
  size_t size() const { return items_.size(); }
  Resource& operator[](size_t i) { return items_[i]; }
  const Resource& operator[](size_t i) const { return items_[i]; }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  // Bandwidth samples in bins of `width` for every resource, now and added later.
  void sampleEvery(Picoseconds width);

 private:
  std::deque<Resource> items_;
  Picoseconds binWidth_ = 0;
};

// Bytes a stage reads or writes at an address of its memory (a memory timed burst by burst).
struct AddressRun {
  uint64_t address;
  uint64_t bytes;
  bool write;
};

// A requester that keeps its requests queued across its pieces (a kernel's tiles): where this piece
// stands in its stream, and the reads of the pieces after it, which a memory timed burst by burst
// queues ahead of them (models/memory/cycle_memory.h).
struct StreamAhead {
  uint64_t id = 0;                 // the stream (a kernel task's)
  uint64_t piece = 0, pieces = 0;  // this piece's number and how many the stream has
  uint64_t ahead = 0;              // pieces the requester keeps queued beyond this one
  // Appends the reads of piece `k` to `out`.
  std::function<void(uint64_t k, std::vector<AddressRun>& out)> reads;
};

struct Stage;
// Something that times a stage itself rather than by booking an interval of its resource: a
// memory whose channels schedule each burst (models/memory/cycle_memory.h).
class StageService {
 public:
  virtual ~StageService() = default;
  struct Served {
    Picoseconds first,
        last;          // when its first and last bytes are through (the next stage's head and tail)
    Picoseconds free;  // when it may take the next piece: a copy's reads are in once they returned,
                       // while its writes drain
  };
  // Serves `stage`, whose bytes arrive over [head, tail].
  virtual Served serve(const Stage& stage, Picoseconds head, Picoseconds tail) = 0;
};

// One step of a piece's way: occupy `resource` for `occupancy`, then the head of the piece moves
// on after `latency` (cut-through), while its tail follows.
struct Stage {
  Resource* resource;
  Picoseconds occupancy;
  Picoseconds latency;
  uint64_t bytes;
  bool wholeChunk = false;   // store and forward: starts after the whole piece arrived, and hands
                             // it on only when done (the CPU's copy through the staging buffer)
  bool interleaved = false;  // small TLPs that slip in between other traffic (read requests)
  bool rateOnly = false;     // a budget, not a pipe (read tags, a CPU copy's memory traffic):
                             // bookings space pieces out at its rate, but bytes do not wait for it
  bool alongside = false;    // booked from the previous stage's start, not after it: traffic that
                             // happens while that stage works (a CPU copy's memory reads/writes)
  // Booked in this many equal parts, each as its bytes arrive, so that other traffic to the same
  // resource fits between them (a memory controller interleaves streams request by request).
  uint32_t parts = 1;
  int memory = kNotMemory;  // for memory stages: MemoryTrafficObserver's index of the memory
  bool reads = false, writes = false;  // what a memory stage does to it
  static constexpr int kNotMemory = -2;
  // Set when the resource's owner times the stage itself: `runs` say where its bytes go, reads
  // before writes; `occupancy` is then only what the resource's busy time counts.
  StageService* service = nullptr;
  std::vector<AddressRun> runs = {};
  std::shared_ptr<const StreamAhead> stream = nullptr;  // when `runs` are part of a stream
};

// Runs a piece through its stages from `ready` on, reserving each resource. Returns when the
// first stage frees (the channel may start its next piece) and when the piece's last byte lands.
// `spans`, when given, receives each stage's booked [start, end); `owner` tags the bookings. A run
// of pieces holding one of the resources is stopped at `ready` first.
std::pair<Picoseconds, Picoseconds> flow(
    const std::vector<Stage>& stages, Picoseconds ready,
    std::vector<std::pair<Picoseconds, Picoseconds>>* spans = nullptr, int owner = 0);

// Time for `bytes` at `rate` bytes/s, in whole picoseconds (rounded up).
Picoseconds transferTime(uint64_t bytes, double rate);

}  // namespace ascendsim::models
