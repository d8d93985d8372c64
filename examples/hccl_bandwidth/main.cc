// Bandwidth of HCCL's AllReduce and AllGather against data size, measured as hicann/oam-tools'
// hccl_test measures it (events around back-to-back operations on each rank's stream, time per
// operation on rank 0), with the bus bandwidth of nccl-tests beside the algorithm bandwidth:
//   all_reduce: data = the per-rank buffer; busbw = algbw x 2 (n - 1) / n
//   all_gather: data = the gathered output;  busbw = algbw x (n - 1) / n
// Usage: hccl_bandwidth [ranks (default: every device)] [max bytes (default 256M)]
// One process, one thread per device, as hicann/hccl's examples.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "hccl/hccl.h"

namespace {

constexpr int kIters = 5;

struct Shared {
  HcclRootInfo root;
  uint32_t ranks;
  uint64_t maxBytes;
  std::vector<double> usPerOp;  // rank 0's, per size
};

bool ok(aclError rc, const char* what) {
  if (rc != ACL_SUCCESS) std::printf("%s failed: %d\n", what, rc);
  return rc == ACL_SUCCESS;
}
bool ok(HcclResult rc, const char* what) {
  if (rc != HCCL_SUCCESS) std::printf("%s failed: %d\n", what, rc);
  return rc == HCCL_SUCCESS;
}

std::vector<uint64_t> sizes(uint64_t maxBytes) {
  std::vector<uint64_t> out;
  for (uint64_t s = 1024; s <= maxBytes; s *= 4) out.push_back(s);
  return out;
}

// Runs `kIters` of `op` on every size; rank 0 records the time per operation.
template <class Op>
void rankLoop(Shared& shared, uint32_t rank, HcclComm comm, aclrtStream stream, Op op) {
  aclrtEvent start = nullptr, end = nullptr;
  ok(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE), "aclrtCreateEventWithFlag");
  ok(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE), "aclrtCreateEventWithFlag");
  for (uint64_t bytes : sizes(shared.maxBytes)) {
    op(bytes);  // warm-up
    ok(HcclBarrier(comm, stream), "HcclBarrier");
    ok(aclrtRecordEvent(start, stream), "aclrtRecordEvent");
    for (int i = 0; i < kIters; ++i) op(bytes);
    ok(aclrtRecordEvent(end, stream), "aclrtRecordEvent");
    ok(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    float ms = 0;
    ok(aclrtEventElapsedTime(&ms, start, end), "aclrtEventElapsedTime");
    if (rank == 0) shared.usPerOp.push_back(ms * 1000.0 / kIters);
  }
  aclrtDestroyEvent(start);
  aclrtDestroyEvent(end);
}

void runRank(Shared* shared, uint32_t rank, bool gather) {
  if (!ok(aclrtSetDevice(static_cast<int32_t>(rank)), "aclrtSetDevice")) return;
  HcclComm comm = nullptr;
  if (!ok(HcclCommInitRootInfo(shared->ranks, &shared->root, rank, &comm), "HcclCommInitRootInfo"))
    return;
  aclrtStream stream = nullptr;
  ok(aclrtCreateStream(&stream), "aclrtCreateStream");
  void* send = nullptr;
  void* recv = nullptr;
  const uint64_t most = shared->maxBytes;
  ok(aclrtMalloc(&send, most, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  ok(aclrtMalloc(&recv, most, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  if (gather) {
    rankLoop(*shared, rank, comm, stream, [&](uint64_t bytes) {
      const uint64_t perRank = (bytes / shared->ranks + 3) / 4;  // float32 elements
      ok(HcclAllGather(send, recv, perRank, HCCL_DATA_TYPE_FP32, comm, stream), "HcclAllGather");
    });
  } else {
    rankLoop(*shared, rank, comm, stream, [&](uint64_t bytes) {
      ok(HcclAllReduce(send, recv, bytes / 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream),
         "HcclAllReduce");
    });
  }
  aclrtFree(send);
  aclrtFree(recv);
  HcclCommDestroy(comm);
  aclrtDestroyStream(stream);
}

uint64_t parseBytes(const char* text) {
  char* end = nullptr;
  uint64_t v = std::strtoull(text, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  if (*end == 'G' || *end == 'g') v <<= 30;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (!ok(aclInit(nullptr), "aclInit")) return 1;
  uint32_t devices = 0;
  aclrtGetDeviceCount(&devices);
  Shared shared{};
  shared.ranks = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : devices;
  shared.maxBytes = argc > 2 ? parseBytes(argv[2]) : (256ull << 20);
  if (shared.ranks < 1 || shared.ranks > devices) {
    std::printf("ranks must be 1..%u\n", devices);
    return 1;
  }
  const uint32_t n = shared.ranks;
  for (bool gather : {false, true}) {
    aclrtSetDevice(0);
    if (!ok(HcclGetRootInfo(&shared.root), "HcclGetRootInfo")) return 1;
    shared.usPerOp.clear();
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < n; ++r) threads.emplace_back(runRank, &shared, r, gather);
    for (std::thread& t : threads) t.join();
    std::printf("%s, %u ranks\n", gather ? "all_gather" : "all_reduce", n);
    std::printf("%14s %14s %14s %14s\n", "data_size(B)", "avg_time(us)", "algbw(GB/s)",
                "busbw(GB/s)");
    const std::vector<uint64_t> all = sizes(shared.maxBytes);
    for (size_t i = 0; i < shared.usPerOp.size() && i < all.size(); ++i) {
      const double algbw = static_cast<double>(all[i]) / shared.usPerOp[i] / 1e3;
      const double factor = gather ? (n - 1.0) / n : 2.0 * (n - 1.0) / n;
      std::printf("%14llu %14.2f %14.2f %14.2f\n", static_cast<unsigned long long>(all[i]),
                  shared.usPerOp[i], algbw, algbw * factor);
    }
  }
  aclFinalize();
  return 0;
}
