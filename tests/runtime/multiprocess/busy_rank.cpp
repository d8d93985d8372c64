// Two ranks of a job served by `ascendsim exec --shared` (ASCENDSIM_RANK 0 and 1,
// ASCENDSIM_WORLD_SIZE 2), each on the device of its rank, make the same calls up to a copy from
// pinned host memory, so both copies are asked for at the same simulated instant: rank 0's (1 MiB)
// first, by rank. Rank 0 works on the host before its copy for BUSY_CPU_SECONDS (argument 1) of its
// own CPU time, as an hccl test rank checking 64 MiB does between two calls (0.06 s on an idle
// machine, up to 0.49 s on a loaded one); rank 1 copies 64 MiB at once and waits for it. Rank 1's
// copy must still wait for rank 0's turn: shared_machine.sh busy checks the report (the same
// submit time for both copies, rank 0's queued first) and that two runs give the same bytes.
// Prints "rank R ok".

#include <acl/acl.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "job_process.h"

namespace {
double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}
}  // namespace

int main(int argc, char** argv) {
  const char* rankText = std::getenv("ASCENDSIM_RANK");
  const int rank = rankText ? std::atoi(rankText) : -1;
  job::role = rank == 0 ? "rank 0" : "rank 1";
  if (argc != 2 || (rank != 0 && rank != 1)) {
    std::printf("usage: ASCENDSIM_RANK=0|1 busy_rank BUSY_CPU_SECONDS\n");
    return 2;
  }
  const double busySeconds = std::atof(argv[1]);
  constexpr size_t kBytes = 64u << 20;
  job::check(aclInit(nullptr), "aclInit");
  job::check(aclrtSetDevice(rank), "aclrtSetDevice");
  void* device = nullptr;
  void* host = nullptr;
  job::check(aclrtMalloc(&device, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  job::check(aclrtMallocHost(&host, kBytes), "aclrtMallocHost");
  size_t bytes = kBytes;
  if (rank == 0) {
    // Host work outside AscendCL: a running sum, looked at between rounds of a million steps.
    const double until = threadCpuSeconds() + busySeconds;
    volatile unsigned long sum = 0;
    while (threadCpuSeconds() < until) {
      for (unsigned long i = 0; i < 1000000; ++i) sum = sum + i * 2654435761ul;
    }
    bytes = 1u << 20;
  }
  job::check(aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
  job::check(aclrtFreeHost(host), "aclrtFreeHost");
  job::check(aclrtFree(device), "aclrtFree");
  job::check(aclrtResetDevice(rank), "aclrtResetDevice");
  job::check(aclFinalize(), "aclFinalize");
  std::printf("rank %d ok\n", rank);
  return 0;
}
