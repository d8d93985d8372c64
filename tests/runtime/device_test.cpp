// Devices, run mode, peer access and memory information.
#include <algorithm>
#include <vector>

#include "acl_fixture.h"

class Device : public AclTest {};
class EightNpuServer : public AclTest {
 protected:
  EightNpuServer() : AclTest("atlas-800t-a2") {}
};

TEST_F(Device, CountAndCurrentDevice) {
  uint32_t count = 0;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
  EXPECT_EQ(count, 1u);  // the built-in default has one NPU
  int32_t id = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&id));
  EXPECT_EQ(id, 0);
  EXPECT_ACL_ERROR(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Device, BadDeviceIds) {
  EXPECT_ACL_ERROR(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtResetDevice(7), ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST_F(Device, NoCurrentContextAfterReset) {
  ASSERT_ACL_OK(aclrtResetDevice(0));
  int32_t id = -1;
  EXPECT_ACL_ERROR(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_ACL_ERROR(aclrtSynchronizeDevice(), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(Device, SetDeviceTwiceNeedsOneReset) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtResetDevice(0));  // one reset releases the default context and its streams
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(Device, ResetFreesTheDevicesMemory) {
  void* p = nullptr;
  size_t free0 = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
  ASSERT_ACL_OK(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  size_t free1 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
  EXPECT_EQ(free1, free0);
  EXPECT_ACL_ERROR(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);
}

TEST_F(Device, RunModeHost) {
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_ACL_OK(aclrtGetRunMode(&mode));
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_ACL_ERROR(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Device, MemInfoMovesWithAllocations) {
  size_t free0 = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
  EXPECT_EQ(total, 32ull << 30);  // the default NPU: 32 GiB of HBM2e
  EXPECT_EQ(free0, total);
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
  size_t free1 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
  EXPECT_EQ(free0 - free1, 1024u + 32u);  // 1000 rounded up to 32 B (1024) plus 32 B
  ASSERT_ACL_OK(aclrtFree(p));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
  EXPECT_EQ(free1, free0);
  size_t ddrFree = 1, ddrTotal = 1;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_DDR_MEM, &ddrFree, &ddrTotal));
  EXPECT_EQ(ddrTotal, 0u);  // an HBM part has no device DDR
  EXPECT_ACL_ERROR(aclrtGetMemInfo(static_cast<aclrtMemAttr>(13), &ddrFree, &ddrTotal),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &ddrTotal), ACL_ERROR_INVALID_PARAM);
}

TEST_F(EightNpuServer, EveryPairIsAnHccsPeer) {
  // atlas-800t-a2: the eight 910Bs form an HCCS full mesh, so every pair is a peer, and
  // aclrtGetDevicesTopo says HCCS (0x01) for each.
  for (int32_t a = 0; a < 8; ++a) {
    for (int32_t b = 0; b < 8; ++b) {
      if (a == b) continue;
      int32_t can = -1;
      uint64_t topo = 0;
      ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, a, b));
      ASSERT_ACL_OK(aclrtGetDevicesTopo(static_cast<uint32_t>(a), static_cast<uint32_t>(b), &topo));
      EXPECT_EQ(can, 1) << a << " -> " << b;
      EXPECT_EQ(topo, ACL_RT_DEVS_TOPOLOGY_HCCS) << a << " -> " << b;
    }
  }
  int32_t can = -1;
  uint64_t topo = 0;
  EXPECT_ACL_ERROR(aclrtDeviceCanAccessPeer(&can, 2, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtDeviceCanAccessPeer(&can, 0, 8), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtDeviceCanAccessPeer(nullptr, 0, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtGetDevicesTopo(0, 8, &topo), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtGetDevicesTopo(0xFFFFFFFFu, 1, &topo), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtGetDevicesTopo(3, 3, &topo), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtGetDevicesTopo(0, 1, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_ACL_ERROR(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtDeviceEnablePeerAccess(9, 0), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_INVALID_PARAM);  // never enabled
  ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(4, 0));
  ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(4));
}

class GroupsOfFour : public AclTest {
 protected:
  GroupsOfFour() : AclTest("atlas-800-9000") {}
};

TEST_F(GroupsOfFour, HccsInsideAGroupASwitchBetweenGroups) {
  // atlas-800-9000: HCCS joins npu0..3 and npu4..7; the groups meet at the top PCIe switch sw0.
  uint64_t topo = 0;
  int32_t can = -1;
  ASSERT_ACL_OK(aclrtGetDevicesTopo(0, 3, &topo));
  EXPECT_EQ(topo, ACL_RT_DEVS_TOPOLOGY_HCCS);
  ASSERT_ACL_OK(aclrtGetDevicesTopo(1, 6, &topo));
  EXPECT_EQ(topo, ACL_RT_DEVS_TOPOLOGY_PIX);
  ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 1, 6));
  EXPECT_EQ(can, 1);
}

TEST_F(GroupsOfFour, A910AHasAiCoresWithBothUnits) {
  // 910A: 32 AI Cores (atlas-800-9000's ai_core.cores), each with a cube and a vector unit, so
  // CANN counts 32 of each.
  int64_t v = 0;
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
  EXPECT_EQ(v, 32);
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
  EXPECT_EQ(v, 32);
  ASSERT_ACL_OK(aclrtGetDeviceInfo(7, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
  EXPECT_EQ(v, 32);
}

class DuoCards : public AclTest {
 protected:
  DuoCards() : AclTest("atlas-300i-duo") {}
};

TEST_F(DuoCards, PeersOnlyOnOneCard) {
  // atlas-300i-duo: two 310P3 chips per card behind the card's switch (PIX), cards on separate
  // root ports of one host bridge (PHB), which does not forward peer traffic: refused.
  uint64_t topo = 0;
  int32_t can = -1;
  ASSERT_ACL_OK(aclrtGetDevicesTopo(0, 1, &topo));
  EXPECT_EQ(topo, ACL_RT_DEVS_TOPOLOGY_PIX);
  ASSERT_ACL_OK(aclrtGetDevicesTopo(0, 2, &topo));
  EXPECT_EQ(topo, ACL_RT_DEVS_TOPOLOGY_PHB);
  ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
  EXPECT_EQ(can, 1);
  ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 2));
  EXPECT_EQ(can, 0);
  ASSERT_EQ(aclrtDeviceEnablePeerAccess(2, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  const char* why = aclGetRecentErrMsg();
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("peer_to_peer: false"), std::string::npos) << why;
}

TEST_F(EightNpuServer, PeerCopyNeedsEnabledAccess) {
  const size_t n = 1 << 20;
  void* d0 = nullptr;
  void* d1 = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d0, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d1, n, 0x5A, n));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_ERROR(aclrtMemcpy(d0, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
  ASSERT_ACL_OK(aclrtMemcpy(d0, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
  std::vector<unsigned char> host(n);
  ASSERT_ACL_OK(aclrtMemcpy(host.data(), n, d0, n, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(std::count(host.begin(), host.end(), 0x5A), static_cast<long>(n));
  ASSERT_ACL_OK(aclrtResetDevice(1));
}

TEST_F(EightNpuServer, StreamsAndEventsOfAnotherDeviceAreRefused) {
  aclrtStream s0 = nullptr;
  aclrtEvent e0 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s0));
  ASSERT_ACL_OK(aclrtCreateEvent(&e0));
  void* d0 = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d0, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<unsigned char> h(4096);
  ASSERT_ACL_OK(aclrtSetDevice(1));
  // Device 1 is current: a stream of device 0 cannot carry its copies.
  EXPECT_ACL_ERROR(aclrtMemcpyAsync(d0, 4096, h.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE, s0),
                   ACL_ERROR_RT_STREAM_CONTEXT);
  aclrtStream s1 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  EXPECT_ACL_ERROR(aclrtRecordEvent(e0, s1), ACL_ERROR_RT_STREAM_CONTEXT);
  ASSERT_ACL_OK(aclrtDestroyStream(s1));
  ASSERT_ACL_OK(aclrtResetDevice(1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtDestroyEvent(e0));
  ASSERT_ACL_OK(aclrtDestroyStream(s0));
  ASSERT_ACL_OK(aclrtFree(d0));
}

TEST_F(Device, DeviceToDeviceCopiesCarryAtMost4GiB) {
  // Sparse memory: these allocations cost nothing, and the refused copy moves nothing.
  const size_t big = (4ull << 30) + 4096;
  void *a = nullptr, *b = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, big, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&b, big, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERROR(aclrtMemcpy(b, big, a, big, ACL_MEMCPY_DEVICE_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtMemcpyAsync(b, big, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtFree(b));
}

TEST_F(Device, InfoStatusAndLimitsOfA910B4) {
  // The default 910B4: 40 vector cores (ai_core.cores) and 20 cube cores (CANN platform config:
  // ai_core_cnt 20, vector_core_cnt 40), 32 GiB of HBM; limits 1..count, then reset.
  int64_t v = 0;
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
  EXPECT_EQ(v, 40);
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
  EXPECT_EQ(v, 20);
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
  EXPECT_EQ(v, 20);
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
  EXPECT_EQ(v, 32ll << 30);
  EXPECT_ACL_ERROR(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, &v),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_ACL_ERROR(aclrtGetDeviceInfo(3, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v),
                   ACL_ERROR_RT_INVALID_DEVICEID);
  aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_ABNORMAL;
  ASSERT_ACL_OK(aclrtQueryDeviceStatus(0, &status));
  EXPECT_EQ(status, ACL_RT_DEVICE_STATUS_NORMAL);
  int32_t capability = -1;
  ASSERT_ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &capability));
  EXPECT_EQ(capability, ACL_DEV_FEATURE_SUPPORT);  // an A2 SoC (device_state_test.cpp)
  uint32_t limit = 0;
  ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &limit));
  EXPECT_EQ(limit, 40u);
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 5));
  EXPECT_ACL_ERROR(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 21),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 0),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtSetDeviceResLimit(0, static_cast<aclrtDevResLimitType>(2), 1),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &limit));
  EXPECT_EQ(limit, 5u);
  ASSERT_ACL_OK(aclrtResetDeviceResLimit(0));
  ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &limit));
  EXPECT_EQ(limit, 20u);
  aclrtStream current = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&current));
  EXPECT_NE(current, nullptr);
  int32_t id = -1, defaultId = -2;
  ASSERT_ACL_OK(aclrtStreamGetId(current, &id));
  ASSERT_ACL_OK(aclrtStreamGetId(nullptr, &defaultId));
  EXPECT_EQ(id, defaultId);
  aclrtUtilizationInfo info{};
  aclrtUtilizationExtendInfo* bogus = reinterpret_cast<aclrtUtilizationExtendInfo*>(&info);
  info.utilizationExtend = bogus;
  EXPECT_ACL_ERROR(aclrtGetDeviceUtilizationRate(0, &info), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Device, CannAttributesAndArchCompatibilityFollowTheSoc) {
  // The default 910B4 is an A2 SoC: inf/nan mode and bf16 available, no online compilation; a
  // model for any 910B part runs on it, one for 910A or 310P does not.
  const aclCannAttr* list = nullptr;
  size_t n = 0;
  ASSERT_ACL_OK(aclGetCannAttributeList(&list, &n));
  ASSERT_EQ(n, 3u);
  const int32_t expected[] = {1, 1, 0};
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(list[i], static_cast<aclCannAttr>(i));
    int32_t value = -1;
    ASSERT_ACL_OK(aclGetCannAttribute(list[i], &value));
    EXPECT_EQ(value, expected[i]) << i;
  }
  int32_t v = 0;
  EXPECT_ACL_ERROR(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
  int32_t ok = -1;
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910B1", &ok));
  EXPECT_EQ(ok, 1);
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910A", &ok));
  EXPECT_EQ(ok, 0);
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend310P3", &ok));
  EXPECT_EQ(ok, 0);
  EXPECT_ACL_ERROR(aclrtCheckArchCompatibility(nullptr, &ok), ACL_ERROR_INVALID_PARAM);
}

TEST_F(GroupsOfFour, A910AHasNeitherInfNanNorBf16) {
  int32_t value = -1;
  ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &value));
  EXPECT_EQ(value, 0);
  ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &value));
  EXPECT_EQ(value, 0);
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910A", &value));
  EXPECT_EQ(value, 1);
}

TEST_F(Device, SynchronizeDeviceWaitsForTheStreamsOfEveryContext) {
  // A 64 MiB host-to-device copy on a stream of an explicit context takes milliseconds of
  // simulated time (at most some tens of GB/s over PCIe): just after it is queued the stream is
  // not done. aclrtSynchronizeDevice from the device's default context waits for it too.
  const size_t n = 64 << 20;
  aclrtContext def = nullptr, ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  void* host = nullptr;
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&host, n));
  ASSERT_ACL_OK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  ASSERT_ACL_OK(aclrtSetCurrentContext(def));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  ASSERT_ACL_OK(aclrtSetCurrentContext(def));
  ASSERT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtFreeHost(host));
}

TEST_F(EightNpuServer, AResetDeviceForgetsItsPeerAccess) {
  // Peer access is the device's while a context holds it: once aclrtResetDevice lets the last
  // hold go, the device starts clean, and disabling access it no longer has is refused.
  ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_ERROR(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
  ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));  // while held, it was enabled
}
