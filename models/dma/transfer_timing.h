#pragma once
// How a DMA channel moves a copy's or memset's bytes: chunk by chunk, each chunk reserving the
// links and memories it crosses. Implementations are chosen by name (`dma.model`).

#include <functional>
#include <memory>
#include <string>

#include "models/resource/resource.h"
#include "models/task/memory_traffic.h"
#include "models/task/task.h"
#include "spec/kind_registry.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

// What one piece did to one resource of its way, as flow() counts it.
struct PathUse {
  Resource* resource;
  uint64_t bytes = 0, chunks = 0;
  Picoseconds busy = 0;
  bool operator==(const PathUse& o) const {
    return resource == o.resource && bytes == o.bytes && chunks == o.chunks && busy == o.busy;
  }
};

struct ChunkTiming {
  uint64_t bytes = 0;         // payload this chunk moved
  Picoseconds nextIssue = 0;  // when the channel may start its next chunk
  Picoseconds done = 0;       // when this chunk's last byte landed
  uint32_t requests = 0;      // read requests it keeps outstanding until `done` (0: none, a write)
  // When the channel's buffer for it frees: a posted write's once its data has left the device on
  // the link (no completion comes back); otherwise `done`. 0: at `done`.
  Picoseconds released = 0;
  // It went through the calling thread's pinned staging buffer (a pageable copy), which the
  // runtime double-buffers: two such pieces in flight, whatever their read requests.
  bool staged = false;
};

class TransferTiming {
 public:
  virtual ~TransferTiming() = default;
  // Moves the next chunk of `task` (its bytes from `offset` on) on one of `device`'s DMA
  // channels, starting no earlier than `ready`.
  virtual ChunkTiming moveChunk(int device, const Task& task, uint64_t offset,
                                Picoseconds ready) = 0;
  virtual const char* name() const = 0;
  // Read requests one of `device`'s DMA channels may keep outstanding while it moves `task`.
  virtual uint32_t readWindow(int device, const Task& task) const = 0;
  // Whether the next pieces of the last chunk's task, of its size, would cross the same resources
  // and be timed the same way given the same bookings (no memory timed burst by burst, nobody
  // hearing each access), and if so which resources those are. The scheduler then may move a run
  // of them in one step (models/sched/solo_run.h).
  virtual bool lastPathRepeats(std::vector<PathUse>& path) const {
    (void)path;
    return false;
  }
  // Who books a resource for `device`'s DMA channel `channel`: a number no other channel shares.
  static int bookingOwner(int device, int channel) { return (device + 1) * 4096 + channel + 1; }
  // Who hears about every access to a memory (the DRAM statistics); nullptr: nobody.
  void setTrafficObserver(MemoryTrafficObserver* observer) { observer_ = observer; }

 protected:
  // Reports bytes [offset, offset + bytes) of a copy or memset read from its source and/or written
  // to its destination over [start, end).
  void reportTransfer(const Task& task, uint64_t offset, uint64_t bytes, bool reads, bool writes,
                      Picoseconds start, Picoseconds end) const;
  // Reports the reads and writes of a kernel's traffic bytes [offset, offset + length) on `device`.
  void reportKernel(int device, const KernelWork& work, uint64_t offset, uint64_t length,
                    Picoseconds start, Picoseconds end) const;
  // The observer's index of the memory `place` is in.
  int memoryIndex(const MemoryPlace& place) const;
  MemoryTrafficObserver* observer_ = nullptr;
  bool runsOnDevice_ = false;  // run mode device: "host" memory is device 0's
};

class MachineGraph;
class Router;
// Implementations register themselves by the name `dma.model` takes (the "dma-model" kinds):
// "pcie" (path_timing.cpp, through the machine graph) and "fixed-rate" (fixed_rate_timing.cpp).
// A kind that charges memories only their sustained rates registers the limit
// "cycle_memory" = 0, and the configuration refuses it beside a memory with `timing: cycle`.
using TransferTimingFactory = std::function<std::unique_ptr<TransferTiming>(
    const spec::SystemSpec& sys, MachineGraph& graph, Router& router)>;
using DmaModelRegistration = kinds::Registration<TransferTimingFactory>;
std::unique_ptr<TransferTiming> makeTransferTiming(const std::string& name,
                                                   const spec::SystemSpec& sys, MachineGraph& graph,
                                                   Router& router);

}  // namespace ascendsim::models
