// Ascend C launches through the runtime's C API (what ascendc_library's rewritten launches call):
// blocks in order on device memory at its own addresses, the bytes left behind, faults reported
// with CANN's codes. Each test states what it expects.
#include <cstring>
#include <string>
#include <vector>

#include "acl_fixture.h"
#include "ascendsim/ascendc.h"

class AscendC : public AclTest {};

TEST_F(AscendC, BlocksRunInOrderOnDeviceMemory) {
  // 4 blocks each write their index into their quarter of a 4 KiB buffer: after the kernel the
  // buffer reads back 0,0,...,1,1,...,3 and the blocks ran 0, 1, 2, 3.
  constexpr size_t n = 1024;
  int32_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), n * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<int64_t> order;
  auto* orderPtr = &order;
  ASSERT_EQ(ascendsim::ascendc::launch("Quarters", 4, nullptr, nullptr, [=]() {
              const int64_t b = ascendsimAscendCBlockIdx(), blocks = ascendsimAscendCBlockNum();
              orderPtr->push_back(b);
              for (size_t i = static_cast<size_t>(b) * n / blocks; i < static_cast<size_t>(b + 1) * n / blocks; ++i) {
                d[i] = static_cast<int32_t>(b);
              }
            }),
            0u);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3}));
  std::vector<int32_t> back(n);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n * 4, d, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], static_cast<int32_t>(i / 256)) << i;
  EXPECT_EQ(ascendsimAscendCBlockIdx(), 0);  // outside a kernel
  EXPECT_EQ(ascendsimAscendCBlockNum(), 1);
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendC, AKernelReadsWhatACopyWroteAndTakesItsTime) {
  // 1 MiB copied up, a kernel doubles it in place, copied down: every value doubled. The kernel
  // touched 256 pages and changed them all: 2 MiB of traffic and 512 Ki scalar instructions on one
  // core at 1.65 GHz, about 318 us, so it ends well after 300 us.
  constexpr size_t n = 1 << 18;
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(d, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  aclrtEvent before = nullptr, after = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&before));
  ASSERT_ACL_OK(aclrtCreateEvent(&after));
  ASSERT_ACL_OK(aclrtRecordEvent(before, nullptr));
  ASSERT_EQ(ascendsim::ascendc::launch("Double", 1, nullptr, nullptr, [=]() {
              for (size_t i = 0; i < n; ++i) d[i] *= 2;
            }),
            0u);
  ASSERT_ACL_OK(aclrtRecordEvent(after, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, before, after));
  EXPECT_GT(ms, 0.300f);
  EXPECT_LT(ms, 0.400f);
  std::vector<float> back(n);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n * 4, d, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], 2.0f * static_cast<float>(i)) << i;
  ASSERT_ACL_OK(aclrtDestroyEvent(before));
  ASSERT_ACL_OK(aclrtDestroyEvent(after));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendC, OutOfBoundsAndTrapsFailTheStreamWithCannsCodes) {
  float* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  // 1 MiB past a 4 KiB buffer: outside every allocation of the device.
  ASSERT_EQ(ascendsim::ascendc::launch("Wild", 2, nullptr, nullptr, [=]() {
              if (ascendsimAscendCBlockIdx() == 1) d[1 << 18] = 1.0f;
            }),
            0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_AICORE_EXCEPTION);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find("kernel Wild, block 1: out-of-bounds access at 0x"), std::string::npos) << message;
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));  // reported once
  ASSERT_EQ(ascendsim::ascendc::launch("Trap", 3, nullptr, nullptr, [=]() {
              if (ascendsimAscendCBlockIdx() == 2) ascendsimAscendCTrap();
              d[0] = 5.0f;
            }),
            0u);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_ERROR_RT_AICORE_TRAP_EXCEPTION);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("kernel Trap trapped in block 2"), std::string::npos);
  float back = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&back, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, 5.0f);  // blocks 0 and 1 ran before the trap
  // Bad launches are refused and their arguments freed.
  EXPECT_ACL_ERROR(ascendsimLaunchAscendCKernel("None", 0, nullptr, [](void*) {}, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(ascendsimLaunchAscendCKernel("NoEntry", 1, nullptr, nullptr, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtFree(d));
}
