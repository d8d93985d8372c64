#include "models/dma/transfer_timing.h"

#include <algorithm>

#include "models/compute/ai_core_work.h"

namespace ascendsim::models {
namespace {

__extension__ typedef unsigned __int128 Wide;

uint64_t scaled(uint64_t total, uint64_t part, uint64_t whole) {
  return whole == 0 ? 0 : static_cast<uint64_t>(static_cast<Wide>(total) * part / whole);
}

// Bytes [from, from + length) of the concatenation of `ranges`, one access per range they touch;
// without ranges (a timing-only kernel), a stream from `fallback`.
template <class Emit>
void walk(const std::vector<KernelWork::Range>& ranges, uint64_t from, uint64_t length, uint64_t fallback, Emit&& emit) {
  if (length == 0) return;
  if (ranges.empty()) {
    emit(fallback + from, length);
    return;
  }
  uint64_t skip = from;
  for (const KernelWork::Range& r : ranges) {
    if (length == 0) break;
    if (skip >= r.bytes) {
      skip -= r.bytes;
      continue;
    }
    const uint64_t n = std::min(length, r.bytes - skip);
    emit(r.address + skip, n);
    length -= n;
    skip = 0;
  }
}

}  // namespace

int TransferTiming::memoryIndex(const MemoryPlace& place) const {
  if (place.kind == MemoryPlace::Kind::Device) return place.device;
  return runsOnDevice_ ? 0 : MemoryTrafficObserver::kHostMemory;
}

void TransferTiming::reportTransfer(const Task& task, uint64_t offset, uint64_t bytes, bool reads, bool writes,
                                    Picoseconds start, Picoseconds end) const {
  if (!observer_) return;
  if (reads && task.kind == TaskKind::Copy) {
    observer_->memoryAccess(memoryIndex(task.src), task.src.address + offset, bytes, false, start, end);
  }
  if (writes) observer_->memoryAccess(memoryIndex(task.dst), task.dst.address + offset, bytes, true, start, end);
}

void TransferTiming::reportKernel(int device, const KernelWork& work, uint64_t offset, uint64_t length,
                                  Picoseconds start, Picoseconds end) const {
  if (!observer_) return;
  const uint64_t total = work.bytesRead + work.bytesWritten;
  const KernelSlice s = sliceOf(work, offset, length);
  walk(work.readRanges, scaled(work.bytesRead, offset, total), s.bytesRead, 0, [&](uint64_t address, uint64_t n) {
    observer_->memoryAccess(device, address, n, false, start, end);
  });
  walk(work.writeRanges, scaled(work.bytesWritten, offset, total), s.bytesWritten, work.bytesRead,
       [&](uint64_t address, uint64_t n) { observer_->memoryAccess(device, address, n, true, start, end); });
}

}  // namespace ascendsim::models
