// Memory: allocation, copies and memsets, with CANN's argument checks and error codes.

#include <algorithm>
#include <cmath>
#include <memory>

#include "runtime/core/copy_planner.h"
#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"
#include "runtime/core/soc_cores.h"

namespace ascendsim::runtime {

using models::MemoryPlace;
using models::Task;
using models::TaskKind;

namespace {

uint64_t roundUp(uint64_t v, uint64_t to) {
  return (v + to - 1) / to * to;
}

MemoryPlace offsetPlace(MemoryPlace p, uint64_t offset) {
  p.address += offset;
  return p;
}

}  // namespace

// ---------------------------------------------------------------- allocation

void* Runtime::malloc(HostThread& t, size_t size, int32_t policy, bool align32Only) {
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  const uint32_t p = static_cast<uint32_t>(policy);
  const uint32_t base = p & 0xFFu;
  if (base > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P ||
      (p & ~(0xFFu | ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH))) {
    fail(ACL_ERROR_INVALID_PARAM, "unknown aclrtMemMallocPolicy " + std::to_string(p));
  }
  Device& d = *requireContext(t).device;
  if (size > d.memory->capacity()) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::to_string(size) + " bytes exceed device " +
                                             std::to_string(d.id) + "'s capacity of " +
                                             std::to_string(d.memory->capacity()) + " bytes");
  }
  // CANN reserves the size rounded up to 32 B plus 32 B, except for 1 GiB huge pages and Align32.
  const bool exact =
      align32Only || base == ACL_MEM_MALLOC_HUGE1G_ONLY || base == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
  const uint64_t reserved = roundUp(size, 32) + (exact ? 0 : 32);
  return memory_->allocateDevice(d, size, reserved, 64, AllocationApi::Malloc);
}

void* Runtime::dvppMalloc(HostThread& t, size_t size) {
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  Device& d = *requireContext(t).device;
  if (size > d.memory->capacity())
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "request exceeds the device's capacity");
  // DVPP buffers start on 128-byte boundaries.
  return memory_->allocateDevice(d, size, roundUp(size, 32) + 32, 128, AllocationApi::Dvpp);
}

void* Runtime::mallocHost(HostThread& t, size_t size) {
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  if (spec_.runMode == spec::RunMode::Device) {
    // RC mode: the program runs on the device, and "host" memory is the device's own.
    Device& d = t.current ? *t.current->device : *devices_.front();
    if (size > d.memory->capacity())
      fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "request exceeds the device's capacity");
    return memory_->allocateDevice(d, size, roundUp(size, 64), 64, AllocationApi::MallocHost);
  }
  if (size >
      spec_.host.memory.capacity - std::min(memory_->pinnedBytes(), spec_.host.memory.capacity)) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
         "host memory (" + std::to_string(spec_.host.memory.capacity) + " bytes) cannot pin " +
             std::to_string(size) + " more bytes");
  }
  // First touch: the driver pins the pages in the calling thread, so they land on its socket.
  const int socket = spec_.host.memoryPlacement == spec::HostPlacement::Thread
                         ? static_cast<int>(spec_.host.socketOfThread(t.track.thread))
                         : -1;
  return memory_->allocatePinnedHost(size, 64, socket);
}

void Runtime::free(HostThread& t, void* p, AllocationApi api) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "pointer is NULL");
  const std::string name = pointerName(p);
  if (ipc().imported(callerPid(t), p)) {
    fail(ACL_ERROR_RT_MEMORY_FREE,
         name + " was imported from another process; release it with aclrtIpcMemClose");
  }
  if (api == AllocationApi::Malloc && ipc().keepsAlive(p)) return;
  ManagedMemory& managed = hosts().managed();
  if (managed.isAllocation(reinterpret_cast<uint64_t>(p))) {
    // Managed memory is host memory the runtime allocated as pinned; aclrtFree releases it.
    if (api != AllocationApi::Malloc) {
      fail(ACL_ERROR_RT_MEMORY_FREE,
           name + " is managed memory (aclrtMemAllocManaged); release it with aclrtFree");
    }
    managed.remove(reinterpret_cast<uint64_t>(p));
    api = AllocationApi::MallocHost;
  }
  if (memory_->free(p, api)) {
    warn(t, "freed-while-in-use",
         name +
             " was freed while a queued copy or memset still uses it; "
             "it is released when the last of them ends");
  }
}

// ---------------------------------------------------------------- copies

void Runtime::runCopy(HostThread& t, const CopyPlan& plan, std::optional<aclrtStream> stream,
                      std::function<void()> effect, uint64_t bytes) {
  if (!plan.engine) {
    // Host to host: the calling thread's CPU does it.
    effect();
    t.now += static_cast<spec::Picoseconds>(
        std::llround(static_cast<double>(bytes) / spec_.host.cpuCopyBandwidth * 1e12));
    return;
  }
  Stream& s = stream ? streams_.stream(t, *stream) : *plan.engine->copyStream;
  // A recording stream keeps the copy as a model's step: nothing runs now, whatever the memory.
  const bool recorded = streams_.recording(s);
  // CANN counts an asynchronous copy of pageable memory among the calls a capture restricts (it
  // would run synchronously): ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC then.
  if (stream && plan.pageable)
    refuseDuringCapture(t, "an asynchronous copy of pageable host memory",
                        ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC);
  if (stream && s.device != requireContext(t).device) {
    fail(ACL_ERROR_RT_STREAM_CONTEXT, "the stream belongs to device " +
                                          std::to_string(s.device->id) +
                                          " but the current context is on device " +
                                          std::to_string(requireContext(t).device->id));
  }
  const uint64_t pieces =
      std::max<uint64_t>(1, (bytes + plan.maxTaskBytes - 1) / plan.maxTaskBytes);
  for (uint64_t i = 0; i < pieces; ++i) {
    const uint64_t offset = i * plan.maxTaskBytes;
    auto task = std::make_unique<Task>();
    task->kind = TaskKind::Copy;
    task->src = offsetPlace(plan.src, offset);
    task->dst = offsetPlace(plan.dst, offset);
    task->bytes = std::min(plan.maxTaskBytes, bytes - offset);
    if (plan.rowBytes > 0) {
      task->rowBytes = plan.rowBytes;
      task->rows = task->bytes / plan.rowBytes;
      task->srcPitch = plan.srcPitch;
      task->dstPitch = plan.dstPitch;
    }
    // The bytes move when the last task ends, so a reader never sees a half-applied copy; the
    // memories live until then, even if the program frees them meanwhile.
    const bool last = i + 1 == pieces;
    MemoryManager* mm = memory_.get();
    auto holds = std::make_shared<std::pair<uint64_t, uint64_t>>(0, 0);
    if (last) {
      task->effect = effect;
      task->release = [mm, holds] {
        mm->drop(holds->first);
        mm->drop(holds->second);
      };
    }
    streams_.submit(t, s, std::move(task));
    if (last)
      *holds = {mm->hold(plan.dst), mm->hold(plan.src)};  // (it runs no earlier than the next step)
  }
  const bool synchronous = (!stream || plan.pageable) && !recorded;
  if (stream && plan.pageable && !recorded) {
    warn(t, "pageable-async-copy",
         "aclrtMemcpyAsync from pageable host memory ran synchronously; "
         "use aclrtMallocHost memory for asynchronous copies");
  }
  if (synchronous) streams_.wait(t, s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
}

void Runtime::memcpy(HostThread& t, void* dst, size_t destMax, const void* src, size_t count,
                     int32_t kind, std::optional<aclrtStream> stream) {
  if (count == 0) return;
  if (destMax == 0 || count > destMax) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "count " + std::to_string(count) + " exceeds destMax " + std::to_string(destMax));
  }
  if (!stream) refuseDuringCapture(t, "a synchronous memory copy");
  if (dst && dst == src) {
    if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
      fail(ACL_ERROR_INVALID_PARAM, "unsupported aclrtMemcpyKind " + std::to_string(kind));
    }
    return;  // nothing to move
  }
  CopyPlan plan = copyPlanner_->plan(t.current ? t.current->device : nullptr, dst, count, src,
                                     count, kind, stream.has_value());
  MemoryManager* mm = memory_.get();
  runCopy(
      t, plan, stream, [mm, d = plan.dst, s = plan.src, count] { mm->copy(d, s, count); }, count);
}

void Runtime::memcpy2d(HostThread& t, void* dst, size_t dpitch, const void* src, size_t spitch,
                       size_t width, size_t height, int32_t kind,
                       std::optional<aclrtStream> stream) {
  if (width == 0 || height == 0) return;
  if (!dst || !src) fail(ACL_ERROR_INVALID_PARAM, std::string(!dst ? "dst" : "src") + " is NULL");
  if (width > dpitch || width > spitch) {
    fail(ACL_ERROR_INVALID_PARAM, "width " + std::to_string(width) + " exceeds a pitch (dpitch " +
                                      std::to_string(dpitch) + ", spitch " +
                                      std::to_string(spitch) + ")");
  }
  if (!stream) refuseDuringCapture(t, "a synchronous 2D memory copy");
  if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST &&
      kind != ACL_MEMCPY_DEVICE_TO_DEVICE && kind != ACL_MEMCPY_DEFAULT) {
    fail(ACL_ERROR_INVALID_PARAM,
         std::string(copyKindName(kind)) + " is not supported by 2D copies");
  }
  // Check the whole footprint of both sides, then move row by row.
  uint64_t dstSpan = 0, srcSpan = 0;
  if (__builtin_mul_overflow(uint64_t{dpitch}, uint64_t{height - 1}, &dstSpan) ||
      __builtin_add_overflow(dstSpan, uint64_t{width}, &dstSpan) ||
      __builtin_mul_overflow(uint64_t{spitch}, uint64_t{height - 1}, &srcSpan) ||
      __builtin_add_overflow(srcSpan, uint64_t{width}, &srcSpan)) {
    fail(ACL_ERROR_RT_PARAM_INVALID, "pitch x height (" + std::to_string(std::max(dpitch, spitch)) +
                                         " x " + std::to_string(height) +
                                         ") runs past the end of the address space");
  }
  CopyPlan plan = copyPlanner_->plan(t.current ? t.current->device : nullptr, dst, dstSpan, src,
                                     srcSpan, kind, stream.has_value());
  plan.maxTaskBytes = uint64_t{width} * height;
  // Rows with gaps between them (on either side) move as separate runs of packets.
  if (height > 1 && (spitch != width || dpitch != width)) {
    plan.rowBytes = width;
    plan.srcPitch = spitch;
    plan.dstPitch = dpitch;
  }
  MemoryManager* mm = memory_.get();
  auto effect = [mm, d = plan.dst, s = plan.src, dpitch, spitch, width, height] {
    for (size_t row = 0; row < height; ++row) {
      mm->copy(offsetPlace(d, uint64_t{row} * dpitch), offsetPlace(s, uint64_t{row} * spitch),
               width);
    }
  };
  runCopy(t, plan, stream, effect, uint64_t{width} * height);
}

void Runtime::memset(HostThread& t, void* p, size_t maxCount, int32_t value, size_t count,
                     std::optional<aclrtStream> stream) {
  if (count == 0) return;
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
  if (!stream) refuseDuringCapture(t, "a synchronous memset");
  if (count > maxCount) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "count " + std::to_string(count) + " exceeds maxCount " + std::to_string(maxCount));
  }
  const MemoryPlace place = memory_->resolve(p, count, "devPtr");
  const uint8_t byte = static_cast<uint8_t>(value);
  MemoryManager* mm = memory_.get();
  if (!isDevice(place)) {
    mm->fill(place, byte, count);
    t.now += static_cast<spec::Picoseconds>(
        std::llround(static_cast<double>(count) / spec_.host.cpuCopyBandwidth * 1e12));
    return;
  }
  Device& d = *devices_[static_cast<size_t>(place.device)];
  Stream& s = stream ? streams_.stream(t, *stream) : *d.copyStream;
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::Memset;
  task->dst = place;
  task->bytes = count;
  auto held = std::make_shared<uint64_t>(0);
  task->effect = [mm, place, byte, count] { mm->fill(place, byte, count); };
  task->release = [mm, held] { mm->drop(*held); };
  streams_.submit(t, s, std::move(task));
  *held = mm->hold(place);  // (queued now; it runs no earlier than the next simulation step)
  if (!stream) streams_.wait(t, s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
}

}  // namespace ascendsim::runtime

namespace ascendsim::runtime {

void* Runtime::reserveAddresses(HostThread& t, uint64_t size, uint64_t alignment, void* expect,
                                uint64_t flags) {
  VirtualMemory::checkReservation(size, alignment, expect, flags);
  return virtualMemory().reserve(*requireContext(t).device, size, alignment);
}

void Runtime::unmapMemory(HostThread& t, void* p) {
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  // Copies, memsets and kernels queued on the mapping still write through it: the mapping stays
  // until the last of them ends, so their bytes land in its physical memory, never elsewhere.
  if (p && virtualMemory().mapped(address) && memory_->held(address)) {
    if (!waitFor(t, [&] { return !memory_->held(address); })) {
      fail(ACL_ERROR_RT_STREAM_NOT_COMPLETE, "deadlock: a task queued on the mapping at " +
                                                 describePointer(p) +
                                                 " can never run, so it cannot be unmapped");
    }
    t.now = std::max(t.now, system_->now());
  }
  virtualMemory().unmap(p);  // (another thread may have unmapped it meanwhile: checked again)
}

}  // namespace ascendsim::runtime
