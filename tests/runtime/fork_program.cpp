// A program that forks after aclInit (issue #34): the child exits at once, running its exit
// handlers; the parent goes on with another copy and finalises. The parent's trace must stay one
// whole JSON file holding both copies: the child leaves the parent's outputs alone.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

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
  const pid_t child = fork();
  if (child == 0) std::exit(0);  // atexit handlers run in the child
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(aclrtMemcpy(host, bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK(aclrtFree(device));
  CHECK(aclrtFreeHost(host));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("parent done\n");
  return 0;
}
