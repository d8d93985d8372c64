// z = alpha * x + y on float32 with its sizes and alpha from a tiling structure the host fills in
// (passed by value), and a workspace it does not use.
#include "kernel_operator.h"
#include "scaled_add_tiling.h"

namespace {
constexpr int32_t kBuffers = 2;

class ScaledAddKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const ScaledAddTiling& tiling) {
    blockLength_ = tiling.totalLength / AscendC::GetBlockNum();
    tiles_ = tiling.tileNum;
    tileLength_ = blockLength_ / tiles_ / kBuffers;
    alpha_ = tiling.alpha;
    const uint64_t first = static_cast<uint64_t>(blockLength_) * AscendC::GetBlockIdx();
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + first, blockLength_);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + first, blockLength_);
    z_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + first, blockLength_);
    pipe_.InitBuffer(inX_, kBuffers, tileLength_ * sizeof(float));
    pipe_.InitBuffer(inY_, kBuffers, tileLength_ * sizeof(float));
    pipe_.InitBuffer(outZ_, kBuffers, tileLength_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles_ * kBuffers; ++i) {
      AscendC::LocalTensor<float> x = inX_.AllocTensor<float>();
      AscendC::LocalTensor<float> y = inY_.AllocTensor<float>();
      AscendC::DataCopy(x, x_[i * tileLength_], tileLength_);
      AscendC::DataCopy(y, y_[i * tileLength_], tileLength_);
      inX_.EnQue(x);
      inY_.EnQue(y);
      x = inX_.DeQue<float>();
      y = inY_.DeQue<float>();
      AscendC::LocalTensor<float> z = outZ_.AllocTensor<float>();
      AscendC::Muls(z, x, alpha_, tileLength_);
      AscendC::Add(z, z, y, tileLength_);
      outZ_.EnQue(z);
      inX_.FreeTensor(x);
      inY_.FreeTensor(y);
      z = outZ_.DeQue<float>();
      AscendC::DataCopy(z_[i * tileLength_], z, tileLength_);
      outZ_.FreeTensor(z);
    }
  }

 private:
  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, kBuffers> inX_, inY_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, kBuffers> outZ_;
  AscendC::GlobalTensor<float> x_, y_, z_;
  uint32_t blockLength_ = 0;
  uint32_t tiles_ = 0;
  uint32_t tileLength_ = 0;
  float alpha_ = 0;
};
}  // namespace

extern "C" __global__ __aicore__ void scaled_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                        GM_ADDR workspace, ScaledAddTiling tiling) {
  (void)workspace;
  ScaledAddKernel op;
  op.Init(x, y, z, tiling);
  op.Process();
}
