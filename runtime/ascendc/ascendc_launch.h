#pragma once
// Launches of Ascend C kernels compiled for the host: a launch is a KERNEL_AICORE task whose
// blocks run, one after the other in block order, when the task starts; its timing comes from
// what they did. Everything it needs of the runtime goes through the ServicePort.

#include <cstdint>
#include <memory>
#include <string>

#include "acl/acl_rt.h"
#include "runtime/core/host_thread.h"
#include "runtime/core/kernel_use.h"
#include "runtime/core/objects.h"
#include "runtime/core/service_port.h"

namespace ascendsim::runtime {

// An Ascend C kernel compiled for the host (ascendc_library): `entry(closure)` runs one block
// (AscendC::GetBlockIdx() says which); `release(closure)` frees the launch's arguments.
struct AscendCLaunch {
  std::string name;
  uint32_t blockDim = 1;
  void (*entry)(void*) = nullptr;
  void* closure = nullptr;
  uint32_t closureBytes = 0;  // the arguments' size (exception callbacks report it)
  void (*release)(void*) = nullptr;
  KernelFunction* function = nullptr;  // its handle, if the program has one (else made by name)
  std::shared_ptr<void> keepAlive;     // what must outlive the task (a loaded binary)
  // Set: the blocks run elsewhere (in the program that launched them, on a served machine) and
  // `entry`, `closure` and `release` are that program's, never called here.
  KernelRunner runElsewhere;
};

// Queues the launch on `stream` (NULL: the default stream). It owns the closure from the first
// line: released however the call ends.
void launchAscendC(ServicePort& port, HostThread& t, aclrtStream stream, AscendCLaunch launch);

// A kernel of a loaded binary with the arguments put together for it (aclrtLaunchKernelWithConfig).
void launchFunction(ServicePort& port, HostThread& t, aclrtFuncHandle function, uint32_t blocks,
                    aclrtStream stream, const aclrtLaunchKernelCfg* cfg, aclrtArgsHandle args);

}  // namespace ascendsim::runtime
