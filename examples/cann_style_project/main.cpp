// A small AscendCL program for the CANN-style build test: copies a buffer to the device and back.
#include <cstdio>
#include <vector>

#include "acl/acl.h"

int main() {
  const size_t n = 1 << 20;
  std::vector<unsigned char> in(n), out(n, 0);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i * 7);
  void* dev = nullptr;
  if (aclInit(nullptr) || aclrtSetDevice(0) || aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST))
    return 1;
  if (aclrtMemcpy(dev, n, in.data(), n, ACL_MEMCPY_HOST_TO_DEVICE)) return 1;
  if (aclrtMemcpy(out.data(), n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST)) return 1;
  if (aclrtFree(dev) || aclrtResetDevice(0) || aclFinalize()) return 1;
  std::printf("cann-style app: round trip %s\n", in == out ? "ok" : "MISMATCH");
  return in == out ? 0 : 1;
}
