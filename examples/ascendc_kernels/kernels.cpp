// Ascend C kernels written the way CANN's samples are: a scaled vector sum in scalar code split
// over blocks, one that reads past its input, one that traps, and a vector kernel that streams
// tiles through double-buffered queues (DataCopy in, Add / Relu / Muls, DataCopy out).
#include <cstdint>

#include "kernel_operator.h"
#include "kernels.h"

extern "C" __global__ __aicore__ void ScaledSum(__gm__ float* x, __gm__ float* y, __gm__ float* z,
                                                float alpha, uint32_t count) {
  // Block b of n takes elements [b * count / n, (b + 1) * count / n).
  const uint32_t begin = static_cast<uint32_t>(block_idx * count / block_num);
  const uint32_t end = static_cast<uint32_t>((block_idx + 1) * count / block_num);
  for (uint32_t i = begin; i < end; ++i) z[i] = x[i] + alpha * y[i];
  if (AscendC::GetBlockIdx() == 0)
    AscendC::printf("ScaledSum: %u blocks\n", static_cast<uint32_t>(block_num));
}

// ScaledSum with alpha and count behind pointers, as CANN's placeholder arguments pass tiling data
// (aclrtKernelArgsAppendPlaceHolder: the kernel gets the device address of the data).
extern "C" __global__ __aicore__ void ScaledSumTiled(__gm__ float* x, __gm__ float* y,
                                                     __gm__ float* z, __gm__ float* alpha,
                                                     __gm__ uint32_t* count) {
  const uint32_t n = *count;
  const uint32_t begin = static_cast<uint32_t>(block_idx * n / block_num);
  const uint32_t end = static_cast<uint32_t>((block_idx + 1) * n / block_num);
  for (uint32_t i = begin; i < end; ++i) z[i] = x[i] + *alpha * y[i];
}

extern "C" __global__ __aicore__ void ReadsTooFar(__gm__ float* x, __gm__ float* out,
                                                  uint32_t count) {
  float sum = 0;
  for (uint32_t i = 0; i < count; ++i) sum += x[i];  // count is far larger than x
  out[0] = sum;
}

extern "C" __global__ __aicore__ void Traps(__gm__ float* out) {
  out[0] = 1.0f;
  if (block_idx == 1) asm("trap");
}

// z = 2 relu(x + y), each block a contiguous share of the elements, 256 at a time.
namespace {
constexpr int32_t kTile = 256;
constexpr int32_t kBuffers = 2;

class AddReluKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t perBlock) {
    const uint64_t first = static_cast<uint64_t>(AscendC::GetBlockIdx()) * perBlock;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + first, perBlock);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + first, perBlock);
    zGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + first, perBlock);
    pipe.InitBuffer(inX, kBuffers, kTile * sizeof(float));
    pipe.InitBuffer(inY, kBuffers, kTile * sizeof(float));
    pipe.InitBuffer(outZ, kBuffers, kTile * sizeof(float));
    tiles = perBlock / kTile;
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i) {
    AscendC::LocalTensor<float> x = inX.AllocTensor<float>();
    AscendC::LocalTensor<float> y = inY.AllocTensor<float>();
    AscendC::DataCopy(x, xGm[i * kTile], kTile);
    AscendC::DataCopy(y, yGm[i * kTile], kTile);
    inX.EnQue(x);
    inY.EnQue(y);
  }
  __aicore__ inline void Compute() {
    AscendC::LocalTensor<float> x = inX.DeQue<float>();
    AscendC::LocalTensor<float> y = inY.DeQue<float>();
    AscendC::LocalTensor<float> z = outZ.AllocTensor<float>();
    AscendC::Add(z, x, y, kTile);
    AscendC::Relu(z, z, kTile);
    AscendC::Muls(z, z, 2.0f, kTile);
    outZ.EnQue<float>(z);
    inX.FreeTensor(x);
    inY.FreeTensor(y);
  }
  __aicore__ inline void CopyOut(uint32_t i) {
    AscendC::LocalTensor<float> z = outZ.DeQue<float>();
    AscendC::DataCopy(zGm[i * kTile], z, kTile);
    outZ.FreeTensor(z);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, kBuffers> inX, inY;
  AscendC::TQue<AscendC::QuePosition::VECOUT, kBuffers> outZ;
  AscendC::GlobalTensor<float> xGm, yGm, zGm;
  uint32_t tiles = 0;
};
}  // namespace

extern "C" __global__ __aicore__ void AddRelu(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t perBlock) {
  AddReluKernel op;
  op.Init(x, y, z, perBlock);
  op.Process();
}

int32_t LaunchAddRelu(uint32_t blocks, void* stream, float* x, float* y, float* z, uint32_t count) {
  return static_cast<int32_t>(AddRelu<<<blocks, nullptr, stream>>>(
      reinterpret_cast<uint8_t*>(x), reinterpret_cast<uint8_t*>(y), reinterpret_cast<uint8_t*>(z),
      count / blocks));
}

// Register-only scalar work: its time is its loop's tests (ascendc_library counts them).
extern "C" __global__ __aicore__ void Spin(__gm__ uint32_t* out, uint32_t iterations) {
  uint32_t x = 1;
  for (uint32_t i = 0; i < iterations; ++i) x = x * 1664525u + 1013904223u;
  out[0] = x;
}

int32_t LaunchSpin(void* stream, uint32_t* out, uint32_t iterations) {
  return static_cast<int32_t>(Spin<<<1, nullptr, stream>>>(out, iterations));
}

int32_t LaunchScaledSum(uint32_t blocks, void* stream, float* x, float* y, float* z, float alpha,
                        uint32_t count) {
  return static_cast<int32_t>(ScaledSum<<<blocks, nullptr, stream>>>(x, y, z, alpha, count));
}

int32_t LaunchReadsTooFar(void* stream, float* x, float* out, uint32_t count) {
  return static_cast<int32_t>(ReadsTooFar<<<1, nullptr, stream>>>(x, out, count));
}

int32_t LaunchTraps(void* stream, float* out) {
  return static_cast<int32_t>(Traps<<<2, nullptr, stream>>>(out));
}
