// ascendsimLaunchComputeTaskIn (and ...Sized, with a gather size): a timing-only kernel whose
// traffic lands in a device buffer in a declared pattern. Refusals carry CANN's codes (100000 for
// bad arguments, 107000 for memory the stream's device does not own); with device memory timed
// burst by burst (timing: cycle) the pattern sets the time, with sustained timing only the bytes
// do.
#include "acl_fixture.h"
#include "ascendsim/compute.h"

namespace {

class ComputeTaskIn : public AclTest {
 protected:
  explicit ComputeTaskIn(std::string machine = "") : AclTest(std::move(machine)) {}
  void SetUp() override {
    AclTest::SetUp();
    ASSERT_ACL_OK(aclrtMalloc(&region, kRegion, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtCreateStream(&stream));
  }
  void TearDown() override {
    aclrtDestroyStream(stream);
    aclrtFree(region);
    AclTest::TearDown();
  }
  // Milliseconds a kernel reading `bytes` of the region in `pattern` takes, between two events.
  float kernelMs(ascendsimAccessPattern pattern, uint64_t bytes, uint64_t stride = 0) {
    return elapsedMs(
        [&] {
          EXPECT_EQ(ascendsimLaunchComputeTaskIn("k", region, kRegion, pattern, stride, bytes, 0,
                                                 bytes / 4, 4, stream),
                    ACL_SUCCESS);
        },
        stream);
  }
  static constexpr uint64_t kRegion = 256ull << 20;
  void* region = nullptr;
  aclrtStream stream = nullptr;
};

class ComputeTaskInCycle : public ComputeTaskIn {
 protected:
  ComputeTaskInCycle() : ComputeTaskIn(testData("cycle-memory.yaml")) {}
};

TEST_F(ComputeTaskIn, RefusesBadArguments) {
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskIn(nullptr, region, kRegion, ASCENDSIM_ACCESS_RANDOM,
                                                0, 64, 0, 0, 4, stream),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskIn("k", nullptr, kRegion, ASCENDSIM_ACCESS_RANDOM, 0,
                                                64, 0, 0, 4, stream),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(
      ascendsimLaunchComputeTaskIn("k", region, 0, ASCENDSIM_ACCESS_RANDOM, 0, 64, 0, 0, 4, stream),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskIn("k", region, kRegion, 7, 0, 64, 0, 0, 4, stream),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskIn("k", region, kRegion, ASCENDSIM_ACCESS_STRIDED, 0,
                                                64, 0, 0, 4, stream),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskIn("k", region, kRegion, ASCENDSIM_ACCESS_RANDOM, 0,
                                                64, 0, 0, 0, stream),
                   ACL_ERROR_INVALID_PARAM);
  // Host memory, and a region running past its allocation, are not the device's to touch.
  void* host = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&host, 4096));
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskIn("k", host, 4096, ASCENDSIM_ACCESS_RANDOM, 0, 64, 0,
                                                0, 4, stream),
                   ACL_ERROR_RT_PARAM_INVALID);
  aclrtFreeHost(host);
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskIn("k", region, kRegion + 1, ASCENDSIM_ACCESS_RANDOM,
                                                0, 64, 0, 0, 4, stream),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // nothing was queued
}

// The gather size: a multiple of 32 bytes (the AI Core's data block), no larger than the region,
// and only for patterns that place accesses (a sequential walk has no access size).
TEST_F(ComputeTaskIn, RefusesBadAccessSizes) {
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskSized("k", region, kRegion, ASCENDSIM_ACCESS_RANDOM, 0,
                                                   48, 64, 0, 0, 4, stream),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskSized("k", region, kRegion, ASCENDSIM_ACCESS_RANDOM, 0,
                                                   16, 64, 0, 0, 4, stream),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(
      ascendsimLaunchComputeTaskSized("k", region, kRegion, ASCENDSIM_ACCESS_SEQUENTIAL, 0, 64, 64,
                                      0, 0, 4, stream),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(ascendsimLaunchComputeTaskSized("k", region, 4096, ASCENDSIM_ACCESS_RANDOM, 0,
                                                   8192, 64, 0, 0, 4, stream),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // nothing was queued
  EXPECT_EQ(ascendsimLaunchComputeTaskSized("k", region, kRegion, ASCENDSIM_ACCESS_STRIDED, 4096,
                                            96, 64, 0, 0, 4, stream),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
}

// Sustained timing charges bytes at the sequential rate, whatever the pattern: 64 MiB read
// sequentially and at random take the same time (to the event's resolution).
TEST_F(ComputeTaskIn, SustainedTimingIgnoresThePattern) {
  const float sequential = kernelMs(ASCENDSIM_ACCESS_SEQUENTIAL, 64ull << 20);
  const float random = kernelMs(ASCENDSIM_ACCESS_RANDOM, 64ull << 20);
  EXPECT_NEAR(random, sequential, 0.001 * sequential);
}

// Timed burst by burst, random 32-byte reads open a row each: a pseudo-channel opens at most 4
// rows per tFAW (15 ns), so the 32 pseudo-channels read at most 32 x 4 x 32 B / 15 ns = 273 GB/s,
// and 64 MiB take at least 0.246 ms, against about 0.09 ms sequentially (90 % of 819.2 GB/s).
TEST_F(ComputeTaskInCycle, RandomReadsAreSlowerThanSequential) {
  const float sequential = kernelMs(ASCENDSIM_ACCESS_SEQUENTIAL, 64ull << 20);
  const float random = kernelMs(ASCENDSIM_ACCESS_RANDOM, 64ull << 20);
  EXPECT_GT(random, 0.246f);
  EXPECT_LT(sequential, 0.1f);
  const float strided = kernelMs(ASCENDSIM_ACCESS_STRIDED, 32ull << 20, 4096);
  EXPECT_GT(strided, 2 * sequential);
}

// 64-byte gathers are two bursts of one row each (the interleaved mapping puts the column's low
// bits first): one activate per 64 B, so the activate bound halves to 64 MiB / (32 x 4 x 64 B /
// 15 ns) = 0.123 ms, and the same bytes gather faster than in 32-byte pieces.
TEST_F(ComputeTaskInCycle, WiderGathersOpenFewerRows) {
  auto gatherMs = [&](uint64_t accessBytes) {
    return elapsedMs(
        [&] {
          EXPECT_EQ(
              ascendsimLaunchComputeTaskSized("k", region, kRegion, ASCENDSIM_ACCESS_RANDOM, 0,
                                              accessBytes, 64ull << 20, 0, 16ull << 20, 4, stream),
              ACL_SUCCESS);
        },
        stream);
  };
  const float narrow = gatherMs(32);
  const float wide = gatherMs(64);
  EXPECT_GT(narrow, 0.246f);
  EXPECT_GT(wide, 0.123f);
  EXPECT_LT(wide, 0.8f * narrow);
}

}  // namespace
