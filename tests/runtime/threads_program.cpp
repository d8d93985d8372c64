// A program whose host threads contend for one NPU and wait for each other's events, for the
// reproducibility test (threads_reproducible.cmake): run it several times with the same thread
// count and the trace and report must be identical byte for byte.
//
// Usage: threads_program THREADS
// Each of THREADS threads (created by the main thread, which then joins them) copies its own
// block up, runs a compute task that waits for the previous thread's event, copies the block
// back and checks it, four rounds over its own stream. The copies of all threads share the
// device's PCIe link and DMA engines, so the order in which their calls reach the simulation
// decides every start time in the trace. Exit status: 0 when every thread saw its data back.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "ascendsim/compute.h"

namespace {
constexpr int kRounds = 4;

bool work(int i, aclrtContext ctx, std::vector<aclrtEvent>& done) {
  if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) return false;
  const size_t n = static_cast<size_t>(i % 4 + 1) << 20;
  aclrtStream s = nullptr;
  void *host = nullptr, *dev = nullptr;
  if (aclrtCreateStream(&s) || aclrtMallocHost(&host, n) ||
      aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST))
    return false;
  std::vector<unsigned char> back(n);
  bool ok = true;
  for (int round = 0; round < kRounds; ++round) {
    std::memset(host, i * kRounds + round + 1, n);
    ok = ok && aclrtMemcpyAsync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s) == ACL_SUCCESS;
    // Wait for whatever the previous thread has recorded by now: which record that is depends on
    // the order of the two threads' calls.
    if (i > 0) ok = ok && aclrtStreamWaitEvent(s, done[static_cast<size_t>(i - 1)]) == ACL_SUCCESS;
    ok = ok && ascendsimLaunchComputeTask("step", n, n, n / 4, 4, s) == ACL_SUCCESS;
    ok = ok && aclrtRecordEvent(done[static_cast<size_t>(i)], s) == ACL_SUCCESS;
    ok =
        ok && aclrtMemcpyAsync(back.data(), n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, s) == ACL_SUCCESS;
    ok = ok && aclrtSynchronizeStream(s) == ACL_SUCCESS;
    ok = ok &&
         back == std::vector<unsigned char>(n, static_cast<unsigned char>(i * kRounds + round + 1));
  }
  ok = aclrtFree(dev) == ACL_SUCCESS && ok;
  ok = aclrtFreeHost(host) == ACL_SUCCESS && ok;
  return aclrtDestroyStream(s) == ACL_SUCCESS && ok;
}
}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  if (threads < 1 || aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
  aclrtContext ctx = nullptr;
  aclrtGetCurrentContext(&ctx);
  std::vector<aclrtEvent> done(static_cast<size_t>(threads));
  for (auto& e : done) {
    if (aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE) != ACL_SUCCESS) return 2;
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      if (!work(i, ctx, done)) {
        std::fprintf(stderr, "thread %d: %s\n", i,
                     aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "wrong data back");
        failures++;
      }
    });
  }
  for (auto& t : pool) t.join();
  for (auto& e : done) aclrtDestroyEvent(e);
  aclrtResetDevice(0);
  aclFinalize();
  return failures == 0 ? 0 : 1;
}
