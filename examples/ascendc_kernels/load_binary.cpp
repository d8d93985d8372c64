// Kernels from a binary loaded at run time, as CANN's 2_advanced_features/kernel samples launch
// them: aclrtBinaryLoadFromFile on what ascendc_fatbin_library built, aclrtBinaryGetFunction, the
// arguments appended one by one, aclrtLaunchKernelWithConfig. The same ScaledSum runs on device
// memory, on host memory registered for the device (zero copy) and on managed memory, and must give
// x + 0.25 y exactly each time. Usage: load_binary_app BINARY.o
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "check.h"

namespace {
constexpr uint32_t kCount = 1 << 14;

// ScaledSum(x, y, z, alpha, count) on 4 blocks; 0 when it ran and z is right.
int scaledSum(aclrtFuncHandle sum, aclrtStream stream, float* x, float* y, float* z,
              const float* hostZ) {
  aclrtArgsHandle args = nullptr;
  aclrtParamHandle param = nullptr;
  float alpha = 0.25f;
  uint32_t count = kCount;
  CHECK(aclrtKernelArgsInit(sum, &args));
  CHECK(aclrtKernelArgsAppend(args, &x, sizeof x, &param));
  CHECK(aclrtKernelArgsAppend(args, &y, sizeof y, &param));
  CHECK(aclrtKernelArgsAppend(args, &z, sizeof z, &param));
  CHECK(aclrtKernelArgsAppend(args, &alpha, sizeof alpha, &param));
  CHECK(aclrtKernelArgsAppend(args, &count, sizeof count, &param));
  CHECK(aclrtKernelArgsFinalize(args));
  CHECK(aclrtLaunchKernelWithConfig(sum, 4, stream, nullptr, args, nullptr));
  CHECK(aclrtSynchronizeStream(stream));
  std::vector<float> back(kCount);
  if (!hostZ) {
    CHECK(aclrtMemcpy(back.data(), kCount * 4, z, kCount * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    hostZ = back.data();
  }
  for (uint32_t i = 0; i < kCount; ++i) {
    const float expected = static_cast<float>(i) + 0.25f * static_cast<float>(3 * i);
    if (hostZ[i] != expected) {
      std::printf("z[%u] = %f, expected %f\n", i, hostZ[i], expected);
      return 1;
    }
  }
  return 0;
}

// ScaledSumTiled(x, y, z, &alpha, &count): alpha and count in placeholder buffers, which the
// runtime copies to device memory with the launch; 0 when z is right. Prints the codes of what
// CANN refuses around placeholders.
int placeholders(aclrtFuncHandle tiled, aclrtStream stream, float* x, float* y, float* z) {
  aclrtArgsHandle args = nullptr;
  aclrtParamHandle param = nullptr, alphaParam = nullptr, countParam = nullptr;
  CHECK(aclrtKernelArgsInit(tiled, &args));
  CHECK(aclrtKernelArgsAppend(args, &x, sizeof x, &param));
  CHECK(aclrtKernelArgsAppend(args, &y, sizeof y, &param));
  CHECK(aclrtKernelArgsAppend(args, &z, sizeof z, &param));
  CHECK(aclrtKernelArgsAppendPlaceHolder(args, &alphaParam));
  CHECK(aclrtKernelArgsAppendPlaceHolder(args, &countParam));
  void *alpha = nullptr, *count = nullptr;
  std::printf("placeholder buffer of 0 bytes: %d\n",
              aclrtKernelArgsGetPlaceHolderBuffer(args, alphaParam, 0, &alpha));
  std::printf("placeholder buffer of a plain argument: %d\n",
              aclrtKernelArgsGetPlaceHolderBuffer(args, param, 4, &alpha));
  CHECK(aclrtKernelArgsGetPlaceHolderBuffer(args, alphaParam, sizeof(float), &alpha));
  std::printf("launch with a placeholder without buffer: %d\n",
              aclrtLaunchKernelWithConfig(tiled, 4, stream, nullptr, args, nullptr));
  CHECK(aclrtKernelArgsGetPlaceHolderBuffer(args, countParam, sizeof(uint32_t), &count));
  std::printf("append after a placeholder buffer: %d\n",
              aclrtKernelArgsAppendPlaceHolder(args, &param));
  *static_cast<float*>(alpha) = 0.25f;
  *static_cast<uint32_t*>(count) = kCount;
  CHECK(aclrtKernelArgsFinalize(args));
  std::printf("placeholder buffer after finalize: %d\n",
              aclrtKernelArgsGetPlaceHolderBuffer(args, alphaParam, 4, &alpha));
  CHECK(aclrtLaunchKernelWithConfig(tiled, 4, stream, nullptr, args, nullptr));
  // The launch took its own copy: a change now is not seen by the queued kernel.
  *static_cast<float*>(alpha) = 100.0f;
  CHECK(aclrtSynchronizeStream(stream));
  std::vector<float> back(kCount);
  CHECK(aclrtMemcpy(back.data(), kCount * 4, z, kCount * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (uint32_t i = 0; i < kCount; ++i) {
    const float expected = static_cast<float>(i) + 0.25f * static_cast<float>(3 * i);
    if (back[i] != expected) {
      std::printf("z[%u] = %f, expected %f\n", i, back[i], expected);
      return 1;
    }
  }
  return 0;
}

void fill(float* x, float* y) {
  for (uint32_t i = 0; i < kCount; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(3 * i);
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const size_t bytes = kCount * sizeof(float);
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));
  aclrtBinHandle binary = nullptr;
  aclrtFuncHandle sum = nullptr;
  CHECK(aclrtBinaryLoadFromFile(argv[1], nullptr, &binary));
  CHECK(aclrtBinaryGetFunction(binary, "ScaledSum", &sum));
  aclrtFuncHandle missing = nullptr;
  std::printf("unknown kernel: %d\n", aclrtBinaryGetFunction(binary, "NoSuchKernel", &missing));
  aclrtArgsHandle few = nullptr;
  {  // Too few arguments (ScaledSum takes 3 pointers, a float and a uint32_t: 36 bytes).
    aclrtParamHandle param = nullptr;
    void* p = nullptr;
    CHECK(aclrtKernelArgsInit(sum, &few));
    CHECK(aclrtKernelArgsAppend(few, &p, sizeof p, &param));
    std::printf("too few arguments: %d\n",
                aclrtLaunchKernelWithConfig(sum, 1, stream, nullptr, few, nullptr));
    std::printf("an argument of SIZE_MAX bytes: %d\n",
                aclrtKernelArgsAppend(few, &p, SIZE_MAX, &param));
  }

  // 1. Device memory.
  std::vector<float> x(kCount), y(kCount);
  fill(x.data(), y.data());
  float *dx = nullptr, *dy = nullptr, *dz = nullptr;
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dx), bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dy), bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dz), bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpy(dx, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dy, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  if (scaledSum(sum, stream, dx, dy, dz, nullptr) != 0) return 1;
  std::printf("loaded ScaledSum on device memory: ok\n");
  aclrtFuncHandle tiled = nullptr;
  CHECK(aclrtBinaryGetFunction(binary, "ScaledSumTiled", &tiled));
  CHECK(aclrtMemset(dz, bytes, 0, bytes));
  if (placeholders(tiled, stream, dx, dy, dz) != 0) return 1;
  std::printf("ScaledSumTiled with placeholder arguments: ok\n");

  // 2. Host memory registered for the device: the kernel writes the host's own buffer.
  std::vector<float> hx(kCount), hy(kCount), hz(kCount);
  fill(hx.data(), hy.data());
  void *mx = nullptr, *my = nullptr, *mz = nullptr;
  for (auto [host, mapped] :
       {std::pair{hx.data(), &mx}, std::pair{hy.data(), &my}, std::pair{hz.data(), &mz}}) {
    CHECK(aclrtHostRegisterV2(host, bytes, ACL_HOST_REG_MAPPED));
    CHECK(aclrtHostGetDevicePointer(host, mapped, 0));
  }
  if (scaledSum(sum, stream, static_cast<float*>(mx), static_cast<float*>(my),
                static_cast<float*>(mz), hz.data()) != 0)
    return 1;
  std::printf("loaded ScaledSum on registered host memory: ok\n");
  for (float* host : {hx.data(), hy.data(), hz.data()}) CHECK(aclrtHostUnregister(host));

  // 3. Managed memory: filled and read by the host, used by the kernel at the same addresses.
  float *ux = nullptr, *uy = nullptr, *uz = nullptr;
  CHECK(aclrtMemAllocManaged(reinterpret_cast<void**>(&ux), bytes, ACL_RT_MEM_ATTACH_GLOBAL));
  CHECK(aclrtMemAllocManaged(reinterpret_cast<void**>(&uy), bytes, ACL_RT_MEM_ATTACH_GLOBAL));
  CHECK(aclrtMemAllocManaged(reinterpret_cast<void**>(&uz), bytes, ACL_RT_MEM_ATTACH_GLOBAL));
  fill(ux, uy);
  if (scaledSum(sum, stream, ux, uy, uz, uz) != 0) return 1;
  std::printf("loaded ScaledSum on managed memory: ok\n");
  CHECK(aclrtFree(ux));
  CHECK(aclrtFree(uy));
  CHECK(aclrtFree(uz));

  CHECK(aclrtBinaryUnLoad(binary));
  std::printf("launch after unload: %d\n", aclrtBinaryGetFunction(binary, "ScaledSum", &missing));
  aclrtParamHandle param = nullptr;
  float one = 1.0f;
  std::printf("arguments after unload: %d\n", aclrtKernelArgsAppend(few, &one, sizeof one, &param));
  CHECK(aclrtFree(dx));
  CHECK(aclrtFree(dy));
  CHECK(aclrtFree(dz));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("loaded kernels ok\n");
  return 0;
}
