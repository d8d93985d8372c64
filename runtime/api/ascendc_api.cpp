// Ascend C kernels compiled for the host.

#include <cstdio>

#include "ascendsim/ascendc.h"
#include "runtime/api/api_call.h"
#include "runtime/ascendc/ascendc_launch.h"
#include "runtime/ascendc/kernel_memory_window.h"
#include "runtime/remote/kernel_service.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError ascendsimLaunchAscendCKernel(const char* name, uint32_t blockDim, aclrtStream stream,
                                      void (*entry)(void*), void* closure, uint32_t closureBytes,
                                      void (*release)(void*)) {
  if (ascendsim::remote::clientActive()) {
    // The blocks run here, through this process's kernel service, when the server starts the
    // task; the server has the closure released here when the task is gone.
    std::string why;
    if (!ascendsim::remote::ensureKernelService(why)) {
      if (closure && release) release(closure);
      ascendsim::remote::setServedError("ascendsimLaunchAscendCKernel: " + why);
      return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    return ascendsim::remote::forward<&ascendsimLaunchAscendCKernel>(
        name, blockDim, stream, entry, closure, closureBytes, release);
  }
  // launchAscendC owns the closure from its first line: released however the call ends.
  bool handedOver = false;
  const aclError code =
      run("ascendsimLaunchAscendCKernel", &ApiOverheads::kernelLaunch, [&](HostThread& t) {
        t.callArgs = {arg("name", std::string(name ? name : "")), arg("blockDim", blockDim),
                      streamArg(stream)};
        AscendCLaunch launch;
        launch.name = name ? name : "kernel";
        launch.blockDim = blockDim;
        launch.entry = entry;
        launch.closure = closure;
        launch.closureBytes = closureBytes;
        launch.release = release;
        handedOver = true;
        ServicePort port(rt());
        launchAscendC(port, t, stream, launch);
      });
  if (!handedOver && closure && release) release(closure);  // refused before the runtime took it
  return code;
}

// The CPU-debug run (tikicpulib.h): no device, no runtime state; the blocks run on this thread.
int32_t ascendsimAscendCRunOnHost(const char* name, uint32_t blockDim, void (*entry)(void* closure),
                                  void* closure) {
  if (!entry || blockDim == 0) return ACL_ERROR_INVALID_PARAM;
  const int64_t trapped = KernelMemoryWindow::runOnHost(entry, closure, blockDim);
  if (trapped < 0) return ACL_SUCCESS;
  std::fprintf(stderr, "kernel %s trapped in block %lld\n", name ? name : "kernel",
               static_cast<long long>(trapped));
  return ACL_ERROR_RT_AICORE_TRAP_EXCEPTION;
}

// Called by kernel code while its block runs, under the runtime's lock: no run() here.
int64_t ascendsimAscendCBlockIdx(void) {
  return KernelMemoryWindow::currentBlock();
}
int64_t ascendsimAscendCBlockNum(void) {
  return KernelMemoryWindow::blockCount();
}
void ascendsimAscendCTrap(void) {
  KernelMemoryWindow::trap();
}
uint32_t ascendsimAscendCUnifiedBufferBytes(void) {
  return KernelMemoryWindow::unifiedBuffer();
}
void ascendsimAscendCExceedResource(const char* reason) {
  KernelMemoryWindow::exceedResource(reason);
}
void ascendsimAscendCVector(const void* dst, const void* src0, const void* src1, uint64_t bytes) {
  KernelMemoryWindow::countVector(bytes, reinterpret_cast<uintptr_t>(dst),
                                  reinterpret_cast<uintptr_t>(src0),
                                  reinterpret_cast<uintptr_t>(src1));
}
void ascendsimAscendCCopy(const void* global, const void* local, uint64_t bytes, int32_t toGlobal) {
  KernelMemoryWindow::countCopy(reinterpret_cast<uint64_t>(global),
                                reinterpret_cast<uintptr_t>(local), bytes, toGlobal != 0);
}
void ascendsimAscendCCopyBlocks(const void* global, const void* local, uint64_t blockBytes,
                                uint64_t blocks, uint64_t globalStride, int32_t flags) {
  KernelMemoryWindow::countCopyBlocks(reinterpret_cast<uint64_t>(global),
                                      reinterpret_cast<uintptr_t>(local), blockBytes, blocks,
                                      globalStride, (flags & 1) != 0, (flags & 2) != 0);
}
void ascendsimAscendCLocalAccess(const void* buffer, int32_t write) {
  KernelMemoryWindow::localAccess(reinterpret_cast<uintptr_t>(buffer), write != 0);
}
void ascendsimAscendCBarrier(void) {
  KernelMemoryWindow::barrier();
}
void ascendsimAscendCLibrary(int32_t enter) {
  KernelMemoryWindow::enterLibrary(enter != 0);
}

int32_t ascendsimAscendCLoopTest(void) {
  KernelMemoryWindow::countLoopTest();
  return 1;
}

// Local buffers between guard pages (docs/reliability.md): kernel_operator.h's TQue and TBuf
// storage. NULL when the host has no memory for it.
void* ascendsimAscendCLocalBuffer(uint64_t bytes) {
  return KernelMemoryWindow::allocateLocal(bytes);
}
void ascendsimAscendCFreeLocalBuffer(void* buffer) {
  KernelMemoryWindow::freeLocal(buffer);
}

}  // extern "C"
