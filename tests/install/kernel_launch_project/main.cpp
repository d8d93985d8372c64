// Host program of the kernel-launch project: launches add_custom (no tiling) and scaled_add_custom
// (a tiling structure and a workspace) through their generated launch headers (or, in the
// CPU-debug build, runs them with ICPU_RUN_KF), then checks every element against the same
// arithmetic done here on the host and writes the outputs to output/.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "scaled_add_tiling.h"
#ifndef __CCE_KT_TEST__
#include "acl/acl.h"
#include "aclrtlaunch_add_custom.h"
#include "aclrtlaunch_scaled_add_custom.h"
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z);
extern "C" __global__ __aicore__ void scaled_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                        GM_ADDR workspace, ScaledAddTiling tiling);
#endif

#define CHECK_ACL(call)                                                                   \
  do {                                                                                    \
    const aclError status = (call);                                                       \
    if (status != ACL_SUCCESS) {                                                          \
      std::fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, status); \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

namespace {
constexpr uint32_t kLength = 8 * 2048;
constexpr uint32_t kBlocks = 8;

// Counts the elements of `got` equal to `want` and writes `got` to `path`.
uint32_t compareAndSave(const char* what, const std::vector<float>& got,
                        const std::vector<float>& want, const char* path) {
  uint32_t same = 0;
  for (uint32_t i = 0; i < kLength; ++i) same += got[i] == want[i] ? 1 : 0;
  std::printf("%s: z[0]=%g z[100]=%g z[16383]=%g, %u of %u elements exact\n", what, got[0],
              got[100], got[kLength - 1], same, kLength);
  if (FILE* f = std::fopen(path, "wb")) {
    std::fwrite(got.data(), sizeof(float), got.size(), f);
    std::fclose(f);
  }
  return same;
}
}  // namespace

int main() {
  const size_t bytes = kLength * sizeof(float);
  std::vector<float> x(kLength), y(kLength), sum(kLength), scaled(kLength);
  for (uint32_t i = 0; i < kLength; ++i) {
    x[i] = 0.5f * static_cast<float>(i % 97);
    y[i] = 0.25f * static_cast<float>(i % 13);
    sum[i] = x[i] + y[i];
    scaled[i] = 3.0f * x[i] + y[i];
  }
  std::vector<float> z(kLength);
  ScaledAddTiling tilingData;
  tilingData.totalLength = kLength;
  tilingData.tileNum = 8;
  tilingData.alpha = 3.0f;

#ifdef __CCE_KT_TEST__
  // CPU debug: the kernels run on the host, on memory from GmAlloc.
  auto* xCpu = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* yCpu = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* zCpu = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* workspaceCpu = static_cast<uint8_t*>(AscendC::GmAlloc(4096));
  std::memcpy(xCpu, x.data(), bytes);
  std::memcpy(yCpu, y.data(), bytes);
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(add_custom, kBlocks, xCpu, yCpu, zCpu);
  std::memcpy(z.data(), zCpu, bytes);
  const uint32_t sumOk = compareAndSave("add_custom", z, sum, "output/output_z.bin");
  ICPU_RUN_KF(scaled_add_custom, kBlocks, xCpu, yCpu, zCpu, workspaceCpu, tilingData);
  std::memcpy(z.data(), zCpu, bytes);
  const uint32_t scaledOk =
      compareAndSave("scaled_add_custom", z, scaled, "output/output_scaled.bin");
  for (uint8_t* p : {xCpu, yCpu, zCpu, workspaceCpu}) AscendC::GmFree(p);
#else

  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtContext context = nullptr;
  CHECK_ACL(aclrtCreateContext(&context, 0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  void *xDevice = nullptr, *yDevice = nullptr, *zDevice = nullptr, *workspace = nullptr;
  CHECK_ACL(aclrtMalloc(&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&yDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&zDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&workspace, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(xDevice, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(yDevice, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

  CHECK_ACL(ACLRT_LAUNCH_KERNEL(add_custom)(kBlocks, stream, xDevice, yDevice, zDevice));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  CHECK_ACL(aclrtMemcpy(z.data(), bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  const uint32_t sumOk = compareAndSave("add_custom", z, sum, "output/output_z.bin");

  ScaledAddTiling* tiling = nullptr;
  CHECK_ACL(aclrtMallocHost(reinterpret_cast<void**>(&tiling), sizeof(ScaledAddTiling)));
  *tiling = tilingData;
  CHECK_ACL(ACLRT_LAUNCH_KERNEL(scaled_add_custom)(kBlocks, stream, xDevice, yDevice, zDevice,
                                                   workspace, tiling));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  CHECK_ACL(aclrtMemcpy(z.data(), bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  const uint32_t scaledOk =
      compareAndSave("scaled_add_custom", z, scaled, "output/output_scaled.bin");

  CHECK_ACL(aclrtFreeHost(tiling));
  for (void* p : {xDevice, yDevice, zDevice, workspace}) CHECK_ACL(aclrtFree(p));
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtDestroyContext(context));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
#endif
  const bool ok = sumOk == kLength && scaledOk == kLength;
  std::printf("%s\n", ok ? "test pass" : "[ERROR] result error");
  return ok ? 0 : 1;
}
