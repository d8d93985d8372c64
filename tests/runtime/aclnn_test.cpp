// The operator API: aclnnAdd, aclnnMul, aclnnInplaceCopy on device tensors. Results are checked
// element by element (exact for integers and for float results that round once); every refusal
// has the code CANN documents (161001 null pointer, 161002 invalid parameter, 361001 runtime).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "acl_fixture.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"

namespace {

std::vector<int64_t> contiguous(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}

// A device tensor holding `values` (of host type T, element type `type`).
struct DeviceTensor {
  void* data = nullptr;
  aclTensor* tensor = nullptr;
  size_t bytes = 0;

  template <class T>
  DeviceTensor(const std::vector<T>& values, const std::vector<int64_t>& shape, aclDataType type,
               std::vector<int64_t> strides = {}, int64_t offset = 0) {
    bytes = std::max<size_t>(values.size() * sizeof(T), 1);
    EXPECT_EQ(aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (!values.empty()) {
      EXPECT_EQ(aclrtMemcpy(data, bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE),
                ACL_SUCCESS);
    }
    if (strides.empty()) strides = contiguous(shape);
    const int64_t storage = static_cast<int64_t>(values.size());
    tensor = aclCreateTensor(shape.data(), shape.size(), type, strides.data(), offset,
                             ACL_FORMAT_ND, &storage, 1, data);
    EXPECT_NE(tensor, nullptr) << aclGetRecentErrMsg();
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor);
    aclrtFree(data);
  }
  template <class T>
  std::vector<T> read() const {
    std::vector<T> out(bytes / sizeof(T));
    EXPECT_EQ(aclrtMemcpy(out.data(), bytes, data, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return out;
  }
};

class Aclnn : public AclTest {
 protected:
  aclrtStream stream = nullptr;
  void SetUp() override {
    AclTest::SetUp();
    ASSERT_ACL_OK(aclrtCreateStream(&stream));
  }
  void TearDown() override {
    aclrtDestroyStream(stream);
    AclTest::TearDown();
  }
  template <class T>
  aclScalar* scalar(T v, aclDataType type) {
    return aclCreateScalar(&v, type);
  }

  // Both phases of aclnnAdd, then a stream synchronisation.
  aclnnStatus add(const DeviceTensor& a, const DeviceTensor& b, aclScalar* alpha,
                  const DeviceTensor& out) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    aclnnStatus s = aclnnAddGetWorkspaceSize(a.tensor, b.tensor, alpha, out.tensor, &ws, &ex);
    if (s != ACLNN_SUCCESS) return s;
    EXPECT_EQ(ws, 0u);
    s = aclnnAdd(nullptr, ws, ex, stream);
    if (s == ACLNN_SUCCESS) {
      EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    }
    return s;
  }
};

TEST_F(Aclnn, AddBroadcastsAndScalesByAlpha) {
  // [4,1] + 2 x [3] -> [4,3]: out[i][j] = a[i] + 2 b[j].
  DeviceTensor a(std::vector<float>{1, 2, 3, 4}, {4, 1}, ACL_FLOAT);
  DeviceTensor b(std::vector<float>{10, 20, 30}, {3}, ACL_FLOAT);
  DeviceTensor out(std::vector<float>(12, -1), {4, 3}, ACL_FLOAT);
  aclScalar* alpha = scalar(2.0f, ACL_FLOAT);
  ASSERT_EQ(add(a, b, alpha, out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const auto r = out.read<float>();
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(r[i * 3 + j], (i + 1) + 2.0f * 10 * (j + 1)) << i << "," << j;
  }
  aclDestroyScalar(alpha);
}

TEST_F(Aclnn, IntegerAddWrapsLikeTheHardware) {
  // int8: 100 + 3 x 10 = 130 wraps to -126; int32 and int64 exact; uint8 255 + 1 = 0.
  DeviceTensor a8(std::vector<int8_t>{100, -5}, {2}, ACL_INT8),
      b8(std::vector<int8_t>{10, 2}, {2}, ACL_INT8);
  DeviceTensor o8(std::vector<int8_t>(2), {2}, ACL_INT8);
  aclScalar* three = scalar(int32_t{3}, ACL_INT32);
  ASSERT_EQ(add(a8, b8, three, o8), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(o8.read<int8_t>(), (std::vector<int8_t>{-126, 1}));

  DeviceTensor a64(std::vector<int64_t>{1ll << 40, -7}, {2}, ACL_INT64),
      b64(std::vector<int64_t>{5, 7}, {2}, ACL_INT64);
  DeviceTensor o64(std::vector<int64_t>(2), {2}, ACL_INT64);
  ASSERT_EQ(add(a64, b64, three, o64), ACLNN_SUCCESS);
  EXPECT_EQ(o64.read<int64_t>(), (std::vector<int64_t>{(1ll << 40) + 15, 14}));

  DeviceTensor a32(std::vector<int32_t>{2147483647, 0}, {2}, ACL_INT32),
      b32(std::vector<int32_t>{1, -1}, {2}, ACL_INT32);
  DeviceTensor o32(std::vector<int32_t>(2), {2}, ACL_INT32);
  aclScalar* one = scalar(int64_t{1}, ACL_INT64);
  ASSERT_EQ(add(a32, b32, one, o32), ACLNN_SUCCESS);
  EXPECT_EQ(o32.read<int32_t>(), (std::vector<int32_t>{-2147483647 - 1, -1}));

  DeviceTensor au(std::vector<uint8_t>{255, 7}, {2}, ACL_UINT8),
      bu(std::vector<uint8_t>{1, 8}, {2}, ACL_UINT8);
  DeviceTensor ou(std::vector<uint8_t>(2), {2}, ACL_UINT8);
  ASSERT_EQ(add(au, bu, one, ou), ACLNN_SUCCESS);
  EXPECT_EQ(ou.read<uint8_t>(), (std::vector<uint8_t>{0, 15}));
  aclDestroyScalar(three);
  aclDestroyScalar(one);
}

TEST_F(Aclnn, HalfAndBfloat16RoundToNearestEven) {
  // float16: 2048 + 1 is exactly between 2048 and 2050: ties to even give 2048; 2048 + 3 -> 2052.
  const std::vector<aclFloat16> h{aclFloatToFloat16(2048), aclFloatToFloat16(2048)};
  const std::vector<aclFloat16> g{aclFloatToFloat16(1), aclFloatToFloat16(3)};
  DeviceTensor a(h, {2}, ACL_FLOAT16), b(g, {2}, ACL_FLOAT16),
      out(std::vector<aclFloat16>(2), {2}, ACL_FLOAT16);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  ASSERT_EQ(add(a, b, one, out), ACLNN_SUCCESS);
  const auto r = out.read<aclFloat16>();
  EXPECT_EQ(aclFloat16ToFloat(r[0]), 2048.0f);
  EXPECT_EQ(aclFloat16ToFloat(r[1]), 2052.0f);
  // bfloat16 (8 mantissa bits): 256 + 1 ties to 256; 256 + 3 -> 260. 0x4380 is 256, 0x3F80 is 1.
  DeviceTensor c(std::vector<uint16_t>{0x4380, 0x4380}, {2}, ACL_BF16),
      d(std::vector<uint16_t>{0x3F80, 0x4040}, {2}, ACL_BF16);
  DeviceTensor o(std::vector<uint16_t>(2), {2}, ACL_BF16);
  ASSERT_EQ(add(c, d, one, o), ACLNN_SUCCESS);
  EXPECT_EQ(o.read<uint16_t>(), (std::vector<uint16_t>{0x4380, 0x4382}));  // 256, 260
  aclDestroyScalar(one);
}

TEST_F(Aclnn, MixedTypesPromoteAndCastToOut) {
  // int32 + float16 computes in float16; the result is written to a float32 tensor.
  DeviceTensor a(std::vector<int32_t>{3, -4}, {2}, ACL_INT32);
  DeviceTensor b(std::vector<aclFloat16>{aclFloatToFloat16(0.5f), aclFloatToFloat16(0.25f)}, {2},
                 ACL_FLOAT16);
  DeviceTensor out(std::vector<float>(2), {2}, ACL_FLOAT);
  aclScalar* one = scalar(1.0, ACL_DOUBLE);
  ASSERT_EQ(add(a, b, one, out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(out.read<float>(), (std::vector<float>{3.5f, -3.75f}));
  aclDestroyScalar(one);
}

TEST_F(Aclnn, StridedViewsReadAndWriteOnlyTheirElements) {
  // self is the transpose of a 2x3 storage (shape [3,2], strides [1,3]); out is every other
  // element of a 12-float buffer (shape [3,2], strides [4,2], offset 1); the rest stays -1.
  DeviceTensor a(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2}, ACL_FLOAT, {1, 3});
  DeviceTensor b(std::vector<float>{100}, {1}, ACL_FLOAT);
  DeviceTensor out(std::vector<float>(12, -1), {3, 2}, ACL_FLOAT, {4, 2}, 1);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  ASSERT_EQ(add(a, b, one, out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(out.read<float>(),
            (std::vector<float>{-1, 101, -1, 104, -1, 102, -1, 105, -1, 103, -1, 106}));
  aclDestroyScalar(one);
}

TEST_F(Aclnn, MulAndInplaceForms) {
  DeviceTensor a(std::vector<float>{1.5f, -2, 4}, {3}, ACL_FLOAT),
      b(std::vector<float>{2, 3, 0.25f}, {3}, ACL_FLOAT);
  DeviceTensor out(std::vector<float>(3), {3}, ACL_FLOAT);
  uint64_t ws = 1;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnMulGetWorkspaceSize(a.tensor, b.tensor, out.tensor, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMul(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceMulGetWorkspaceSize(a.tensor, b.tensor, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceMul(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  aclScalar* half = scalar(0.5f, ACL_FLOAT);
  ASSERT_EQ(aclnnInplaceAddGetWorkspaceSize(a.tensor, b.tensor, half, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceAdd(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_EQ(out.read<float>(), (std::vector<float>{3, -6, 1}));
  // a = (a * b) + 0.5 b, in stream order.
  EXPECT_EQ(a.read<float>(), (std::vector<float>{4, -4.5f, 1.125f}));
  aclDestroyScalar(half);
}

TEST_F(Aclnn, SubScalesOtherByAlphaAndDivIsTrueDivision) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  // Sub: 10 - 3 x [1, 2] = [7, 4] in int32; in place on float: [1.5, -2] - 0.5 x [1, 4] = [1, -4].
  DeviceTensor a(std::vector<int32_t>{10, 10}, {2}, ACL_INT32),
      b(std::vector<int32_t>{1, 2}, {2}, ACL_INT32);
  DeviceTensor o(std::vector<int32_t>(2), {2}, ACL_INT32);
  aclScalar* three = scalar(int32_t{3}, ACL_INT32);
  ASSERT_EQ(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, three, o.tensor, &ws, &ex), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnSub(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  DeviceTensor f(std::vector<float>{1.5f, -2}, {2}, ACL_FLOAT),
      g(std::vector<float>{1, 4}, {2}, ACL_FLOAT);
  aclScalar* half = scalar(0.5f, ACL_FLOAT);
  ASSERT_EQ(aclnnInplaceSubGetWorkspaceSize(f.tensor, g.tensor, half, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceSub(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  // Div: int32 7 / 2 = 3.5 in float32 (true division); x / 0 = inf; in place 1 / 4 = 0.25.
  DeviceTensor n(std::vector<int32_t>{7, 1}, {2}, ACL_INT32),
      d(std::vector<int32_t>{2, 0}, {2}, ACL_INT32);
  DeviceTensor q(std::vector<float>(2), {2}, ACL_FLOAT);
  ASSERT_EQ(aclnnDivGetWorkspaceSize(n.tensor, d.tensor, q.tensor, &ws, &ex), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnDiv(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  DeviceTensor r(std::vector<float>{1}, {1}, ACL_FLOAT),
      four(std::vector<float>{4}, {1}, ACL_FLOAT);
  ASSERT_EQ(aclnnInplaceDivGetWorkspaceSize(r.tensor, four.tensor, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceDiv(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_EQ(o.read<int32_t>(), (std::vector<int32_t>{7, 4}));
  EXPECT_EQ(f.read<float>(), (std::vector<float>{1, -4}));
  const auto quotient = q.read<float>();
  EXPECT_EQ(quotient[0], 3.5f);
  EXPECT_TRUE(std::isinf(quotient[1]) && quotient[1] > 0);
  EXPECT_EQ(r.read<float>()[0], 0.25f);
  // Refusals: integer division into an int32 out (the float result cannot be cast back), Sub of
  // two BOOL tensors, a NULL alpha for Sub.
  DeviceTensor bools(std::vector<uint8_t>{1, 0}, {2}, ACL_BOOL);
  EXPECT_EQ(aclnnDivGetWorkspaceSize(n.tensor, d.tensor, o.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnSubGetWorkspaceSize(bools.tensor, bools.tensor, three, bools.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, nullptr, o.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  aclDestroyScalar(three);
  aclDestroyScalar(half);
}

TEST_F(Aclnn, InplaceCopyBroadcastsAndCasts) {
  DeviceTensor dst(std::vector<aclFloat16>(6), {2, 3}, ACL_FLOAT16);
  DeviceTensor src(std::vector<float>{0.1f, 2.5f, -3}, {3}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnInplaceCopyGetWorkspaceSize(dst.tensor, src.tensor, &ws, &ex), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnInplaceCopy(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  const auto r = dst.read<aclFloat16>();
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(r[i], aclFloatToFloat16(std::vector<float>{0.1f, 2.5f, -3}[i % 3])) << i;
  EXPECT_EQ(aclFloat16ToFloat(aclFloatToFloat16(0.1f)), 0.0999755859375f);  // nearest half to 0.1
}

TEST_F(Aclnn, StreamsOrderKernelsWithCopies) {
  // Upload, add, download on one stream, synchronised once: the add sees the uploaded data and
  // the download sees the sum.
  const size_t n = 1 << 16;
  std::vector<float> x(n), y(n), z(n, 0);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 0.5f * static_cast<float>(i % 7);
  }
  void *dx = nullptr, *dy = nullptr, *dz = nullptr, *hx = nullptr, *hy = nullptr, *hz = nullptr;
  const size_t bytes = n * sizeof(float);
  for (void** p : {&dx, &dy, &dz}) ASSERT_ACL_OK(aclrtMalloc(p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  for (void** p : {&hx, &hy, &hz}) ASSERT_ACL_OK(aclrtMallocHost(p, bytes));
  std::memcpy(hx, x.data(), bytes);
  std::memcpy(hy, y.data(), bytes);
  const int64_t shape = static_cast<int64_t>(n), stride = 1;
  aclTensor* tx = aclCreateTensor(&shape, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &shape, 1, dx);
  aclTensor* ty = aclCreateTensor(&shape, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &shape, 1, dy);
  aclTensor* tz = aclCreateTensor(&shape, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &shape, 1, dz);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  ASSERT_ACL_OK(aclrtMemcpyAsync(dx, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dy, bytes, hy, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(tx, ty, one, tz, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdd(nullptr, 0, ex, stream), ACLNN_SUCCESS);
  ASSERT_ACL_OK(aclrtMemcpyAsync(hz, bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  std::memcpy(z.data(), hz, bytes);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;
  aclDestroyTensor(tx);
  aclDestroyTensor(ty);
  aclDestroyTensor(tz);
  aclDestroyScalar(one);
  for (void* p : {dx, dy, dz}) aclrtFree(p);
  for (void* p : {hx, hy, hz}) aclrtFreeHost(p);
}

TEST_F(Aclnn, NullArgumentsAre161001) {
  DeviceTensor a(std::vector<float>{1}, {1}, ACL_FLOAT);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(aclnnAddGetWorkspaceSize(nullptr, a.tensor, one, a.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("[self]"), std::string::npos);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.tensor, nullptr, one, a.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.tensor, a.tensor, nullptr, a.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.tensor, a.tensor, one, nullptr, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.tensor, a.tensor, one, a.tensor, nullptr, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.tensor, a.tensor, one, a.tensor, &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMulGetWorkspaceSize(a.tensor, nullptr, a.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceCopyGetWorkspaceSize(nullptr, a.tensor, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAdd(nullptr, 0, nullptr, stream), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  aclDestroyScalar(one);
}

TEST_F(Aclnn, InvalidParametersAre161002) {
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  aclScalar* intOne = scalar(int32_t{1}, ACL_INT32);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  DeviceTensor f3(std::vector<float>(3), {3}, ACL_FLOAT), f4(std::vector<float>(4), {4}, ACL_FLOAT);
  DeviceTensor i3(std::vector<int32_t>(3), {3}, ACL_INT32),
      f23(std::vector<float>(6), {2, 3}, ACL_FLOAT);
  DeviceTensor c3(std::vector<double>(3), {3}, ACL_COMPLEX64);
  // Shapes that do not broadcast, and an out that is not the broadcast shape.
  EXPECT_EQ(aclnnAddGetWorkspaceSize(f3.tensor, f4.tensor, one, f3.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(f3.tensor, f23.tensor, one, f3.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  // In place: the broadcast shape must be selfRef's own.
  EXPECT_EQ(aclnnInplaceAddGetWorkspaceSize(f3.tensor, f23.tensor, one, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  // A float result cannot go to an int32 out; a float alpha cannot scale integers.
  EXPECT_EQ(aclnnAddGetWorkspaceSize(f3.tensor, i3.tensor, one, i3.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(i3.tensor, i3.tensor, one, i3.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(i3.tensor, i3.tensor, intOne, i3.tensor, &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  // Unsupported types.
  EXPECT_EQ(aclnnAddGetWorkspaceSize(c3.tensor, c3.tensor, one, c3.tensor, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  // More than 8 dimensions.
  const std::vector<int64_t> nine(9, 1);
  const int64_t storage = 1;
  aclTensor* t9 = aclCreateTensor(nine.data(), 9, ACL_FLOAT, nine.data(), 0, ACL_FORMAT_ND,
                                  &storage, 1, f3.data);
  ASSERT_NE(t9, nullptr);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(t9, t9, one, t9, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyTensor(t9), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(t9), ACLNN_ERR_PARAM_INVALID);  // twice
  aclDestroyScalar(one);
  aclDestroyScalar(intOne);
}

TEST_F(Aclnn, BadTensorDescriptionsAreRefused) {
  const int64_t shape[] = {2, 3}, negative[] = {2, -3}, strides[] = {3, 1}, small = 5;
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(aclCreateTensor(negative, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, nullptr, 0, d),
            nullptr);
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, nullptr, 0, d),
            nullptr);
  // The view reaches element 5 (1 x 3 + 2 x 1), past a storage of 5 elements.
  EXPECT_EQ(aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &small, 1, d), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("past the storage"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(shape, 2, static_cast<aclDataType>(99), strides, 0, ACL_FORMAT_ND,
                            nullptr, 0, d),
            nullptr);
  // Values outside the enums arrive from C: refused (type) or kept and refused by the operator
  // (format).
  EXPECT_EQ(aclCreateScalar(d, static_cast<aclDataType>(99)), nullptr);
  aclTensor* odd =
      aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, static_cast<aclFormat>(99), nullptr, 0, d);
  ASSERT_NE(odd, nullptr);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  float oneValue = 1;
  aclScalar* one = aclCreateScalar(&oneValue, ACL_FLOAT);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(odd, odd, one, odd, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("private format (99)"), std::string::npos);
  aclDestroyScalar(one);
  aclDestroyTensor(odd);
  // 2^40 x 2^40 elements: more than any memory holds, refused before its size overflows.
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(aclCreateTensor(huge, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, d), nullptr);
  aclTensor* ok = aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0,
                                  d);  // NULL stride: contiguous
  ASSERT_NE(ok, nullptr);
  int64_t* got = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewStrides(ok, &got, &count), ACLNN_SUCCESS);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(got[0], 3);
  EXPECT_EQ(got[1], 1);
  delete[] got;
  aclDataType type = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(ok, &type), ACLNN_SUCCESS);
  EXPECT_EQ(type, ACL_FLOAT);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  aclDestroyTensor(ok);
  aclrtFree(d);
}

TEST_F(Aclnn, ExecutorsRunOnceAndOnlyForTheirOperator) {
  DeviceTensor a(std::vector<float>{1}, {1}, ACL_FLOAT);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(a.tensor, a.tensor, one, a.tensor, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdd(nullptr, 0, ex, stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnAdd(nullptr, 0, ex, stream), ACLNN_ERR_PARAM_INVALID);  // spent
  ASSERT_EQ(aclnnMulGetWorkspaceSize(a.tensor, a.tensor, a.tensor, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnAdd(nullptr, 0, ex, stream), ACLNN_ERR_PARAM_INVALID);  // prepared for aclnnMul
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclnnMul"), std::string::npos);
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_EQ(a.read<float>()[0], 2.0f);
  aclDestroyScalar(one);
}

TEST_F(Aclnn, RepeatableExecutorsRunUntilDestroyedAndFollowNewAddresses) {
  // In place x += y, prepared once and run three times: 1 + 3 x 2 = 7.
  DeviceTensor x(std::vector<float>{1}, {1}, ACL_FLOAT), y(std::vector<float>{2}, {1}, ACL_FLOAT);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnInplaceAddGetWorkspaceSize(x.tensor, y.tensor, one, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(aclnnInplaceAdd(nullptr, ws, ex, stream), ACLNN_SUCCESS) << i;
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_EQ(x.read<float>()[0], 7.0f);
  // The other operand moves: input 1 now reads z = 10, so x becomes 17.
  DeviceTensor z(std::vector<float>{10}, {1}, ACL_FLOAT);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, y.tensor, z.data), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceAdd(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_EQ(x.read<float>()[0], 17.0f);
  EXPECT_EQ(aclSetInputTensorAddr(ex, 2, y.tensor, z.data), ACLNN_ERR_PARAM_INVALID);  // two inputs
  EXPECT_EQ(aclSetOutputTensorAddr(ex, 0, nullptr, z.data), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_INNER_NULLPTR);
  ASSERT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnInplaceAdd(nullptr, ws, ex, stream), ACLNN_ERR_PARAM_INVALID);  // destroyed
  aclDestroyScalar(one);
}

TEST_F(Aclnn, TensorsOutsideTheStreamsDeviceAre361001) {
  // Host memory behind a tensor: the kernel cannot reach it.
  std::vector<float> host(4, 1);
  const int64_t shape = 4, stride = 1;
  aclTensor* h =
      aclCreateTensor(&shape, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &shape, 1, host.data());
  DeviceTensor d(std::vector<float>(4), {4}, ACL_FLOAT);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(h, d.tensor, one, d.tensor, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnAdd(nullptr, 0, ex, stream), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("is not memory of device 0"), std::string::npos);
  aclDestroyTensor(h);
  aclDestroyScalar(one);
}

// The first phase is host work and runs before aclInit, as in CANN; launching needs the runtime.
TEST(AclnnWithoutInit, FirstPhaseWorksAndLaunchIsARuntimeError) {
  float v = 1;
  const int64_t shape = 1;
  aclTensor* t = aclCreateTensor(&shape, 1, ACL_FLOAT, &shape, 0, ACL_FORMAT_ND, &shape, 1, &v);
  aclScalar* s = aclCreateScalar(&v, ACL_FLOAT);
  ASSERT_NE(t, nullptr);
  uint64_t ws = 7;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(t, t, s, t, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnAdd(nullptr, 0, ex, nullptr), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclInit"), std::string::npos);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyScalar(s), ACLNN_SUCCESS);
}

}  // namespace

namespace {

std::string slurpFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  std::string text;
  if (!f) return text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

// The run report of a small add: its kernel in `kernel_totals`, no warning for the output's
// never-written old contents, and (with ASCENDSIM_DRAM_STATS=1) the DRAM statistics of both
// memories with exactly the bytes the program moved: 128 KiB up, 64 KiB down, and the kernel's
// 128 KiB read and 64 KiB written in device memory.
TEST(AclnnReport, KernelsAndDramStatistics) {
  const std::string report = ::testing::TempDir() + "/aclnn-report.json";
  setenv("ASCENDSIM_REPORT", report.c_str(), 1);
  setenv("ASCENDSIM_DRAM_STATS", "1", 1);
  setenv("ASCENDSIM_SUMMARY", "0", 1);
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  const size_t n = 16384, bytes = n * sizeof(float);
  void *hx = nullptr, *hz = nullptr, *dx = nullptr, *dy = nullptr, *dz = nullptr;
  ASSERT_EQ(aclrtMallocHost(&hx, bytes), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&hz, bytes), ACL_SUCCESS);
  for (void** p : {&dx, &dy, &dz})
    ASSERT_EQ(aclrtMalloc(p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dx, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dy, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  const int64_t shape = static_cast<int64_t>(n);
  aclTensor* x = aclCreateTensor(&shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &shape, 1, dx);
  aclTensor* y = aclCreateTensor(&shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &shape, 1, dy);
  aclTensor* z = aclCreateTensor(&shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &shape, 1, dz);
  float one = 1;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x, y, alpha, z, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdd(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(hz, bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (aclTensor* t : {x, y, z}) aclDestroyTensor(t);
  aclDestroyScalar(alpha);
  for (void* p : {dx, dy, dz}) aclrtFree(p);
  aclrtFreeHost(hx);
  aclrtFreeHost(hz);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);

  const std::string text = slurpFile(report);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find("unwritten-read"), std::string::npos)
      << "the output's old contents are no read of the program's";
  const nlohmann::json r = nlohmann::json::parse(text);
  const auto field = [&](const std::string& memory, const std::string& key) {
    for (const auto& m : r["memories"]) {
      if (m["name"] == memory) return m[key].get<double>();
    }
    return -1.0;
  };
  EXPECT_EQ(r["kernel_totals"]["aclnnAdd"]["count"], 1);
  EXPECT_EQ(r["kernel_totals"]["aclnnAdd"]["bytes_read"], 2 * bytes);
  EXPECT_EQ(field("host.memory", "bytes_read"), 2.0 * bytes);
  EXPECT_EQ(field("host.memory", "bytes_written"), 1.0 * bytes);
  EXPECT_EQ(field("npu0.memory", "bytes_read"), 2.0 * bytes + bytes);  // kernel inputs + download
  EXPECT_EQ(field("npu0.memory", "bytes_written"), 2.0 * bytes + bytes);  // uploads + kernel output
  EXPECT_GT(field("npu0.memory", "row_hit_rate"), 0.5);  // streams: mostly row hits
  EXPECT_GT(field("npu0.memory", "mean_read_latency_ns"), 0.0);
}

}  // namespace

namespace {

// Differential test of the elementwise engine: 150 random cases (fixed seed) of broadcast shapes
// up to rank 4, inputs as permuted (non-contiguous) or plain views, float32 and int32, Add and Sub
// with an alpha and Mul, each element compared with the same arithmetic done here on the host.
class AclnnRandom : public AclTest {};

TEST_F(AclnnRandom, BroadcastAndStridedViewsMatchAHostReference) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  for (int c = 0; c < 150; ++c) {
    const bool integer = next(2) == 0;
    const int op = static_cast<int>(next(3));  // 0 Add, 1 Sub, 2 Mul
    const bool mul = op == 2;
    const size_t rank = 1 + next(4);
    std::vector<int64_t> shape(rank), sa(rank), sb(rank);
    for (size_t k = 0; k < rank; ++k) {
      shape[k] = 1 + static_cast<int64_t>(next(4));
      sa[k] = next(4) == 0 ? 1 : shape[k];  // some dimensions broadcast from 1
      sb[k] = next(4) == 0 ? 1 : shape[k];
      if (sa[k] == 1 && sb[k] == 1) sb[k] = shape[k];  // the output has the broadcast shape
    }
    // An input view: its shape, laid out in storage in a random dimension order (a permutation
    // of a contiguous buffer), so most views are not contiguous.
    struct View {
      std::vector<int64_t> shape, strides;
      int64_t elements = 1;
    };
    auto makeView = [&](const std::vector<int64_t>& s) {
      View v{s, std::vector<int64_t>(s.size()), 1};
      std::vector<size_t> order(s.size());
      for (size_t k = 0; k < s.size(); ++k) order[k] = k;
      for (size_t k = s.size(); k > 1; --k) std::swap(order[k - 1], order[next(k)]);
      for (size_t k : order) {
        v.strides[k] = v.elements;
        v.elements *= s[k];
      }
      return v;
    };
    const View va = makeView(sa), vb = makeView(sb);
    std::vector<int64_t> outStrides(rank, 1);
    for (size_t k = rank; k-- > 1;) outStrides[k - 1] = outStrides[k] * shape[k];
    const int64_t outElements = outStrides[0] * shape[0];
    const aclDataType type = integer ? ACL_INT32 : ACL_FLOAT;
    const size_t z = 4;
    std::vector<uint8_t> ha(static_cast<size_t>(va.elements) * z),
        hb(static_cast<size_t>(vb.elements) * z);
    for (int64_t i = 0; i < va.elements; ++i) {
      if (integer) {
        const int32_t v = static_cast<int32_t>(next(2001)) - 1000;
        std::memcpy(&ha[static_cast<size_t>(i) * z], &v, z);
      } else {
        const float v = static_cast<float>(next(20001)) / 64.0f - 150.0f;
        std::memcpy(&ha[static_cast<size_t>(i) * z], &v, z);
      }
    }
    for (int64_t i = 0; i < vb.elements; ++i) {
      if (integer) {
        const int32_t v = static_cast<int32_t>(next(2001)) - 1000;
        std::memcpy(&hb[static_cast<size_t>(i) * z], &v, z);
      } else {
        const float v = static_cast<float>(next(20001)) / 128.0f - 75.0f;
        std::memcpy(&hb[static_cast<size_t>(i) * z], &v, z);
      }
    }
    void *da = nullptr, *db = nullptr, *dout = nullptr;
    ASSERT_EQ(aclrtMalloc(&da, ha.size(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&db, hb.size(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&dout, static_cast<size_t>(outElements) * z, ACL_MEM_MALLOC_HUGE_FIRST),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(da, ha.size(), ha.data(), ha.size(), ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(db, hb.size(), hb.data(), hb.size(), ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    aclTensor* ta = aclCreateTensor(va.shape.data(), rank, type, va.strides.data(), 0,
                                    ACL_FORMAT_ND, &va.elements, 1, da);
    aclTensor* tb = aclCreateTensor(vb.shape.data(), rank, type, vb.strides.data(), 0,
                                    ACL_FORMAT_ND, &vb.elements, 1, db);
    aclTensor* to = aclCreateTensor(shape.data(), rank, type, outStrides.data(), 0, ACL_FORMAT_ND,
                                    &outElements, 1, dout);
    ASSERT_TRUE(ta && tb && to) << aclGetRecentErrMsg();
    const int32_t alphaInt = static_cast<int32_t>(next(7)) - 3;
    const float alphaFloat = static_cast<float>(alphaInt) * 0.75f;
    aclScalar* alpha = integer ? aclCreateScalar(const_cast<int32_t*>(&alphaInt), ACL_INT32)
                               : aclCreateScalar(const_cast<float*>(&alphaFloat), ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    if (mul) {
      ASSERT_EQ(aclnnMulGetWorkspaceSize(ta, tb, to, &ws, &ex), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      ASSERT_EQ(aclnnMul(nullptr, ws, ex, stream), ACLNN_SUCCESS);
    } else if (op == 1) {
      ASSERT_EQ(aclnnSubGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      ASSERT_EQ(aclnnSub(nullptr, ws, ex, stream), ACLNN_SUCCESS);
    } else {
      ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      ASSERT_EQ(aclnnAdd(nullptr, ws, ex, stream), ACLNN_SUCCESS);
    }
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    std::vector<uint8_t> result(static_cast<size_t>(outElements) * z);
    ASSERT_EQ(
        aclrtMemcpy(result.data(), result.size(), dout, result.size(), ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_SUCCESS);
    // The reference: walk the output's multi-index; a broadcast dimension reads index 0.
    std::vector<int64_t> idx(rank, 0);
    for (int64_t e = 0; e < outElements; ++e) {
      int64_t ia = 0, ib = 0;
      for (size_t k = 0; k < rank; ++k) {
        ia += (va.shape[k] == 1 ? 0 : idx[k]) * va.strides[k];
        ib += (vb.shape[k] == 1 ? 0 : idx[k]) * vb.strides[k];
      }
      if (integer) {
        int32_t a, b, got;
        std::memcpy(&a, &ha[static_cast<size_t>(ia) * z], z);
        std::memcpy(&b, &hb[static_cast<size_t>(ib) * z], z);
        std::memcpy(&got, &result[static_cast<size_t>(e) * z], z);
        const int32_t want = mul ? a * b : op == 1 ? a - alphaInt * b : a + alphaInt * b;
        ASSERT_EQ(got, want) << "case " << c << " element " << e;
      } else {
        float a, b, got;
        std::memcpy(&a, &ha[static_cast<size_t>(ia) * z], z);
        std::memcpy(&b, &hb[static_cast<size_t>(ib) * z], z);
        std::memcpy(&got, &result[static_cast<size_t>(e) * z], z);
        const float scaled = alphaFloat * b;  // rounded to float, as the device's lanes do
        const float want = mul ? a * b : op == 1 ? a - scaled : a + scaled;
        ASSERT_EQ(got, want) << "case " << c << " element " << e;
      }
      for (size_t k = rank; k-- > 0;) {
        if (++idx[k] < shape[k]) break;
        idx[k] = 0;
      }
    }
    aclDestroyScalar(alpha);
    for (aclTensor* t : {ta, tb, to}) aclDestroyTensor(t);
    for (void* p : {da, db, dout}) aclrtFree(p);
  }
  aclrtDestroyStream(stream);
}

}  // namespace

namespace {

// float16 sums are correctly rounded: 65536 random pairs of finite float16 values (normal and
// subnormal), added on the device, against the nearest float16 to the exact sum (ties to even),
// found by search over every finite float16 value: a reference that shares no rounding code
// with the simulator.
TEST_F(Aclnn, HalfSumsAreCorrectlyRounded) {
  // A float16's value straight from its bits (sign, 5-bit exponent, 10-bit mantissa).
  auto decode = [](uint16_t bits) {
    const uint32_t exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
    const double magnitude = exponent == 0
                                 ? std::ldexp(mantissa, -24)
                                 : std::ldexp(mantissa | 0x400, static_cast<int>(exponent) - 25);
    return (bits & 0x8000) ? -magnitude : magnitude;
  };
  std::vector<std::pair<double, uint16_t>> halves;  // every finite value, sorted
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if (((bits >> 10) & 0x1F) == 31 || bits == 0x8000) continue;  // inf, NaN; -0 sorts as +0
    halves.emplace_back(decode(static_cast<uint16_t>(bits)), static_cast<uint16_t>(bits));
  }
  std::sort(halves.begin(), halves.end());
  auto nearest = [&](double x) -> uint16_t {
    if (std::fabs(x) >= 65520.0) return x > 0 ? 0x7C00 : 0xFC00;  // past the largest, by IEEE: inf
    auto hi = std::lower_bound(halves.begin(), halves.end(), std::make_pair(x, uint16_t{0}));
    if (hi == halves.begin()) return hi->second;
    auto lo = std::prev(hi);
    if (hi == halves.end()) return lo->second;
    const double dl = x - lo->first, dh = hi->first - x;
    if (dl != dh) return dl < dh ? lo->second : hi->second;
    return (lo->second & 1) == 0 ? lo->second : hi->second;  // tie: the even mantissa
  };
  const size_t n = 65536;
  uint64_t state = 99;
  auto random = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return halves[(state >> 33) % halves.size()].second;
  };
  std::vector<uint16_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = random();
    // Half the pairs close in magnitude (cancellation and carries), half anywhere.
    b[i] = i % 2 ? random()
                 : static_cast<uint16_t>((a[i] ^ 0x8000) + static_cast<uint16_t>(state % 7) - 3);
    if (((b[i] >> 10) & 0x1F) == 31) b[i] = 0;
  }
  DeviceTensor ta(a, {static_cast<int64_t>(n)}, ACL_FLOAT16),
      tb(b, {static_cast<int64_t>(n)}, ACL_FLOAT16);
  DeviceTensor out(std::vector<uint16_t>(n), {static_cast<int64_t>(n)}, ACL_FLOAT16);
  aclScalar* one = scalar(1.0f, ACL_FLOAT);
  ASSERT_EQ(add(ta, tb, one, out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const auto got = out.read<uint16_t>();
  int wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    const double exact = decode(a[i]) + decode(b[i]);  // exact: both have few significant bits
    const uint16_t want = nearest(exact);
    // A zero result may carry either sign; compare values then.
    const bool ok = got[i] == want || (exact == 0 && (got[i] & 0x7FFF) == 0);
    if (!ok && ++wrong <= 5)
      ADD_FAILURE() << std::hex << a[i] << " + " << b[i] << " gave " << got[i] << ", want " << want;
  }
  EXPECT_EQ(wrong, 0);
  aclDestroyScalar(one);
}

}  // namespace

TEST_F(Aclnn, MemoryFreedUnderAQueuedKernelLivesUntilItEnds) {
  // The program frees an input of a queued aclnnAdd (held back behind an event) and allocates and
  // fills a new buffer. The freed input stays allocated until the kernel ends: device memory's
  // free figure (aclrtGetMemInfo) does not grow at the free, the new buffer gets another
  // address, and only after the kernel does the input's 16 B (rounded up to 32 B, plus the 32 B
  // every allocation takes, as Device.MemInfoMovesWithAllocations shows) come back. The kernel
  // adds the bytes the input held.
  const float av[4] = {1, 2, 3, 4}, bv[4] = {10, 20, 30, 40}, junk[4] = {-7, -7, -7, -7};
  void *a = nullptr, *b = nullptr, *out = nullptr, *other = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, sizeof av, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&b, sizeof bv, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&out, sizeof av, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(a, sizeof av, av, sizeof av, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(b, sizeof bv, bv, sizeof bv, ACL_MEMCPY_HOST_TO_DEVICE));
  const std::vector<int64_t> shape = {4}, strides = {1};
  const int64_t storage = 4;
  aclTensor* ta =
      aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, &storage, 1, a);
  aclTensor* tb =
      aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, &storage, 1, b);
  aclTensor* to = aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                  &storage, 1, out);
  aclScalar* alpha = scalar(1.0f, ACL_FLOAT);
  aclrtEvent gate = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&gate, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(stream, gate));
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdd(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  size_t before = 0, held = 0, withOther = 0, after = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &before, &total));
  ASSERT_ACL_OK(aclrtFree(a));  // the kernel waits for `gate`
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &held, &total));
  EXPECT_EQ(held, before);  // still the kernel's
  ASSERT_ACL_OK(aclrtMalloc(&other, sizeof junk, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_NE(other, a);
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &withOther, &total));
  EXPECT_EQ(held - withOther, 64u);
  ASSERT_ACL_OK(aclrtMemcpy(other, sizeof junk, junk, sizeof junk, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtRecordEvent(gate, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &after, &total));
  EXPECT_EQ(after - withOther, 64u);  // the input's 64 B, back once the kernel ended
  ASSERT_ACL_OK(aclrtDestroyEvent(gate));
  float r[4] = {};
  ASSERT_ACL_OK(aclrtMemcpy(r, sizeof r, out, sizeof r, ACL_MEMCPY_DEVICE_TO_HOST));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r[i], av[i] + bv[i]) << i;
  aclDestroyTensor(ta);
  aclDestroyTensor(tb);
  aclDestroyTensor(to);
  aclDestroyScalar(alpha);
  ASSERT_ACL_OK(aclrtFree(b));
  ASSERT_ACL_OK(aclrtFree(out));
  ASSERT_ACL_OK(aclrtFree(other));
}
