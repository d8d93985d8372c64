/*
 * Peer-to-peer copy between two NPUs under one PCIe switch (run on atlas-800t-a2: npu0 and
 * npu1 share sw0, npu0 and npu4 do not). Checks CanAccessPeer both ways, enables access in the
 * one direction the copy needs, copies, and checks the bytes on the other device.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                                  \
  do {                                                                               \
    aclError ret_ = (call);                                                          \
    if (ret_ != ACL_SUCCESS) {                                                       \
      const char* msg_ = aclGetRecentErrMsg();                                       \
      printf("%s failed: %d (%s)\n", #call, ret_, msg_ ? msg_ : "");                 \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

int main(void) {
  const size_t n = 8 << 20;
  int32_t canNear = 0, canFar = 1;
  void *src = NULL, *dst = NULL, *host = NULL;
  size_t i;
  CHECK(aclInit(NULL));
  CHECK(aclrtDeviceCanAccessPeer(&canNear, 0, 1));
  CHECK(aclrtDeviceCanAccessPeer(&canFar, 0, 4));
  printf("npu0 -> npu1: %s, npu0 -> npu4: %s\n", canNear ? "peer access" : "no peer access",
         canFar ? "peer access" : "no peer access");
  if (!canNear || canFar) return 1;

  CHECK(aclrtSetDevice(1));
  CHECK(aclrtMalloc(&dst, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtMalloc(&src, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMallocHost(&host, n));
  for (i = 0; i < n; ++i) ((unsigned char*)host)[i] = (unsigned char)(i % 251);
  CHECK(aclrtMemcpy(src, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));

  if (aclrtDeviceEnablePeerAccess(4, 0) == ACL_SUCCESS) return 1; /* refused: no common switch */
  CHECK(aclrtDeviceEnablePeerAccess(1, 0));
  CHECK(aclrtMemcpy(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_DEVICE));

  memset(host, 0, n);
  CHECK(aclrtSetDevice(1));
  CHECK(aclrtMemcpy(host, n, dst, n, ACL_MEMCPY_DEVICE_TO_HOST));
  for (i = 0; i < n; ++i) {
    if (((unsigned char*)host)[i] != (unsigned char)(i % 251)) {
      printf("mismatch at %zu\n", i);
      return 1;
    }
  }
  CHECK(aclrtFree(dst));
  CHECK(aclrtResetDevice(1));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtDeviceDisablePeerAccess(1));
  CHECK(aclrtFree(src));
  CHECK(aclrtFreeHost(host));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("peer-to-peer copy of %zu bytes npu0 -> npu1 checked\n", n);
  return 0;
}
