// aclrtReduceAsync: the DMA engine reduces while it copies (SDMA reduce), dst = dst kind src.
// Expected bytes are written out by hand (bit patterns for the 16-bit floats); error codes are
// CANN's (hicann/runtime aclrtReduceAsyncImpl, ApiErrorDecorator::ReduceAsync,
// CheckReduceCapability, Context::CheckMemAlign); which SoC takes which type and kind is the API
// reference's (docs/zh/api_ref/12_execution_control.md, aclrtReduceAsync).
#include <cstring>
#include <vector>

#include "acl_fixture.h"

namespace {

// Device buffer holding `bytes`, written from the host.
void* deviceWith(const std::vector<uint8_t>& bytes) {
  void* d = nullptr;
  EXPECT_EQ(aclrtMalloc(&d, bytes.size(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(d, bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  return d;
}

std::vector<uint8_t> readBack(const void* d, size_t n) {
  std::vector<uint8_t> out(n);
  EXPECT_EQ(aclrtMemcpy(out.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  return out;
}

template <class T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> b(values.size() * sizeof(T));
  std::memcpy(b.data(), values.data(), b.size());
  return b;
}

// dst = dst kind src on the default stream; the bytes dst holds afterwards.
std::vector<uint8_t> reduced(const std::vector<uint8_t>& dst, const std::vector<uint8_t>& src,
                             aclrtReduceKind kind, aclDataType type) {
  void* d = deviceWith(dst);
  void* s = deviceWith(src);
  EXPECT_EQ(aclrtReduceAsync(d, s, dst.size(), kind, type, nullptr, nullptr), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  std::vector<uint8_t> out = readBack(d, dst.size());
  EXPECT_EQ(readBack(s, src.size()), src);  // the source is only read
  aclrtFree(d);
  aclrtFree(s);
  return out;
}

}  // namespace

class Reduce : public AclTest {};  // default machine: one Ascend910B4

TEST_F(Reduce, SampleSumOfFloats) {
  // hicann/runtime example/2_advanced_features/built_in_task/0_reduce_task: {1,2,3,4} + itself.
  const std::vector<uint8_t> in = bytesOf<float>({1, 2, 3, 4});
  EXPECT_EQ(reduced(in, in, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT),
            bytesOf<float>({2, 4, 6, 8}));
}

TEST_F(Reduce, IntegersWrapAndCompareSigned) {
  const auto sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, max = ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX,
             min = ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN;
  const std::vector<uint8_t> a8 = bytesOf<int8_t>({100, -100, 5, -1});
  const std::vector<uint8_t> b8 = bytesOf<int8_t>({100, -100, -7, 1});
  EXPECT_EQ(reduced(a8, b8, sum, ACL_INT8), bytesOf<int8_t>({-56, 56, -2, 0}));  // 200 - 256 ...
  EXPECT_EQ(reduced(a8, b8, max, ACL_INT8), bytesOf<int8_t>({100, -100, 5, 1}));
  EXPECT_EQ(reduced(a8, b8, min, ACL_INT8), bytesOf<int8_t>({100, -100, -7, -1}));
  const std::vector<uint8_t> a16 = bytesOf<int16_t>({32767, -32768, 1000, -3});
  const std::vector<uint8_t> b16 = bytesOf<int16_t>({1, -1, -2000, 4});
  EXPECT_EQ(reduced(a16, b16, sum, ACL_INT16), bytesOf<int16_t>({-32768, 32767, -1000, 1}));
  EXPECT_EQ(reduced(a16, b16, max, ACL_INT16), bytesOf<int16_t>({32767, -1, 1000, 4}));
  EXPECT_EQ(reduced(a16, b16, min, ACL_INT16), bytesOf<int16_t>({1, -32768, -2000, -3}));
  const std::vector<uint8_t> a32 = bytesOf<int32_t>({2147483647, -5, 123456789, 0});
  const std::vector<uint8_t> b32 = bytesOf<int32_t>({1, -6, -123456789, -2147483647 - 1});
  EXPECT_EQ(reduced(a32, b32, sum, ACL_INT32),
            bytesOf<int32_t>({-2147483647 - 1, -11, 0, -2147483647 - 1}));
  EXPECT_EQ(reduced(a32, b32, max, ACL_INT32), bytesOf<int32_t>({2147483647, -5, 123456789, 0}));
  EXPECT_EQ(reduced(a32, b32, min, ACL_INT32),
            bytesOf<int32_t>({1, -6, -123456789, -2147483647 - 1}));
}

TEST_F(Reduce, FloatsRoundToNearestEven) {
  const auto sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, max = ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX,
             min = ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN;
  // float: 2^24 + 1 rounds to even (2^24); 0.1f + 0.2f is 0x3E99999A (0.3f is 0x3E99999A too).
  const std::vector<uint8_t> af = bytesOf<float>({16777216.0f, 0.1f, -2.5f, 1e30f});
  const std::vector<uint8_t> bf = bytesOf<float>({1.0f, 0.2f, 2.5f, 1e30f});
  EXPECT_EQ(reduced(af, bf, sum, ACL_FLOAT),
            bytesOf<uint32_t>({0x4B800000u, 0x3E99999Au, 0u, 0x71C9F2CAu}));  // 2e30f
  EXPECT_EQ(reduced(af, bf, max, ACL_FLOAT), bytesOf<float>({16777216.0f, 0.2f, 2.5f, 1e30f}));
  EXPECT_EQ(reduced(af, bf, min, ACL_FLOAT), bytesOf<float>({1.0f, 0.1f, -2.5f, 1e30f}));
  // float16: 1 + 2 = 3 (0x3C00 + 0x4000 = 0x4200); 2048 + 1 is a tie, to even 2048 (0x6800);
  // 2048 + 3 = 2051 rounds to 2052 (0x6802); 65504 + 65504 overflows to +inf (0x7C00).
  const std::vector<uint8_t> ah = bytesOf<uint16_t>({0x3C00, 0x6800, 0x6800, 0x7BFF});
  const std::vector<uint8_t> bh = bytesOf<uint16_t>({0x4000, 0x3C00, 0x4200, 0x7BFF});
  EXPECT_EQ(reduced(ah, bh, sum, ACL_FLOAT16), bytesOf<uint16_t>({0x4200, 0x6800, 0x6802, 0x7C00}));
  EXPECT_EQ(reduced(ah, bh, max, ACL_FLOAT16), bytesOf<uint16_t>({0x4000, 0x6800, 0x6800, 0x7BFF}));
  // (-1 is 0xBC00: the minimum of -1 and 2 is -1.)
  EXPECT_EQ(reduced(bytesOf<uint16_t>({0xBC00}), bytesOf<uint16_t>({0x4000}), min, ACL_FLOAT16),
            bytesOf<uint16_t>({0xBC00}));
  // bfloat16: 1 + 2 = 3 (0x3F80 + 0x4000 = 0x4040); 256 + 1 is a tie, to even 256 (0x4380);
  // 256 + 3 = 259 rounds to 260 (0x4382).
  const std::vector<uint8_t> ab = bytesOf<uint16_t>({0x3F80, 0x4380, 0x4380});
  const std::vector<uint8_t> bb = bytesOf<uint16_t>({0x4000, 0x3F80, 0x4040});
  EXPECT_EQ(reduced(ab, bb, sum, ACL_BF16), bytesOf<uint16_t>({0x4040, 0x4380, 0x4382}));
  EXPECT_EQ(reduced(ab, bb, max, ACL_BF16), bytesOf<uint16_t>({0x4000, 0x4380, 0x4380}));
  EXPECT_EQ(reduced(ab, bb, min, ACL_BF16), bytesOf<uint16_t>({0x3F80, 0x3F80, 0x4040}));
}

TEST_F(Reduce, ArgumentErrorsAreCanns) {
  const size_t n = 64;
  void *d = nullptr, *s = nullptr, *h = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&s, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  const auto sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM;
  int reserved = 0;
  // The ACL layer: pointers, reserve, data types it passes on.
  EXPECT_ACL_ERROR(aclrtReduceAsync(nullptr, s, n, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, nullptr, n, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, s, n, sum, ACL_FLOAT, nullptr, &reserved),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, s, n, sum, ACL_DOUBLE, nullptr, nullptr),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, s, n, sum, ACL_INT64, nullptr, nullptr),
                   ACL_ERROR_INVALID_PARAM);
  // The runtime: count, kind range [10, 14), SUM at most 4 GiB.
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, s, 0, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, s, n, static_cast<aclrtReduceKind>(9), ACL_FLOAT, nullptr, nullptr),
      ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, s, n, static_cast<aclrtReduceKind>(14), ACL_FLOAT, nullptr, nullptr),
      ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, s, (4ull << 30) + 4, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  // The engine: types the 910B's SDMA does not reduce (INT4, UINT8, UINT16, UINT32 pass the ACL
  // layer), and EQUAL, which is not simulated.
  for (aclDataType t : {ACL_INT4, ACL_UINT8, ACL_UINT16, ACL_UINT32}) {
    EXPECT_ACL_ERROR(aclrtReduceAsync(d, s, n, sum, t, nullptr, nullptr),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  }
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, s, n, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, nullptr, nullptr),
      ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  // Alignment: 4 bytes for 32-bit types, 2 for 16-bit ones, none for int8.
  char* dc = static_cast<char*>(d);
  EXPECT_ACL_ERROR(aclrtReduceAsync(dc + 2, s, 32, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_RT_ADDR_UNALIGNED);
  EXPECT_ACL_ERROR(aclrtReduceAsync(dc + 1, s, 32, sum, ACL_FLOAT16, nullptr, nullptr),
                   ACL_ERROR_RT_ADDR_UNALIGNED);
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, static_cast<char*>(s) + 2, 32, sum, ACL_INT32, nullptr, nullptr),
      ACL_ERROR_RT_ADDR_UNALIGNED);
  ASSERT_ACL_OK(aclrtReduceAsync(dc + 1, s, 32, sum, ACL_INT8, nullptr, nullptr));
  // Both sides device memory of the stream's device, within their allocations.
  EXPECT_ACL_ERROR(aclrtReduceAsync(h, s, n, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, h, n, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtReduceAsync(d, s, n + 4, sum, ACL_FLOAT, nullptr, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  aclrtFree(d);
  aclrtFree(s);
  aclrtFreeHost(h);
}

TEST_F(Reduce, RunsInStreamOrder) {
  // Queued after the copy that fills dst and before the one that reads it back: three reduces of
  // the same source add it three times.
  aclrtStream stream = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&stream));
  const std::vector<int32_t> start = {1, 2, 3, 4}, add = {10, 20, 30, 40};
  void* d = deviceWith(bytesOf(add));
  void* s = deviceWith(bytesOf(add));
  void* h = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, 16));
  std::memcpy(h, start.data(), 16);
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, 16, h, 16, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  for (int i = 0; i < 3; ++i) {
    ASSERT_ACL_OK(
        aclrtReduceAsync(d, s, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, stream, nullptr));
  }
  ASSERT_ACL_OK(aclrtMemcpyAsync(h, 16, d, 16, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  std::vector<int32_t> out(4);
  std::memcpy(out.data(), h, 16);
  EXPECT_EQ(out, (std::vector<int32_t>{31, 62, 93, 124}));
  aclrtFree(d);
  aclrtFree(s);
  aclrtFreeHost(h);
  aclrtDestroyStream(stream);
}

TEST_F(Reduce, TakesTheTimeOfACopyInsideHbm) {
  // 64 MiB fp32 SUM on the default 910B4: the engine reads both operands' bytes once and writes
  // the result, as a copy inside one HBM does. HBM2e, 2 stacks x 409.6 GB/s = 819.2 GB/s, less
  // its all-bank refresh (tRFC 350 ns of every tREFI 3900 ns) = 745.7 GB/s, shared by the copy's
  // reads and writes: 2 x 64 MiB / 745.7 GB/s = 180.0 us. Around it (elapsedMs' records): the
  // call 3 us after the first record, which ends 1 us after its submission; task launch 1 us,
  // DMA setup 1 us; the closing record's launch 1 us: 3 - 1 + 1 + 1 + 1 = 5 us.
  const uint64_t n = 64ull << 20;
  void *d = nullptr, *s = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&s, n, ACL_MEM_MALLOC_HUGE_FIRST));
  const float ms = elapsedMs([&] {
    ASSERT_ACL_OK(
        aclrtReduceAsync(d, s, n, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, nullptr, nullptr));
  });
  const double hbm = 819.2e9 * (1 - 350.0 / 3900.0);
  const double expectedMs = 2.0 * static_cast<double>(n) / hbm * 1e3 + 5e-3;
  EXPECT_NEAR(ms, expectedMs, 0.03 * expectedMs) << "expected " << expectedMs << " ms";
  aclrtFree(d);
  aclrtFree(s);
}

class ReduceOn910A : public AclTest {
 protected:
  ReduceOn910A() : AclTest("atlas-800-9000") {}
};

TEST_F(ReduceOn910A, OnlySumOfFloats) {
  const std::vector<uint8_t> in = bytesOf<float>({1.5f, -2.0f});
  EXPECT_EQ(reduced(in, in, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT),
            bytesOf<float>({3.0f, -4.0f}));
  void *d = nullptr, *s = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&s, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT, nullptr, nullptr),
      ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16, nullptr, nullptr),
      ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, nullptr, nullptr),
      ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  aclrtFree(d);
  aclrtFree(s);
}

class ReduceOn310P : public AclTest {
 protected:
  ReduceOn310P() : AclTest("atlas-300i-duo") {}
};

TEST_F(ReduceOn310P, SumOfFp32Fp16Int16) {
  EXPECT_EQ(reduced(bytesOf<int16_t>({-7, 300}), bytesOf<int16_t>({2, 300}),
                    ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT16),
            bytesOf<int16_t>({-5, 600}));
  EXPECT_EQ(reduced(bytesOf<uint16_t>({0x3C00}), bytesOf<uint16_t>({0x3C00}),
                    ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16),
            bytesOf<uint16_t>({0x4000}));  // 1 + 1 = 2
  void *d = nullptr, *s = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&s, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERROR(
      aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_FLOAT, nullptr, nullptr),
      ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  for (aclDataType t : {ACL_INT8, ACL_INT32, ACL_BF16}) {
    EXPECT_ACL_ERROR(
        aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, t, nullptr, nullptr),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  }
  aclrtFree(d);
  aclrtFree(s);
}
