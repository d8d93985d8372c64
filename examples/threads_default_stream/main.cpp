// Several host threads share one device and its default stream: each copies its own data up and
// back, many times, and checks it. Calls from the threads interleave on the default stream.
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  aclrtContext ctx = nullptr;
  if (aclrtGetCurrentContext(&ctx) != ACL_SUCCESS) return 1;
  const int threads = 6;
  const size_t n = 256 << 10;
  std::vector<int> failures(threads, 0);
  std::vector<std::thread> pool;
  for (int id = 0; id < threads; ++id) {
    pool.emplace_back([&, id] {
      int& bad = failures[static_cast<size_t>(id)];
      if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) {
        bad++;
        return;
      }
      void *host = nullptr, *dev = nullptr;
      if (aclrtMallocHost(&host, n) || aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST)) {
        bad++;
        return;
      }
      std::vector<unsigned char> back(n);
      for (int round = 0; round < 20; ++round) {
        std::memset(host, (id * 31 + round) & 0xFF, n);
        bad += aclrtMemcpyAsync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr) != ACL_SUCCESS;
        bad += aclrtMemcpyAsync(back.data(), n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, nullptr) !=
               ACL_SUCCESS;
        bad += aclrtSynchronizeStream(nullptr) != ACL_SUCCESS;
        bad += std::memcmp(back.data(), host, n) != 0;
      }
      bad += aclrtFree(dev) != ACL_SUCCESS;
      bad += aclrtFreeHost(host) != ACL_SUCCESS;
    });
  }
  for (auto& t : pool) t.join();
  int total = 0;
  for (int id = 0; id < threads; ++id) total += failures[static_cast<size_t>(id)];
  if (aclrtResetDevice(0) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS) return 1;
  std::printf("%d threads x 20 round trips on the default stream: %d failure(s)\n", threads, total);
  return total == 0 ? 0 : 1;
}
