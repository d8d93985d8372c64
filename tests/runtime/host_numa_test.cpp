// aclrtMallocHostWithCfg and host buffers on the NUMA node of the thread that allocates them
// (`host.memory_socket: thread`, `host.thread_sockets`), through the public C API.
#include <thread>

#include "acl_fixture.h"

namespace {

TEST_F(AclTest, MallocHostWithCfgChecksItsConfigAsCann) {
  // CANN's runtime (ApiImpl::HostMallocWithCfg): NULL ptr and size 0 are ACL's parameter checks
  // (100000); host memory takes the MODULE_ID and VA_FLAG attributes, anything else, or a config
  // without its array, is an invalid value (RT_ERROR_INVALID_VALUE -> 107000).
  void* p = nullptr;
  EXPECT_ACL_ERROR(aclrtMallocHostWithCfg(nullptr, 64, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMallocHostWithCfg(&p, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  aclrtMallocConfig noArray{nullptr, 1};
  EXPECT_ACL_ERROR(aclrtMallocHostWithCfg(&p, 64, &noArray), ACL_ERROR_RT_PARAM_INVALID);
  aclrtMallocAttribute attr{};
  aclrtMallocConfig cfg{&attr, 1};
  attr.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
  attr.value.deviceId = 0;
  EXPECT_ACL_ERROR(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
  attr.attr = ACL_RT_MEM_ATTR_RSV;
  EXPECT_ACL_ERROR(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
  attr.attr = ACL_RT_MEM_ATTR_VA_FLAG;
  attr.value.vaFlag = 2;
  EXPECT_ACL_ERROR(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(p, nullptr);
  // The default machine's 910B4 is an A2 part: VA consistency is available.
  attr.value.vaFlag = 1;
  ASSERT_ACL_OK(aclrtMallocHostWithCfg(&p, 100, &cfg));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  ASSERT_ACL_OK(aclrtFreeHost(p));
  attr.attr = ACL_RT_MEM_ATTR_MODULE_ID;
  attr.value.moduleId = 7;
  ASSERT_ACL_OK(aclrtMallocHostWithCfg(&p, 100, &cfg));
  // It is pinned memory: an asynchronous copy from it runs asynchronously, and it frees with
  // aclrtFreeHost.
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(d, 100, p, 100, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(p));
  ASSERT_ACL_OK(aclrtMallocHostWithCfg(&p, 100, nullptr));
  ASSERT_ACL_OK(aclrtFreeHost(p));
}

class TwoSockets : public AclTest {
 protected:
  TwoSockets() : AclTest(testData("two-sockets.yaml")) {}
};

TEST_F(TwoSockets, PhysicalHostMemoryChecksItsNodeThenIsRefused) {
  // aclrtMallocPhysical on the host (CANN's VMM path for a chosen NUMA node): a node the machine
  // lacks is an invalid value from the driver (DRV_ERROR_INVALID_VALUE -> 107000); UNREGISTERED
  // and MANAGED are refused by ACL itself (100000); a node it has is valid but not simulated
  // (207000).
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.memAttr = ACL_DDR_MEM_HUGE;
  aclrtDrvMemHandle h = nullptr;
  const size_t size = 2u << 20;
  prop.location = {2, ACL_MEM_LOCATION_TYPE_HOST_NUMA};  // two sockets: nodes 0 and 1
  EXPECT_ACL_ERROR(aclrtMallocPhysical(&h, size, &prop, 0), ACL_ERROR_RT_PARAM_INVALID);
  prop.location = {0, ACL_MEM_LOCATION_TYPE_MANAGED};
  EXPECT_ACL_ERROR(aclrtMallocPhysical(&h, size, &prop, 0), ACL_ERROR_INVALID_PARAM);
  prop.location = {0, ACL_MEM_LOCATION_TYPE_UNREGISTERED};
  EXPECT_ACL_ERROR(aclrtMallocPhysical(&h, size, &prop, 0), ACL_ERROR_INVALID_PARAM);
  prop.location = {1, ACL_MEM_LOCATION_TYPE_HOST_NUMA};
  EXPECT_ACL_ERROR(aclrtMallocPhysical(&h, size, &prop, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  prop.location = {0, ACL_MEM_LOCATION_TYPE_HOST};
  EXPECT_ACL_ERROR(aclrtMallocPhysical(&h, size, &prop, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_EQ(h, nullptr);
}

// 64 MiB host to device from a pinned buffer, in simulated ms.
float copyFrom(void* host, void* device) {
  const size_t bytes = 64u << 20;
  return elapsedMs([&] {
    EXPECT_EQ(aclrtMemcpyAsync(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
              ACL_SUCCESS);
  });
}

TEST_F(TwoSockets, PinnedBuffersLiveOnTheSocketOfTheThreadThatAllocatedThem) {
  // The main thread (thread 0) runs on socket 1, the thread it starts (thread 1) on socket 0; the
  // device hangs off socket 0. The main thread's buffer is read across the socket link: 64 MiB /
  // 10 GB/s = 6.711 ms, plus the copy's launch, DMA setup and first round trip (about 3 us:
  // 0.05 %). The other thread's buffer is local: 64 MiB at the Gen4 x16 completion rate (256 B of
  // data per 276 B of TLP: 26.365 GB/s) = 2.545 ms.
  const size_t bytes = 64u << 20;
  void* device = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  void* far = nullptr;
  void* near = nullptr;
  ASSERT_ACL_OK(aclrtMallocHostWithCfg(&far, bytes, nullptr));
  std::thread worker([&] { EXPECT_EQ(aclrtMallocHost(&near, bytes), ACL_SUCCESS); });
  worker.join();
  ASSERT_NE(near, nullptr);
  const double farMs = copyFrom(far, device);
  const double nearMs = copyFrom(near, device);
  EXPECT_NEAR(farMs / (bytes / 10e9 * 1e3), 1.0, 0.005) << farMs;
  const double gen4Completions =
      16e9 * 16 * 128.0 / 130.0 / 8 * (1.0 - 16.0 / 168 - 4.0 / 1538) * 256 / 276;
  EXPECT_NEAR(nearMs / (bytes / gen4Completions * 1e3), 1.0, 0.005) << nearMs;
  ASSERT_ACL_OK(aclrtFreeHost(far));
  ASSERT_ACL_OK(aclrtFreeHost(near));
  ASSERT_ACL_OK(aclrtFree(device));
}

}  // namespace
