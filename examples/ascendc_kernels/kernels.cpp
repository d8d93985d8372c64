// Three Ascend C kernels written the way CANN's scalar samples are: a scaled vector sum split over
// blocks, one that reads past its input, and one that traps.
#include <cstdint>

#include "kernel_operator.h"
#include "kernels.h"

extern "C" __global__ __aicore__ void ScaledSum(__gm__ float* x, __gm__ float* y, __gm__ float* z, float alpha,
                                                uint32_t count) {
  // Block b of n takes elements [b * count / n, (b + 1) * count / n).
  const uint32_t begin = static_cast<uint32_t>(block_idx * count / block_num);
  const uint32_t end = static_cast<uint32_t>((block_idx + 1) * count / block_num);
  for (uint32_t i = begin; i < end; ++i) z[i] = x[i] + alpha * y[i];
  if (AscendC::GetBlockIdx() == 0) AscendC::printf("ScaledSum: %u blocks\n", static_cast<uint32_t>(block_num));
}

extern "C" __global__ __aicore__ void ReadsTooFar(__gm__ float* x, __gm__ float* out, uint32_t count) {
  float sum = 0;
  for (uint32_t i = 0; i < count; ++i) sum += x[i];  // count is far larger than x
  out[0] = sum;
}

extern "C" __global__ __aicore__ void Traps(__gm__ float* out) {
  out[0] = 1.0f;
  if (block_idx == 1) asm("trap");
}

int32_t LaunchScaledSum(uint32_t blocks, void* stream, float* x, float* y, float* z, float alpha, uint32_t count) {
  return static_cast<int32_t>(ScaledSum<<<blocks, nullptr, stream>>>(x, y, z, alpha, count));
}

int32_t LaunchReadsTooFar(void* stream, float* x, float* out, uint32_t count) {
  return static_cast<int32_t>(ReadsTooFar<<<1, nullptr, stream>>>(x, out, count));
}

int32_t LaunchTraps(void* stream, float* out) { return static_cast<int32_t>(Traps<<<2, nullptr, stream>>>(out)); }
