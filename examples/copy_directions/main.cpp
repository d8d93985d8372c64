// Every copy direction, synchronous and asynchronous, checked byte for byte, with the simulated
// time each took (from events) and the bandwidth that implies.
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"

#define CHECK(call)                                                       \
  do {                                                                    \
    aclError ret_ = (call);                                               \
    if (ret_ != ACL_SUCCESS) {                                            \
      const char* msg_ = aclGetRecentErrMsg();                            \
      std::printf("%s failed: %d (%s)\n", #call, ret_, msg_ ? msg_ : ""); \
      return 1;                                                           \
    }                                                                     \
  } while (0)

int main() {
  const size_t n = 16 << 20;
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream s = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
  CHECK(aclrtCreateStream(&s));
  CHECK(aclrtCreateEvent(&start));
  CHECK(aclrtCreateEvent(&end));
  void *pinned = nullptr, *pinnedBack = nullptr, *devA = nullptr, *devB = nullptr;
  CHECK(aclrtMallocHost(&pinned, n));
  CHECK(aclrtMallocHost(&pinnedBack, n));
  CHECK(aclrtMalloc(&devA, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&devB, n, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<unsigned char> pageable(n), pageableBack(n);
  for (size_t i = 0; i < n; ++i) pageable[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  std::memcpy(pinned, pageable.data(), n);

  struct Step {
    const char* name;
    void* dst;
    const void* src;
    aclrtMemcpyKind kind;
    bool async;
  };
  const Step steps[] = {
      {"H2H sync (pageable->pinned)", pinnedBack, pageable.data(), ACL_MEMCPY_HOST_TO_HOST, false},
      {"H2D sync (pageable)", devA, pageable.data(), ACL_MEMCPY_HOST_TO_DEVICE, false},
      {"D2D sync", devB, devA, ACL_MEMCPY_DEVICE_TO_DEVICE, false},
      {"D2H sync (pageable)", pageableBack.data(), devB, ACL_MEMCPY_DEVICE_TO_HOST, false},
      {"H2D async (pinned)", devA, pinned, ACL_MEMCPY_HOST_TO_DEVICE, true},
      {"D2D async", devB, devA, ACL_MEMCPY_DEVICE_TO_DEVICE, true},
      {"D2H async (pinned)", pinnedBack, devB, ACL_MEMCPY_DEVICE_TO_HOST, true},
  };
  for (const Step& step : steps) {
    CHECK(aclrtRecordEvent(start, s));
    if (step.async) {
      CHECK(aclrtMemcpyAsync(step.dst, n, step.src, n, step.kind, s));
    } else {
      CHECK(aclrtMemcpy(step.dst, n, step.src, n, step.kind));
    }
    CHECK(aclrtRecordEvent(end, s));
    CHECK(aclrtSynchronizeStream(s));
    const void* landed = step.dst;
    std::vector<unsigned char> check(n);
    if (step.kind == ACL_MEMCPY_HOST_TO_DEVICE || step.kind == ACL_MEMCPY_DEVICE_TO_DEVICE) {
      CHECK(aclrtMemcpy(check.data(), n, step.dst, n, ACL_MEMCPY_DEVICE_TO_HOST));
      landed = check.data();
    }
    if (std::memcmp(landed, pageable.data(), n) != 0) {
      std::printf("%s: data mismatch\n", step.name);
      return 1;
    }
    float ms = 0;
    CHECK(aclrtEventElapsedTime(&ms, start, end));
    std::printf("%-30s ok  %8.3f ms between events%s\n", step.name, ms,
                step.async ? "" : " (synchronous copies run outside the stream)");
  }
  CHECK(aclrtFree(devA));
  CHECK(aclrtFree(devB));
  CHECK(aclrtFreeHost(pinned));
  CHECK(aclrtFreeHost(pinnedBack));
  CHECK(aclrtDestroyEvent(start));
  CHECK(aclrtDestroyEvent(end));
  CHECK(aclrtDestroyStream(s));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("every direction checked: %zu bytes each\n", n);
  return 0;
}
