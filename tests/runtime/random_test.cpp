// aclrtRandomNumAsync: random numbers written to device memory by a task of the stream, with the
// requested distribution and type, the same for the same seed and counter, and CANN's codes
// (hicann/runtime src/acl/aclrt_impl/kernel.cpp, src/runtime/core/src/task/task_info/
// random_num_task.cc). The distribution checks compare the mean and variance of 2^20 draws with
// the distribution's own, within 6 standard errors (a false failure about once in 10^8 runs; the
// draws are the same on every run anyway).
#include <cmath>
#include <cstring>
#include <vector>

#include "acl_fixture.h"

namespace {

constexpr uint64_t kDraws = 1u << 20;

template <class T>
aclrtRandomParaInfo value(T v) {
  aclrtRandomParaInfo p{};
  p.isAddr = 0;
  p.size = sizeof(T);
  std::memcpy(p.valueOrAddr, &v, sizeof(T));
  return p;
}

// A task of `num` numbers into `result`, counter at `counter`, seed `seed`.
aclrtRandomNumTaskInfo task(aclDataType type, aclrtRandomNumFuncType func, aclrtRandomParaInfo a,
                            aclrtRandomParaInfo b, uint64_t seed, uint64_t num, void* counter,
                            void* result) {
  aclrtRandomNumTaskInfo info{};
  info.dataType = type;
  info.randomNumFuncParaInfo.funcType = func;
  if (func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
    info.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = a;
  } else if (func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = a;
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = b;
  } else {
    info.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = a;
    info.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = b;
  }
  info.randomCounterAddr = counter;
  info.randomResultAddr = result;
  info.randomSeed = value<uint64_t>(seed);
  info.randomNum = value<uint64_t>(num);
  return info;
}

struct Moments {
  double mean = 0, variance = 0;
};

template <class T>
Moments momentsOf(const std::vector<T>& v) {
  Moments m;
  for (T x : v) m.mean += static_cast<double>(x);
  m.mean /= static_cast<double>(v.size());
  for (T x : v) m.variance += (static_cast<double>(x) - m.mean) * (static_cast<double>(x) - m.mean);
  m.variance /= static_cast<double>(v.size() - 1);
  return m;
}

}  // namespace

class Random : public AclTest {
 protected:
  void SetUp() override {
    AclTest::SetUp();
    ASSERT_ACL_OK(aclrtMalloc(&counter_, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&result_, kDraws * 8, ACL_MEM_MALLOC_HUGE_FIRST));
    resetCounter();
  }
  void resetCounter() { ASSERT_ACL_OK(aclrtMemset(counter_, 16, 0, 16)); }
  // Runs the task and returns its first `bytes` bytes.
  std::vector<uint8_t> draw(const aclrtRandomNumTaskInfo& info, uint64_t bytes) {
    EXPECT_EQ(aclrtRandomNumAsync(&info, nullptr, nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    std::vector<uint8_t> out(bytes);
    EXPECT_EQ(aclrtMemcpy(out.data(), bytes, result_, bytes, ACL_MEMCPY_DEVICE_TO_HOST), 0);
    return out;
  }
  template <class T>
  std::vector<T> drawAs(const aclrtRandomNumTaskInfo& info, uint64_t n) {
    const std::vector<uint8_t> bytes = draw(info, n * sizeof(T));
    std::vector<T> v(n);
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  }
  void TearDown() override {
    aclrtFree(counter_);
    aclrtFree(result_);
    AclTest::TearDown();
  }
  void* counter_ = nullptr;
  void* result_ = nullptr;
};

TEST_F(Random, TheSameSeedAndCounterGiveTheSameNumbers) {
  const auto info = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value(0.0f),
                         value(1.0f), 42, 1000, counter_, result_);
  const std::vector<uint8_t> first = draw(info, 4000);
  // The task advanced the counter by the Philox blocks it used: 1000 words, 4 a block: 250.
  uint32_t words[4] = {9, 9, 9, 9};
  ASSERT_ACL_OK(aclrtMemcpy(words, 16, counter_, 16, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(words[0], 250u);
  EXPECT_EQ(words[1] | words[2] | words[3], 0u);
  // Continuing from there gives other numbers; from counter 0 again, the same ones.
  EXPECT_NE(draw(info, 4000), first);
  resetCounter();
  EXPECT_EQ(draw(info, 4000), first);
  // Another seed, other numbers.
  resetCounter();
  const auto other = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value(0.0f),
                          value(1.0f), 43, 1000, counter_, result_);
  EXPECT_NE(draw(other, 4000), first);
}

TEST_F(Random, TheGeneratorIsPhilox4x32With10Rounds) {
  // The known-answer vectors of Random123 (Salmon et al., SC'11; kat_vectors, philox4x32 10):
  // counter and key in, four words out. Through a UINT32 uniform draw in [0, 2^32 - 1) a word w
  // becomes floor(w (2^32 - 1) / 2^32) = w - 1 (for w > 0), so each value plus one is the word.
  struct Kat {
    uint32_t counter[4];
    uint64_t key;  // the seed: key word 0 low, key word 1 high
    uint32_t out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       0xffffffffffffffffull,
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       0x299f31d0a4093822ull,
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    ASSERT_ACL_OK(aclrtMemcpy(counter_, 16, k.counter, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    const auto v = drawAs<uint32_t>(
        task(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value<uint32_t>(0),
             value<uint32_t>(0xffffffffu), k.key, 4, counter_, result_),
        4);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i] + 1, k.out[i]) << "word " << i;
  }
}

TEST_F(Random, UniformFloatsHaveTheirMeanAndVariance) {
  // U[2, 5): mean 3.5, variance (5 - 2)^2 / 12 = 0.75; standard errors: of the mean
  // sqrt(0.75 / n), of the variance sqrt((mu4 - sigma^4) / n) with mu4 = 3^4 / 80.
  const auto v = drawAs<float>(task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value(2.0f),
                                    value(5.0f), 7, kDraws, counter_, result_),
                               kDraws);
  for (float x : v) ASSERT_TRUE(x >= 2.0f && x < 5.0f) << x;
  const Moments m = momentsOf(v);
  const double n = kDraws;
  EXPECT_NEAR(m.mean, 3.5, 6 * std::sqrt(0.75 / n));
  EXPECT_NEAR(m.variance, 0.75, 6 * std::sqrt((81.0 / 80 - 0.75 * 0.75) / n));
}

TEST_F(Random, UniformIntegersStayInTheirRange) {
  // Integers in [1, 100): 99 values, mean 50, variance (99^2 - 1) / 12 = 816.67.
  const auto v =
      drawAs<int32_t>(task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value<int32_t>(1),
                           value<int32_t>(100), 3, kDraws, counter_, result_),
                      kDraws);
  bool sawLowest = false, sawHighest = false;
  for (int32_t x : v) {
    ASSERT_TRUE(x >= 1 && x <= 99) << x;
    sawLowest = sawLowest || x == 1;
    sawHighest = sawHighest || x == 99;
  }
  EXPECT_TRUE(sawLowest && sawHighest);
  const Moments m = momentsOf(v);
  const double var = (99.0 * 99.0 - 1) / 12;
  EXPECT_NEAR(m.mean, 50.0, 6 * std::sqrt(var / kDraws));
  EXPECT_NEAR(m.variance, var, 0.01 * var);
  // 64-bit: [-2^40, 2^40) signed.
  const int64_t lo = -(int64_t{1} << 40), hi = int64_t{1} << 40;
  const auto w = drawAs<int64_t>(task(ACL_INT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value(lo),
                                      value(hi), 3, 4096, counter_, result_),
                                 4096);
  bool negative = false;
  for (int64_t x : w) {
    ASSERT_TRUE(x >= lo && x < hi) << x;
    negative = negative || x < 0;
  }
  EXPECT_TRUE(negative);
}

TEST_F(Random, NormalsHaveTheirMeanAndVariance) {
  // N(3, 2^2): standard errors 2 / sqrt(n) of the mean, sqrt(2 sigma^4 / n) of the variance.
  const auto v = drawAs<float>(task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, value(3.0f),
                                    value(2.0f), 11, kDraws, counter_, result_),
                               kDraws);
  const Moments m = momentsOf(v);
  const double n = kDraws;
  EXPECT_NEAR(m.mean, 3.0, 6 * 2 / std::sqrt(n));
  EXPECT_NEAR(m.variance, 4.0, 6 * std::sqrt(2 * 16 / n));
}

TEST_F(Random, TruncatedNormalsStayWithinTwoDeviations) {
  // N(0, 1) cut at +-2: variance 1 - 2 * 2 phi(2) / (2 Phi(2) - 1), with phi the density and
  // Phi the distribution function: 0.7737.
  const auto v = drawAs<float>(task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,
                                    value(0.0f), value(1.0f), 5, kDraws, counter_, result_),
                               kDraws);
  for (float x : v) ASSERT_LE(std::fabs(x), 2.0f) << x;
  const double phi2 = std::exp(-2.0) / std::sqrt(2 * M_PI);
  const double mass = std::erf(2.0 / std::sqrt(2.0));  // 2 Phi(2) - 1
  const double var = 1 - 4 * phi2 / mass;
  const Moments m = momentsOf(v);
  EXPECT_NEAR(m.mean, 0.0, 6 * std::sqrt(var / kDraws));
  EXPECT_NEAR(m.variance, var, 0.01);
}

TEST_F(Random, HalfAndBf16UniformStayInTheirRange) {
  // fp16 [1, 2) (0x3C00, 0x4000): every value's bits in [0x3C00, 0x3FFF]; bf16 N(1, 2^2) mean.
  const auto h = drawAs<uint16_t>(
      task(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value<uint16_t>(0x3C00),
           value<uint16_t>(0x4000), 0, 65536, counter_, result_),
      65536);
  for (uint16_t x : h) ASSERT_TRUE(x >= 0x3C00 && x <= 0x3FFF) << x;
  const auto b = drawAs<uint16_t>(
      task(ACL_BF16, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, value<uint16_t>(0x3F80),
           value<uint16_t>(0x4000), 0, 65536, counter_, result_),
      65536);
  double sum = 0;
  for (uint16_t x : b) {
    const uint32_t bits = uint32_t{x} << 16;
    float f = 0;
    std::memcpy(&f, &bits, 4);
    sum += f;
  }
  EXPECT_NEAR(sum / 65536, 1.0, 6 * 2 / std::sqrt(65536.0) + 0.01);  // (+ bf16 rounding)
}

TEST_F(Random, ADropoutMaskKeepsOneMinusTheRatio) {
  // Ratio 0.25: each bit is set (kept) with probability 0.75; n bits in n / 8 bytes.
  const auto mask = draw(task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, value(0.25f),
                              aclrtRandomParaInfo{}, 9, kDraws, counter_, result_),
                         kDraws / 8);
  uint64_t kept = 0;
  for (uint8_t byte : mask) kept += static_cast<uint64_t>(__builtin_popcount(byte));
  const double share = static_cast<double>(kept) / kDraws;
  EXPECT_NEAR(share, 0.75, 6 * std::sqrt(0.75 * 0.25 / kDraws));
}

TEST_F(Random, ArgumentsCannRefuses) {
  auto good = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, value(0.0f), value(1.0f), 1,
                   16, counter_, result_);
  EXPECT_EQ(aclrtRandomNumAsync(nullptr, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  auto bad = good;
  bad.dataType = ACL_INT8;  // not among the types the ACL layer passes on
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  int reserve = 0;
  EXPECT_EQ(aclrtRandomNumAsync(&good, nullptr, &reserve), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.dataType = ACL_INT32;  // normal: bf16, fp16, fp32 only
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.randomNumFuncParaInfo.funcType = static_cast<aclrtRandomNumFuncType>(4);
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.randomCounterAddr = nullptr;
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.randomResultAddr = nullptr;
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.randomSeed.size = 9;  // a seed is at most 8 bytes
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.randomNum.isAddr = 2;
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean.size = 8;  // wider than a float
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  // The simulator's checks: results in host memory, max below min, a negative deviation.
  std::vector<float> host(16);
  bad = good;
  bad.randomResultAddr = host.data();
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value(2.0f), value(1.0f), 1, 16,
             counter_, result_);
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  bad = good;
  bad.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = value(-1.0f);
  EXPECT_EQ(aclrtRandomNumAsync(&bad, nullptr, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtRandomNumAsync(&good, nullptr, nullptr));
}

TEST_F(Random, ParametersMayLiveInDeviceMemory) {
  // isAddr 1: the 8 bytes at the address hold the value (here the mean 10 as a float, read when
  // the task runs: written by a copy queued before it on the same stream).
  void* param = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&param, 8, ACL_MEM_MALLOC_HUGE_FIRST));
  uint64_t raw = 0;
  const float ten = 10.0f;
  std::memcpy(&raw, &ten, 4);
  ASSERT_ACL_OK(aclrtMemcpyAsync(param, 8, &raw, 8, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  auto info = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, value(0.0f), value(0.001f), 1,
                   64, counter_, result_);
  aclrtRandomParaInfo& mean = info.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean;
  mean.isAddr = 1;
  mean.size = 8;
  std::memcpy(mean.valueOrAddr, &param, 8);
  for (float x : drawAs<float>(info, 64)) EXPECT_NEAR(x, 10.0f, 0.01f);
  aclrtFree(param);
}

TEST_F(Random, TakesTheTimeOfWritingItsResults) {
  // 2^24 fp32 numbers: 64 MiB written into HBM by the engine. HBM2e, 2 stacks x 409.6 GB/s =
  // 819.2 GB/s, less its all-bank refresh (tRFC 350 ns of every tREFI 3900 ns) = 745.7 GB/s:
  // 64 MiB / 745.7 GB/s = 90.0 us. Around it (elapsedMs' records): the call 3 us after the first
  // record, which ends 1 us after its submission; task launch 1 us, DMA setup 1 us; the closing
  // record's launch 1 us: 3 - 1 + 1 + 1 + 1 = 5 us.
  const uint64_t n = 1u << 24;
  void* big = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&big, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  const auto info = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value(0.0f),
                         value(1.0f), 1, n, counter_, big);
  const float ms = elapsedMs([&] { ASSERT_ACL_OK(aclrtRandomNumAsync(&info, nullptr, nullptr)); });
  const double hbm = 819.2e9 * (1 - 350.0 / 3900.0);
  const double expectedMs = static_cast<double>(n * 4) / hbm * 1e3 + 5e-3;
  EXPECT_NEAR(ms, expectedMs, 0.03 * expectedMs) << "expected " << expectedMs << " ms";
  aclrtFree(big);
}

class RandomOn310P : public AclTest {
 protected:
  RandomOn310P() : AclTest("atlas-300i-duo") {}
};

TEST_F(RandomOn310P, IsNotAFeatureOfTheSoc) {
  // Only the 910B / 910_93 configuration lists RT_FEATURE_TASK_RAND_GENERATOR.
  void *counter = nullptr, *result = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&counter, 16, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&result, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  const auto info = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, value(0.0f),
                         value(1.0f), 1, 16, counter, result);
  EXPECT_EQ(aclrtRandomNumAsync(&info, nullptr, nullptr), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  aclrtFree(counter);
  aclrtFree(result);
}
