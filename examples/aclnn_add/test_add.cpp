// The vendor's "device memory" operator flow, as CANN users write it: copy two tensors to the
// device, add them there with aclnnAdd (out = self + alpha * other), copy the result back, then
// the same in place with aclnnInplaceAdd. Done for float32 and float16; every element is checked
// against the same arithmetic on the host, and the program fails if one differs.

#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) shapeSize *= i;
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream* stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape,
                    void** deviceAddr, aclDataType dataType, aclTensor** tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  // Strides of a contiguous tensor.
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--)
    strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0,
                            aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), *deviceAddr);
  CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
            return 1);
  return 0;
}

// Element types as the host sees them: float32 as float, float16 as aclFloat16 bits.
struct Float32 {
  using Host = float;
  static constexpr aclDataType kType = ACL_FLOAT;
  static const char* Name() { return "float32"; }
  static Host FromFloat(float f) { return f; }
  static float ToFloat(Host h) { return h; }
};
struct Float16 {
  using Host = aclFloat16;
  static constexpr aclDataType kType = ACL_FLOAT16;
  static const char* Name() { return "float16"; }
  static Host FromFloat(float f) { return aclFloatToFloat16(f); }
  static float ToFloat(Host h) { return aclFloat16ToFloat(h); }
};

// What the device must produce: the sum in float32, rounded once to the element type.
template <typename E>
float Expected(float self, float other, float alpha) {
  return E::ToFloat(E::FromFloat(self + alpha * other));
}

template <typename E>
int CheckResult(const char* what, const std::vector<typename E::Host>& result,
                const std::vector<float>& expected) {
  int bad = 0;
  for (size_t i = 0; i < result.size(); i++) {
    const float got = E::ToFloat(result[i]);
    LOG_PRINT("%s %s result[%zu] is: %f\n", E::Name(), what, i, got);
    if (got != expected[i]) {
      LOG_PRINT("  MISMATCH: expected %f\n", expected[i]);
      ++bad;
    }
  }
  return bad;
}

template <typename E>
int RunAdd(aclrtStream stream, const std::vector<int64_t>& shape) {
  using H = typename E::Host;
  const int64_t n = GetShapeSize(shape);
  std::vector<float> selfValues(n), otherValues(n);
  for (int64_t i = 0; i < n; i++) {
    selfValues[i] = static_cast<float>(i);
    otherValues[i] = static_cast<float>(1 + i / 3);
  }
  std::vector<H> selfHostData(n), otherHostData(n), outHostData(n, E::FromFloat(0));
  for (int64_t i = 0; i < n; i++) {
    selfHostData[i] = E::FromFloat(selfValues[i]);
    otherHostData[i] = E::FromFloat(otherValues[i]);
  }
  float alphaValue = 1.2f;

  void* selfDeviceAddr = nullptr;
  void* otherDeviceAddr = nullptr;
  void* outDeviceAddr = nullptr;
  aclTensor* self = nullptr;
  aclTensor* other = nullptr;
  aclTensor* out = nullptr;
  auto ret = CreateAclTensor(selfHostData, shape, &selfDeviceAddr, E::kType, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(otherHostData, shape, &otherDeviceAddr, E::kType, &other);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
  CHECK_RET(alpha != nullptr, return 1);
  ret = CreateAclTensor(outHostData, shape, &outDeviceAddr, E::kType, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // aclnnAdd: first phase (checks, workspace size, executor), second phase (launch on the stream).
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor;
  ret = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAddGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnAdd(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAdd failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  std::vector<H> resultData(n);
  ret = aclrtMemcpy(resultData.data(), n * sizeof(H), outDeviceAddr, n * sizeof(H),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  std::vector<float> expected(n);
  for (int64_t i = 0; i < n; i++)
    expected[i] = Expected<E>(selfValues[i], otherValues[i], alphaValue);
  int bad = CheckResult<E>("aclnnAdd", resultData, expected);

  // aclnnInplaceAdd: self += alpha * other, in self's own memory.
  ret = aclnnInplaceAddGetWorkspaceSize(self, other, alpha, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnInplaceAddGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  ret = aclnnInplaceAdd(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceAdd failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtMemcpy(resultData.data(), n * sizeof(H), selfDeviceAddr, n * sizeof(H),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  bad += CheckResult<E>("aclnnInplaceAdd", resultData, expected);

  aclDestroyTensor(self);
  aclDestroyTensor(other);
  aclDestroyScalar(alpha);
  aclDestroyTensor(out);
  aclrtFree(selfDeviceAddr);
  aclrtFree(otherDeviceAddr);
  aclrtFree(outDeviceAddr);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  return bad;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  const std::vector<int64_t> shape = {4, 2};
  int bad = RunAdd<Float32>(stream, shape);
  bad += RunAdd<Float16>(stream, shape);

  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  if (bad != 0) {
    LOG_PRINT("%d element(s) wrong\n", bad);
    return 1;
  }
  LOG_PRINT(
      "all elements checked: aclnnAdd and aclnnInplaceAdd are right for float32 and float16\n");
  return 0;
}
