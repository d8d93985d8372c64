// z = x + y on float32, the whole length split evenly over the blocks, each block's share in 16
// tiles through double-buffered queues (two buffers per queue).
#include "kernel_operator.h"

namespace {
constexpr int32_t kTotalLength = 8 * 2048;
constexpr int32_t kTiles = 16;
constexpr int32_t kBuffers = 2;

class AddKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    blockLength_ = kTotalLength / AscendC::GetBlockNum();
    tileLength_ = blockLength_ / kTiles / kBuffers;
    const int64_t first = blockLength_ * AscendC::GetBlockIdx();
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + first, blockLength_);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + first, blockLength_);
    z_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + first, blockLength_);
    pipe_.InitBuffer(inX_, kBuffers, tileLength_ * sizeof(float));
    pipe_.InitBuffer(inY_, kBuffers, tileLength_ * sizeof(float));
    pipe_.InitBuffer(outZ_, kBuffers, tileLength_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (int32_t i = 0; i < kTiles * kBuffers; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t tile) {
    AscendC::LocalTensor<float> x = inX_.AllocTensor<float>();
    AscendC::LocalTensor<float> y = inY_.AllocTensor<float>();
    AscendC::DataCopy(x, x_[tile * tileLength_], tileLength_);
    AscendC::DataCopy(y, y_[tile * tileLength_], tileLength_);
    inX_.EnQue(x);
    inY_.EnQue(y);
  }
  __aicore__ inline void Compute() {
    AscendC::LocalTensor<float> x = inX_.DeQue<float>();
    AscendC::LocalTensor<float> y = inY_.DeQue<float>();
    AscendC::LocalTensor<float> z = outZ_.AllocTensor<float>();
    AscendC::Add(z, x, y, tileLength_);
    outZ_.EnQue(z);
    inX_.FreeTensor(x);
    inY_.FreeTensor(y);
  }
  __aicore__ inline void CopyOut(int32_t tile) {
    AscendC::LocalTensor<float> z = outZ_.DeQue<float>();
    AscendC::DataCopy(z_[tile * tileLength_], z, tileLength_);
    outZ_.FreeTensor(z);
  }

  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, kBuffers> inX_, inY_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, kBuffers> outZ_;
  AscendC::GlobalTensor<float> x_, y_, z_;
  int32_t blockLength_ = 0;
  int32_t tileLength_ = 0;
};
}  // namespace

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  AddKernel op;
  op.Init(x, y, z);
  op.Process();
}
