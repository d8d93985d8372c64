#include "models/memory/cycle_memory.h"

#include <algorithm>
#include <cmath>

namespace ascendsim::models {
namespace {
const MemoryRegistration kRegistered{
    {"memory-timing",
     "cycle",
     "every burst at its address through the DRAM model (for validation runs)",
     {},
     {}},
    [](const std::string& name, const spec::DramSpec& spec, double share, int observerIndex,
       ResourceTable& table) {
      return std::make_unique<CycleMemory>(name, spec, share, observerIndex, table);
    }};

// A NUMA node's part of host memory: its share of the channels and of the capacity.
spec::DramSpec partOf(const spec::DramSpec& whole, double share) {
  if (share >= 1.0) return whole;
  spec::DramSpec part = whole;
  part.channels = std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(whole.channels * share)));
  part.capacity = whole.capacity / whole.channels * part.channels;
  part.writeBuffer = whole.writeBuffer / whole.channels * part.channels;
  return part;
}

// Bytes arriving evenly over an interval are queued in pieces this large, each at its arrival
// time: small enough that the controller sees the stream's pace, large enough to stay cheap.
constexpr uint64_t kArrivalPiece = 512;
}  // namespace

CycleMemory::CycleMemory(const std::string& name, const spec::DramSpec& spec, double share,
                         int observerIndex, ResourceTable& table)
    : SustainedMemory(name, spec, share, observerIndex, table),
      spec_(partOf(spec, share)),
      dram_(makeMemoryTiming(spec_)),
      bufferBytes_(spec_.writeBuffer) {}

Stage CycleMemory::access(const Shape& shape, bool reads, bool writes, Picoseconds latency) {
  Stage st =
      SustainedMemory::access(shape, reads, writes, latency);  // its occupancy counts as busy time
  st.service = this;
  st.parts = 1;
  return st;
}

void CycleMemory::enqueue(uint64_t address, uint64_t bytes, bool write, Picoseconds arrival) {
  // Program addresses (host virtual, or device) fold into the capacity, keeping their row locality.
  while (bytes > 0) {
    const uint64_t at = address % spec_.capacity;
    const uint64_t n = std::min(bytes, spec_.capacity - at);
    dram_->enqueue(at, n, write, arrival);
    address += n;
    bytes -= n;
  }
}

std::pair<Picoseconds, Picoseconds> CycleMemory::issueReads(const std::vector<AddressRun>& runs,
                                                            uint64_t total, Picoseconds from,
                                                            Picoseconds to) {
  const double perByte = static_cast<double>(to - from) / static_cast<double>(total);
  uint64_t before = 0;  // read bytes queued so far
  // Without a stream queued ahead, as one batch (the DRAM model may replay its drains without
  // queueing the requests), folded as enqueue folds them.
  batch_.clear();
  for (const AddressRun& r : runs) {
    if (r.write) continue;
    for (uint64_t done = 0; done < r.bytes;) {
      // Everything there at once goes in one piece; bytes that trickle in, piece by piece.
      const uint64_t n = perByte == 0.0 ? r.bytes : std::min(kArrivalPiece, r.bytes - done);
      const Picoseconds arrival =
          from + static_cast<Picoseconds>(perByte * static_cast<double>(before + done));
      if (stream_.active) {
        enqueue(r.address + done, n, false, arrival);
      } else {
        for (uint64_t address = r.address + done, bytes = n; bytes > 0;) {
          const uint64_t at = address % spec_.capacity;
          const uint64_t part = std::min(bytes, spec_.capacity - at);
          batch_.push_back({at, part, arrival});
          address += part;
          bytes -= part;
        }
      }
      done += n;
    }
    before += r.bytes;
  }
  if (!stream_.active) {
    const MemoryTiming::BatchEnd e = dram_->drainBatch(batch_, false);
    busyUntil_ = std::max(busyUntil_, e.end);
    return {std::max(to, e.admitted), busyUntil_};
  }
  const Picoseconds taken = std::max(to, dram_->admitted());
  busyUntil_ = std::max(busyUntil_, finish());
  return {taken, busyUntil_};
}

Picoseconds CycleMemory::finish() {
  if (!stream_.active) return dram_->drain();
  return dram_->issueGroup(dram_->mark());
}

void CycleMemory::endStream() {
  // Every group is asked for once (the DRAM forgets it then).
  for (const Queued& q : stream_.queued) dram_->issueGroup(q.group);
  stream_ = Stream{};
}

std::pair<Picoseconds, Picoseconds> CycleMemory::streamReads(const Stage& stage, Picoseconds head) {
  const StreamAhead& a = *stage.stream;
  Stream& s = stream_;
  const uint64_t firstQueued = s.queued.empty() ? s.next : s.queued.front().piece;
  if (!s.active || s.id != a.id || s.pieces != a.pieces || a.piece < firstQueued ||
      a.piece > s.next) {
    endStream();  // another stream, or this one out of step
    s.active = true;
    s.id = a.id;
    s.pieces = a.pieces;
    s.next = a.piece;
  }
  // The requests so far belong to no piece of the stream: a group of their own.
  if (s.queued.empty()) dram_->issueGroup(dram_->mark());
  auto queue = [&](const std::vector<AddressRun>& runs) {
    for (const AddressRun& r : runs) {
      if (!r.write) enqueue(r.address, r.bytes, false, head);
    }
    s.queued.push_back({s.next++, dram_->mark(), dram_->admitted()});
  };
  if (s.next == a.piece) queue(stage.runs);
  std::vector<AddressRun> ahead;
  for (const uint64_t last = std::min(a.pieces, a.piece + 1 + a.ahead); s.next < last;) {
    ahead.clear();
    a.reads(s.next, ahead);
    queue(ahead);
  }
  while (s.queued.front().piece < a.piece) {  // (never: pieces are served in order)
    dram_->issueGroup(s.queued.front().group);
    s.queued.pop_front();
  }
  const Queued mine = s.queued.front();
  s.queued.pop_front();
  const Picoseconds done = std::max(head, dram_->issueGroup(mine.group));
  busyUntil_ = std::max(busyUntil_, done);
  if (a.piece + 1 >= a.pieces) endStream();  // its last piece
  return {std::max(head, mine.taken), done};
}

void CycleMemory::bufferWrites(const std::vector<AddressRun>& runs, uint64_t total,
                               Picoseconds from, Picoseconds to) {
  const double perByte = static_cast<double>(to - from) / static_cast<double>(total);
  uint64_t before = 0;
  for (const AddressRun& r : runs) {
    if (!r.write) continue;
    writes_.push_back({r.address, r.bytes,
                       from + static_cast<Picoseconds>(perByte * static_cast<double>(before))});
    before += r.bytes;
    buffered_ += r.bytes;
  }
}

Picoseconds CycleMemory::drainWrites() {
  if (!stream_.active) {
    // In one step (the DRAM model may replay a batch like it), folded as enqueue folds them.
    batch_.clear();
    for (const PendingWrite& w : writes_) {
      for (uint64_t address = w.address, bytes = w.bytes; bytes > 0;) {
        const uint64_t at = address % spec_.capacity;
        const uint64_t n = std::min(bytes, spec_.capacity - at);
        batch_.push_back({at, n, w.arrival});
        address += n;
        bytes -= n;
      }
    }
    writes_.clear();
    buffered_ = 0;
    busyUntil_ = std::max(busyUntil_, dram_->enqueueAndDrain(batch_, true));
    return busyUntil_;
  }
  for (const PendingWrite& w : writes_) enqueue(w.address, w.bytes, true, w.arrival);
  writes_.clear();
  buffered_ = 0;
  busyUntil_ = std::max(busyUntil_, finish());
  return busyUntil_;
}

StageService::Served CycleMemory::serve(const Stage& stage, Picoseconds head, Picoseconds tail) {
  uint64_t readBytes = 0, writeBytes = 0;
  for (const AddressRun& r : stage.runs) (r.write ? writeBytes : readBytes) += r.bytes;
  // Buffered writes went out while the memory had nothing else to do.
  if (!writes_.empty() && busyUntil_ < head) drainWrites();
  Picoseconds readsEnd = head, end = head, readsTaken = head;
  if (readBytes > 0) {
    const auto [taken, done] =
        stage.stream ? streamReads(stage, head) : issueReads(stage.runs, readBytes, head, tail);
    readsTaken = taken;
    end = readsEnd = std::max(head, done);
  }
  if (writeBytes > 0) {
    // A copy inside this memory writes what it read, as the reads return; otherwise the writes
    // come as the bytes arrive. They are done when the buffer has taken them; when it is full,
    // when the channels have (the writer waits for room).
    const Picoseconds from = readBytes > 0 ? head + stage.latency : head;
    const Picoseconds to = readBytes > 0 ? std::max(from, readsEnd) : tail;
    bufferWrites(stage.runs, writeBytes, from, to);
    end = std::max(end, buffered_ >= bufferBytes_ ? drainWrites() : to);
  }
  // A reader may send its next requests once the channels took these.
  return {std::min(end, head + stage.latency), end, readBytes > 0 ? readsTaken : end};
}

}  // namespace ascendsim::models
