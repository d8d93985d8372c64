// Run mode device (RC): the program runs on the device; aclrtMallocHost returns device memory.
#include <cstring>
#include <vector>

#include "acl_fixture.h"

class RcMode : public AclTest {
 protected:
  RcMode() : AclTest("atlas-200i-dk-a2") {}
};

TEST_F(RcMode, MallocHostIsDeviceMemoryAndCopiesAreLocal) {
  aclrtRunMode mode = ACL_HOST;
  ASSERT_ACL_OK(aclrtGetRunMode(&mode));
  EXPECT_EQ(mode, ACL_DEVICE);
  size_t free0 = 0, total = 0, free1 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free0, &total));
  EXPECT_EQ(total, 4ull << 30);  // 310B: 4 GB LPDDR4X, reported as device DDR
  const size_t n = 1 << 20;
  void* h = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free1, &total));
  EXPECT_EQ(free0 - free1, n);  // it came out of the device's memory
  std::memset(h, 0x77, n);      // and the program on the device may touch it directly
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
  std::vector<unsigned char> back(n);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, std::vector<unsigned char>(n, 0x77));
  // Host to host is a device-local copy in RC mode, so it may be asynchronous.
  std::vector<unsigned char> other(n);
  ASSERT_ACL_OK(aclrtMemcpyAsync(other.data(), n, h, n, ACL_MEMCPY_HOST_TO_HOST, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(other, back);
  ASSERT_ACL_OK(aclrtFree(d));
  EXPECT_ACL_ERROR(aclrtFree(h), ACL_ERROR_RT_MEMORY_FREE);
  ASSERT_ACL_OK(aclrtFreeHost(h));
}
