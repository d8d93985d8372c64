#include "models/dma/fixed_rate_timing.h"
#include "models/dma/path_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/compute/ai_core_work.h"

namespace ascendsim::models {

FixedRateTiming::FixedRateTiming(const spec::SystemSpec& sys, Router& router)
    : sys_(sys), router_(router) {
  runsOnDevice_ = sys.runMode == spec::RunMode::Device;
  host_ = sustainedSequentialRates(sys.host.memory);
  for (const spec::DeviceSpec& d : sys.devices)
    devices_.push_back(sustainedSequentialRates(d.memory));
}

const SustainedRates& FixedRateTiming::memoryOf(const MemoryPlace& place) const {
  // In run mode device the "host" is the device's own memory.
  if (place.kind == MemoryPlace::Kind::Device)
    return devices_.at(static_cast<size_t>(place.device));
  return sys_.runMode == spec::RunMode::Device ? devices_.at(0) : host_;
}

// No contention in this model: a copy gets at most its engine's whole rate.
double FixedRateTiming::rate(int device, const Task& task) {
  const double engine = sys_.devices.at(static_cast<size_t>(device)).dma.engineBandwidth;
  if (engine > 0) return std::min(engine, rateIgnoringEngine(device, task));
  return rateIgnoringEngine(device, task);
}

// The narrowest rate on the copy's way, the DMA engine's aside.
double FixedRateTiming::rateIgnoringEngine(int device, const Task& task) {
  const bool rc = sys_.runMode == spec::RunMode::Device;
  if (task.kind == TaskKind::Memset) return memoryOf(task.dst).write;
  const bool srcDev = task.src.kind == MemoryPlace::Kind::Device;
  const bool dstDev = task.dst.kind == MemoryPlace::Kind::Device;
  const bool sameMemory = rc || (srcDev && dstDev && task.src.device == task.dst.device);
  // A copy within one memory reads and writes it: the two share its bus.
  if (sameMemory) return memoryOf(task.src).copy;
  double r = std::min(memoryOf(task.src).read, memoryOf(task.dst).write);
  if (task.src.kind == MemoryPlace::Kind::HostPageable ||
      task.dst.kind == MemoryPlace::Kind::HostPageable) {
    r = std::min(r, sys_.host.cpuCopyBandwidth);  // staged by a CPU core through a pinned buffer
  }
  // Host <-> device, or peer to peer: every link on the route bounds it at its raw rate.
  // (host memory on the socket its buffer lives on)
  const int other = srcDev ? task.src.device : task.dst.device;
  auto host = [&](const MemoryPlace& m) {
    return Endpoint::host(
        static_cast<int>(router_.graph().hostSocketFor(m.socket, other, task.hostThreadInProcess)));
  };
  const Endpoint from = srcDev ? Endpoint::of(task.src.device) : host(task.src);
  const Endpoint to = dstDev ? Endpoint::of(task.dst.device) : host(task.dst);
  // (and a device link's transfer rate bounds one transfer).
  for (const Crossing& c : router_.route(from, to, device).crossings) {
    r = std::min(r, c.link->bandwidth());
    if (c.link->transferRate() > 0) r = std::min(r, c.link->transferRate());
  }
  return r;
}

ChunkTiming FixedRateTiming::moveChunk(int device, const Task& task, uint64_t offset,
                                       Picoseconds ready) {
  // The whole remainder is one chunk: nothing it crosses is shared with other channels.
  const uint64_t bytes = task.bytes - offset;
  if (task.kind == TaskKind::Kernel) {
    // The slower of the cores and the device memory's own read and write time.
    const KernelSlice s = sliceOf(task.kernel, offset, bytes);
    const SustainedRates& m = devices_.at(static_cast<size_t>(device));
    const double memory =
        static_cast<double>(s.bytesRead) / m.read + static_cast<double>(s.bytesWritten) / m.write;
    const Picoseconds cores =
        coreTime(sys_.devices.at(static_cast<size_t>(device)).aicore, s, task.kernel.opBytes);
    const Picoseconds end =
        ready + std::max(cores, static_cast<Picoseconds>(std::llround(memory * 1e12)));
    reportKernel(device, task.kernel, offset, bytes, ready, end);
    return {bytes, end, end};
  }
  const Picoseconds end = ready + static_cast<Picoseconds>(std::llround(static_cast<double>(bytes) /
                                                                        rate(device, task) * 1e12));
  reportTransfer(task, offset, bytes, true, true, ready, end);
  return {bytes, end, end};
}

namespace {
const DmaModelRegistration kRegistered{
    {"dma-model",
     "fixed-rate",
     "setup latency, then bytes over the narrowest raw rate on the route (links, memories' "
     "sustained rates)",
     {"setup_latency", "engine_bandwidth"},
     {{"cycle_memory", 0}}},
    [](const spec::SystemSpec& sys, MachineGraph&, Router& router) {
      return std::make_unique<FixedRateTiming>(sys, router);
    }};
}  // namespace

}  // namespace ascendsim::models
