#include "runtime/ascendc/ascendc_launch.h"

#include <algorithm>
#include <memory>

#include "runtime/ascendc/kernel_memory_window.h"
#include "runtime/core/device_memory.h"
#include "runtime/core/errors.h"
#include "runtime/core/kernel_sandbox.h"
#include "runtime/core/soc_cores.h"

namespace ascendsim::runtime {
namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// What the blocks did, as the timing model's kernel work. The cores' time is the cost model's
// (models/compute/ascendc_cost.h): each block's critical path over its MTE2, vector and MTE3
// instructions and its scalar code, the blocks spread over the `cores` they run on. Device memory
// carries what DataCopy moved plus the pages the scalar code touched (read) and changed (written).
//
// Host memory reached in place: a registered page touched crosses the link once, one changed
// goes back. A managed page migrates to the device when the kernel first touches it (it crosses
// the link once) and from then on is device memory, read and written there (`managed`).
void describeWork(const KernelUse& window, const ManagedMemory::KernelUse& managed, uint32_t cores,
                  models::KernelWork& work) {
  const std::vector<uint64_t>& hostTouched = window.hostTouched;
  for (const auto& r : window.copyInRuns) work.readRanges.push_back({r.address, r.bytes});
  work.bytesRead += window.copiedIn;
  for (const auto& r : window.copyOutRuns) work.writeRanges.push_back({r.address, r.bytes});
  work.bytesWritten += window.copiedOut;
  for (const auto& r : window.touchedRuns) {
    work.readRanges.push_back({r.address, r.bytes});
    work.bytesRead += r.bytes;
  }
  for (const auto& r : window.changedRuns) {
    work.writeRanges.push_back({r.address, r.bytes});
    work.bytesWritten += r.bytes;
  }
  constexpr uint64_t kPage = KernelMemoryWindow::kPage;
  for (const auto* pages : {&managed.migrated, &managed.resident}) {
    for (uint64_t page : *pages) work.readRanges.push_back({page, kPage});
    work.bytesRead += pages->size() * kPage;
  }
  for (uint64_t page : managed.changed) work.writeRanges.push_back({page, kPage});
  work.bytesWritten += managed.changed.size() * kPage;
  const uint64_t hostTouchedBytes = hostTouched.size() * kPage;
  const uint64_t hostChangedBytes = window.hostChanged.size() * kPage;
  work.costed = true;
  work.coreCycles = models::spreadOverCores(window.blockCycles, cores);
  work.ops = 0;
  work.scalarOps = 0;
  // Across the link: registered pages touched and migrating managed ones in, registered pages
  // changed back out.
  work.hostBytesRead = hostTouchedBytes - managed.resident.size() * kPage;
  work.hostBytesWritten = hostChangedBytes - managed.changed.size() * kPage;
  work.hostAddress = 0;
  for (uint64_t page : hostTouched) {
    if (!std::binary_search(managed.resident.begin(), managed.resident.end(), page)) {
      work.hostAddress = page;
      break;
    }
  }
}

// The blocks, here: device memory faulted into a window, one block after the other.
KernelUse runHere(ServicePort& port, Device& device, const AscendCLaunch& launch, void* closure,
                  KernelFault& fault) {
  KernelMemoryWindow window(*device.memory);
  window.setUnifiedBuffer(unifiedBufferBytes(*device.spec));
  window.setCores(&device.spec->aicore);
  for (int peer : device.peersEnabled)
    window.addPeer(*port.devices().at(static_cast<size_t>(peer))->memory);
  window.watchHost(port.hostRangesForKernels());
  for (uint32_t block = 0; block < launch.blockDim; ++block) {
    if (!window.runBlock(launch.entry, closure, block, launch.blockDim, fault)) break;
  }
  window.finish();
  return window.use();
}

// The blocks, in the program that launched them (a served machine): what they may touch goes
// there, what they did comes back.
KernelUse runElsewhere(ServicePort& port, Device& device, const AscendCLaunch& launch,
                       KernelFault& fault) {
  KernelRun run;
  run.device = device.id;
  run.base = device.memory->base();
  run.span = device.memory->span();
  for (const auto& [base, a] : device.memory->allocations())
    run.allocations.push_back({base, a.size, device.memory->targetOf(base)});
  for (int id : device.peersEnabled) {
    const DeviceMemory& peer = *port.devices().at(static_cast<size_t>(id))->memory;
    KernelRun::Peer p{peer.base(), peer.span(), {}};
    for (const auto& [base, a] : peer.allocations())
      p.allocations.push_back({base, a.size, peer.targetOf(base)});
    run.peers.push_back(std::move(p));
  }
  run.cores = device.spec->aicore;
  run.unifiedBuffer = unifiedBufferBytes(*device.spec);
  run.blocks = launch.blockDim;
  for (const auto& [address, bytes] : port.hostRangesForKernels())
    run.hostRanges.push_back({address, bytes, 0});
  KernelStop stop;
  KernelUse use = launch.runElsewhere(run, stop);
  for (uint64_t page : use.devicePagesWritten) {
    for (auto& d : port.devices())
      d->memory->markWritten(page);  // (the device whose range holds it)
  }
  fault.kind = static_cast<KernelFault::Kind>(stop.kind);
  fault.reason = stop.reason;
  fault.address = stop.address;
  fault.block = stop.block;
  return use;
}

}  // namespace

void launchAscendC(ServicePort& port, HostThread& t, aclrtStream stream, AscendCLaunch launch) {
  // The task owns the arguments from here on, launched or refused.
  auto closure = std::shared_ptr<void>(launch.closure, [release = launch.release](void* p) {
    if (release && p) release(p);
  });
  if (!launch.entry && !launch.runElsewhere)
    fail(ACL_ERROR_INVALID_PARAM, "the kernel's entry is NULL");
  if (launch.blockDim == 0 || launch.blockDim > 65535) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "blockDim " + std::to_string(launch.blockDim) + " is out of range 1..65535");
  }
  Stream& s = port.stream(t, stream);
  Device* device = s.device;
  Stream* failing = &s;
  auto task = std::make_unique<models::Task>();
  task->kind = models::TaskKind::Kernel;
  task->dst = {models::MemoryPlace::Kind::Device, device->id, 0};
  task->kernel.name = launch.name;
  task->kernel.blocks = launch.blockDim;
  // The blocks run as the task starts; a fault shows when the task ends, as the device reports it.
  auto fault = std::make_shared<KernelFault>();
  // (The port is a view of the runtime, which outlives every task: the tasks keep copies of it.)
  task->prepare = [services = port, device, launch, closure,
                   fault](models::Task& running) mutable {  // (holds launch.keepAlive)
    // Managed pages the host changed since they went to a device are back in host memory.
    ManagedMemory& managedMemory = services.managed();
    managedMemory.settleHostChanges();
    const spec::AiCoreSpec& cores = device->spec->aicore;
    const sandbox::KernelScope inKernel(launch.name);  // (AscendCL calls from it are refused)
    const KernelUse use = launch.runElsewhere
                              ? runElsewhere(services, *device, launch, *fault)
                              : runHere(services, *device, launch, closure.get(), *fault);
    const std::vector<uint64_t>& hostTouched = use.hostTouched;
    const ManagedMemory::KernelUse managed =
        managedMemory.useByKernel(device->id, hostTouched, use.hostChanged);
    managedMemory.settleOnDevice(device->id, hostTouched);
    // On as many cores as it has blocks, at most the device's (and aclrtSetDeviceResLimit's, which
    // the submission applied to `blocks`).
    const uint32_t onCores =
        std::min(running.kernel.blocks > 0 ? running.kernel.blocks : launch.blockDim, cores.cores);
    describeWork(use, managed, onCores, running.kernel);
    running.bytes = running.kernel.bytesRead + running.kernel.bytesWritten +
                    running.kernel.hostBytesRead + running.kernel.hostBytesWritten;
  };
  KernelFunction* function =
      launch.function ? launch.function : port.kernels().launchedKernel(launch.name);
  auto taskId = std::make_shared<uint64_t>(0);
  const uint32_t threadId = static_cast<uint32_t>(t.tid);
  const uint64_t submitter = t.pthreadId;
  task->release = [services = port, device, failing, name = launch.name, closure, fault, taskId,
                   threadId, submitter, function, argsBytes = launch.closureBytes]() mutable {
    if (fault->kind == KernelFault::Kind::None || !services.streamAlive(failing)) return;
    if (failing->context && failing->context->stopOnFailure) *failing->stopped = true;
    // On vector cores a fault is a vector core exception (the vendor's stream/1_stream_with_
    // failure_mode shows a trap failing its sync with 507035 on A2); on AI Cores 507015 / 507016.
    const bool vectorCores = hasVectorCores(*device->spec);
    if (fault->kind == KernelFault::Kind::Trap) {
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_TRAP_EXCEPTION;
      failing->failureMessage =
          "kernel " + name + " trapped in block " + std::to_string(fault->block);
    } else if (fault->kind == KernelFault::Kind::Resource) {
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION;
      failing->failureMessage =
          "kernel " + name + ", block " + std::to_string(fault->block) + ": " + fault->reason;
    } else if (fault->kind == KernelFault::Kind::Exception) {
      // The kernel's code threw: on the device that is its core's exception, as any fault.
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION;
      failing->failureMessage = "kernel " + name + ", block " + std::to_string(fault->block) +
                                ": threw " + fault->reason + " (the block stopped there)";
    } else if (fault->kind == KernelFault::Kind::Timeout) {
      // On the device the AI Core's watchdog ends a kernel that runs too long.
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_TIMEOUT : ACL_ERROR_RT_AICORE_TIMEOUT;
      failing->failureMessage = "kernel " + name + ", block " + std::to_string(fault->block) +
                                " stopped: " + fault->reason;
    } else if (fault->kind == KernelFault::Kind::Exit) {
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION;
      failing->failureMessage =
          "kernel " + name + ", block " + std::to_string(fault->block) + ": called " +
          (fault->reason == "abort"
               ? std::string("abort()")
               : "exit(" +
                     std::to_string(static_cast<int32_t>(static_cast<uint32_t>(fault->address))) +
                     ")") +
          "; a kernel cannot end the process, the block stopped there and the kernel failed";
    } else if (fault->kind == KernelFault::Kind::Interrupted) {
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION;
      failing->failureMessage = "kernel " + name + ", block " + std::to_string(fault->block) +
                                " stopped: the program is ending on a signal";
    } else if (fault->kind == KernelFault::Kind::LocalOverrun) {
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION;
      failing->failureMessage = "kernel " + name + ", block " + std::to_string(fault->block) +
                                ": access at " + hex(fault->address) +
                                " past the end (or before the start) of a local buffer (a "
                                "LocalTensor written out of its bounds)";
    } else if (fault->kind == KernelFault::Kind::StackOverflow) {
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION;
      failing->failureMessage = "kernel " + name + ", block " + std::to_string(fault->block) +
                                ": stack overflow at " + hex(fault->address) +
                                " (recursion deeper than the host thread's stack holds)";
    } else {
      failing->failure =
          vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION;
      failing->failureMessage =
          "kernel " + name + ", block " + std::to_string(fault->block) +
          ": out-of-bounds access at " + hex(fault->address) + " (" +
          services.memory().stableName(reinterpret_cast<void*>(fault->address)) +
          "), outside every allocation of device " + std::to_string(device->id);
    }
    failing->failureMessage += " (stream " + std::to_string(failing->queue.id()) + " of device " +
                               std::to_string(device->id) + ")";
    rtExceptionInfo info;
    info.taskId = static_cast<uint32_t>(*taskId);
    info.streamId = failing->queue.id();
    info.threadId = threadId;
    info.deviceId = static_cast<uint32_t>(device->id);
    info.errorCode = static_cast<uint32_t>(failing->failure);
    info.args = closure.get();
    info.argsBytes = argsBytes;
    info.function = function;
    // Both are faults of the kernel's own code, not of the hardware.
    services.exceptions().taskFailed(*device, submitter, info, ACL_RT_AICORE_ERROR_SW);
  };
  // Managed memory is host memory the kernel reaches in place, wherever its code points: every
  // managed allocation lives until the kernel ends, even if the program frees it meanwhile.
  auto holds = std::make_shared<std::vector<uint64_t>>();
  MemoryManager* memory = &port.memory();
  task->release = [memory, holds, report = std::move(task->release)] {
    for (uint64_t start : *holds) memory->drop(start);
    report();
  };
  port.queue(t, s, std::move(task));
  *taskId = t.lastTaskId;
  for (const auto& range : port.managed().ranges())  // (queued now: it runs later)
    holds->push_back(memory->hold({models::MemoryPlace::Kind::HostPinned, -1, range.first}));
}

}  // namespace ascendsim::runtime
