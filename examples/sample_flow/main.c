/*
 * The vendor sample's flow, written as CANN users write it: initialise, set a device, create a
 * stream, allocate three host and three device buffers, copy two inputs to the device, run a
 * device-side step, copy the result back, check it, and release everything in order.
 * Until device-side compute lands, the device-side step is the runtime's own: the result buffer
 * is filled with the first input (device-to-device copy) and its tail overwritten by a memset.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                  \
  do {                                                               \
    aclError ret_ = (call);                                          \
    if (ret_ != ACL_SUCCESS) {                                       \
      const char* msg_ = aclGetRecentErrMsg();                       \
      printf("%s failed: %d (%s)\n", #call, ret_, msg_ ? msg_ : ""); \
      return 1;                                                      \
    }                                                                \
  } while (0)

#define N 4096

int main(void) {
  int32_t deviceId = 0;
  aclrtStream stream = NULL;
  void *hostA = NULL, *hostB = NULL, *hostC = NULL;
  void *devA = NULL, *devB = NULL, *devC = NULL;
  size_t bytes = N * sizeof(float);
  size_t i;

  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(deviceId));
  CHECK(aclrtCreateStream(&stream));

  CHECK(aclrtMallocHost(&hostA, bytes));
  CHECK(aclrtMallocHost(&hostB, bytes));
  CHECK(aclrtMallocHost(&hostC, bytes));
  CHECK(aclrtMalloc(&devA, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&devB, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&devC, bytes, ACL_MEM_MALLOC_HUGE_FIRST));

  for (i = 0; i < N; ++i) {
    ((float*)hostA)[i] = (float)i;
    ((float*)hostB)[i] = 2.0f * (float)i;
  }
  CHECK(aclrtMemcpyAsync(devA, bytes, hostA, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CHECK(aclrtMemcpyAsync(devB, bytes, hostB, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));

  /* Device-side step: C = A, then the last quarter of C set to zero bytes. */
  CHECK(aclrtMemcpyAsync(devC, bytes, devA, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
  CHECK(aclrtMemsetAsync((char*)devC + 3 * bytes / 4, bytes / 4, 0, bytes / 4, stream));

  CHECK(aclrtMemcpyAsync(hostC, bytes, devC, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtSynchronizeStream(stream));

  for (i = 0; i < N; ++i) {
    float expected = i < 3 * N / 4 ? (float)i : 0.0f;
    if (((float*)hostC)[i] != expected) {
      printf("mismatch at %zu: %f != %f\n", i, ((float*)hostC)[i], expected);
      return 1;
    }
  }

  CHECK(aclrtFree(devA));
  CHECK(aclrtFree(devB));
  CHECK(aclrtFree(devC));
  CHECK(aclrtFreeHost(hostA));
  CHECK(aclrtFreeHost(hostB));
  CHECK(aclrtFreeHost(hostC));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(deviceId));
  CHECK(aclFinalize());
  printf("sample flow: %d floats checked, all correct\n", N);
  return 0;
}
