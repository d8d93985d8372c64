// Launches of kernels by handle (aclrtLaunchKernelWithConfig): the arguments KernelLibrary put
// together, their placeholders' data copied to device memory as CANN copies it at launch.

#include <cstring>

#include "runtime/ascendc/ascendc_launch.h"
#include "runtime/core/errors.h"
#include "runtime/core/memory_manager.h"

namespace ascendsim::runtime {

namespace {
// Device memory holding a launch's placeholder data, released with the launch (when its task has
// ended, or when it was refused); it also keeps the kernel's library loaded.
struct LaunchArgsMemory {
  std::shared_ptr<void> library;
  MemoryManager* memory = nullptr;
  std::vector<void*> blocks;
  ~LaunchArgsMemory() {
    for (void* p : blocks) {
      try {
        memory->free(p, AllocationApi::Malloc);
      } catch (const AclFailure&) {
        // Released already, with its device (aclrtResetDevice) or with everything (aclFinalize).
      }
    }
  }
};

// A launch's placeholder data in device memory, its slots in `slots` (the launch's copy of the
// arguments) set to it; released with the returned holder, which also holds `library`.
std::shared_ptr<void> placeholderData(ServicePort& port, HostThread& t, aclrtStream stream,
                                      const KernelArgs& args, uint8_t* slots,
                                      std::shared_ptr<void> library) {
  MemoryManager& memory = port.memory();
  auto held = std::make_shared<LaunchArgsMemory>();
  held->library = std::move(library);
  held->memory = &memory;
  Device& device = *port.stream(t, stream).device;
  // As CANN copies the arguments with their data area to the device at launch, each placeholder's
  // data is written to device memory now and its slot given the address.
  for (const std::unique_ptr<KernelArgs::Param>& p : args.params) {
    if (!p->placeholder) continue;
    if (!p->data) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "a placeholder has no buffer (call "
           "aclrtKernelArgsGetPlaceHolderBuffer before launching)");
    }
    const size_t bytes = p->dataBytes;
    void* block =
        memory.allocateDevice(device, bytes, (bytes + 31) / 32 * 32, 64, AllocationApi::Malloc);
    held->blocks.push_back(block);
    memory.writeDevice(memory.resolve(block, bytes, "placeholder"),
                       std::vector<uint8_t>(p->data.get(), p->data.get() + bytes));
    const uint64_t address = reinterpret_cast<uint64_t>(block);
    std::memcpy(slots + p->offset, &address, sizeof address);
  }
  return held;
}

}  // namespace

void launchFunction(ServicePort& port, HostThread& t, aclrtFuncHandle handle, uint32_t blocks,
                    aclrtStream stream, const aclrtLaunchKernelCfg* cfg,
                    aclrtArgsHandle argsHandle) {
  KernelFunction& function = port.kernels().loadedFunction(handle);
  KernelArgs& args = port.kernels().arguments(argsHandle);
  if (args.function != &function) {
    fail(ACL_ERROR_INVALID_PARAM,
         "argsHandle was made for kernel " + args.function->name + ", not " + function.name);
  }
  if (args.bytes.size() != function.argsBytes) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "kernel " + function.name + " takes " + std::to_string(function.argsBytes) +
             " bytes of arguments; " + std::to_string(args.bytes.size()) + " were appended");
  }
  if (cfg && cfg->numAttrs > 0) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "launch attributes (aclrtLaunchKernelCfg) are not simulated: pass NULL or none");
  }
  AscendCLaunch launch;
  launch.name = function.name;
  launch.blockDim = blocks;
  launch.entry = function.entry;
  std::vector<uint8_t> bytes = args.bytes;
  launch.keepAlive = placeholderData(port, t, stream, args, bytes.data(), function.binary->library);
  auto* copy = new uint8_t[bytes.empty() ? 1 : bytes.size()];
  std::memcpy(copy, bytes.data(), bytes.size());
  launch.closure = copy;
  launch.closureBytes = static_cast<uint32_t>(bytes.size());
  launch.release = [](void* p) { delete[] static_cast<uint8_t*>(p); };
  launch.function = &function;
  launchAscendC(port, t, stream, std::move(launch));
}

}  // namespace ascendsim::runtime
