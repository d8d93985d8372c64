#pragma once
// "cycle": every burst a copy or kernel moves goes, at its address, through the memory's DRAM
// model (`memory.model`: banked channels with bank state, FR-FCFS and refresh, or fixed latency),
// in one controller shared by all the traffic that reaches the memory. A piece's bursts arrive as
// its bytes do; the piece is through when its last burst is. Slower than "sustained", and it sees
// address mappings, access patterns, bank timing and queue depths.
// A streaming requester (a kernel, Stage::stream) keeps the reads of its next pieces queued: the
// channels see its requests as one continuous stream, and each piece waits for its own bursts
// only (MemoryTiming::issueGroup), not for the channels to empty.

#include <deque>
#include <memory>

#include "models/dram/memory_timing.h"
#include "models/memory/sustained_memory.h"

namespace ascendsim::models {

class CycleMemory : public SustainedMemory, public StageService {
 public:
  CycleMemory(const std::string& name, const spec::DramSpec& spec, double share, int observerIndex,
              ResourceTable& table);
  Stage access(const Shape& shape, bool reads, bool writes, Picoseconds latency) override;
  Served serve(const Stage& stage, Picoseconds head, Picoseconds tail) override;
  // The DRAM model's own counters (row hits, refreshes, latencies) of everything served.
  const MemoryTiming& dram() const { return *dram_; }

 private:
  struct PendingWrite {
    uint64_t address, bytes;
    Picoseconds arrival;
  };
  // Queues the runs' reads, their bytes arriving evenly over [from, to]; returns when the channels
  // took the last one and when its data has moved.
  std::pair<Picoseconds, Picoseconds> issueReads(const std::vector<AddressRun>& runs,
                                                 uint64_t total, Picoseconds from, Picoseconds to);
  // The runs' writes into the write buffer, arriving likewise.
  void bufferWrites(const std::vector<AddressRun>& runs, uint64_t total, Picoseconds from,
                    Picoseconds to);
  // Sends every buffered write to the channels; returns when the last one's data has moved.
  Picoseconds drainWrites();
  // Issues what was queued since the last group; returns when the last of it moved. While a
  // stream is queued ahead, only those requests are waited for (the stream's stay queued).
  Picoseconds finish();
  // A streaming stage's reads: its piece's bursts (queued with the pieces before, or now) and the
  // next pieces' up to the requester's bound, arriving at `head`; returns when the channels took
  // the piece's reads and when their data has moved.
  std::pair<Picoseconds, Picoseconds> streamReads(const Stage& stage, Picoseconds head);
  // Gives up the stream queued ahead (its requests stay queued and issue as the channels choose).
  void endStream();
  // Queues [address, address + bytes) folded into the memory's capacity, arriving at `arrival`.
  void enqueue(uint64_t address, uint64_t bytes, bool write, Picoseconds arrival);
  spec::DramSpec spec_;  // this memory's part of the channels (a NUMA node's share of host DDR)
  std::unique_ptr<MemoryTiming> dram_;
  // The controller's write buffer: writes wait here while reads go first, and go to the channels
  // together (one bus turnaround) when it fills, or when the memory had nothing else to do.
  std::vector<PendingWrite> writes_;
  std::vector<MemoryTiming::BatchAccess> batch_;  // a batch of writes or reads (its capacity kept)
  uint64_t buffered_ = 0;                         // bytes in it
  uint64_t bufferBytes_;                          // what it holds (`write_buffer`)
  Picoseconds busyUntil_ = 0;                     // when the channels finish what they were given
  // The stream queued ahead (one at a time: a device runs one kernel at a time): its pieces
  // queued and not yet served, each with its group and when the channels took its last read.
  struct Queued {
    uint64_t piece, group;
    Picoseconds taken;
  };
  struct Stream {
    bool active = false;
    uint64_t id = 0, pieces = 0, next = 0;  // next: the first piece not queued yet
    std::deque<Queued> queued;
  } stream_;
};

}  // namespace ascendsim::models
