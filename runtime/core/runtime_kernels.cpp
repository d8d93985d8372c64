// Compute tasks: kernels on a device's AI Cores, ordered on streams like copies.

#include <memory>
#include <vector>

#include "runtime/core/data_mode.h"
#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

using models::MemoryPlace;

void Runtime::launchKernel(HostThread& t, aclrtStream stream, KernelLaunch launch) {
  Stream& s = streams_.stream(t, stream);
  const int device = s.device->id;
  // Resolve every range now: a kernel only touches memory of the device that runs it.
  auto place = [&](const KernelLaunch::Range& r) {
    const MemoryPlace p = memory_->resolve(r.p, r.bytes, r.role.c_str());
    if (p.kind != MemoryPlace::Kind::Device || p.device != device) {
      fail(ACL_ERROR_RT_PARAM_INVALID, r.role + " (" + pointerName(r.p) +
                                           ") is not memory of device " + std::to_string(device) +
                                           ", which runs the stream");
    }
    return p;
  };
  std::vector<std::pair<MemoryPlace, uint64_t>> reads, writes;
  for (const auto& r : launch.reads) {
    if (r.bytes) reads.emplace_back(place(r), r.bytes);
  }
  for (const auto& r : launch.writes) {
    if (r.bytes) writes.emplace_back(place(r), r.bytes);
  }
  auto task = std::make_unique<models::Task>();
  task->kind = models::TaskKind::Kernel;
  task->dst = {MemoryPlace::Kind::Device, device,
               writes.empty() ? 0 : writes.front().first.address};
  task->kernel = std::move(launch.work);
  for (const auto& [p, n] : reads) task->kernel.readRanges.push_back({p.address, n});
  for (const auto& [p, n] : writes) task->kernel.writeRanges.push_back({p.address, n});
  task->bytes = task->kernel.bytesRead + task->kernel.bytesWritten;
  // The memory the kernel uses lives until it ends, even if the program frees it meanwhile.
  MemoryManager* mm = memory_.get();
  auto holds = std::make_shared<std::vector<uint64_t>>();
  auto compute = std::move(launch.compute);
  task->effect = [mm, reads, writes, compute = std::move(compute)] {
    if (!compute || !movesData()) return;
    std::vector<std::vector<uint8_t>> images;
    for (const auto& [p, n] : reads) images.push_back(mm->readDevice(p, n, true));
    for (const auto& [p, n] : writes) images.push_back(mm->readDevice(p, n, false));
    compute(images);
    for (size_t i = 0; i < writes.size(); ++i)
      mm->writeDevice(writes[i].first, images[reads.size() + i]);
  };
  task->release = [mm, holds] {
    for (uint64_t start : *holds) mm->drop(start);
  };
  streams_.submit(t, s, std::move(task));
  for (const auto& [p, n] : reads) holds->push_back(mm->hold(p));  // (queued now: it runs later)
  for (const auto& [p, n] : writes) holds->push_back(mm->hold(p));
}

}  // namespace ascendsim::runtime
