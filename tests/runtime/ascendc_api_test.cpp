// kernel_operator.h's data-movement, repeat-form, reduction, atomic and bfloat16 API, run as
// kernels on the default machine. Each functional test computes what the kernel must leave behind
// with plain C++ arithmetic written here; the timing test states each instruction's cycles from the
// cost model (docs/ascendc.md, "Timing") and checks the kernel's time against them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "acl_fixture.h"
#include "ascendsim/ascendc.h"
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
#include "tikicpulib.h"

class AscendCApi : public AclTest {};

namespace {
// A device buffer of `n` values of T, with a copy of `init` (or zeros) in it.
template <typename T>
T* deviceBuffer(size_t n, const std::vector<T>& init = {}) {
  void* d = nullptr;
  EXPECT_EQ(aclrtMalloc(&d, n * sizeof(T), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<T> host = init.empty() ? std::vector<T>(n, T{}) : init;
  EXPECT_EQ(aclrtMemcpy(d, n * sizeof(T), host.data(), n * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  return static_cast<T*>(d);
}
template <typename T>
std::vector<T> readBack(const T* d, size_t n) {
  std::vector<T> host(n);
  EXPECT_EQ(aclrtMemcpy(host.data(), n * sizeof(T), d, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  return host;
}
template <class Body>
void runKernel(const char* name, uint32_t blocks, Body body) {
  ASSERT_EQ(ascendsim::ascendc::launch(name, blocks, nullptr, nullptr, body), 0u);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
}
}  // namespace

TEST_F(AscendCApi, DuplicateRepeatFormsWriteTheMaskedElements) {
  // 128 floats of a zeroed buffer. Contiguous mask 10, 2 repeats, block stride 1, repeat stride 8
  // (repeats back to back): elements 0-9 and 64-73 become 7. Then the bitwise form with mask[0] =
  // 0b1011 (elements 0, 1, 3) on 1 repeat, block stride 2 (the repeat's 8 data blocks of 8 floats
  // every other block): elements 0, 1, 3 of block 0 get -2 (only block 0 holds elements 0-7).
  constexpr size_t n = 128;
  float* d = deviceBuffer<float>(n);
  runKernel("Duplicates", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::Duplicate(t, 0.0f, static_cast<int32_t>(n));
    AscendC::Duplicate(t, 7.0f, uint64_t{10}, 2, 1, 8);
    const uint64_t mask[2] = {0b1011, 0};
    AscendC::Duplicate(t, -2.0f, mask, 1, 2, 8);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(d, n);
    AscendC::DataCopy(g, t, n);
  });
  std::vector<float> want(n, 0.0f);
  for (size_t i = 0; i < 10; ++i) want[i] = want[64 + i] = 7.0f;
  for (size_t i : {0, 1, 3}) want[i] = -2.0f;
  EXPECT_EQ(readBack(d, n), want);
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendCApi, RepeatFormsOfBinaryUnaryAndScalarInstructionsFollowMasksAndStrides) {
  // a[i] = i, b[i] = 1000 + i over 128 floats; the result buffers start at -1.
  // - Add, contiguous mask 32, 2 repeats, default strides (repeats 64 floats apart):
  //   add[i] = a[i] + b[i] for i in [0, 32) and [64, 96), -1 elsewhere;
  // - Muls by 2, mask 32, 2 repeats, dstRepStride 4 (32 floats) and srcRepStride 8 (64 floats):
  //   packed[32 r + i] = 2 a[64 r + i] for i < 32: packed[0..63] = 2 x {0..31, 64..95};
  // - Max with src1 block stride 0 (every data block of b read from b's first 8 floats), bitwise
  //   mask[0] = 0xFF00 (elements 8-15, the second data block), 1 repeat: max[8 + j] =
  //   max(a[8 + j], b[j]) = 1000 + j for j < 8;
  // - Relu of a - 64 (Adds -64 over the whole buffer first, count form), mask 64, 2 repeats:
  //   relu[i] = max(i - 64, 0).
  constexpr size_t n = 128;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 1000.0f + static_cast<float>(i);
  }
  float* da = deviceBuffer<float>(n, a);
  float* db = deviceBuffer<float>(n, b);
  float* dout = deviceBuffer<float>(4 * n);
  runKernel("Repeats", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> ba, bb, bo;
    pipe.InitBuffer(ba, n * 4);
    pipe.InitBuffer(bb, n * 4);
    pipe.InitBuffer(bo, 4 * n * 4);
    AscendC::LocalTensor<float> ta = ba.Get<float>(), tb = bb.Get<float>(), to = bo.Get<float>();
    AscendC::GlobalTensor<float> ga, gb, gout;
    ga.SetGlobalBuffer(da, n);
    gb.SetGlobalBuffer(db, n);
    gout.SetGlobalBuffer(dout, 4 * n);
    AscendC::DataCopy(ta, ga, n);
    AscendC::DataCopy(tb, gb, n);
    AscendC::Duplicate(to, -1.0f, static_cast<int32_t>(4 * n));
    AscendC::Add(to, ta, tb, 32, 2, AscendC::BinaryRepeatParams());
    AscendC::Muls(to[n], ta, 2.0f, 32, 2, AscendC::UnaryRepeatParams(1, 1, 4, 8));
    const uint64_t mask[2] = {0xFF00, 0};
    AscendC::Max(to[2 * n], ta, tb, mask, 1, AscendC::BinaryRepeatParams(1, 1, 0, 8, 8, 8));
    AscendC::Adds(ta, ta, -64.0f, static_cast<int32_t>(n));
    AscendC::Relu(to[3 * n], ta, 64, 2, AscendC::UnaryRepeatParams());
    AscendC::DataCopy(gout, to, 4 * n);
  });
  std::vector<float> want(4 * n, -1.0f);
  for (size_t r = 0; r < 2; ++r) {
    for (size_t i = 0; i < 32; ++i) {
      want[64 * r + i] = a[64 * r + i] + b[64 * r + i];
      want[n + 32 * r + i] = 2.0f * a[64 * r + i];
    }
  }
  for (size_t j = 0; j < 8; ++j) want[2 * n + 8 + j] = std::max(a[8 + j], b[j]);
  for (size_t i = 0; i < n; ++i) want[3 * n + i] = std::max(a[i] - 64.0f, 0.0f);
  EXPECT_EQ(readBack(dout, 4 * n), want);
  for (float* p : {da, db, dout}) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(AscendCApi, FillWritesRepeatsOfBlocksWithGaps) {
  // A buffer in A1 (32-byte blocks) of 64 int32 filled with -1, then Fill with 3 repeats of 2
  // blocks and a gap of 1 block: 5 in bytes [0, 64), [96, 160), [192, 256), -1 elsewhere
  // (elements 0-15, 24-39, 48-63 are 5; 16-23 and 40-47 stay -1).
  constexpr size_t n = 64;
  int32_t* d = deviceBuffer<int32_t>(n);
  runKernel("Fills", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::A1> buf;
    pipe.InitBuffer(buf, n * sizeof(int32_t));
    AscendC::LocalTensor<int32_t> t = buf.Get<int32_t>();
    AscendC::Duplicate(t, -1, static_cast<int32_t>(n));
    AscendC::Fill(t, AscendC::InitConstValueParams<int32_t>(3, 2, 1, 5));
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(d, n);
    AscendC::DataCopy(g, t, n);
  });
  std::vector<int32_t> want(n, -1);
  for (size_t r = 0; r < 3; ++r) {
    for (size_t i = 0; i < 16; ++i) want[r * 24 + i] = 5;
  }
  EXPECT_EQ(readBack(d, n), want);
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendCApi, DataCopyPadMovesUnalignedRowsAndPadsThem) {
  // A 5 x 7 matrix of floats (rows of 28 bytes, not a multiple of 32) inside rows of 9 in global
  // memory (srcStride 8 bytes between a row's end and the next's start). In: each row lands at a
  // 32-byte boundary with 1 padding float on the right set to -1 (28 + 4 = 32 bytes a row). The
  // kernel adds 100 to the 40 floats (padding included); out: the 7 data floats of each row go to
  // rows of 8 in the output (dstStride 4 bytes), so out[r * 8 + c] = in[r * 9 + c] + 100 for c < 7
  // and out[r * 8 + 7] stays 0.
  constexpr size_t rows = 5, cols = 7;
  std::vector<float> in(rows * 9);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  float* src = deviceBuffer<float>(in.size(), in);
  float* dst = deviceBuffer<float>(rows * 8);
  float* padded = deviceBuffer<float>(rows * 8);
  runKernel("Pads", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, rows * 32);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> s, o, p;
    s.SetGlobalBuffer(src, rows * 9);
    o.SetGlobalBuffer(dst, rows * 8);
    p.SetGlobalBuffer(padded, rows * 8);
    AscendC::DataCopyExtParams inParams(rows, cols * 4, 2 * 4, 0, 0);
    AscendC::DataCopyPadExtParams<float> pad(true, 0, 1, -1.0f);
    AscendC::DataCopyPad(t, s, inParams, pad);
    AscendC::DataCopy(p, t, rows * 8);  // what the Unified Buffer holds, padding included
    AscendC::Adds(t, t, 100.0f, rows * 8);
    AscendC::DataCopyPad(o, t, AscendC::DataCopyExtParams(rows, cols * 4, 0, 4, 0));
  });
  std::vector<float> wantPadded(rows * 8), wantOut(rows * 8, 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      wantPadded[r * 8 + c] = in[r * 9 + c];
      wantOut[r * 8 + c] = in[r * 9 + c] + 100.0f;
    }
    wantPadded[r * 8 + 7] = -1.0f;
  }
  EXPECT_EQ(readBack(padded, rows * 8), wantPadded);
  EXPECT_EQ(readBack(dst, rows * 8), wantOut);
  for (float* p : {src, dst, padded}) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(AscendCApi, StridedDataCopyMovesBlocksOf32Bytes) {
  // DataCopyParams counts 32-byte data blocks: 3 blocks of 1 (8 floats) from global memory with 1
  // block skipped between them, packed in the Unified Buffer, then written out with 2 blocks
  // between them: out[24 b + i] = in[16 b + i] for b < 3, i < 8; the rest stays 0.
  std::vector<float> in(48);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
  float* src = deviceBuffer<float>(in.size(), in);
  float* dst = deviceBuffer<float>(72);
  runKernel("Strided", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 96);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> s, o;
    s.SetGlobalBuffer(src, 48);
    o.SetGlobalBuffer(dst, 72);
    AscendC::DataCopy(t, s, AscendC::DataCopyParams(3, 1, 1, 0));
    AscendC::DataCopy(o, t, AscendC::DataCopyParams(3, 1, 0, 2));
  });
  std::vector<float> want(72, 0.0f);
  for (size_t b = 0; b < 3; ++b) {
    for (size_t i = 0; i < 8; ++i) want[24 * b + i] = in[16 * b + i];
  }
  EXPECT_EQ(readBack(dst, 72), want);
  ASSERT_ACL_OK(aclrtFree(src));
  ASSERT_ACL_OK(aclrtFree(dst));
}

TEST_F(AscendCApi, AtomicAddAccumulatesCopiesOutUntilSetAtomicNone) {
  // 8 blocks each copy out (block + 1) * x[i] onto the same 256 floats with SetAtomicAdd: out[i] =
  // 10 + (1 + 2 + ... + 8) x[i] = 10 + 36 x[i] (the output held 10). A second kernel copies 2 x[i]
  // onto them with SetAtomicMax then SetAtomicNone and -x[i]: out[i] = -x[i], replaced.
  constexpr size_t n = 256;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 17);
  float* dx = deviceBuffer<float>(n, x);
  float* out = deviceBuffer<float>(n, std::vector<float>(n, 10.0f));
  runKernel("AtomicSum", 8, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> gx, gout;
    gx.SetGlobalBuffer(dx, n);
    gout.SetGlobalBuffer(out, n);
    AscendC::DataCopy(t, gx, n);
    AscendC::Muls(t, t, static_cast<float>(AscendC::GetBlockIdx() + 1), n);
    AscendC::SetAtomicAdd<float>();
    AscendC::DataCopy(gout, t, n);
    AscendC::SetAtomicNone();
  });
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = 10.0f + 36.0f * x[i];
  EXPECT_EQ(readBack(out, n), want);
  runKernel("AtomicNone", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> gx, gout;
    gx.SetGlobalBuffer(dx, n);
    gout.SetGlobalBuffer(out, n);
    AscendC::DataCopy(t, gx, n);
    AscendC::Muls(t, t, -1.0f, n);
    AscendC::SetAtomicNone();
    AscendC::DataCopy(gout, t, n);
  });
  for (size_t i = 0; i < n; ++i) want[i] = -x[i];
  EXPECT_EQ(readBack(out, n), want);
  for (float* p : {dx, out}) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(AscendCApi, ReduceMinAndMaxFindTheValueAndItsFirstIndex) {
  // 1000 floats v[i] = ((i * 37) mod 101) - 50: the least is -50, first at the i with
  // i * 37 = 0 (mod 101), i = 0; the greatest 50, first at i * 37 = 100 (mod 101): 37^-1 mod 101 is
  // 71 (37 x 71 = 2627 = 26 x 101 + 1), so i = 100 x 71 mod 101 = 30. Both found by a scan here
  // too. The index comes back in dst[1] as a uint32_t.
  constexpr size_t n = 1000;
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  size_t lo = 0, hi = 0;
  for (size_t i = 1; i < n; ++i) {
    if (v[i] < v[lo]) lo = i;
    if (v[i] > v[hi]) hi = i;
  }
  ASSERT_EQ(lo, 0u);
  ASSERT_EQ(hi, 30u);
  float* dv = deviceBuffer<float>(n, v);
  float* result = deviceBuffer<float>(16);
  runKernel("Reduces", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, out, work;
    pipe.InitBuffer(in, n * sizeof(float));
    pipe.InitBuffer(out, 64);
    pipe.InitBuffer(work, n * sizeof(float));
    AscendC::LocalTensor<float> t = in.Get<float>(), r = out.Get<float>(), w = work.Get<float>();
    AscendC::GlobalTensor<float> g, gr;
    g.SetGlobalBuffer(dv, n);
    gr.SetGlobalBuffer(result, 16);
    AscendC::DataCopy(t, g, n);
    AscendC::ReduceMin(r, t, w, n, true);
    AscendC::ReduceMax(r[8], t, w, n, true);
    AscendC::DataCopy(gr, r, 16);
  });
  const std::vector<float> got = readBack(result, 16);
  uint32_t minIndex = 0, maxIndex = 0;
  std::memcpy(&minIndex, &got[1], 4);
  std::memcpy(&maxIndex, &got[9], 4);
  EXPECT_EQ(got[0], v[lo]);
  EXPECT_EQ(minIndex, lo);
  EXPECT_EQ(got[8], v[hi]);
  EXPECT_EQ(maxIndex, hi);
  ASSERT_ACL_OK(aclrtFree(dv));
  ASSERT_ACL_OK(aclrtFree(result));
}

TEST_F(AscendCApi, WholeReduceSumSumsEachRepeatsMaskedElements) {
  // 4 repeats over 256 floats (64 a repeat, repeat stride 8 blocks, block stride 1):
  // - contiguous mask 64: out[r] = sum of src[64 r .. 64 r + 63];
  // - contiguous mask 5, dstRepStride 2: out2[2 r] = sum of src[64 r .. 64 r + 4];
  // - bitwise mask[0] = 2^63 | 1: out3[r] = src[64 r] + src[64 r + 63].
  // src[i] = i mod 7 (small integers: every sum is exact).
  constexpr size_t n = 256;
  std::vector<float> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i % 7);
  float* ds = deviceBuffer<float>(n, src);
  float* dout = deviceBuffer<float>(24);
  runKernel("WholeReduce", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
    pipe.InitBuffer(in, n * sizeof(float));
    pipe.InitBuffer(out, 24 * sizeof(float));
    AscendC::LocalTensor<float> t = in.Get<float>(), r = out.Get<float>();
    AscendC::Duplicate(r, 0.0f, 24);
    AscendC::GlobalTensor<float> g, gout;
    g.SetGlobalBuffer(ds, n);
    gout.SetGlobalBuffer(dout, 24);
    AscendC::DataCopy(t, g, n);
    AscendC::WholeReduceSum(r, t, 64, 4, 1, 1, 8);
    AscendC::WholeReduceSum(r[8], t, 5, 4, 2, 1, 8);
    const uint64_t mask[2] = {(uint64_t{1} << 63) | 1, 0};
    AscendC::WholeReduceSum(r[16], t, mask, 4, 1, 1, 8);
    AscendC::DataCopy(gout, r, 24);
  });
  std::vector<float> want(24, 0.0f);
  for (size_t r = 0; r < 4; ++r) {
    for (size_t i = 0; i < 64; ++i) want[r] += src[64 * r + i];
    for (size_t i = 0; i < 5; ++i) want[8 + 2 * r] += src[64 * r + i];
    want[16 + r] = src[64 * r] + src[64 * r + 63];
  }
  EXPECT_EQ(readBack(dout, 24), want);
  ASSERT_ACL_OK(aclrtFree(ds));
  ASSERT_ACL_OK(aclrtFree(dout));
}

TEST_F(AscendCApi, BlockReducesGiveOneResultPerDataBlock) {
  // 2 repeats over 128 floats, src[i] = (i * 13) mod 31 (small integers, sums exact), 8 floats a
  // data block. BlockReduceSum, full mask, dstRepStride 1: out[8 r + b] = the sum of block b of
  // repeat r (elements 64 r + 8 b .. + 7); BlockReduceMax with mask 12 (blocks 0 and the first
  // half of 1; blocks 2-7 select nothing and give 0); BlockReduceMin with dstRepStride 2: repeat
  // r's 8 results at 16 r. RepeatReduceSum: out[r] = the whole repeat's sum.
  constexpr size_t n = 128;
  std::vector<float> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>((i * 13) % 31);
  float* ds = deviceBuffer<float>(n, src);
  float* dout = deviceBuffer<float>(80);
  runKernel("BlockReduces", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
    pipe.InitBuffer(in, n * sizeof(float));
    pipe.InitBuffer(out, 80 * sizeof(float));
    AscendC::LocalTensor<float> t = in.Get<float>(), r = out.Get<float>();
    AscendC::Duplicate(r, -1.0f, 80);
    AscendC::GlobalTensor<float> g, gout;
    g.SetGlobalBuffer(ds, n);
    gout.SetGlobalBuffer(dout, 80);
    AscendC::DataCopy(t, g, n);
    AscendC::BlockReduceSum(r, t, 2, 64, 1, 1, 8);
    AscendC::BlockReduceMax(r[16], t, 2, 12, 1, 1, 8);
    AscendC::BlockReduceMin(r[32], t, 2, 64, 2, 1, 8);
    AscendC::RepeatReduceSum(r[72], t, 2, 64, 0, 1, 1, 8);
    AscendC::DataCopy(gout, r, 80);
  });
  std::vector<float> want(80, -1.0f);
  for (size_t r = 0; r < 2; ++r) {
    want[72 + r] = 0.0f;
    for (size_t b = 0; b < 8; ++b) {
      float sum = 0, hi = 0, lo = src[64 * r + 8 * b];
      bool anyHi = false;
      for (size_t j = 0; j < 8; ++j) {
        const float v = src[64 * r + 8 * b + j];
        sum += v;
        lo = std::min(lo, v);
        if (8 * b + j < 12) {
          hi = anyHi ? std::max(hi, v) : v;
          anyHi = true;
        }
      }
      want[8 * r + b] = sum;
      want[16 + 8 * r + b] = hi;
      want[32 + 16 * r + b] = lo;
      want[72 + r] += sum;
    }
  }
  EXPECT_EQ(readBack(dout, 80), want);
  ASSERT_ACL_OK(aclrtFree(ds));
  ASSERT_ACL_OK(aclrtFree(dout));
}

TEST_F(AscendCApi, WholeReduceMaxAndMinGiveEachRepeatsBestAndItsIndex) {
  // 3 repeats over 192 floats (64 a repeat), src[i] = ((i * 29) mod 64) - 20 within each repeat
  // shifted by 100 r: each repeat holds a permutation of -20..43 (29 is odd, so i -> 29 i mod 64
  // is one), plus 100 r. The greatest of repeat r is 43 + 100 r at the k with 29 k = 63 (mod 64):
  // 29^-1 mod 64 is 53 (29 x 53 = 1537 = 24 x 64 + 1), so k = 63 x 53 mod 64 = 11; the least is
  // -20 + 100 r at k = 0. Found by a scan here too.
  // - WholeReduceMax, full mask, value-index pairs, dstRepStride 1: (value, index as uint32_t);
  // - WholeReduceMin, mask 8 (elements 0-7 only), index only: the least of the first 8;
  // - WholeReduceMax, value only, dstRepStride 2: out[2 r] = the greatest.
  constexpr size_t n = 192;
  std::vector<float> src(n);
  for (size_t i = 0; i < n; ++i)
    src[i] = static_cast<float>(((i % 64) * 29) % 64) - 20.0f + 100.0f * static_cast<float>(i / 64);
  float* ds = deviceBuffer<float>(n, src);
  float* dout = deviceBuffer<float>(32);
  runKernel("WholeReduceBest", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
    pipe.InitBuffer(in, n * sizeof(float));
    pipe.InitBuffer(out, 32 * sizeof(float));
    AscendC::LocalTensor<float> t = in.Get<float>(), r = out.Get<float>();
    AscendC::Duplicate(r, 0.0f, 32);
    AscendC::GlobalTensor<float> g, gout;
    g.SetGlobalBuffer(ds, n);
    gout.SetGlobalBuffer(dout, 32);
    AscendC::DataCopy(t, g, n);
    AscendC::WholeReduceMax(r, t, 64, 3, 1, 1, 8);
    AscendC::WholeReduceMin(r[8], t, 8, 3, 1, 1, 8, AscendC::ReduceOrder::ORDER_ONLY_INDEX);
    AscendC::WholeReduceMax(r[16], t, 64, 3, 2, 1, 8, AscendC::ReduceOrder::ORDER_ONLY_VALUE);
    AscendC::DataCopy(gout, r, 32);
  });
  const std::vector<float> got = readBack(dout, 32);
  auto indexAt = [&](size_t slot) {
    uint32_t v = 0;
    std::memcpy(&v, &got[slot], 4);
    return v;
  };
  for (size_t r = 0; r < 3; ++r) {
    size_t hi = 0, lo8 = 0;
    for (size_t k = 1; k < 64; ++k) {
      if (src[64 * r + k] > src[64 * r + hi]) hi = k;
      if (k < 8 && src[64 * r + k] < src[64 * r + lo8]) lo8 = k;
    }
    ASSERT_EQ(hi, 11u);
    EXPECT_EQ(got[2 * r], 43.0f + 100.0f * static_cast<float>(r)) << r;
    EXPECT_EQ(indexAt(2 * r + 1), hi) << r;
    EXPECT_EQ(indexAt(8 + r), lo8) << r;
    EXPECT_EQ(got[16 + 2 * r], src[64 * r + hi]) << r;
  }
  ASSERT_ACL_OK(aclrtFree(ds));
  ASSERT_ACL_OK(aclrtFree(dout));
}

TEST_F(AscendCApi, CompareAndSelectClampThroughBitMasks) {
  // 256 floats x[i] = (i mod 50) - 20 and y[i] = 10 - (i mod 7). Compare(LT) sets bit i where
  // x[i] < y[i]; Select with it gives min(x, y) elementwise. Compares(GT, 0) then Select with the
  // scalar 0 gives max(x, 0) (a Relu). The mask bytes are read back too: byte j holds elements
  // 8 j .. 8 j + 7, element 8 j + b in bit b.
  constexpr size_t n = 256;
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 50) - 20.0f;
    y[i] = 10.0f - static_cast<float>(i % 7);
  }
  float* dx = deviceBuffer<float>(n, x);
  float* dy = deviceBuffer<float>(n, y);
  float* dout = deviceBuffer<float>(2 * n);
  uint8_t* dmask = deviceBuffer<uint8_t>(n / 8);
  runKernel("CompareSelect", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> bx, by, bo, bm;
    pipe.InitBuffer(bx, n * 4);
    pipe.InitBuffer(by, n * 4);
    pipe.InitBuffer(bo, 2 * n * 4);
    pipe.InitBuffer(bm, n / 8);
    AscendC::LocalTensor<float> tx = bx.Get<float>(), ty = by.Get<float>(), to = bo.Get<float>();
    AscendC::LocalTensor<uint8_t> tm = bm.Get<uint8_t>();
    AscendC::GlobalTensor<float> gx, gy, gout;
    AscendC::GlobalTensor<uint8_t> gm;
    gx.SetGlobalBuffer(dx, n);
    gy.SetGlobalBuffer(dy, n);
    gout.SetGlobalBuffer(dout, 2 * n);
    gm.SetGlobalBuffer(dmask, n / 8);
    AscendC::DataCopy(tx, gx, n);
    AscendC::DataCopy(ty, gy, n);
    AscendC::Compare(tm, tx, ty, AscendC::CMPMODE::LT, n);
    AscendC::DataCopy(gm, tm, n / 8);
    AscendC::Select(to, tm, tx, ty, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
    AscendC::Compares(tm, tx, 0.0f, AscendC::CMPMODE::GT, n);
    AscendC::Select(to[n], tm, tx, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
    AscendC::DataCopy(gout, to, 2 * n);
  });
  std::vector<uint8_t> wantMask(n / 8, 0);
  std::vector<float> want(2 * n);
  for (size_t i = 0; i < n; ++i) {
    if (x[i] < y[i]) wantMask[i / 8] = static_cast<uint8_t>(wantMask[i / 8] | (1u << (i % 8)));
    want[i] = std::min(x[i], y[i]);
    want[n + i] = std::max(x[i], 0.0f);
  }
  EXPECT_EQ(readBack(dmask, n / 8), wantMask);
  EXPECT_EQ(readBack(dout, 2 * n), want);
  ASSERT_ACL_OK(aclrtFree(dx));
  ASSERT_ACL_OK(aclrtFree(dy));
  ASSERT_ACL_OK(aclrtFree(dout));
  ASSERT_ACL_OK(aclrtFree(dmask));
}

TEST_F(AscendCApi, Bfloat16RoundsToNearestEvenAndComputesThroughFloat) {
  // bfloat16 keeps 8 significant bits: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7 and rounds to
  // the even one, 1; 1 + 3 x 2^-9 rounds up to 1 + 2^-7 = 1.0078125; 257 rounds to 256 (even), 259
  // to 260. Stored bits: 1.0 is 0x3f80, -2.0 is 0xc000.
  EXPECT_EQ(static_cast<float>(bfloat16_t(1.0f + 1.0f / 256)), 1.0f);
  EXPECT_EQ(static_cast<float>(bfloat16_t(1.0f + 3.0f / 512)), 1.0078125f);
  EXPECT_EQ(static_cast<float>(bfloat16_t(257.0f)), 256.0f);
  EXPECT_EQ(static_cast<float>(bfloat16_t(259.0f)), 260.0f);
  EXPECT_EQ(bfloat16_t(1.0f).bits, 0x3f80);
  EXPECT_EQ(bfloat16_t(-2.0f).bits, 0xc000);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16_t(std::nanf("")))));
  // On a kernel: float in, Cast to bfloat16, Add of two bfloat16 tensors, Cast back. x[i] = i,
  // y[i] = 0.5: x + y for i < 256 is exact in bfloat16 only when i + 0.5 fits 8 significant bits
  // (i < 128); above, the sum is rounded as written here with the same rule, in the test's own
  // arithmetic: round(i + 0.5) to 8 bits.
  constexpr size_t n = 256;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  float* dx = deviceBuffer<float>(n, x);
  float* dz = deviceBuffer<float>(n);
  runKernel("Bf16Add", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> f, a, b;
    pipe.InitBuffer(f, n * 4);
    pipe.InitBuffer(a, n * 2);
    pipe.InitBuffer(b, n * 2);
    AscendC::LocalTensor<float> tf = f.Get<float>();
    AscendC::LocalTensor<bfloat16_t> ta = a.Get<bfloat16_t>(), tb = b.Get<bfloat16_t>();
    AscendC::GlobalTensor<float> gx, gz;
    gx.SetGlobalBuffer(dx, n);
    gz.SetGlobalBuffer(dz, n);
    AscendC::DataCopy(tf, gx, n);
    AscendC::Cast(ta, tf, AscendC::RoundMode::CAST_RINT, n);
    AscendC::Duplicate(tb, 0.5f, n);
    AscendC::Add(ta, ta, tb, n);
    AscendC::Cast(tf, ta, AscendC::RoundMode::CAST_NONE, n);
    AscendC::DataCopy(gz, tf, n);
  });
  // Rounding to 8 significant bits, nearest, ties to even, in plain arithmetic.
  auto round8 = [](double v) {
    int e = 0;
    const double m = std::frexp(v, &e);  // v = m 2^e, 0.5 <= m < 1
    const double scaled = m * 256;       // 8 significant bits
    double r = std::floor(scaled);
    const double rest = scaled - r;
    if (rest > 0.5 || (rest == 0.5 && std::fmod(r, 2) == 1)) r += 1;
    return std::ldexp(r / 256, e);
  };
  const std::vector<float> z = readBack(dz, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], static_cast<float>(round8(static_cast<double>(i) + 0.5))) << i;
  }
  EXPECT_EQ(z[127], 127.5f);  // 8 significant bits: exact
  EXPECT_EQ(z[128], 128.0f);  // 128.5 is a tie between 128 and 129: the even 128
  EXPECT_EQ(z[129], 130.0f);  // 129.5 is a tie between 129 and 130: the even 130
  ASSERT_ACL_OK(aclrtFree(dx));
  ASSERT_ACL_OK(aclrtFree(dz));
}

TEST_F(AscendCApi, StdHelpersAreTheReferencesMinMaxAndTraits) {
  // AscendC::Std::min / max as the reference writes them (a < b ? a : b), its type traits and
  // tuple, usable in constant expressions as on the device.
  static_assert(AscendC::Std::min(3, 7) == 3 && AscendC::Std::max(3, 7) == 7, "min / max");
  static_assert(AscendC::Std::min(2.5, 2.25) == 2.25, "min of doubles");
  static_assert(AscendC::Std::is_same<AscendC::Std::remove_cvref_t<const float&>, float>::value,
                "remove_cvref");
  static_assert(!AscendC::Std::is_same_v<int, uint32_t>, "is_same_v");
  static_assert(AscendC::Std::integral_constant<int, 5>::value == 5, "integral_constant");
  static_assert(AscendC::Std::is_same_v<AscendC::Std::conditional_t<true, half, float>, half>,
                "conditional_t");
  constexpr auto t = AscendC::Std::make_tuple(1, 2.0f);
  static_assert(AscendC::Std::get<0>(t) == 1 && AscendC::Std::tuple_size<decltype(t)>::value == 2,
                "tuple");
  // And in a kernel: the block's tile is the smaller of 100 and what is left of 250 elements.
  uint32_t* d = deviceBuffer<uint32_t>(3);
  runKernel("StdInKernel", 3, [=]() {
    const uint32_t start = static_cast<uint32_t>(AscendC::GetBlockIdx()) * 100;
    d[AscendC::GetBlockIdx()] = AscendC::Std::min(100u, 250u - start);
  });
  EXPECT_EQ(readBack(d, 3), (std::vector<uint32_t>{100, 100, 50}));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendCApi, LocalMemAllocatorPlacesTensorsOneAfterAnother) {
  // Three tensors from address 0, each 32-byte aligned: 256 floats (1024 bytes) at 0, 100 floats
  // (400 bytes) at 1024, 64 int16 at 1024 + 416 = 1440 (400 rounded up to 416), then the next
  // address is 1440 + 128 = 1568. Data goes through them: y = 2 x + 1 over 100 floats.
  constexpr size_t n = 100;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) - 30.0f;
  float* dx = deviceBuffer<float>(n, x);
  float* dy = deviceBuffer<float>(n);
  uint32_t* addrs = deviceBuffer<uint32_t>(4);
  runKernel("StaticTensors", 1, [=]() {
    AscendC::LocalMemAllocator<> ub;
    addrs[0] = ub.GetCurAddr();
    AscendC::LocalTensor<float> big = ub.Alloc<AscendC::TPosition::VECIN, float, 256>();
    addrs[1] = ub.GetCurAddr();
    AscendC::LocalTensor<float> t = ub.Alloc<float>(n);
    addrs[2] = ub.GetCurAddr();
    AscendC::LocalTensor<int16_t> small = ub.Alloc<AscendC::TPosition::VECOUT, int16_t>(64);
    addrs[3] = ub.GetCurAddr();
    (void)big;
    (void)small;
    AscendC::GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(dx, n);
    gy.SetGlobalBuffer(dy, n);
    AscendC::DataCopyPad(t, gx, AscendC::DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
                         AscendC::DataCopyPadExtParams<float>());
    AscendC::Muls(t, t, 2.0f, n);
    AscendC::Adds(t, t, 1.0f, n);
    AscendC::DataCopyPad(gy, t, AscendC::DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
  });
  EXPECT_EQ(readBack(addrs, 4), (std::vector<uint32_t>{0, 1024, 1440, 1568}));
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = 2.0f * x[i] + 1.0f;
  EXPECT_EQ(readBack(dy, n), want);
  // More than the core's 192 KiB of Unified Buffer (A2 vector core): the kernel fails, naming
  // both sizes (196640 = 196608 + 32 bytes asked).
  ASSERT_EQ(ascendsim::ascendc::launch("TooMuch", 1, nullptr, nullptr,
                                       [=]() {
                                         AscendC::LocalMemAllocator<> ub;
                                         (void)ub.Alloc<uint8_t>(196608 + 32);
                                       }),
            0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("196640 bytes, more than the core's 196608"),
            std::string::npos);
  for (void* p : {static_cast<void*>(dx), static_cast<void*>(dy), static_cast<void*>(addrs)})
    ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(AscendCApi, GatherMaskKeepsTheSelectedElementsInOrder) {
  // src[i] = i over 256 floats (4 repeats of 64). The results (uint32 counts first, then the
  // kept elements) against the patterns' own arithmetic:
  // - built-in 1 (even elements), normal mode, 2 repeats back to back: 0, 2, ..., 126, count 64;
  // - built-in 4 (the second of every four), 1 repeat from element 128: 129, 133, ..., 189,
  //   count 16;
  // - a uint32 pattern {0x80000001, 0x1} (elements 0, 31, 32 of a repeat), src1RepeatStride 0
  //   (the same pattern every repeat), 3 repeats: 0, 31, 32, 64, 95, 96, 128, 159, 160, count 9;
  // - built-in 7 (all) in counter mode with mask 70: the first 70 elements, count 70;
  // - half, built-in 3 (the first of every four) over 1 repeat of 128 halves: 0, 4, ..., 124.
  constexpr size_t n = 256;
  std::vector<float> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i);
  float* dsrc = deviceBuffer<float>(n, src);
  float* dout = deviceBuffer<float>(5 * n);
  uint64_t* counts = deviceBuffer<uint64_t>(5);
  runKernel("GatherMasks", 1, [=]() {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, out, pat, hin, hout;
    pipe.InitBuffer(in, n * 4);
    pipe.InitBuffer(out, n * 4);
    pipe.InitBuffer(pat, 32);
    pipe.InitBuffer(hin, 256);
    pipe.InitBuffer(hout, 256);
    AscendC::GlobalTensor<float> gs, go;
    gs.SetGlobalBuffer(dsrc, n);
    go.SetGlobalBuffer(dout, 5 * n);
    AscendC::LocalTensor<float> s = in.Get<float>(), o = out.Get<float>();
    AscendC::DataCopy(s, gs, n);
    uint64_t cnt = 0;
    AscendC::GatherMask(o, s, uint8_t{1}, false, 0, AscendC::GatherMaskParams(1, 2, 8, 0), cnt);
    counts[0] = cnt;
    AscendC::DataCopy(go, o, n);
    AscendC::GatherMask(o, s[128], uint8_t{4}, false, 0, AscendC::GatherMaskParams(1, 1, 16, 0),
                        cnt);
    counts[1] = cnt;
    AscendC::DataCopy(go[n], o, n);
    AscendC::LocalTensor<uint32_t> p = pat.Get<uint32_t>();
    p.SetValue(0, 0x80000001u);
    p.SetValue(1, 0x1u);
    AscendC::GatherMask(o, s, p, false, 0, AscendC::GatherMaskParams(1, 3, 8, 0), cnt);
    counts[2] = cnt;
    AscendC::DataCopy(go[2 * n], o, n);
    AscendC::GatherMask(o, s, uint8_t{7}, true, 70, AscendC::GatherMaskParams(1, 0, 8, 0), cnt);
    counts[3] = cnt;
    AscendC::DataCopy(go[3 * n], o, n);
    AscendC::LocalTensor<half> h = hin.Get<half>(), ho = hout.Get<half>();
    for (uint32_t i = 0; i < 128; ++i) h.SetValue(i, static_cast<half>(i));
    AscendC::GatherMask(ho, h, uint8_t{3}, false, 0, AscendC::GatherMaskParams(1, 1, 8, 0), cnt);
    counts[4] = cnt;
    AscendC::Cast(o, ho, AscendC::RoundMode::CAST_NONE, 32);
    AscendC::DataCopy(go[4 * n], o, n);
  });
  EXPECT_EQ(readBack(counts, 5), (std::vector<uint64_t>{64, 16, 9, 70, 32}));
  const std::vector<float> out = readBack(dout, 5 * n);
  std::vector<float> even, second, custom, first70, fourth;
  for (int i = 0; i < 128; i += 2) even.push_back(static_cast<float>(i));
  for (int i = 129; i < 192; i += 4) second.push_back(static_cast<float>(i));
  for (int r = 0; r < 3; ++r)
    for (int k : {0, 31, 32}) custom.push_back(static_cast<float>(64 * r + k));
  for (int i = 0; i < 70; ++i) first70.push_back(static_cast<float>(i));
  for (int i = 0; i < 128; i += 4) fourth.push_back(static_cast<float>(i));
  auto part = [&](size_t k, size_t count) {
    return std::vector<float>(out.begin() + static_cast<long>(k * n),
                              out.begin() + static_cast<long>(k * n + count));
  };
  EXPECT_EQ(part(0, 64), even);
  EXPECT_EQ(part(1, 16), second);
  EXPECT_EQ(part(2, 9), custom);
  EXPECT_EQ(part(3, 70), first70);
  EXPECT_EQ(part(4, 32), fourth);
  for (void* p : {static_cast<void*>(dsrc), static_cast<void*>(dout), static_cast<void*>(counts)})
    ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(AscendCApi, BroadcastRepeatsTheSourceAlongItsAxis) {
  // src = {1, 2, 3, 4, ...}: [4, 1] -> [4, 16] along axis 1 gives row i all i + 1; [1, 16] ->
  // [4, 16] along axis 0 gives every row 1..16; [1] -> [37] gives 37 ones. A source whose other
  // axis differs from the destination's stops the kernel (a trap).
  std::vector<float> src(16);
  for (size_t i = 0; i < 16; ++i) src[i] = static_cast<float>(i + 1);
  float* dsrc = deviceBuffer<float>(16, src);
  float* dout = deviceBuffer<float>(3 * 64);
  auto kernel = [=](uint32_t srcCols) {
    return [=]() {
      AscendC::TPipe pipe;
      AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
      pipe.InitBuffer(in, 64);
      pipe.InitBuffer(out, 64 * 4);
      AscendC::GlobalTensor<float> gs, go;
      gs.SetGlobalBuffer(dsrc, 16);
      go.SetGlobalBuffer(dout, 3 * 64);
      AscendC::LocalTensor<float> s = in.Get<float>(), o = out.Get<float>();
      AscendC::DataCopy(s, gs, 16);
      const uint32_t dstShape[2] = {4, 16};
      const uint32_t rowsShape[2] = {4, srcCols};
      AscendC::Broadcast<float, 2, 1>(o, s, dstShape, rowsShape);
      AscendC::DataCopy(go, o, 64);
      const uint32_t colsShape[2] = {1, 16};
      AscendC::Broadcast<float, 2, 0>(o, s, dstShape, colsShape);
      AscendC::DataCopy(go[64], o, 64);
      const uint32_t line[1] = {37}, one[1] = {1};
      AscendC::Duplicate(o, 0.0f, 64);
      AscendC::Broadcast<float, 1, 0>(o, s, line, one);
      AscendC::DataCopy(go[128], o, 64);
    };
  };
  runKernel("Broadcasts", 1, kernel(1));
  const std::vector<float> out = readBack(dout, 3 * 64);
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = 0; j < 16; ++j) {
      EXPECT_EQ(out[16 * i + j], static_cast<float>(i + 1)) << i << "," << j;
      EXPECT_EQ(out[64 + 16 * i + j], static_cast<float>(j + 1)) << i << "," << j;
    }
  }
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(out[128 + i], i < 37 ? 1.0f : 0.0f) << i;
  ASSERT_EQ(ascendsim::ascendc::launch("BadBroadcast", 1, nullptr, nullptr, kernel(2)), 0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("trapped"), std::string::npos);
  ASSERT_ACL_OK(aclrtFree(dsrc));
  ASSERT_ACL_OK(aclrtFree(dout));
}

TEST_F(AscendCApi, ListTensorDescReadsTheReferencesLayout) {
  // The reference's example: two int32 tensors of shape [1, 2, 3] and [3, 4, 5]: ptr_offset 72
  // (9 words: itself, then 1 + 3 words for each tensor), the words (3 | 0 << 32), 1, 2, 3,
  // (3 | 1 << 32), 3, 4, 5, then the two data pointers. The kernel reports the size, each
  // tensor's dim, index and shape, and sums tensor 1's 60 elements (values 0..59: 1770) through
  // GetDataObj. A layout whose pointer count is not the one given stops the kernel.
  int32_t* t0 = deviceBuffer<int32_t>(6);
  std::vector<int32_t> values(60);
  for (int i = 0; i < 60; ++i) values[static_cast<size_t>(i)] = i;
  int32_t* t1 = deviceBuffer<int32_t>(60, values);
  const std::vector<uint64_t> layout = {72,
                                        3,
                                        1,
                                        2,
                                        3,
                                        3 | (uint64_t{1} << 32),
                                        3,
                                        4,
                                        5,
                                        reinterpret_cast<uintptr_t>(t0),
                                        reinterpret_cast<uintptr_t>(t1)};
  uint64_t* list = deviceBuffer<uint64_t>(layout.size(), layout);
  uint64_t* out = deviceBuffer<uint64_t>(12);
  runKernel("ListTensors", 1, [=]() {
    AscendC::ListTensorDesc desc(list, 88, 2);
    out[0] = desc.GetSize();
    out[1] = desc.GetDataPtr<int32_t>(1) == t1 ? 1 : 0;
    uint64_t shape[8] = {0};
    for (uint32_t i = 0; i < 2; ++i) {
      AscendC::TensorDesc<int32_t> t;
      t.SetShapeAddr(shape);
      desc.GetDesc(t, i);
      out[2 + 5 * i] = t.GetDim();
      out[3 + 5 * i] = t.GetIndex();
      for (uint32_t d = 0; d < 3; ++d) out[4 + 5 * i + d] = t.GetShape(d);
    }
    AscendC::TensorDesc<int32_t> last;
    last.SetShapeAddr(shape);
    desc.GetDesc(last, 1);
    AscendC::GlobalTensor<int32_t> g = last.GetDataObj();
    int64_t sum = 0;
    for (uint64_t i = 0; i < g.GetSize(); ++i) sum += g.GetValue(i);
    out[1] += static_cast<uint64_t>(sum) * 10;
  });
  EXPECT_EQ(readBack(out, 12), (std::vector<uint64_t>{2, 1 + 17700, 3, 0, 1, 2, 3, 3, 1, 3, 4, 5}));
  ASSERT_EQ(ascendsim::ascendc::launch("WrongCount", 1, nullptr, nullptr,
                                       [=]() { AscendC::ListTensorDesc desc(list, 88, 3); }),
            0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  for (void* p : {static_cast<void*>(t0), static_cast<void*>(t1), static_cast<void*>(list),
                  static_cast<void*>(out)})
    ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(AscendCApi, SyncAllIsABarrierForOneBlockAndRefusedAcrossSeveral) {
  // One block: SyncAll waits for the block's own pipes, like PipeBarrier<PIPE_ALL>, and the data
  // is right (y = x + 1 after the copy in). Four blocks would have to wait for each other, which
  // blocks run one after another cannot: the kernel fails with the vector core exception and
  // says why; so does the soft form with 2 cores named.
  constexpr size_t n = 64;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  float* dx = deviceBuffer<float>(n, x);
  float* dy = deviceBuffer<float>(n);
  auto kernel = [=](int soft) {
    return [=]() {
      AscendC::TPipe pipe;
      AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, n * sizeof(float));
      AscendC::GlobalTensor<float> gx, gy;
      gx.SetGlobalBuffer(dx, n);
      gy.SetGlobalBuffer(dy, n);
      AscendC::LocalTensor<float> t = buf.Get<float>();
      AscendC::DataCopy(t, gx, n);
      if (soft) {
        AscendC::GlobalTensor<int32_t> work;
        AscendC::SyncAll(work, t.ReinterpretCast<int32_t>(), soft);
      } else {
        AscendC::SyncAll();
      }
      AscendC::Adds(t, t, 1.0f, n);
      AscendC::DataCopy(gy, t, n);
    };
  };
  runKernel("SyncOne", 1, kernel(0));
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = x[i] + 1.0f;
  EXPECT_EQ(readBack(dy, n), want);
  ASSERT_EQ(ascendsim::ascendc::launch("SyncFour", 4, nullptr, nullptr, kernel(0)), 0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("SyncAll across 4 blocks is not supported"),
            std::string::npos);
  ASSERT_EQ(ascendsim::ascendc::launch("SyncSoft", 1, nullptr, nullptr, kernel(2)), 0u);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_VECTOR_CORE_EXCEPTION);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("SyncAll across 2 blocks"), std::string::npos);
  ASSERT_ACL_OK(aclrtFree(dx));
  ASSERT_ACL_OK(aclrtFree(dy));
}

namespace {
// The default machine's 910B4 vector cores (configs/default.yaml): 1.65 GHz, 64 B per cycle in
// (MTE2) and out (MTE3), 256 B per cycle through the vector unit (one 256-byte repeat per cycle);
// issuing an instruction takes 4 scalar cycles (docs/ascendc.md). Besides the kernel's body, the
// events around one kernel measure 8 us of launch and start overheads, and the kernel's first
// step of device memory (tens of ns): the kernel times are within 0.1 us of the model.
constexpr double kClock = 1.65e9;
constexpr double kAroundKernelMs = 8e-3;
constexpr double kToleranceMs = 1e-4;
double cyclesMs(double cycles) {
  return cycles / kClock * 1e3;
}
}  // namespace

TEST_F(AscendCApi, NewInstructionsAreTimedFromTheirBytesAndRepeats) {
  float* d = deviceBuffer<float>(1 << 15);
  auto expectCycles = [](double ms, double cycles, const char* what) {
    EXPECT_NEAR(ms - kAroundKernelMs, cyclesMs(cycles), kToleranceMs)
        << what << ": " << ms << " ms, expected " << cycles << " cycles";
  };
  // DataCopyPad in of 1024 rows of 100 bytes: MTE2 moves the 102400 bytes read from global
  // memory, 1600 cycles at 64 B/cycle, after its 4-cycle issue (not the 131072 bytes the rows
  // take in the Unified Buffer, 32-byte aligned: 2048 cycles).
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("PadIn", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
                   pipe.InitBuffer(buf, 1024 * 128);
                   AscendC::GlobalTensor<float> g;
                   g.SetGlobalBuffer(d, 1 << 15);
                   AscendC::DataCopyPad(buf.Get<float>(), g,
                                        AscendC::DataCopyExtParams(1024, 100, 0, 0, 0),
                                        AscendC::DataCopyPadExtParams<float>());
                 });
               }),
               4 + 1600, "DataCopyPad in");
  // Four Duplicates of 255 repeats with a mask of 8 elements each: a repeat takes its cycle
  // whatever the mask, 4 x 255 cycles one after another on the vector unit (each writes the same
  // buffer), after the first one's issue: 1024 cycles.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("Duplicates", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
                   pipe.InitBuffer(buf, 255 * 256);
                   for (int i = 0; i < 4; ++i)
                     AscendC::Duplicate(buf.Get<float>(), 1.0f, uint64_t{8}, 255, 1, 8);
                 });
               }),
               4 + 4 * 255, "Duplicate repeats");
  // Four Adds of 255 repeats (mask 64, all of each repeat) into one buffer, and the same with
  // a mask of 1: 4 + 4 x 255 = 1024 cycles either way.
  for (uint64_t mask : {uint64_t{64}, uint64_t{1}}) {
    expectCycles(elapsedMs([&] {
                   ascendsim::ascendc::launch("RepeatAdds", 1, nullptr, nullptr, [=]() {
                     AscendC::TPipe pipe;
                     AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
                     pipe.InitBuffer(buf, 255 * 256);
                     AscendC::LocalTensor<float> t = buf.Get<float>();
                     for (int i = 0; i < 4; ++i)
                       AscendC::Add(t, t, t, mask, 255, AscendC::BinaryRepeatParams());
                   });
                 }),
                 4 + 4 * 255, "Add repeats");
  }
  // Four WholeReduceSums of 255 repeats into one buffer: 4 + 4 x 255 = 1024 cycles.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("WholeReduces", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
                   pipe.InitBuffer(in, 255 * 256);
                   pipe.InitBuffer(out, 256 * 4);
                   for (int i = 0; i < 4; ++i)
                     AscendC::WholeReduceSum(out.Get<float>(), in.Get<float>(), 64, 255, 1, 1, 8);
                 });
               }),
               4 + 4 * 255, "WholeReduceSum repeats");
  // Four ReduceMins over 16384 floats (64 KiB, one pass: 256 cycles each): 4 + 4 x 256 = 1028.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("ReduceMins", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
                   pipe.InitBuffer(in, 1 << 16);
                   pipe.InitBuffer(out, 64);
                   for (int i = 0; i < 4; ++i)
                     AscendC::ReduceMin(out.Get<float>(), in.Get<float>(), in.Get<float>(), 1 << 14,
                                        true);
                 });
               }),
               4 + 4 * 256, "ReduceMin");
  // Two Compares and two Selects over 16384 floats (64 KiB read from each source, one pass:
  // 256 cycles each, in order on the vector unit): 4 + 4 x 256 = 1028 cycles.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("CompareSelects", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> a, m, o;
                   pipe.InitBuffer(a, 1 << 16);
                   pipe.InitBuffer(m, 1 << 11);
                   pipe.InitBuffer(o, 1 << 16);
                   AscendC::LocalTensor<float> ta = a.Get<float>(), to = o.Get<float>();
                   AscendC::LocalTensor<uint8_t> tm = m.Get<uint8_t>();
                   for (int i = 0; i < 2; ++i) {
                     AscendC::Compares(tm, ta, 1.0f, AscendC::CMPMODE::GT, 1 << 14);
                     AscendC::Select(to, tm, ta, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE,
                                     1 << 14);
                   }
                 });
               }),
               4 + 4 * 256, "Compare and Select");
  // Two Fills of 255 repeats of 512 bytes (A1 buffer, plain form): 130560 bytes each, 510 cycles;
  // 4 + 2 x 510 = 1024 cycles.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("Fills", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::A1> buf;
                   pipe.InitBuffer(buf, 255 * 512);
                   for (int i = 0; i < 2; ++i)
                     AscendC::Fill(buf.Get<float>(),
                                   AscendC::InitConstValueParams<float>(255, 2.0f));
                 });
               }),
               4 + 2 * 510, "Fill");
  // An atomic-add copy out of 64 KiB: MTE3 moves 65536 bytes, 1024 cycles, as a plain copy out;
  // device memory also reads the 64 KiB it adds to, far within the cores' time.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("AtomicOut", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
                   pipe.InitBuffer(buf, 1 << 16);
                   AscendC::GlobalTensor<float> g;
                   g.SetGlobalBuffer(d, 1 << 15);
                   AscendC::SetAtomicAdd<float>();
                   AscendC::DataCopy(g, buf.Get<float>(), 1 << 14);
                   AscendC::SetAtomicNone();
                 });
               }),
               4 + 1024, "atomic copy out");
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(AscendCApi, GatherMaskAndBroadcastAreTimedFromTheirRepeatsAndBytes) {
  auto expectCycles = [](double ms, double cycles, const char* what) {
    EXPECT_NEAR(ms - kAroundKernelMs, cyclesMs(cycles), kToleranceMs)
        << what << ": " << ms << " ms, expected " << cycles << " cycles";
  };
  // Four GatherMasks of 255 repeats (normal mode, even elements) into one buffer: one 256-byte
  // repeat per vector cycle, 4 x 255 cycles after the first one's 4-cycle issue: 1024 cycles.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("GatherMasks", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
                   pipe.InitBuffer(in, 255 * 256);
                   pipe.InitBuffer(out, 255 * 256);
                   uint64_t cnt = 0;
                   for (int i = 0; i < 4; ++i)
                     AscendC::GatherMask(out.Get<float>(), in.Get<float>(), uint8_t{1}, false, 0,
                                         AscendC::GatherMaskParams(1, 255, 8, 0), cnt);
                 });
               }),
               4 + 4 * 255, "GatherMask repeats");
  // Four Broadcasts of one float to 16384 (64 KiB written, one pass: 256 cycles each) into one
  // buffer: 4 + 4 x 256 = 1028 cycles.
  expectCycles(elapsedMs([&] {
                 ascendsim::ascendc::launch("Broadcasts", 1, nullptr, nullptr, [=]() {
                   AscendC::TPipe pipe;
                   AscendC::TBuf<AscendC::TPosition::VECCALC> in, out;
                   pipe.InitBuffer(in, 32);
                   pipe.InitBuffer(out, 1 << 16);
                   const uint32_t dst[1] = {1 << 14}, src[1] = {1};
                   for (int i = 0; i < 4; ++i)
                     AscendC::Broadcast<float, 1, 0>(out.Get<float>(), in.Get<float>(), dst, src);
                 });
               }),
               4 + 4 * 256, "Broadcast");
}

TEST(AscendCCpuDebug, IcpuRunKfRunsTheBlocksInOrderOnHostMemory) {
  // No AscendCL, no device: 4 blocks each write their index and the block count into their
  // quarter of 64 int32 from GmAlloc; the blocks ran 0, 1, 2, 3. A kernel whose block 2 traps
  // stops there (blocks 0 and 1 ran, 3 did not) and the run returns 507016.
  auto* p = static_cast<int32_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
  ASSERT_NE(p, nullptr);
  std::vector<int64_t> order;
  auto quarters = [&order](GM_ADDR out) {
    auto* q = reinterpret_cast<int32_t*>(out);
    const int64_t b = AscendC::GetBlockIdx(), n = AscendC::GetBlockNum();
    order.push_back(b);
    for (int64_t i = b * 16; i < (b + 1) * 16; ++i) q[i] = static_cast<int32_t>(b * 10 + n);
  };
  EXPECT_EQ(ICPU_RUN_KF(quarters, 4, reinterpret_cast<GM_ADDR>(p)), 0);
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3}));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(p[i], (i / 16) * 10 + 4) << i;
  order.clear();
  auto trapsIn = [&order](int64_t trapping) {
    order.push_back(AscendC::GetBlockIdx());
    if (AscendC::GetBlockIdx() == trapping) AscendC::trap();
  };
  EXPECT_EQ(ICPU_RUN_KF(trapsIn, 4, 2), ACL_ERROR_RT_AICORE_TRAP_EXCEPTION);
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(AscendC::GetBlockIdx(), 0);  // outside the run again
  EXPECT_EQ(AscendC::GetBlockNum(), 1);
  AscendC::GmFree(p);
}
