#pragma once
// The timing of one memory (a device's HBM or LPDDR, or the host's DDR). Implementations are
// chosen by name in YAML (`memory.model`) and register themselves from their own files
// (DramModelRegistration): "banked" (banked_dram.cpp), "fixed-latency" (fixed_latency_dram.cpp).

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/dram/dram_stats.h"
#include "spec/kind_registry.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

using Picoseconds = spec::Picoseconds;

class MemoryTiming {
 public:
  virtual ~MemoryTiming() = default;
  // Queues an access of `bytes` at byte `offset` into the memory, arriving at `arrival`.
  // Requests queued together are scheduled together (reordered within each channel's queue).
  virtual void enqueue(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival) = 0;
  // Issues everything queued; returns when the last byte of it moved.
  virtual Picoseconds drain() = 0;
  // When the latest request queued since the last drain was taken in by its channel (a full
  // queue makes the sender wait): from then on the sender may send more.
  virtual Picoseconds admitted() const = 0;
  // Streaming, for a requester that keeps requests queued across its pieces (a kernel's tiles)
  // and waits for one piece at a time: mark() closes the group of requests queued since the last
  // mark and returns its number (0, 1, ...); issueGroup(g) issues queued requests in the
  // scheduler's order (other groups' among them, as it chooses) until every request of group g
  // has moved, and returns when the last of them did (0 for an empty group). Each group is asked
  // for once, in any order.
  virtual uint64_t mark() = 0;
  virtual Picoseconds issueGroup(uint64_t group) = 0;
  // A batch of accesses offered at once (a write buffer's contents, a copy piece's reads), then
  // drained: the same as enqueue for each in order, admitted() and drain(); an implementation may
  // take it in one step. Returns when the channels took its last request and when its last byte
  // moved.
  struct BatchAccess {
    uint64_t offset, bytes;
    Picoseconds arrival;
  };
  struct BatchEnd {
    Picoseconds admitted, end;
  };
  virtual BatchEnd drainBatch(const std::vector<BatchAccess>& batch, bool write) {
    for (const BatchAccess& a : batch) enqueue(a.offset, a.bytes, write, a.arrival);
    const Picoseconds taken = admitted();
    return {taken, drain()};
  }
  Picoseconds enqueueAndDrain(const std::vector<BatchAccess>& batch, bool write) {
    return drainBatch(batch, write).end;
  }
  // One access on its own: enqueue + drain.
  Picoseconds access(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival) {
    enqueue(offset, bytes, write, arrival);
    return drain();
  }
  virtual DramStats totalStats() const = 0;
  virtual std::vector<DramStats> channelStats() const = 0;
  // The scalar counters summed over channels, without copying histograms.
  virtual DramCounters counters() const = 0;
  virtual const char* name() const = 0;
};

using MemoryTimingFactory = std::function<std::unique_ptr<MemoryTiming>(const spec::DramSpec&)>;
using DramModelRegistration = kinds::Registration<MemoryTimingFactory>;

// Builds the implementation `memory.model` names.
std::unique_ptr<MemoryTiming> makeMemoryTiming(const spec::DramSpec& memory);

}  // namespace ascendsim::models
