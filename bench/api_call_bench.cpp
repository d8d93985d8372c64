// How many AscendCL calls a program makes per second of wall time, on its own machine or on one
// served by `ascendsim exec --shared` (docs/performance.md):
//   build/release/bench/api_call_bench [CALLS]                      (in-process machine)
//   build/release/tools/ascendsim exec --shared -- build/release/bench/api_call_bench [CALLS]
// Prints one line per call kind: calls, wall seconds, calls per second, and the process's CPU
// seconds (every thread's, the simulation's included) and calls per CPU second, which a busy
// machine disturbs far less than wall time.

#include <acl/acl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

template <class Call>
void measure(const char* what, int calls, Call call) {
  const double cpuStart = cpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    if (call(i) != ACL_SUCCESS) {
      std::printf("%s failed: %s\n", what, aclGetRecentErrMsg());
      std::exit(1);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpuSeconds() - cpuStart;
  std::printf("%-30s %8d calls %8.3f s %10.0f calls/s %8.3f cpu s %10.0f calls/cpu s\n", what,
              calls, seconds, calls / seconds, cpu, calls / cpu);
}
}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: api_call_bench [CALLS]\n"
      "AscendCL calls per second of wall time, CALLS (20000) of each kind.\n";
  if (argc > 1 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    std::fputs(usage, stdout);
    return 0;
  }
  char* end = nullptr;
  const long parsed = argc > 1 ? std::strtol(argv[1], &end, 10) : 20000;
  if (argc > 2 || (argc > 1 && (*end || parsed <= 0 || parsed > 100000000))) {
    std::fprintf(stderr, "api_call_bench: expected a number of calls from 1 to 100000000\n%s",
                 usage);
    return 2;
  }
  const int calls = static_cast<int>(parsed);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  aclrtStream stream = nullptr;
  void* device = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS ||
      aclrtMalloc(&device, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    return 1;
  int32_t id = 0;
  measure("aclrtGetDevice", calls, [&](int) { return aclrtGetDevice(&id); });
  measure("aclrtMemsetAsync (4 KiB)", calls, [&](int i) {
    aclError e = aclrtMemsetAsync(device, 4096, i & 0xff, 4096, stream);
    // A stream holds at most its queue depth of tasks: drain it now and then.
    if (e == ACL_SUCCESS && i % 512 == 511) e = aclrtSynchronizeStream(stream);
    return e;
  });
  aclrtSynchronizeStream(stream);
  void* host = nullptr;
  if (aclrtMallocHost(&host, 4096) != ACL_SUCCESS) return 1;
  measure("aclrtMemcpyAsync (4 KiB H2D)", calls, [&](int i) {
    aclError e = aclrtMemcpyAsync(device, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    if (e == ACL_SUCCESS && i % 512 == 511) e = aclrtSynchronizeStream(stream);
    return e;
  });
  aclrtSynchronizeStream(stream);
  aclrtFreeHost(host);
  aclrtFree(device);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
