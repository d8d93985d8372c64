// A program whose last output line has no newline when it finalises (issue #33): one copy of
// 1 MiB, then "result: 42" on stdout without a newline, then aclFinalize. The run summary must
// appear only when asked, and then on lines of its own after the program's output.
#include <cstdio>

#include "acl/acl.h"

#define CHECK(call)                                                         \
  do {                                                                      \
    const aclError rc = (call);                                             \
    if (rc != ACL_SUCCESS) {                                                \
      std::fprintf(stderr, "%s failed: %d\n", #call, static_cast<int>(rc)); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

int main() {
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  const size_t bytes = 1 << 20;
  void* host = nullptr;
  void* device = nullptr;
  CHECK(aclrtMallocHost(&host, bytes));
  CHECK(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtFree(device));
  CHECK(aclrtFreeHost(host));
  std::printf("result: 42");
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  return 0;
}
