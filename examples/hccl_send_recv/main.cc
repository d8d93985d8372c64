// Point to point over every NPU of the machine from one process, one thread per device, written
// the way hicann/hccl's examples/01_point_to_point/01_send_recv is: each even rank sends eight
// copies of its rank id to the next rank, which receives and prints them (an even number of
// NPUs).
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
  const uint64_t count = 8;
  const size_t bytes = count * sizeof(float);
  CHECK_ACL(aclrtSetDevice(static_cast<int32_t>(rank)));

  void* buf = nullptr;
  CHECK_ACL(aclrtMalloc(&buf, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  void* host = nullptr;
  CHECK_ACL(aclrtMallocHost(&host, bytes));
  float* values = static_cast<float*>(host);
  for (uint64_t i = 0; i < count; ++i) values[i] = static_cast<float>(rank);
  CHECK_ACL(aclrtMemcpy(buf, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

  HcclComm comm = nullptr;
  CHECK_HCCL(HcclCommInitRootInfo(args->ranks, args->root, rank, &comm));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));
  const bool sender = rank % 2 == 0;
  if (sender) {
    CHECK_HCCL(HcclSend(buf, count, HCCL_DATA_TYPE_FP32, rank + 1, comm, stream));
  } else {
    CHECK_HCCL(HcclRecv(buf, count, HCCL_DATA_TYPE_FP32, rank - 1, comm, stream));
  }
  CHECK_ACL(aclrtSynchronizeStream(stream));

  if (!sender) {
    // Rank r prints r seconds after the others start, so that the lines come in rank order.
    std::this_thread::sleep_for(std::chrono::seconds(rank));
    CHECK_ACL(aclrtMemcpy(host, bytes, buf, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    std::cout << "rankId: " << rank << ", output: [";
    for (uint64_t i = 0; i < count; ++i) std::cout << " " << values[i];
    std::cout << " ]" << std::endl;
  }

  CHECK_HCCL(HcclCommDestroy(comm));
  CHECK_ACL(aclrtFreeHost(host));
  CHECK_ACL(aclrtFree(buf));
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
