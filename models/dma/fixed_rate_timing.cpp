#include "models/dma/fixed_rate_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ascendsim::models {

FixedRateTiming::FixedRateTiming(const spec::SystemSpec& sys) : sys_(sys) {}

double FixedRateTiming::sideRate(const MemoryPlace& place) const {
  const bool rc = sys_.runMode == spec::RunMode::Device;
  if (place.kind == MemoryPlace::Kind::Device) {
    const spec::DeviceSpec& d = sys_.devices.at(static_cast<size_t>(place.device));
    // A device crossing PCIe is bounded by its link; on-chip it is bounded by its memory.
    return d.memory.peakBandwidth();
  }
  double r = rc ? sys_.devices.at(0).memory.peakBandwidth() : sys_.host.memory.peakBandwidth();
  if (place.kind == MemoryPlace::Kind::HostPageable && !rc) r = std::min(r, sys_.host.cpuCopyBandwidth);
  return r;
}

double FixedRateTiming::rate(int device, const Task& task) const {
  const spec::DeviceSpec& dev = sys_.devices.at(static_cast<size_t>(device));
  const bool rc = sys_.runMode == spec::RunMode::Device;
  if (task.kind == TaskKind::Memset) return dev.memory.peakBandwidth();
  const bool srcDev = task.src.kind == MemoryPlace::Kind::Device;
  const bool dstDev = task.dst.kind == MemoryPlace::Kind::Device;
  double r = std::min(sideRate(task.src), sideRate(task.dst));
  if (rc || (srcDev && dstDev && task.src.device == task.dst.device)) {
    // Local copy: the same memory is read and written, so it carries the bytes twice.
    return std::min(r, dev.memory.peakBandwidth() / 2);
  }
  // Host <-> device, or peer to peer: every crossing link bounds it.
  if (srcDev) r = std::min(r, sys_.devices.at(static_cast<size_t>(task.src.device)).link.lineBandwidth());
  if (dstDev) r = std::min(r, sys_.devices.at(static_cast<size_t>(task.dst.device)).link.lineBandwidth());
  return r;
}

Picoseconds FixedRateTiming::duration(int device, const Task& task) const {
  const spec::DeviceSpec& dev = sys_.devices.at(static_cast<size_t>(device));
  const double seconds = static_cast<double>(task.bytes) / rate(device, task);
  return dev.dma.setupLatency + static_cast<Picoseconds>(std::llround(seconds * 1e12));
}

std::unique_ptr<TransferTiming> makeTransferTiming(const std::string& name, const spec::SystemSpec& sys) {
  if (name == "fixed-rate") return std::make_unique<FixedRateTiming>(sys);
  throw std::invalid_argument("unknown transfer timing model '" + name + "'");
}

}  // namespace ascendsim::models
