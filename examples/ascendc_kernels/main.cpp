// Runs the kernels of kernels.cpp: the scaled sum over 8 blocks must give x + 0.5 y exactly, the
// vector kernel 2 relu(x + y) exactly; the
// kernel that reads past its input and the one that traps must fail their stream's
// synchronisation with CANN's AI Core exception codes (507015, 507016).
#include <cstdio>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "check.h"
#include "kernels.h"

int main() {
  constexpr uint32_t n = 1 << 16;
  const size_t bytes = n * sizeof(float);
  std::vector<float> x(n), y(n), z(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(2 * i + 1);
  }
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));
  float *dx = nullptr, *dy = nullptr, *dz = nullptr;
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dx), bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dy), bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dz), bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpy(dx, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dy, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(LaunchScaledSum(8, stream, dx, dy, dz, 0.5f, n));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(aclrtMemcpy(z.data(), bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  for (uint32_t i = 0; i < n; ++i) {
    if (z[i] != x[i] + 0.5f * y[i]) {
      std::printf("z[%u] = %f, expected %f\n", i, z[i], x[i] + 0.5f * y[i]);
      return 1;
    }
  }
  std::printf("scaled sum over 8 blocks: %u elements ok\n", n);

  // The vector kernel: z = 2 relu(x - 3 y) over 16 blocks of 4096 elements, 256 at a time.
  for (uint32_t i = 0; i < n; ++i) y[i] = -3.0f * static_cast<float>(i % 7);
  CHECK(aclrtMemcpy(dy, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  aclrtEvent before = nullptr, after = nullptr;
  CHECK(aclrtCreateEvent(&before));
  CHECK(aclrtCreateEvent(&after));
  CHECK(aclrtRecordEvent(before, stream));
  CHECK(LaunchAddRelu(16, stream, dx, dy, dz, n));
  CHECK(aclrtRecordEvent(after, stream));
  CHECK(aclrtSynchronizeStream(stream));
  float addReluMs = 0;
  CHECK(aclrtEventElapsedTime(&addReluMs, before, after));
  CHECK(aclrtMemcpy(z.data(), bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  for (uint32_t i = 0; i < n; ++i) {
    const float sum = x[i] + y[i];
    const float expected = 2.0f * (sum > 0 ? sum : 0.0f);
    if (z[i] != expected) {
      std::printf("add-relu z[%u] = %f, expected %f\n", i, z[i], expected);
      return 1;
    }
  }
  std::printf("add-relu over 16 blocks with queues: %u elements ok\n", n);

  // A million register-only iterations: 1000001 tests of the loop's condition, 4 scalar
  // instructions each at 1.65 GHz, 2.42 ms of simulated time, where its one page of memory would
  // take microseconds.
  CHECK(aclrtRecordEvent(before, stream));
  CHECK(LaunchSpin(stream, reinterpret_cast<uint32_t*>(dz), 1000000));
  CHECK(aclrtRecordEvent(after, stream));
  CHECK(aclrtSynchronizeStream(stream));
  float ms = 0;
  CHECK(aclrtEventElapsedTime(&ms, before, after));
  std::printf("spin: %s\n", ms > 2.42f ? "timed from its loop tests" : "too fast");
  // The kernels' simulated times, the same whatever optimisation level the kernels were compiled
  // at.
  std::printf("simulated times: add-relu %.6f ms, spin %.6f ms\n", addReluMs, ms);
  CHECK(aclrtDestroyEvent(before));
  CHECK(aclrtDestroyEvent(after));

  // A2/A3 SoCs run vector kernels on vector cores: any fault is a vector core exception there.
  const std::string soc = aclrtGetSocName();
  const bool vectorCores = soc.rfind("Ascend910B", 0) == 0 || soc.rfind("Ascend910_93", 0) == 0;
  CHECK(LaunchReadsTooFar(stream, dx, dz, 1u << 30));
  aclError e = aclrtSynchronizeStream(stream);
  std::printf("out of bounds: %d (%s)\n", e, e ? aclGetRecentErrMsg() : "");
  if (e != (vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_EXCEPTION))
    return 1;
  CHECK(LaunchTraps(stream, dz));
  e = aclrtSynchronizeStream(stream);
  std::printf("trap: %d (%s)\n", e, e ? aclGetRecentErrMsg() : "");
  if (e != (vectorCores ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_AICORE_TRAP_EXCEPTION))
    return 1;
  CHECK(aclrtSynchronizeStream(stream));  // reported once
  CHECK(aclrtFree(dx));
  CHECK(aclrtFree(dy));
  CHECK(aclrtFree(dz));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("ascendc kernels ok\n");
  return 0;
}
