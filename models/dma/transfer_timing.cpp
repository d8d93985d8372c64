#include "models/dma/transfer_timing.h"

#include <algorithm>

#include "models/compute/ai_core_work.h"
#include "models/compute/kernel_access.h"

namespace ascendsim::models {
namespace {

// Patterned kernels report their places a cache line at a time, as the statistics replay requests.
constexpr uint64_t kReportBurst = 64;

}  // namespace

int TransferTiming::memoryIndex(const MemoryPlace& place) const {
  if (place.kind == MemoryPlace::Kind::Device) return place.device;
  return runsOnDevice_ ? 0 : MemoryTrafficObserver::kHostMemory;
}

void TransferTiming::reportTransfer(const Task& task, uint64_t offset, uint64_t bytes, bool reads,
                                    bool writes, Picoseconds start, Picoseconds end) const {
  if (!observer_) return;
  if (reads && task.kind == TaskKind::Copy) {
    observer_->memoryAccess(memoryIndex(task.src), task.src.address + offset, bytes, false, start,
                            end);
  }
  if (writes)
    observer_->memoryAccess(memoryIndex(task.dst), task.dst.address + offset, bytes, true, start,
                            end);
}

void TransferTiming::reportKernel(int device, const KernelWork& work, uint64_t offset,
                                  uint64_t length, Picoseconds start, Picoseconds end) const {
  if (!observer_) return;
  const KernelSlice s = sliceOf(work, offset, length);
  std::vector<AddressRun> runs;
  // (A kernel that names its access size reports the places it times.)
  const uint64_t burst = work.accessBytes > 0 ? work.accessBytes : kReportBurst;
  kernelRuns(work, false, s.readFrom, s.bytesRead, burst, 0, runs);
  kernelRuns(work, true, s.writtenFrom, s.bytesWritten, burst, work.bytesRead, runs);
  for (const AddressRun& r : runs)
    observer_->memoryAccess(device, r.address, r.bytes, r.write, start, end);
}

}  // namespace ascendsim::models
