/*
 * Allocates memory by run mode, as the vendor documentation shows: in EP mode (ACL_HOST) input
 * data is prepared in host memory and copied to the device; in RC mode (ACL_DEVICE) the program
 * runs on the device and aclrtMallocHost memory is already device memory, usable directly.
 * Run it on an EP machine (default) and on an RC one (atlas-200i-dk-a2).
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

int main(void) {
  const size_t n = 1 << 20;
  aclrtRunMode mode;
  void *input = NULL, *dev = NULL;
  unsigned char check[64];
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtGetRunMode(&mode));
  CHECK(aclrtMallocHost(&input, n));
  memset(input, 0x42, n);
  CHECK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
  if (mode == ACL_HOST) {
    printf("run mode ACL_HOST (EP): copying the input over PCIe\n");
    CHECK(aclrtMemcpy(dev, n, input, n, ACL_MEMCPY_HOST_TO_DEVICE));
  } else {
    printf("run mode ACL_DEVICE (RC): the input already sits in device memory; local copy\n");
    CHECK(aclrtMemcpy(dev, n, input, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
  }
  CHECK(aclrtMemcpy(check, sizeof check, (char*)dev + n - sizeof check, sizeof check,
                    mode == ACL_HOST ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_DEVICE_TO_DEVICE));
  for (size_t i = 0; i < sizeof check; ++i) {
    if (check[i] != 0x42) return 1;
  }
  CHECK(aclrtFree(dev));
  CHECK(aclrtFreeHost(input));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("data checked\n");
  return 0;
}
