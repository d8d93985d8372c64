// Ascend C launches through the runtime's C API (what ascendc_library's rewritten launches call):
// blocks in order on device memory at its own addresses, the bytes left behind, faults reported
// with CANN's codes. Each test states what it expects.
#include <cstring>
#include <string>
#include <vector>

#include "acl_fixture.h"
#include "ascendsim/ascendc.h"
#include "kernel_operator.h"

class AscendCKernels : public AclTest {};

TEST_F(AscendCKernels, BlocksRunInOrderOnDeviceMemory) {
  // 4 blocks each write their index into their quarter of a 4 KiB buffer: after the kernel the
  // buffer reads back 0,0,...,1,1,...,3 and the blocks ran 0, 1, 2, 3.
  constexpr size_t n = 1024;
  int32_t* d = nullptr;
  ASSERT_ACL_OK(
      aclrtMalloc(reinterpret_cast<void**>(&d), n * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<int64_t> order;
  auto* orderPtr = &order;
  ASSERT_EQ(ascendsim::ascendc::launch("Quarters", 4, nullptr, nullptr,
                                       [=]() {
                                         const int64_t b = ascendsimAscendCBlockIdx(),
                                                       blocks = ascendsimAscendCBlockNum();
                                         orderPtr->push_back(b);
                                         for (size_t i = static_cast<size_t>(b) * n / blocks;
                                              i < static_cast<size_t>(b + 1) * n / blocks; ++i) {
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

namespace {
// Between the records' ends around one kernel, besides the kernel's body (default machine): the
// launch call's 5 us of host time (the first record ended 1 us after its own call), the task
// launch 1 us and the cores' start 2 us, then the second record's task launch 1 us: 8 us.
constexpr double kAroundKernelMs = (5 + 1 + 2 + 1 - 1) * 1e-3;
// The default machine's 910B4 vector cores (configs/default.yaml): 1.65 GHz, 64 B per cycle in
// (MTE2, or a page the scalar code loads) and out (MTE3, or a page it changed), 256 B per cycle
// through the vector unit; issuing an instruction takes 4 scalar cycles (docs/ascendc.md).
constexpr double kClock = 1.65e9;
constexpr double kInPerCycle = 64, kOutPerCycle = 64, kVectorPerCycle = 256, kIssue = 4;
double cyclesMs(double cycles) {
  return cycles / kClock * 1e3;
}
// The kernel times below are the cost model's arithmetic, within 0.1 us: the cores' work starts
// once the kernel's first step of device memory has come in (its latency; 30 ns measured on every
// kernel below), and the memory's other steps overlap the cores'.
constexpr double kKernelToleranceMs = 1e-4;
}  // namespace

TEST_F(AscendCKernels, AKernelReadsWhatACopyWroteAndTakesItsTime) {
  // 1 MiB copied up, a kernel doubles it in place, copied down: every value doubled. The kernel's
  // scalar code (not built with coverage here, so its instructions are not counted) first touches
  // each of the 256 pages, which the scalar unit loads at 64 B per cycle (64 cycles each), and
  // changes them all, each written back at 64 B per cycle at the block's end: 2 x 256 x 64 =
  // 32768 cycles at 1.65 GHz, 19.86 us (within 0.1 us; device memory's 2 MiB take far less).
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
  ASSERT_EQ(ascendsim::ascendc::launch("Double", 1, nullptr, nullptr,
                                       [=]() {
                                         for (size_t i = 0; i < n; ++i) d[i] *= 2;
                                       }),
            0u);
  ASSERT_ACL_OK(aclrtRecordEvent(after, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, before, after));
  const double pages = n * 4 / 4096;
  const double expected = cyclesMs(pages * 4096 / kInPerCycle + pages * 4096 / kOutPerCycle);
  EXPECT_NEAR(ms - kAroundKernelMs, expected, kKernelToleranceMs) << ms << " ms";
  std::vector<float> back(n);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n * 4, d, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], 2.0f * static_cast<float>(i)) << i;
  ASSERT_ACL_OK(aclrtDestroyEvent(before));
  ASSERT_ACL_OK(aclrtDestroyEvent(after));
  ASSERT_ACL_OK(aclrtFree(d));
}

namespace {
// An out-of-bounds kernel, then a trapping one, on the default stream; each synchronisation is
// expected to fail with the given code and to name the kernel and block.
void outOfBoundsThenTrap(aclError outOfBounds, aclError trap) {
  float* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  // 1 MiB past a 4 KiB buffer: outside every allocation of the device.
  ASSERT_EQ(ascendsim::ascendc::launch("Wild", 2, nullptr, nullptr,
                                       [=]() {
                                         if (ascendsimAscendCBlockIdx() == 1) d[1 << 18] = 1.0f;
                                       }),
            0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), outOfBounds);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find("kernel Wild, block 1: out-of-bounds access at 0x"), std::string::npos)
      << message;
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));  // reported once
  ASSERT_EQ(ascendsim::ascendc::launch("Trap", 3, nullptr, nullptr,
                                       [=]() {
                                         if (ascendsimAscendCBlockIdx() == 2)
                                           ascendsimAscendCTrap();
                                         d[0] = 5.0f;
                                       }),
            0u);
  EXPECT_EQ(aclrtSynchronizeDevice(), trap);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("kernel Trap trapped in block 2"),
            std::string::npos);
  float back = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&back, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, 5.0f);  // blocks 0 and 1 ran before the trap
  // Bad launches are refused and their arguments freed.
  EXPECT_ACL_ERROR(ascendsimLaunchAscendCKernel(
                       "None", 0, nullptr, [](void*) {}, nullptr, 0, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(
      ascendsimLaunchAscendCKernel("NoEntry", 1, nullptr, nullptr, nullptr, 0, nullptr),
      ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtFree(d));
}
}  // namespace

TEST_F(AscendCKernels, FaultsOnVectorCoresAreVectorCoreExceptions) {
  // The default machine's 910B4 runs vector kernels on its vector cores: a trap and an
  // out-of-bounds access both fail the sync with 507035, as the vendor's
  // stream/1_stream_with_failure_mode shows for a trap on A2.
  outOfBoundsThenTrap(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
}

class AscendCKernelsOnAiCores : public AclTest {
 protected:
  AscendCKernelsOnAiCores() : AclTest("atlas-800-9000") {}  // 910A: AI Cores only
};

TEST_F(AscendCKernelsOnAiCores, FaultsAreAiCoreExceptions) {
  outOfBoundsThenTrap(ACL_ERROR_RT_AICORE_EXCEPTION, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION);
}

namespace {
// z = x + y over `n` floats split between `blocks` blocks, 1024 at a time through queues: two
// buffers per operand (double buffering, as CANN's samples do) or one.
void launchQueuedAdd(uint32_t blocks, float* x, float* y, float* z, uint32_t n,
                     bool doubleBuffered) {
  ascendsim::ascendc::launch("QueuedAdd", blocks, nullptr, nullptr, [=]() {
    constexpr uint32_t tile = 1024;
    const uint32_t per = n / static_cast<uint32_t>(AscendC::GetBlockNum());
    const uint64_t first = static_cast<uint64_t>(AscendC::GetBlockIdx()) * per;
    AscendC::GlobalTensor<float> xg, yg, zg;
    xg.SetGlobalBuffer(x + first, per);
    yg.SetGlobalBuffer(y + first, per);
    zg.SetGlobalBuffer(z + first, per);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> in;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> out;
    const uint8_t buffers = doubleBuffered ? 2 : 1;
    pipe.InitBuffer(in, 2 * buffers, tile * sizeof(float));  // x and y
    pipe.InitBuffer(out, buffers, tile * sizeof(float));
    for (uint32_t i = 0; i < per / tile; ++i) {
      AscendC::LocalTensor<float> a = in.AllocTensor<float>(), b = in.AllocTensor<float>();
      AscendC::DataCopy(a, xg[i * tile], tile);
      AscendC::DataCopy(b, yg[i * tile], tile);
      in.EnQue(a);
      in.EnQue(b);
      a = in.DeQue<float>();
      b = in.DeQue<float>();
      AscendC::LocalTensor<float> c = out.AllocTensor<float>();
      AscendC::Add(c, a, b, tile);
      out.EnQue(c);
      in.FreeTensor(a);
      in.FreeTensor(b);
      c = out.DeQue<float>();
      AscendC::DataCopy(zg[i * tile], c, tile);
      out.FreeTensor(c);
    }
  });
}

double kernelMs(uint32_t blocks, float* x, float* y, float* z, uint32_t n,
                bool doubleBuffered = true) {
  return elapsedMs([&] { launchQueuedAdd(blocks, x, y, z, n, doubleBuffered); });
}

// The cost model's cycles for one block of QueuedAdd over `tiles` tiles of 4 KiB per operand.
// Per tile: x and y in through MTE2, 2 x 4096 / 64 = 128 cycles; the Add, 4096 / 256 = 16; z
// out through MTE3, 4096 / 64 = 64; four instructions issued, 16 scalar cycles, which keep ahead.
// Double buffered, MTE2 never waits: the first issue, then MTE2 busy throughout, then the last
// tile's Add and copy-out. Single buffered, the next tile's copy-in waits for the Add to have read
// x and y: MTE2 and the vector unit take turns (the copy-out, shorter than a copy-in, overlaps).
double queuedAddCycles(double tiles, bool doubleBuffered) {
  const double in = 2 * 4096 / kInPerCycle, add = 4096 / kVectorPerCycle, out = 4096 / kOutPerCycle;
  return doubleBuffered ? kIssue + tiles * in + add + out : kIssue + tiles * (in + add) + out;
}
}  // namespace

TEST_F(AscendCKernels, TheVectorInterfaceComputesAndIsTimedFromItsPipes) {
  // 1 MiB of floats each in x and y, z = x + y, through queues, 256 tiles of 1024 floats. Each
  // time is the cost model's arithmetic (queuedAddCycles) within 0.1 us:
  // - one block, double buffered: 4 + 256 x 128 + 16 + 64 = 32852 cycles, 19.91 us;
  // - one block, single buffered: 4 + 256 x 144 + 64 = 36932 cycles, 22.38 us;
  // - two blocks on two cores, 128 tiles each: 16468 cycles, 9.98 us (device memory's 3 MiB
  //   need 3.84 us at the HBM's peak, 2 stacks x 409.6 GB/s, so the cores bind);
  // - four blocks limited to two vector cores (aclrtSetDeviceResLimit): 64 tiles each, two
  //   after each other on each core: 2 x 8276 = 16552 cycles, 10.03 us.
  // Eight blocks on eight cores would take 4180 cycles (2.53 us), less than device memory needs:
  // the kernel takes at least the 3.84 us of HBM peak, and less than two blocks do.
  constexpr uint32_t n = 1 << 18;
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 0.25f * static_cast<float>(i % 13);
  }
  float *dx = nullptr, *dy = nullptr, *dz = nullptr;
  for (float** p : {&dx, &dy, &dz})
    ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(p), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(dx, n * 4, x.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(dy, n * 4, y.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  const double tiles = n / 1024;
  auto expectKernel = [&](double ms, double cycles, const char* what) {
    const double expected = cyclesMs(cycles);
    EXPECT_NEAR(ms - kAroundKernelMs, expected, kKernelToleranceMs) << what << ": " << ms << " ms";
  };
  expectKernel(kernelMs(1, dx, dy, dz, n), queuedAddCycles(tiles, true), "one block");
  expectKernel(kernelMs(1, dx, dy, dz, n, false), queuedAddCycles(tiles, false), "single buffered");
  expectKernel(kernelMs(2, dx, dy, dz, n), queuedAddCycles(tiles / 2, true), "two blocks");
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 2));
  expectKernel(kernelMs(4, dx, dy, dz, n), 2 * queuedAddCycles(tiles / 4, true),
               "four blocks on two cores");
  ASSERT_ACL_OK(aclrtResetDeviceResLimit(0));
  const double eight = kernelMs(8, dx, dy, dz, n) - kAroundKernelMs;
  const double hbmPeakMs = 3.0 * (1 << 20) / (2 * 409.6e9) * 1e3;
  ASSERT_LT(cyclesMs(queuedAddCycles(tiles / 8, true)), hbmPeakMs);  // (the memory binds)
  EXPECT_GT(eight, hbmPeakMs) << eight << " ms";
  EXPECT_LT(eight, cyclesMs(queuedAddCycles(tiles / 2, true))) << eight << " ms";
  std::vector<float> z(n);
  ASSERT_ACL_OK(aclrtMemcpy(z.data(), n * 4, dz, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;
  for (float* p : {dx, dy, dz}) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(AscendCKernels, StopOnFailureSkipsTheRestOfTheStream) {
  // CANN's ACL_STOP_ON_FAILURE: after the trapping kernel, the memset queued behind it does not
  // run, the stream reports the trap at every synchronisation and takes no new task; continue
  // mode cannot come back (207000); the lowest bit of the mode is what counts.
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, 3));  // bit 0: stop again
  EXPECT_ACL_ERROR(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  uint8_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, 64, 0x11, 64));
  ASSERT_EQ(ascendsim::ascendc::launch("Trap", 1, nullptr, s, [] { ascendsimAscendCTrap(); }), 0u);
  ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 0x22, 64, s));
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  uint8_t back = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&back, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, 0x11);  // the memset behind the trap was skipped
  EXPECT_ACL_ERROR(aclrtMemsetAsync(d, 64, 0x33, 64, s), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  // The context's other streams stop on failure too; the default one did not fail.
  ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 0x44, 64, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclrtDestroyStreamForce(s));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendCKernels, DestroyStreamForceDropsWhatIsQueued) {
  // The stream's head waits for an event nobody records; behind it a memset. Destroying the
  // stream with force drops both at once: the memory keeps its old byte.
  aclrtStream s = nullptr;
  aclrtEvent never = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&never, ACL_EVENT_SYNC));
  uint8_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, 64, 0x11, 64));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, never));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 0x22, 64, s));
  ASSERT_ACL_OK(aclrtDestroyStreamForce(s));
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
  uint8_t back = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&back, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, 0x11);
  EXPECT_ACL_ERROR(aclrtDestroyStreamForce(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtDestroyEvent(never));
  ASSERT_ACL_OK(aclrtFree(d));
}

namespace {
// What the exception callbacks saw, in the order they were called.
struct SeenException {
  uint32_t task, stream, device, code, argsLen;
  void* func;
  int which;
};
std::vector<SeenException> gSeen;
void record(aclrtExceptionInfo* info, int which) {
  void* args = nullptr;
  uint32_t argsLen = 0;
  aclrtFuncHandle func = nullptr;
  EXPECT_EQ(aclrtGetArgsFromExceptionInfo(info, &args, &argsLen), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetFuncHandleFromExceptionInfo(info, &func), ACL_SUCCESS);
  gSeen.push_back({aclrtGetTaskIdFromExceptionInfo(info), aclrtGetStreamIdFromExceptionInfo(info),
                   aclrtGetDeviceIdFromExceptionInfo(info),
                   aclrtGetErrorCodeFromExceptionInfo(info), argsLen, func, which});
}
void legacyCallback(aclrtExceptionInfo* info) {
  record(info, 1);
}
void registeredCallback(aclrtExceptionInfo* info) {
  record(info, 2);
}
int gHostCallbacks = 0;
void countCallback(void*) {
  ++gHostCallbacks;
}
}  // namespace

TEST_F(AscendCKernels, ExceptionCallbacksSeeTheFailedTaskBeforeTheSyncReturns) {
  // A trapping kernel on a stop-on-failure stream, a callback queued behind it. At the
  // synchronisation that reports the trap (507035 on vector cores), both exception callbacks have
  // run once (the legacy one first), naming the kernel's task (the thread's last task id when it
  // was launched), its stream and device, 507035, the 16 bytes of its two captured pointers and the
  // same function handle for both; the host callback behind the trap never ran. The device's
  // verbose error is an AI Core software error until the device is reset.
  aclrtErrorInfo verbose{};
  ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &verbose));
  EXPECT_EQ(verbose.errorType, ACL_RT_NO_ERROR);
  EXPECT_EQ(verbose.hasDetail, 0);
  EXPECT_ACL_ERROR(aclrtGetErrorVerbose(0, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtGetErrorVerbose(7, &verbose), ACL_ERROR_RT_INVALID_DEVICEID);
  ASSERT_ACL_OK(aclrtSetExceptionInfoCallback(legacyCallback));
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(registeredCallback));
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(registeredCallback));  // once only
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
  ASSERT_ACL_OK(aclrtSubscribeReport(static_cast<uint64_t>(pthread_self()), s));
  int* a = nullptr;
  int* b = nullptr;
  ASSERT_EQ(ascendsim::ascendc::launch("Fine", 1, nullptr, s, [a] { (void)a; }), 0u);
  ASSERT_EQ(ascendsim::ascendc::launch("Trap", 1, nullptr, s,
                                       [a, b] {
                                         (void)a, (void)b;
                                         ascendsimAscendCTrap();
                                       }),
            0u);
  uint32_t lastTask = 0;
  ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&lastTask));
  ASSERT_ACL_OK(aclrtLaunchCallback(countCallback, nullptr, ACL_CALLBACK_NO_BLOCK, s));
  uint32_t afterCallback = 0;
  ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&afterCallback));
  EXPECT_EQ(afterCallback, lastTask + 1);
  EXPECT_TRUE(gSeen.empty());  // nothing has run yet
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  ASSERT_EQ(gSeen.size(), 2u);
  EXPECT_EQ(gSeen[0].which, 1);
  EXPECT_EQ(gSeen[1].which, 2);
  for (const SeenException& e : gSeen) {
    EXPECT_EQ(e.task, lastTask);
    EXPECT_EQ(e.device, 0u);
    EXPECT_EQ(e.code, static_cast<uint32_t>(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION));
    EXPECT_EQ(e.argsLen, 2 * sizeof(int*));
    EXPECT_NE(e.func, nullptr);
    EXPECT_EQ(e.func, gSeen[0].func);
    EXPECT_EQ(e.stream, gSeen[0].stream);
  }
  EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
  EXPECT_EQ(gHostCallbacks, 0);  // skipped: its stream stopped on the trap
  ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &verbose));
  EXPECT_EQ(verbose.errorType, ACL_RT_ERROR_AICORE);
  EXPECT_EQ(verbose.hasDetail, 1);
  EXPECT_EQ(verbose.detail.aicoreErrType, ACL_RT_AICORE_ERROR_SW);
  EXPECT_EQ(aclrtGetTaskIdFromExceptionInfo(nullptr), 0xFFFFFFFFu);
  EXPECT_EQ(aclrtGetErrorCodeFromExceptionInfo(nullptr), 0xFFFFFFFFu);
  // Unregistered and cleared: the next trap reaches nobody.
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(registeredCallback));
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(registeredCallback));
  EXPECT_ACL_ERROR(aclrtExceptionInfoCallbackRegister(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtSetExceptionInfoCallback(nullptr));
  ASSERT_EQ(ascendsim::ascendc::launch("Trap", 1, nullptr, nullptr, [] { ascendsimAscendCTrap(); }),
            0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  EXPECT_EQ(gSeen.size(), 2u);
  ASSERT_ACL_OK(aclrtUnSubscribeReport(static_cast<uint64_t>(pthread_self()), s));
  ASSERT_ACL_OK(aclrtDestroyStreamForce(s));
}

namespace {
std::vector<std::pair<aclrtStream, aclrtStreamState>> gStates;
void stateCallback(aclrtStream s, aclrtStreamState state, void* args) {
  EXPECT_EQ(args, &gStates);
  gStates.emplace_back(s, state);
}
}  // namespace

TEST_F(AscendCKernels, StopAndAbortDiscardWhatTheStreamHasNotRun) {
  // Each stream waits for an event nobody has recorded yet, then has a kernel that writes 0x33
  // and a memset of 0x22 queued: stopping or aborting the stream discards all three (the wait
  // included), and the 0x11 set before stays. Stop takes
  // device-use-only streams only and leaves the stream failing (507000, as CANN's sample shows);
  // abort takes the others, fails the next sync once (107023) and the stream runs later tasks.
  // State callbacks see each creation after it and each destruction before it; a creation or
  // destruction refused runs none, and a name registered already is refused (CANN's
  // rtsRegStreamStateCallback: RT_ERROR_INVALID_VALUE, 107000), the first registration staying
  // (its callback checks its own argument).
  ASSERT_ACL_OK(aclrtRegStreamStateCallback("test", stateCallback, &gStates));
  EXPECT_ACL_ERROR(aclrtRegStreamStateCallback("test", stateCallback, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  uint8_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 4 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, 64, 0x11, 64));
  aclrtStream deviceOnly = nullptr, plain = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&deviceOnly, 0, ACL_STREAM_DEVICE_USE_ONLY));
  ASSERT_ACL_OK(aclrtCreateStream(&plain));
  aclrtStream refused = nullptr;
  EXPECT_ACL_ERROR(aclrtCreateStreamWithConfig(&refused, 8, 0), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(gStates.size(), 2u);
  EXPECT_EQ(gStates[0], std::make_pair(deviceOnly, ACL_RT_STREAM_STATE_CREATE_POST));
  EXPECT_EQ(gStates[1], std::make_pair(plain, ACL_RT_STREAM_STATE_CREATE_POST));
  EXPECT_ACL_ERROR(aclrtStreamStop(plain), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_ACL_ERROR(aclrtStreamAbort(deviceOnly), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  aclrtEvent gate = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&gate, ACL_EVENT_SYNC));
  for (aclrtStream s : {deviceOnly, plain}) {
    ASSERT_ACL_OK(aclrtStreamWaitEvent(s, gate));
    ASSERT_EQ(
        ascendsim::ascendc::launch("Long", 1, nullptr, s, [d] { std::memset(d, 0x33, 4 << 20); }),
        0u);
    ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 0x22, 64, s));
  }
  ASSERT_ACL_OK(aclrtStreamStop(deviceOnly));
  ASSERT_ACL_OK(aclrtStreamAbort(plain));
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(deviceOnly), ACL_ERROR_RT_INTERNAL_ERROR);
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(deviceOnly), ACL_ERROR_RT_INTERNAL_ERROR);  // for good
  EXPECT_ACL_ERROR(aclrtMemsetAsync(d, 64, 0x44, 64, deviceOnly), ACL_ERROR_RT_INTERNAL_ERROR);
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(plain), ACL_ERROR_RT_STREAM_ABORT);
  uint8_t back = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&back, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, 0x11);  // neither the kernels nor the memsets ran
  ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 0x55, 64, plain));  // the aborted stream works again
  ASSERT_ACL_OK(aclrtSynchronizeStream(plain));
  ASSERT_ACL_OK(aclrtMemcpy(&back, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, 0x55);
  ASSERT_ACL_OK(aclrtDestroyStreamForce(deviceOnly));
  ASSERT_ACL_OK(aclrtDestroyStream(plain));
  EXPECT_ACL_ERROR(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);  // the default stream
  EXPECT_ACL_ERROR(aclrtDestroyStream(plain), ACL_ERROR_RT_INVALID_HANDLE);
  ASSERT_EQ(gStates.size(), 4u);
  EXPECT_EQ(gStates[2], std::make_pair(deviceOnly, ACL_RT_STREAM_STATE_DESTROY_PRE));
  EXPECT_EQ(gStates[3], std::make_pair(plain, ACL_RT_STREAM_STATE_DESTROY_PRE));
  ASSERT_ACL_OK(aclrtRegStreamStateCallback("test", nullptr, nullptr));  // removed
  aclrtStream quiet = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&quiet));
  ASSERT_ACL_OK(aclrtDestroyStream(quiet));
  EXPECT_EQ(gStates.size(), 4u);
  EXPECT_ACL_ERROR(aclrtRegStreamStateCallback(nullptr, stateCallback, nullptr),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtStreamStop(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtDestroyEvent(gate));
  ASSERT_ACL_OK(aclrtFree(d));
}

namespace {
// Microseconds of what `work` queues on the default stream.
template <class Work>
double timedUs(Work work) {
  return 1000.0 * elapsedMs(work);
}

// Microseconds an 8-block kernel (each block fills its own 512 KiB with `byte`, a new value each
// time so that every page changes) takes on the default stream.
double eightBlockFillUs(uint8_t* d, uint8_t byte) {
  return timedUs([d, byte] {
    EXPECT_EQ(ascendsim::ascendc::launch("Fill", 8, nullptr, nullptr,
                                         [d, byte] {
                                           std::memset(d + ascendsimAscendCBlockIdx() * (512 << 10),
                                                       byte, 512 << 10);
                                         }),
              0u);
  });
}
}  // namespace

TEST_F(AscendCKernels, AVectorCoreLimitSlowsKernelsDown) {
  // Each of the 8 blocks fills its own 512 KiB with scalar code: 128 pages loaded as it first
  // touches them and 128 written back at the block's end, at 64 B per cycle each way: 16384
  // cycles, 9.93 us. Limited to 2 vector cores the kernel takes 4 blocks per core, 39.72 us;
  // limited to 1, all 8, 79.44 us (each within 0.1 us). With no limit the 8 cores would take
  // 9.93 us, but device memory carries 4 MiB read and 4 MiB written, at least 10.24 us at the
  // HBM's peak (2 stacks x 409.6 GB/s): the kernel takes at least that, and less than the cores
  // and the memory one after the other. The cores were busy for a visible share of the run
  // (aclrtGetDeviceUtilizationRate).
  uint8_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 4 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 2));
  const double two = eightBlockFillUs(d, 1) - 1e3 * kAroundKernelMs;
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 1));
  const double one = eightBlockFillUs(d, 2) - 1e3 * kAroundKernelMs;
  ASSERT_ACL_OK(aclrtResetDeviceResLimit(0));
  const double all = eightBlockFillUs(d, 3) - 1e3 * kAroundKernelMs;
  const double pages = (512 << 10) / 4096;
  const double blockUs = 1e3 * cyclesMs(pages * 4096 / kInPerCycle + pages * 4096 / kOutPerCycle);
  EXPECT_NEAR(two, 4 * blockUs, 1e3 * kKernelToleranceMs) << two << " us";
  EXPECT_NEAR(one, 8 * blockUs, 1e3 * kKernelToleranceMs) << one << " us";
  const double hbmPeakUs = 8.0 * (1 << 20) / (2 * 409.6e9) * 1e6;
  ASSERT_LT(blockUs, hbmPeakUs);  // (the memory binds)
  EXPECT_GT(all, hbmPeakUs) << all << " us";
  EXPECT_LT(all, blockUs + hbmPeakUs) << all << " us";
  aclrtUtilizationInfo info{};
  ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(0, &info));
  EXPECT_GT(info.vectorUtilization, 50);  // the kernels were most of the run
  EXPECT_LE(info.vectorUtilization, 100);
  EXPECT_EQ(info.cubeUtilization, 0);
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendCKernels, ATPipeLargerThanTheUnifiedBufferFailsTheKernel) {
  // The 910B4's vector cores have 192 KiB of Unified Buffer (Ascend C documentation; also what
  // aclrtGetDeviceInfo reports): two queues of 2 x 48 KiB fit (192 KiB), one more 32-byte TBuf
  // does not, and the kernel fails as a fault of its own (507035) naming both sizes.
  int64_t ub = 0;
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, &ub));
  EXPECT_EQ(ub, 192 * 1024);
  auto pipeOf = [](bool oneMore) {
    return [oneMore] {
      AscendC::TPipe pipe;
      AscendC::TQue<AscendC::QuePosition::VECIN, 2> in;
      AscendC::TQue<AscendC::QuePosition::VECOUT, 2> out;
      AscendC::TBuf<AscendC::QuePosition::VECCALC> extra;
      pipe.InitBuffer(in, 2, 48 * 1024);
      pipe.InitBuffer(out, 2, 48 * 1024);
      if (oneMore) pipe.InitBuffer(extra, 1);
    };
  };
  ASSERT_EQ(ascendsim::ascendc::launch("Fits", 1, nullptr, nullptr, pipeOf(false)), 0u);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_EQ(ascendsim::ascendc::launch("TooBig", 2, nullptr, nullptr, pipeOf(true)), 0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find("kernel TooBig, block 0: its TPipe buffers take 196640 bytes, more than "
                         "the core's 196608 bytes"),
            std::string::npos)
      << message;
}

TEST_F(AscendCKernels, AKernelReadingRegisteredHostMemoryIsTimedOverPcie) {
  // A kernel of 40 blocks that sums 16 MiB of registered (mapped) host memory in place pulls every
  // page across the PCIe link as a DMA read of the host would: it takes as long as copying the
  // same 16 MiB host to device (within 15 %: the link binds, the cores' loads wait for it), and
  // the sum is right. The same kernel over device memory holding the
  // same values is several times faster (HBM and 64 B/cycle per core, not a x16 link).
  constexpr size_t n = 4u << 20;  // floats: 16 MiB
  float* host = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(reinterpret_cast<void**>(&host), n * 4));
  for (size_t i = 0; i < n; ++i) host[i] = 1.0f;
  ASSERT_ACL_OK(aclrtHostRegisterV2(host, n * 4, ACL_HOST_REG_MAPPED));
  void* mapped = nullptr;
  ASSERT_ACL_OK(aclrtHostGetDevicePointer(host, &mapped, 0));
  float *dev = nullptr, *sum = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&dev), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&sum), 40 * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  const double copyUs = timedUs([&] {
    ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n * 4, host, n * 4, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  });
  auto summing = [n, sum](const float* in) {
    return [n, sum, in] {
      const size_t block = static_cast<size_t>(ascendsimAscendCBlockIdx()), share = n / 40;
      float s = 0;
      for (size_t i = block * share; i < (block + 1) * share; i += 1024)
        s += in[i];  // a float of every page
      sum[block] = s;
    };
  };
  const double zeroCopyUs = timedUs([&] {
    ASSERT_EQ(ascendsim::ascendc::launch("SumHost", 40, nullptr, nullptr,
                                         summing(static_cast<const float*>(mapped))),
              0u);
  });
  float back[40] = {};
  ASSERT_ACL_OK(aclrtMemcpy(back, sizeof back, sum, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
  float total = 0;
  for (float b : back) total += b;
  EXPECT_EQ(total, static_cast<float>(40 * ((n / 40 + 1023) / 1024)));
  EXPECT_NEAR(zeroCopyUs / copyUs, 1.0, 0.15)
      << zeroCopyUs << " us in place vs " << copyUs << " us copied";
  const double deviceUs = timedUs([&] {
    ASSERT_EQ(ascendsim::ascendc::launch("SumDevice", 40, nullptr, nullptr, summing(dev)), 0u);
  });
  EXPECT_LT(deviceUs * 3, zeroCopyUs) << deviceUs << " us on device memory";
  ASSERT_ACL_OK(aclrtHostUnregister(host));
  ASSERT_ACL_OK(aclrtFreeHost(host));
  ASSERT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtFree(sum));
}

TEST_F(AscendCKernels, RegisteredProgramMemoryIsReachedInPlaceByCopiesAndKernels) {
  // 4 MiB of the program's own heap memory, registered from an address inside a page (its first
  // and last pages hold other heap data too):
  // 1. a copy from it to the device takes what the same copy from aclrtMallocHost memory takes
  //    (the DMA reads pinned memory in place; within 1 %), less than from unregistered heap
  //    memory, which the host stages first;
  // 2. a kernel doubles every float of it in place through the device pointer aclrtHostRegister
  //    gave (the host address itself), and the program reads the doubled values;
  // 3. a copy from the device into it lands there: the program reads the device's bytes, and the
  //    heap data beside it is untouched;
  // 4. after aclrtHostUnregister the memory is the program's as before, bytes kept, and a copy
  //    from it is staged again (as long as from unregistered memory, within 1 %).
  // (On a served machine, runtime.shared_machine.served_host_memory, the pages move into the
  // job's shared memory for the registration and back after it.)
  constexpr size_t n = 1u << 20;  // floats: 4 MiB
  std::vector<float> storage(n + 2048);
  float* host = storage.data() + 3;  // (not at a page's start)
  storage[0] = 7.0f;
  storage[n + 2047] = 9.0f;
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000);
  std::vector<float> pageable(n, 1.0f);
  float *pinned = nullptr, *dev = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(reinterpret_cast<void**>(&pinned), n * 4));
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&dev), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  auto toDevice = [&](const float* from) {
    return timedUs([&] {
      ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n * 4, from, n * 4, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
    });
  };
  const double pinnedUs = toDevice(pinned);
  const double pageableUs = toDevice(pageable.data());
  void* mapped = nullptr;
  ASSERT_ACL_OK(aclrtHostRegister(host, n * 4, ACL_HOST_REGISTER_MAPPED, &mapped));
  EXPECT_EQ(mapped, static_cast<void*>(host));
  const double registeredUs = toDevice(host);
  EXPECT_NEAR(registeredUs / pinnedUs, 1.0, 0.01)
      << registeredUs << " us from registered memory vs " << pinnedUs << " us from pinned";
  EXPECT_LT(registeredUs, pageableUs) << pageableUs << " us from pageable memory";
  std::vector<float> back(n);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back[999], 999.0f);
  EXPECT_EQ(back[n - 1], static_cast<float>((n - 1) % 1000));
  ASSERT_EQ(ascendsim::ascendc::launch(
                "DoubleInPlace", 8, nullptr, nullptr,
                [in = static_cast<float*>(mapped)] {
                  const size_t share = n / 8;
                  const auto block = static_cast<size_t>(ascendsimAscendCBlockIdx());
                  for (size_t i = block * share; i < (block + 1) * share; ++i) in[i] *= 2;
                }),
            0u);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += host[i] != static_cast<float>(2 * (i % 1000));
  EXPECT_EQ(wrong, 0u);
  ASSERT_ACL_OK(aclrtMemset(dev, n * 4, 0, n * 4));
  ASSERT_ACL_OK(aclrtMemcpy(host, n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += host[i] != 0.0f;
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(storage[0], 7.0f);
  EXPECT_EQ(storage[n + 2047], 9.0f);
  ASSERT_ACL_OK(aclrtHostUnregister(host));
  EXPECT_EQ(host[n / 2], 0.0f);
  host[n / 2] = 5.0f;  // (the program's memory, writable as before)
  EXPECT_EQ(host[n / 2], 5.0f);
  const double afterUs = toDevice(host);
  EXPECT_NEAR(afterUs / pageableUs, 1.0, 0.01) << afterUs << " us after unregistering";
  ASSERT_ACL_OK(aclrtFreeHost(pinned));
  ASSERT_ACL_OK(aclrtFree(dev));
}

TEST_F(AscendCKernels, ManagedPagesMigrateToTheDeviceOnFirstTouch) {
  // 16 MiB of managed memory summed in place by 40 blocks, a float of every page, four times:
  // 1. every page is in host memory: each migrates across PCIe as the kernel first touches it, so
  //    the kernel takes as long as copying 16 MiB host to device (within 15 %);
  // 2. the pages stayed on the device: the kernel takes what the same kernel over device memory
  //    takes (the same 4096 pages read from HBM; within 10 %), several times less than 1;
  // 3. the host rewrote every page in between: they came back to host memory and migrate again,
  //    as long as 1 (within 10 %), and the sum sees the new values;
  // 4. the host only read them: they stay on the device, as fast as 2.
  constexpr size_t n = 4u << 20;  // floats: 16 MiB
  float* managed = nullptr;
  ASSERT_ACL_OK(
      aclrtMemAllocManaged(reinterpret_cast<void**>(&managed), n * 4, ACL_RT_MEM_ATTACH_GLOBAL));
  for (size_t i = 0; i < n; ++i) managed[i] = 1.0f;
  float *dev = nullptr, *sum = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&dev), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&sum), 40 * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  const double copyUs = timedUs([&] {
    ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n * 4, managed, n * 4, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  });
  auto summed = [&](const float* in, const char* name) {
    const double us = timedUs([&] {
      ASSERT_EQ(ascendsim::ascendc::launch(
                    name, 40, nullptr, nullptr,
                    [in, sum] {
                      const size_t block = static_cast<size_t>(ascendsimAscendCBlockIdx());
                      const size_t share = n / 40;
                      float s = 0;
                      for (size_t i = block * share; i < (block + 1) * share; i += 1024) s += in[i];
                      sum[block] = s;
                    }),
                0u);
    });
    float back[40] = {};
    EXPECT_EQ(aclrtMemcpy(back, sizeof back, sum, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    float total = 0;
    for (float b : back) total += b;
    return std::make_pair(us, total);
  };
  const float pagesSummed = static_cast<float>(40 * ((n / 40 + 1023) / 1024));
  const auto first = summed(managed, "SumManaged");
  EXPECT_EQ(first.second, pagesSummed);
  EXPECT_NEAR(first.first / copyUs, 1.0, 0.15)
      << first.first << " us migrating vs " << copyUs << " us copied";
  const auto second = summed(managed, "SumManagedAgain");
  const auto onDevice = summed(dev, "SumDevice");
  EXPECT_NEAR(second.first / onDevice.first, 1.0, 0.10)
      << second.first << " us resident vs " << onDevice.first;
  EXPECT_LT(second.first * 3, first.first);
  for (size_t i = 0; i < n; ++i) managed[i] = 2.0f;
  const auto third = summed(managed, "SumManagedRewritten");
  EXPECT_EQ(third.second, 2 * pagesSummed);
  EXPECT_NEAR(third.first / first.first, 1.0, 0.10)
      << third.first << " us after the host rewrote the pages";
  float hostSum = 0;
  for (size_t i = 0; i < n; i += 1024) hostSum += managed[i];
  EXPECT_EQ(hostSum, 2.0f * static_cast<float>(n / 1024));
  const auto fourth = summed(managed, "SumManagedAfterHostRead");
  EXPECT_NEAR(fourth.first / onDevice.first, 1.0, 0.10)
      << fourth.first << " us after the host only read them";
  ASSERT_ACL_OK(aclrtFree(managed));
  ASSERT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtFree(sum));
}
