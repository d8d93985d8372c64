// What a program reads about a device comes from the device's state and preset (issue #36): its
// status after a fault, its capabilities per SoC, cube utilisation from the cores that hold the
// cube units, core limits reaching kernel timing, and custom allocators left to the layers CANN
// calls them from.
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>

#include "acl/acl_rt_allocator.h"
#include "acl_fixture.h"
#include "aclnnop/aclnn_add.h"
#include "ascendsim/ascendc.h"
#include "ascendsim/compute.h"
#include "kernel_operator.h"

namespace {

class DeviceState : public AclTest {};
// Ascend910A: AI Cores with both units, 32 of them at 1000 MHz, 256 vector bytes per cycle.
class Ascend910A : public AclTest {
 protected:
  Ascend910A() : AclTest("atlas-800-9000") {}
};

// A 910B4 whose vector cores are given 96 KiB of Unified Buffer in YAML (aicore.unified_buffer).
std::string smallUnifiedBufferMachine() {
  const std::string path = ::testing::TempDir() + "small-ub.yaml";
  std::ofstream(path)
      << "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 1 }\n"
         "devices:\n  - port: rc.0\n    soc: Ascend910B4\n    memory: { preset: hbm2e }\n"
         "    aicore: { unified_buffer: 96KiB }\n";
  return path;
}
class SmallUnifiedBuffer : public AclTest {
 protected:
  SmallUnifiedBuffer() : AclTest(smallUnifiedBufferMachine()) {}
};

TEST_F(SmallUnifiedBuffer, TheConfiguredSizeIsWhatTheRuntimeAndKernelsSee) {
  // 96 KiB = 98304 bytes, instead of the 910B4's default 196608.
  int64_t ub = 0;
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, &ub));
  EXPECT_EQ(ub, 96 * 1024);
  // A TPipe of 2 x 48 KiB fits; 2 x 48 KiB + 32 B does not, and the kernel fails (507035).
  auto pipeOf = [](uint32_t extra) {
    return [extra] {
      AscendC::TPipe pipe;
      AscendC::TQue<AscendC::QuePosition::VECIN, 2> in;
      AscendC::TBuf<AscendC::QuePosition::VECCALC> more;
      pipe.InitBuffer(in, 2, 48 * 1024);
      if (extra > 0) pipe.InitBuffer(more, extra);
    };
  };
  ASSERT_EQ(ascendsim::ascendc::launch("Fits", 1, nullptr, nullptr, pipeOf(0)), 0u);
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_EQ(ascendsim::ascendc::launch("TooBig", 1, nullptr, nullptr, pipeOf(32)), 0u);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find("98336 bytes, more than the core's 98304 bytes"), std::string::npos)
      << message;
}

aclrtDeviceStatus status() {
  aclrtDeviceStatus s = ACL_RT_DEVICE_STATUS_END;
  EXPECT_EQ(aclrtQueryDeviceStatus(0, &s), ACL_SUCCESS);
  return s;
}

// A kernel whose block 0 traps, synchronised: the device's vector cores raise the fault.
void trapOnDevice0() {
  ASSERT_EQ(ascendsim::ascendc::launch("Trap", 2, nullptr, nullptr,
                                       [] {
                                         if (ascendsimAscendCBlockIdx() == 0)
                                           ascendsimAscendCTrap();
                                       }),
            0u);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
}

TEST_F(DeviceState, ATrapLeavesTheDeviceAbnormalUntilAForcedReset) {
  EXPECT_EQ(status(), ACL_RT_DEVICE_STATUS_NORMAL);
  trapOnDevice0();
  EXPECT_EQ(status(), ACL_RT_DEVICE_STATUS_ABNORMAL);
  EXPECT_EQ(status(), ACL_RT_DEVICE_STATUS_ABNORMAL);  // a query does not clear it
  aclrtDeviceStatus s = ACL_RT_DEVICE_STATUS_END;
  EXPECT_ACL_ERROR(aclrtQueryDeviceStatus(5, &s), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtQueryDeviceStatus(0, nullptr), ACL_ERROR_INVALID_PARAM);
  // Another thread's aclrtSetDevice keeps the device (and its state) through this thread's reset...
  std::thread([] { EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS); }).join();
  ASSERT_ACL_OK(aclrtResetDevice(0));
  EXPECT_EQ(status(), ACL_RT_DEVICE_STATUS_ABNORMAL);
  // ...a forced reset releases every reference: the device starts clean.
  ASSERT_ACL_OK(aclrtResetDeviceForce(0));
  EXPECT_EQ(status(), ACL_RT_DEVICE_STATUS_NORMAL);
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

TEST_F(DeviceState, ResettingTheLastReferenceRecoversTheDevice) {
  trapOnDevice0();
  EXPECT_EQ(status(), ACL_RT_DEVICE_STATUS_ABNORMAL);
  ASSERT_ACL_OK(aclrtResetDevice(0));
  EXPECT_EQ(status(), ACL_RT_DEVICE_STATUS_NORMAL);
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

TEST_F(DeviceState, CapabilitiesOfAnA2Soc) {
  // The default machine's Ascend910B4 is an A2 SoC: CANN's sample prints 1 for AI Core task update
  // on an Ascend910B3 (hicann/runtime example/0_quickstart/3_cross_version), and its runtime's unit
  // tests expect cross-device memory-queue events on the 910B.
  int32_t value = -1;
  ASSERT_ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &value));
  EXPECT_EQ(value, ACL_DEV_FEATURE_SUPPORT);
  value = -1;
  ASSERT_ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &value));
  EXPECT_EQ(value, ACL_DEV_FEATURE_SUPPORT);
  EXPECT_ACL_ERROR(aclrtGetDeviceCapability(0, static_cast<aclrtDevFeatureType>(2), &value),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtGetDeviceCapability(3, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &value),
                   ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, nullptr),
                   ACL_ERROR_INVALID_PARAM);
}

TEST_F(Ascend910A, CapabilitiesOfA910A) {
  // CANN lists aclrtGetDeviceCapability for A2/A3 products only: a 910A supports neither feature.
  int32_t value = -1;
  ASSERT_ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &value));
  EXPECT_EQ(value, ACL_DEV_FEATURE_NOT_SUPPORT);
  value = -1;
  ASSERT_ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &value));
  EXPECT_EQ(value, ACL_DEV_FEATURE_NOT_SUPPORT);
}

TEST_F(Ascend910A, UnifiedBufferIsTheSocsWhenNotGiven) {
  // The atlas-800-9000 preset leaves aicore.unified_buffer out: a 910A AI Core's 256 KiB (Ascend C
  // documentation), 262144 bytes.
  int64_t ub = 0;
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, &ub));
  EXPECT_EQ(ub, 262144);
}

// Simulated microseconds a pure-arithmetic kernel of `ops` float32 operations takes on the default
// stream, between two events.
double arithmeticKernelUs(uint64_t ops) {
  return 1000.0 * elapsedMs([ops] {
           EXPECT_EQ(ascendsimLaunchComputeTask("Arithmetic", 0, 0, ops, 4, nullptr), ACL_SUCCESS);
         });
}

constexpr uint64_t kOps = 8ull << 20;  // 8 Mi float32 operations
// One core does 256 B / 4 B = 64 operations per cycle: kOps / 64 = 131072 core-cycles, 131.072 us
// on one 910A core at 1000 MHz, 79.437 us on one core of the default 910B4 at 1650 MHz.
constexpr double kCoreUs = (8ull << 20) / 64.0 / 1000.0;
constexpr double kCoreUs910B4 = (8ull << 20) / 64.0 / 1650.0;
// Event times are float milliseconds (about 1e-8 ms at 0.1 ms) and core times round up to a
// picosecond: 2 ns covers both, far below the 4 us differences checked.
constexpr double kToleranceUs = 0.002;

TEST_F(Ascend910A, ACubeCoreLimitCapsKernelsOnTheAiCores) {
  // On a 910A kernels run on the AI Cores, which are its cube cores: limited to 4 of the 32 a
  // kernel takes kCoreUs / 4, to 8 kCoreUs / 8; the fixed costs (launch, dispatch) are the same in
  // both, so the difference is kCoreUs x (1/4 - 1/8) = 16.384 us.
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 4));
  const double four = arithmeticKernelUs(kOps);
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 8));
  const double eight = arithmeticKernelUs(kOps);
  EXPECT_NEAR(four - eight, kCoreUs * (1.0 / 4 - 1.0 / 8), kToleranceUs)
      << four << " us vs " << eight << " us";
  // The smaller of the two limits applies: cube 8, vector 4 runs on 4 cores.
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 4));
  EXPECT_NEAR(arithmeticKernelUs(kOps), four, kToleranceUs);
  // No limit: all 32 cores, kCoreUs x (1/8 - 1/32) = 12.288 us less than on 8.
  ASSERT_ACL_OK(aclrtResetDeviceResLimit(0));
  EXPECT_NEAR(eight - arithmeticKernelUs(kOps), kCoreUs * (1.0 / 8 - 1.0 / 32), kToleranceUs);
}

TEST_F(DeviceState, ACubeCoreLimitLeavesVectorKernelsOfAnA2SocAlone) {
  // A 910B4's kernels run on its 40 vector cores; nothing simulated runs on its 20 cube cores, so a
  // cube limit changes no kernel's time, while a vector limit of 8 adds
  // kCoreUs910B4 x (1/8 - 1/40) = 7.944 us.
  const double all = arithmeticKernelUs(kOps);
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
  EXPECT_NEAR(arithmeticKernelUs(kOps), all, kToleranceUs);
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 8));
  EXPECT_NEAR(arithmeticKernelUs(kOps) - all, kCoreUs910B4 * (1.0 / 8 - 1.0 / 40), kToleranceUs);
}

// A kernel of 100 ms on all cores: the run is almost all kernel, so the share is 99 or 100 %
// (the rest, aclInit to the launch plus dispatch and synchronisation, is microseconds; the
// percentage is rounded down).
void runHundredMsKernel(uint32_t cores) {
  const uint64_t ops = 100000ull * 1000 * 64 * cores;  // 1e8 cycles x 64 ops per core per cycle
  ASSERT_ACL_OK(ascendsimLaunchComputeTask("Long", 0, 0, ops, 4, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
}

TEST_F(Ascend910A, CubeUtilisationCountsTheAiCores) {
  // CANN's cubeUtilization is the AI Cores' share (RT_UTIL_TYPE_AICORE); a 910A runs kernels there.
  runHundredMsKernel(32);
  aclrtUtilizationInfo info{};
  ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(0, &info));
  EXPECT_GE(info.cubeUtilization, 99);
  EXPECT_LE(info.cubeUtilization, 100);
  EXPECT_EQ(info.vectorUtilization, info.cubeUtilization);  // the same cores
}

TEST_F(DeviceState, CubeUtilisationOfAnA2SocStaysZeroForVectorKernels) {
  // The 910B4 ran a 100 ms kernel on its vector cores (AIV): vector 99-100 %, its cube cores (AIC)
  // idle.
  runHundredMsKernel(40);
  aclrtUtilizationInfo info{};
  ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(0, &info));
  EXPECT_GE(info.vectorUtilization, 99);
  EXPECT_LE(info.vectorUtilization, 100);
  EXPECT_EQ(info.cubeUtilization, 0);
}

// An allocator that counts its calls.
struct CountingAllocator {
  int allocations = 0;
};
void* countAllocation(aclrtAllocator allocator, size_t) {
  ++static_cast<CountingAllocator*>(allocator)->allocations;
  return nullptr;
}
void freeNothing(aclrtAllocator, aclrtAllocatorBlock) {}
void* blockAddress(aclrtAllocatorBlock block) {
  return block;
}

TEST_F(DeviceState, AclnnOpsTakeNoWorkspaceFromAStreamsAllocator) {
  // CANN calls a stream's registered allocator from single-operator model execution
  // (aclopExecuteV2...) and dynamic-shape model execution (aclmdlExecuteAsync) only (CANN
  // aclrtAllocatorRegister, constraints); an aclnn op takes its workspace from its caller. Here
  // aclnnAdd needs none: the size is 0 and the allocator is never called.
  aclrtStream stream = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&stream));
  CountingAllocator counter;
  aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
  ASSERT_NE(desc, nullptr);
  ASSERT_ACL_OK(aclrtAllocatorSetObjToDesc(desc, &counter));
  ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(desc, countAllocation));
  ASSERT_ACL_OK(aclrtAllocatorSetFreeFuncToDesc(desc, freeNothing));
  ASSERT_ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, blockAddress));
  ASSERT_ACL_OK(aclrtAllocatorRegister(stream, desc));
  constexpr int64_t n = 1024;
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, n * sizeof(float), 0, n * sizeof(float), stream));
  const int64_t stride = 1;
  aclTensor* t = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, d);
  float one = 1.0f;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t workspace = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(t, t, alpha, t, &workspace, &executor), 0);
  EXPECT_EQ(workspace, 0u);
  ASSERT_EQ(aclnnAdd(nullptr, 0, executor, stream), 0);
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_EQ(counter.allocations, 0);
  aclDestroyTensor(t);
  aclDestroyScalar(alpha);
  ASSERT_ACL_OK(aclrtAllocatorUnregister(stream));
  ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(desc));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtDestroyStream(stream));
}

}  // namespace
