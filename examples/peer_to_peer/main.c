/*
 * Peer-to-peer copy between two NPUs. Asks aclrtGetDevicesTopo how npu0 reaches npu1 and npu4,
 * checks that aclrtDeviceCanAccessPeer agrees (HCCS and a shared PCIe switch make peers; a host
 * bridge or another socket does not, on the presets here), enables access in the one direction
 * the copy needs, copies npu0 -> npu1 and checks the bytes on the other device.
 * On atlas-800t-a2 every pair is HCCS; on atlas-300i-duo npu0/npu1 share a card's switch (PIX)
 * and npu4 is on another card (PHB, refused).
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

static const char* topologyName(uint64_t t) {
  if (t & ACL_RT_DEVS_TOPOLOGY_HCCS) return "HCCS";
  if (t & ACL_RT_DEVS_TOPOLOGY_PIX) return "PIX";
  if (t & ACL_RT_DEVS_TOPOLOGY_PHB) return "PHB";
  if (t & ACL_RT_DEVS_TOPOLOGY_SYS) return "SYS";
  return "?";
}

static int32_t isPeerTopology(uint64_t t) {
  return (t & (ACL_RT_DEVS_TOPOLOGY_HCCS | ACL_RT_DEVS_TOPOLOGY_PIX)) ? 1 : 0;
}

int main(void) {
  const size_t n = 8 << 20;
  int32_t canNear = 0, canFar = 1;
  uint64_t topoNear = 0, topoFar = 0;
  void *src = NULL, *dst = NULL, *host = NULL;
  size_t i;
  CHECK(aclInit(NULL));
  CHECK(aclrtDeviceCanAccessPeer(&canNear, 0, 1));
  CHECK(aclrtDeviceCanAccessPeer(&canFar, 0, 4));
  CHECK(aclrtGetDevicesTopo(0, 1, &topoNear));
  CHECK(aclrtGetDevicesTopo(0, 4, &topoFar));
  printf("npu0 -> npu1: %s (%s), npu0 -> npu4: %s (%s)\n", topologyName(topoNear),
         canNear ? "peer access" : "no peer access", topologyName(topoFar),
         canFar ? "peer access" : "no peer access");
  /* Peers exactly when an HCCS link or a PCIe switch joins them. */
  if (canNear != isPeerTopology(topoNear) || canFar != isPeerTopology(topoFar) || !canNear)
    return 1;

  CHECK(aclrtSetDevice(1));
  CHECK(aclrtMalloc(&dst, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtMalloc(&src, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMallocHost(&host, n));
  for (i = 0; i < n; ++i) ((unsigned char*)host)[i] = (unsigned char)(i % 251);
  CHECK(aclrtMemcpy(src, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));

  if (!canFar && aclrtDeviceEnablePeerAccess(4, 0) == ACL_SUCCESS) return 1; /* must be refused */
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
