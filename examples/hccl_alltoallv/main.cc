// AlltoAllV over every NPU of the machine from one process, one thread per device, written the
// way hicann/hccl's examples/02_collectives/07_alltoallv is: each rank sends one value, its rank
// id, to every rank (counts 1, displacements i, as host arrays), so every rank receives 0 .. n-1.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include "hccl/hccl.h"
#include "hccl/hccl_types.h"

#define CHECK_ACL(expr)                                                           \
  do {                                                                            \
    const aclError rc_ = (expr);                                                  \
    if (rc_ != ACL_SUCCESS) {                                                     \
      std::printf("%s failed at %s:%d with %d\n", #expr, __FILE__, __LINE__, rc_); \
      return rc_;                                                                 \
    }                                                                             \
  } while (0)

#define CHECK_HCCL(expr)                                                          \
  do {                                                                            \
    const HcclResult rc_ = (expr);                                                \
    if (rc_ != HCCL_SUCCESS) {                                                    \
      std::printf("%s failed at %s:%d with %d\n", #expr, __FILE__, __LINE__, rc_); \
      return rc_;                                                                 \
    }                                                                             \
  } while (0)

struct RankArgs {
  HcclRootInfo* root;
  uint32_t rank;   // also the device it runs on
  uint32_t ranks;
};

int RunRank(RankArgs* args) {
  const uint32_t rank = args->rank;
  const uint32_t ranks = args->ranks;
  const size_t bytes = ranks * sizeof(float);
  CHECK_ACL(aclrtSetDevice(static_cast<int32_t>(rank)));

  void* sendBuf = nullptr;
  void* recvBuf = nullptr;
  CHECK_ACL(aclrtMalloc(&sendBuf, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  CHECK_ACL(aclrtMalloc(&recvBuf, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  void* host = nullptr;
  CHECK_ACL(aclrtMallocHost(&host, bytes));
  float* values = static_cast<float*>(host);
  for (uint32_t i = 0; i < ranks; ++i) values[i] = static_cast<float>(rank);
  CHECK_ACL(aclrtMemcpy(sendBuf, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  std::vector<uint64_t> counts(ranks, 1), displs(ranks);
  for (uint32_t i = 0; i < ranks; ++i) displs[i] = i;

  HcclComm comm = nullptr;
  CHECK_HCCL(HcclCommInitRootInfo(ranks, args->root, rank, &comm));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));
  CHECK_HCCL(HcclAlltoAllV(sendBuf, counts.data(), displs.data(), HCCL_DATA_TYPE_FP32, recvBuf,
                           counts.data(), displs.data(), HCCL_DATA_TYPE_FP32, comm, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));

  // Rank r prints r seconds after the others start, so that the lines come in rank order.
  std::this_thread::sleep_for(std::chrono::seconds(rank));
  CHECK_ACL(aclrtMemcpy(host, bytes, recvBuf, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  std::cout << "rankId: " << rank << ", output: [";
  for (uint32_t i = 0; i < ranks; ++i) std::cout << " " << values[i];
  std::cout << " ]" << std::endl;

  CHECK_HCCL(HcclCommDestroy(comm));
  CHECK_ACL(aclrtFreeHost(host));
  CHECK_ACL(aclrtFree(sendBuf));
  CHECK_ACL(aclrtFree(recvBuf));
  CHECK_ACL(aclrtDestroyStream(stream));
  return 0;
}

int main() {
  CHECK_ACL(aclInit(nullptr));
  uint32_t devices = 0;
  CHECK_ACL(aclrtGetDeviceCount(&devices));
  std::cout << "Found " << devices << " NPU device(s) available" << std::endl;

  // Rank 0's device makes the root info every rank joins with.
  CHECK_ACL(aclrtSetDevice(0));
  void* rootBuf = nullptr;
  CHECK_ACL(aclrtMallocHost(&rootBuf, sizeof(HcclRootInfo)));
  HcclRootInfo* root = static_cast<HcclRootInfo*>(rootBuf);
  CHECK_HCCL(HcclGetRootInfo(root));

  std::vector<RankArgs> args(devices);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < devices; ++r) {
    args[r] = RankArgs{root, r, devices};
    threads.emplace_back(RunRank, &args[r]);
  }
  for (std::thread& t : threads) t.join();

  CHECK_ACL(aclrtFreeHost(rootBuf));
  CHECK_ACL(aclFinalize());
  return 0;
}
