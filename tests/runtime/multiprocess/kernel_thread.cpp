// Which thread of a program runs its Ascend C kernels' blocks. On a machine of its own, the thread
// whose call drives the simulation to the kernel's start; on a machine served by `ascendsim exec
// --shared`, a thread of the program that waits for the server's answer (docs/multiprocess.md,
// "Where a program's kernels run"), which in this program is the same thread: never the kernel
// service's own thread, which the server asks only when no thread of the program waits.
//  1. The main thread launches a 4-block kernel and synchronises: every block runs on the main
//     thread, and device memory holds each block's byte (block b writes b + 1 to its 512 bytes).
//  2. The main thread launches the kernel again; a second thread synchronises the stream while the
//     main thread joins it: the blocks run on the main thread or on the second one (whichever call
//     drove the simulation to the kernel's start; both wait for the server's answer then).
// Prints "kernel thread ok", or what went wrong.

#include <acl/acl.h>
#include <ascendsim/ascendc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {
constexpr uint32_t kBlocks = 4;
constexpr uint64_t kShare = 512;

struct Fill {
  uint8_t* device;
  long tids[kBlocks];
};

void fillBlock(void* closure) {
  auto* k = static_cast<Fill*>(closure);
  const auto block = static_cast<uint32_t>(ascendsimAscendCBlockIdx());
  k->tids[block] = static_cast<long>(syscall(SYS_gettid));
  for (uint64_t i = 0; i < kShare; ++i)
    k->device[block * kShare + i] = static_cast<uint8_t>(block + 1);
}

[[noreturn]] void die(const std::string& what) {
  const char* msg = aclGetRecentErrMsg();
  std::printf("kernel thread failed: %s (%s)\n", what.c_str(), msg ? msg : "");
  std::fflush(stdout);
  std::_Exit(1);
}

void check(aclError code, const char* what) {
  if (code != ACL_SUCCESS) die(std::string(what) + ": " + std::to_string(code));
}
}  // namespace

int main() {
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  aclrtStream stream = nullptr;
  check(aclrtCreateStream(&stream), "aclrtCreateStream");
  void* device = nullptr;
  check(aclrtMalloc(&device, kBlocks * kShare, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  const long self = static_cast<long>(syscall(SYS_gettid));
  static Fill kernel;
  kernel.device = static_cast<uint8_t*>(device);

  // 1. Launched and waited for by the main thread.
  for (long& t : kernel.tids) t = 0;
  check(ascendsimLaunchAscendCKernel("fill", kBlocks, stream, fillBlock, &kernel, sizeof kernel,
                                     nullptr),
        "the first launch");
  check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  for (uint32_t b = 0; b < kBlocks; ++b) {
    if (kernel.tids[b] != self)
      die("block " + std::to_string(b) + " ran on thread " + std::to_string(kernel.tids[b]) +
          ", not on the main thread " + std::to_string(self));
  }
  uint8_t back[kBlocks * kShare] = {};
  check(aclrtMemcpy(back, sizeof back, device, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy");
  for (uint64_t i = 0; i < sizeof back; ++i) {
    if (back[i] != i / kShare + 1) die("byte " + std::to_string(i) + " is wrong");
  }

  // 2. Waited for by a second thread.
  for (long& t : kernel.tids) t = 0;
  check(ascendsimLaunchAscendCKernel("fill", kBlocks, stream, fillBlock, &kernel, sizeof kernel,
                                     nullptr),
        "the second launch");
  long waiter = 0;
  aclError synced = ACL_ERROR_INTERNAL_ERROR;
  std::thread second([&] {
    waiter = static_cast<long>(syscall(SYS_gettid));
    synced = aclrtSynchronizeStream(stream);
  });
  second.join();
  check(synced, "aclrtSynchronizeStream on the second thread");
  for (uint32_t b = 0; b < kBlocks; ++b) {
    if (kernel.tids[b] != self && kernel.tids[b] != waiter)
      die("block " + std::to_string(b) + " ran on thread " + std::to_string(kernel.tids[b]) +
          ", neither the main thread " + std::to_string(self) + " nor the waiting one " +
          std::to_string(waiter));
  }

  check(aclrtFree(device), "aclrtFree");
  check(aclrtDestroyStream(stream), "aclrtDestroyStream");
  check(aclrtResetDevice(0), "aclrtResetDevice");
  check(aclFinalize(), "aclFinalize");
  std::printf("kernel thread ok\n");
  return 0;
}
