// Model run instances (aclmdlRI): stream capture and its modes, built models with stream
// activation and switching, labels, conditions, task updates and external events. Scenarios are
// those of hicann/runtime example/2_advanced_features/model_ri/0-4 and label/0_simple_label; the
// expected figures are the samples' READMEs' outputs, recomputed here from their inputs. Codes
// are CANN's (src/runtime/feature/aclgraph/api_error_aclgraph.cc, context_aclgraph.cc).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "acl_fixture.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "ascendsim/ascendc.h"

namespace {

class ModelRI : public AclTest {};  // default machine: one Ascend910B4

void* deviceFloats(const std::vector<float>& values) {
  void* d = nullptr;
  const size_t n = values.size() * sizeof(float);
  EXPECT_EQ(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(d, n, values.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  return d;
}

std::vector<float> readFloats(const void* d, size_t count) {
  std::vector<float> out(count);
  EXPECT_EQ(aclrtMemcpy(out.data(), count * sizeof(float), d, count * sizeof(float),
                        ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  return out;
}

aclTensor* tensorOver(void* d, size_t count) {
  const std::vector<int64_t> shape{static_cast<int64_t>(count)}, strides{1};
  return aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                         1, d);
}

// out = self + alpha * other, as an executor for later launches.
aclOpExecutor* addExecutor(aclTensor* self, aclTensor* other, float alpha, aclTensor* out) {
  aclScalar* a = aclCreateScalar(&alpha, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnAddGetWorkspaceSize(self, other, a, out, &ws, &e), 0);
  EXPECT_EQ(ws, 0u);
  aclDestroyScalar(a);
  return e;
}

}  // namespace

TEST_F(ModelRI, AThousandCapturedCopiesLaunchAsOneModel) {
  // 1,000 copies of 64 bytes, each of its own source into its own place of `dst`. Issued one by
  // one they cost 1,000 x memcpy_async (3 us) = 3,000 us of host time; captured once, every
  // launch of the model costs model_execute (3 us), 1,000 times less.
  constexpr int kCopies = 1000;
  constexpr size_t kBytes = 64;
  std::vector<uint8_t> pattern(kCopies * kBytes);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + i / 64);
  void *src = nullptr, *dst = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&src, pattern.size(), ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&dst, pattern.size(), ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(
      aclrtMemcpy(src, pattern.size(), pattern.data(), pattern.size(), ACL_MEMCPY_HOST_TO_DEVICE));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  auto copies = [&] {
    for (int i = 0; i < kCopies; ++i) {
      aclrtMemcpyAsync(static_cast<uint8_t*>(dst) + i * kBytes, kBytes,
                       static_cast<uint8_t*>(src) + i * kBytes, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                       s);
    }
  };
  const double oneByOne = hostMicroseconds(copies);
  EXPECT_NEAR(oneByOne, kCopies * 3.0, 0.01);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtMemset(dst, pattern.size(), 0, pattern.size()));

  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  copies();
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  // Captured, nothing has run: dst still holds zeros.
  EXPECT_EQ(readFloats(dst, 1)[0], 0.0f);
  const double launch = hostMicroseconds([&] { aclmdlRIExecuteAsync(model, s); });
  EXPECT_NEAR(launch, 3.0, 0.01);
  EXPECT_LT(launch * 100, oneByOne);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  std::vector<uint8_t> back(pattern.size());
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), back.size(), dst, back.size(), ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, pattern);
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(src));
  ASSERT_ACL_OK(aclrtFree(dst));
}

TEST_F(ModelRI, AReplayTakesTheTasksDeviceTimeAfterTheLaunch) {
  // A captured model of one 64-byte device copy: its launch queues MODEL_EXECUTE (one task
  // launch, scheduler.task_launch) on the stream, which queues the copy on the model's stream as
  // it ends; the wait for the launch's end then takes one more task launch. So a replay ends
  // later than the same copy queued directly by exactly two task launches, whatever the copy's
  // own time.
  void *a = nullptr, *b = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(a, 64, 1, 64));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  const float direct =
      elapsedMs([&] { aclrtMemcpyAsync(b, 64, a, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s); }, s);
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_ACL_OK(aclrtMemcpyAsync(b, 64, a, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  const float replay = elapsedMs([&] { aclmdlRIExecuteAsync(model, s); }, s);
  // The calls' host costs are equal (memcpy_async 3 us, model_execute 3 us). A task launch of
  // the default 910B4 is scheduler.task_launch = 1 us, so replay - direct = 2 x 1 us.
  EXPECT_NEAR((replay - direct) * 1000.0, 2.0, 0.01);
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtFree(b));
}

TEST_F(ModelRI, SimpleModelSample) {
  // 0_simple_model: out = (self + 1.1 * other) * other with self 1..8, other 2: (k + 2.2) * 2.
  const std::vector<float> selfData{1, 2, 3, 4, 5, 6, 7, 8}, otherData(8, 2.0f);
  const size_t n = 8 * sizeof(float);
  void* self = deviceFloats(std::vector<float>(8, 0.0f));
  void* other = deviceFloats(std::vector<float>(8, 0.0f));
  void* tmp = deviceFloats(std::vector<float>(8, 0.0f));
  void* out = deviceFloats(std::vector<float>(8, 0.0f));
  aclTensor *tSelf = tensorOver(self, 8), *tOther = tensorOver(other, 8),
            *tTmp = tensorOver(tmp, 8), *tOut = tensorOver(out, 8);
  aclOpExecutor* add = addExecutor(tSelf, tOther, 1.1f, tTmp);
  uint64_t ws = 0;
  aclOpExecutor* mul = nullptr;
  ASSERT_EQ(aclnnMulGetWorkspaceSize(tTmp, tOther, tOut, &ws, &mul), 0);
  void* pinned = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, n));
  std::memcpy(pinned, selfData.data(), n);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclrtMemcpyAsync(self, n, pinned, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  // GLOBAL capture: a synchronous copy is refused on this thread ...
  EXPECT_ACL_ERROR(aclrtMemcpy(other, n, otherData.data(), n, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
  // ... until it relaxes; then it runs at once, outside the model.
  aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
  EXPECT_EQ(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);  // the old mode comes back
  ASSERT_ACL_OK(aclrtMemcpy(other, n, otherData.data(), n, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
  EXPECT_EQ(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
  ASSERT_EQ(aclnnAdd(nullptr, 0, add, s), 0);
  ASSERT_EQ(aclnnMul(nullptr, 0, mul, s), 0);
  aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  aclmdlRI capturing = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &status, &capturing));
  EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  EXPECT_EQ(model, capturing);
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &status, nullptr));
  EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  EXPECT_EQ(readFloats(out, 8), std::vector<float>(8, 0.0f));  // nothing ran yet
  const std::string json = ::testing::TempDir() + "/modelRI.json";
  ASSERT_ACL_OK(aclmdlRIDebugJsonPrint(model, json.c_str(), ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE));
  std::ifstream in(json);
  const nlohmann::json printed = nlohmann::json::parse(in);
  EXPECT_EQ(printed["streams"][0]["tasks"], 3);  // the async copy and the two kernels
  std::vector<float> expected;
  for (float k : selfData) expected.push_back((k + 1.1f * 2.0f) * 2.0f);
  for (int loop = 0; loop < 4; ++loop) {
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_EQ(readFloats(out, 8), expected) << "launch " << loop;
  }
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  EXPECT_ACL_ERROR(aclmdlRIExecuteAsync(model, s), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtDestroyStreamForce(s));
  for (aclTensor* t : {tSelf, tOther, tTmp, tOut}) aclDestroyTensor(t);
  ASSERT_ACL_OK(aclrtFreeHost(pinned));
  for (void* p : {self, other, tmp, out}) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(ModelRI, CaptureStatesAndCodes) {
  aclrtStream s = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  aclmdlRI m = nullptr;
  EXPECT_ACL_ERROR(aclmdlRICaptureBegin(nullptr, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclmdlRICaptureBegin(s, static_cast<aclmdlRICaptureMode>(3)),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclmdlRICaptureEnd(s, &m), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
  EXPECT_ACL_ERROR(aclmdlRICaptureTaskGrpBegin(s), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
  EXPECT_ACL_ERROR(aclmdlRICaptureGetInfo(s, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  aclmdlRICaptureMode mode = static_cast<aclmdlRICaptureMode>(3);
  EXPECT_ACL_ERROR(aclmdlRICaptureThreadExchangeMode(&mode), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclmdlRICaptureThreadExchangeMode(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
  EXPECT_ACL_ERROR(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                   ACL_ERROR_RT_STREAM_CAPTURED);
  // Another thread may not end this thread's capture.
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  aclError fromOther = ACL_SUCCESS;
  std::thread([&] {
    aclrtSetCurrentContext(ctx);
    fromOther = aclmdlRICaptureEnd(s, &m);
  }).join();
  EXPECT_EQ(fromOther, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD);
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
  // A complete model runs; a capture that recorded nothing is an empty model.
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, other));
  ASSERT_ACL_OK(aclrtSynchronizeStream(other));
  ASSERT_ACL_OK(aclmdlRIDestroy(m));
  EXPECT_ACL_ERROR(aclmdlRIDestroy(m), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclmdlRIDestroy(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(other));
}

TEST_F(ModelRI, CaptureModesDecideWhatOtherThreadsMayDo) {
  // CANN's rule (Context::IsCaptureModeSupport): a synchronous copy is refused (107030) when the
  // calling thread's exchange mode is GLOBAL and a GLOBAL capture is active in its context or a
  // THREAD_LOCAL one on the thread itself; THREAD_LOCAL when the thread itself captures; never
  // when RELAXED.
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<uint8_t> host(64, 5);
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  auto copyHere = [&] { return aclrtMemcpy(d, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE); };
  auto copyElsewhere = [&] {
    aclError code = ACL_SUCCESS;
    std::thread([&] {
      aclrtSetCurrentContext(ctx);
      code = aclrtMemcpy(d, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE);
    }).join();
    return code;
  };
  aclrtStream s = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  aclmdlRI m = nullptr;
  const struct {
    aclmdlRICaptureMode mode;
    aclError here, elsewhere;
  } cases[] = {
      {ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
       ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT},
      {ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, ACL_SUCCESS},
      {ACL_MODEL_RI_CAPTURE_MODE_RELAXED, ACL_SUCCESS, ACL_SUCCESS},
  };
  for (const auto& c : cases) {
    ASSERT_ACL_OK(aclmdlRICaptureBegin(s, c.mode));
    EXPECT_EQ(copyHere(), c.here) << "capture mode " << c.mode;
    EXPECT_EQ(copyElsewhere(), c.elsewhere) << "capture mode " << c.mode;
    EXPECT_EQ(aclrtMemset(d, 64, 0, 64), c.here) << "capture mode " << c.mode;
    // An asynchronous copy of pageable memory would run synchronously: restricted alike, with
    // its own code (on another stream, so that an allowed one runs rather than being captured).
    EXPECT_EQ(aclrtMemcpyAsync(d, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE, other),
              c.here == ACL_SUCCESS ? ACL_SUCCESS : ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC)
        << "capture mode " << c.mode;
    ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
    ASSERT_ACL_OK(aclmdlRIDestroy(m));
  }
  // With no capture active, everything runs.
  EXPECT_EQ(copyHere(), ACL_SUCCESS);
  ASSERT_ACL_OK(aclrtSynchronizeStream(other));
  ASSERT_ACL_OK(aclrtDestroyStream(other));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(ModelRI, ModelUpdateSample) {
  // 1_model_update: tmp = self + 1.1 * other; (task group) out = tmp + 1.1 * other, then, from
  // the second launch on, out = tmp + 2.2 * other. The model waits for an external event that a
  // second stream records after each launch (and after the update).
  const std::vector<float> selfData{1, 2, 3, 4, 5, 6, 7, 8};
  void* self = deviceFloats(selfData);
  void* other = deviceFloats(std::vector<float>(8, 2.0f));
  void* tmp = deviceFloats(std::vector<float>(8, 0.0f));
  void* out = deviceFloats(std::vector<float>(8, 0.0f));
  aclTensor *tSelf = tensorOver(self, 8), *tOther = tensorOver(other, 8),
            *tTmp = tensorOver(tmp, 8), *tOut = tensorOver(out, 8);
  aclOpExecutor* first = addExecutor(tSelf, tOther, 1.1f, tTmp);
  aclOpExecutor* second = addExecutor(tTmp, tOther, 1.1f, tOut);
  aclOpExecutor* updated = addExecutor(tTmp, tOther, 2.2f, tOut);
  aclrtStream s = nullptr, updateStream = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&updateStream));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&event, ACL_EVENT_EXTERNAL));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_EQ(aclnnAdd(nullptr, 0, first, s), 0);
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, event));
  ASSERT_ACL_OK(aclrtResetEvent(event, s));
  aclrtTaskGrp group = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(s));
  ASSERT_EQ(aclnnAdd(nullptr, 0, second, s), 0);
  ASSERT_ACL_OK(aclmdlRICaptureTaskGrpEnd(s, &group));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  std::vector<float> firstOut, secondOut;
  for (float k : selfData) {
    firstOut.push_back(k + 2.2f + 2.2f);
    secondOut.push_back(k + 2.2f + 4.4f);
  }
  for (int loop = 0; loop < 2; ++loop) {
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
    if (loop == 1) {
      ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(updateStream, group));
      ASSERT_EQ(aclnnAdd(nullptr, 0, updated, updateStream), 0);
      ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(updateStream));
    }
    ASSERT_ACL_OK(aclrtRecordEvent(event, updateStream));
    ASSERT_ACL_OK(aclrtSynchronizeStream(updateStream));
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_EQ(readFloats(out, 8), loop == 0 ? firstOut : secondOut) << "launch " << loop;
  }
  // An update must replace the group's tasks one for one (107040 otherwise).
  ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(updateStream, group));
  EXPECT_ACL_ERROR(aclmdlRICaptureTaskUpdateEnd(updateStream), ACL_ERROR_RT_MODEL_UPDATE_FAILED);
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  ASSERT_ACL_OK(aclrtDestroyEvent(event));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(updateStream));
  for (aclTensor* t : {tSelf, tOther, tTmp, tOut}) aclDestroyTensor(t);
  for (void* p : {self, other, tmp, out}) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(ModelRI, ModelSwitchSample) {
  // 2_model_switch: five persistent streams. The head computes out1 = 1 + 1.2 * 2 = 3.4 and copies
  // the target value into `num`; a switch activates stream 3 (out3 = 3 + 2.4 = 5.4) when num == 1,
  // another stream 4 when num == 2, which activates stream 2 (out2 = 2 + 2.4 = 4.4). Stream 2 or
  // 3 activates the end stream.
  const size_t n = 8 * sizeof(float);
  std::vector<void*> selfs, others, outs;
  std::vector<aclTensor*> tensors;
  std::vector<aclOpExecutor*> adds;
  for (int i = 0; i < 3; ++i) {
    selfs.push_back(deviceFloats(std::vector<float>(8, 0.0f)));
    others.push_back(deviceFloats(std::vector<float>(8, 0.0f)));
    outs.push_back(deviceFloats(std::vector<float>(8, 0.0f)));
    aclTensor *a = tensorOver(selfs[i], 8), *b = tensorOver(others[i], 8),
              *o = tensorOver(outs[i], 8);
    tensors.insert(tensors.end(), {a, b, o});
    adds.push_back(addExecutor(a, b, 1.2f, o));
  }
  int32_t one = 1, two = 2;
  void *right1 = nullptr, *right2 = nullptr, *num = nullptr, *target = nullptr;
  for (void** p : {&right1, &right2, &num, &target})
    ASSERT_ACL_OK(aclrtMalloc(p, 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(right1, 4, &one, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(right2, 4, &two, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(target, 4, &one, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  aclrtStream st[5] = {};
  for (aclrtStream& x : st)
    ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&x, 0, ACL_STREAM_PERSISTENT));
  aclrtStream& endStream = st[4];
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&model, 0));
  ASSERT_ACL_OK(aclmdlRIBindStream(model, st[0], ACL_MODEL_STREAM_FLAG_HEAD));
  for (int i = 1; i < 5; ++i)
    ASSERT_ACL_OK(aclmdlRIBindStream(model, st[i], ACL_MODEL_STREAM_FLAG_DEFAULT));
  const std::vector<float> selfData[3] = {std::vector<float>(8, 1.0f), std::vector<float>(8, 2.0f),
                                          std::vector<float>(8, 3.0f)};
  const std::vector<float> otherData(8, 2.0f);
  for (int i = 0; i < 3; ++i) {  // pageable sources: read as each launch runs
    ASSERT_ACL_OK(
        aclrtMemcpyAsync(selfs[i], n, selfData[i].data(), n, ACL_MEMCPY_HOST_TO_DEVICE, st[i]));
    ASSERT_ACL_OK(
        aclrtMemcpyAsync(others[i], n, otherData.data(), n, ACL_MEMCPY_HOST_TO_DEVICE, st[i]));
  }
  ASSERT_EQ(aclnnAdd(nullptr, 0, adds[0], st[0]), 0);
  ASSERT_ACL_OK(aclrtMemcpyAsync(num, 4, target, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, st[0]));
  ASSERT_EQ(aclnnAdd(nullptr, 0, adds[1], st[1]), 0);
  ASSERT_ACL_OK(aclrtActiveStream(endStream, st[1]));
  ASSERT_EQ(aclnnAdd(nullptr, 0, adds[2], st[2]), 0);
  ASSERT_ACL_OK(aclrtActiveStream(endStream, st[2]));
  ASSERT_ACL_OK(
      aclrtSwitchStream(num, ACL_RT_EQUAL, right1, ACL_RT_SWITCH_INT32, st[2], nullptr, st[0]));
  ASSERT_ACL_OK(
      aclrtSwitchStream(num, ACL_RT_EQUAL, right2, ACL_RT_SWITCH_INT32, st[3], nullptr, st[0]));
  ASSERT_ACL_OK(aclrtActiveStream(st[1], st[3]));
  ASSERT_ACL_OK(aclmdlRIEndTask(model, endStream));
  EXPECT_ACL_ERROR(
      aclrtSwitchStream(num, ACL_RT_EQUAL, right1, ACL_RT_SWITCH_INT32, st[2], st[1], st[0]),
      ACL_ERROR_INVALID_PARAM);  // falseStream is reserved
  ASSERT_ACL_OK(aclmdlRIBuildEnd(model, nullptr));
  uint32_t count = 0;
  ASSERT_ACL_OK(aclmdlRIGetStreams(model, nullptr, &count));
  EXPECT_EQ(count, 5u);
  aclrtStream exec = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&exec));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, exec));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  EXPECT_EQ(readFloats(outs[0], 8), std::vector<float>(8, 1.0f + 1.2f * 2.0f));
  EXPECT_EQ(readFloats(outs[1], 8), std::vector<float>(8, 0.0f));  // stream 2 never ran
  EXPECT_EQ(readFloats(outs[2], 8), std::vector<float>(8, 3.0f + 1.2f * 2.0f));
  ASSERT_ACL_OK(aclrtMemcpy(target, 4, &two, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, exec));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  EXPECT_EQ(readFloats(outs[1], 8), std::vector<float>(8, 2.0f + 1.2f * 2.0f));
  for (aclrtStream x : st) ASSERT_ACL_OK(aclmdlRIUnbindStream(model, x));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  for (aclrtStream x : st) ASSERT_ACL_OK(aclrtDestroyStream(x));
  ASSERT_ACL_OK(aclrtDestroyStream(exec));
  for (aclTensor* t : tensors) aclDestroyTensor(t);
  for (void* p : {right1, right2, num, target}) ASSERT_ACL_OK(aclrtFree(p));
  for (auto* v : {&selfs, &others, &outs})
    for (void* p : *v) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(ModelRI, BuildingCodes) {
  aclmdlRI model = nullptr;
  EXPECT_ACL_ERROR(aclmdlRIBuildBegin(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclmdlRIBuildBegin(&model, 1), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&model, 0));
  aclrtStream plain = nullptr, persistent = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&plain));
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&persistent, 0, ACL_STREAM_PERSISTENT));
  EXPECT_ACL_ERROR(aclmdlRIBindStream(model, plain, ACL_MODEL_STREAM_FLAG_HEAD),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclmdlRIBindStream(model, persistent, 5), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclmdlRIEndTask(model, persistent), ACL_ERROR_RT_STREAM_MODEL);
  // Not complete: no launch, and no build end without a head stream.
  EXPECT_ACL_ERROR(aclmdlRIExecuteAsync(model, plain), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclmdlRIBuildEnd(model, nullptr), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclmdlRIBindStream(model, persistent, ACL_MODEL_STREAM_FLAG_DEFAULT));
  EXPECT_ACL_ERROR(aclmdlRIBindStream(model, persistent, ACL_MODEL_STREAM_FLAG_DEFAULT),
                   ACL_ERROR_RT_PARAM_INVALID);
  // A bound stream destroyed while the model is built records nothing more: a stream made
  // afterwards (perhaps at the same address) runs its tasks.
  aclrtStream gone = nullptr, fresh = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&gone, 0, ACL_STREAM_PERSISTENT));
  ASSERT_ACL_OK(aclmdlRIBindStream(model, gone, ACL_MODEL_STREAM_FLAG_DEFAULT));
  ASSERT_ACL_OK(aclrtDestroyStream(gone));
  ASSERT_ACL_OK(aclrtCreateStream(&fresh));
  aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(fresh, &status, nullptr));
  EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 9, 64, fresh));
  ASSERT_ACL_OK(aclrtSynchronizeStream(fresh));
  uint8_t byte = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&byte, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(byte, 9);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtDestroyStream(fresh));
  uint32_t bound = 0;
  ASSERT_ACL_OK(aclmdlRIGetStreams(model, nullptr, &bound));
  EXPECT_EQ(bound, 1u);  // `persistent` only
  ASSERT_ACL_OK(aclmdlRISetName(model, "switchboard"));
  char name[16] = {};
  ASSERT_ACL_OK(aclmdlRIGetName(model, sizeof name, name));
  EXPECT_STREQ(name, "switchboard");
  EXPECT_ACL_ERROR(aclmdlRIGetName(model, 5, name), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  ASSERT_ACL_OK(aclrtDestroyStream(plain));
  ASSERT_ACL_OK(aclrtDestroyStream(persistent));
}

namespace {

// label/0_simple_label, extended so the branch shows: a switch on the index at `index`, then
// label 0: memset A to 0xAA and end; label 1: memset B to 0xBB and end.
struct LabelModel {
  aclrtStream stream = nullptr;
  aclrtLabel labels[2] = {};
  aclrtLabelList list = nullptr;
  aclmdlRI model = nullptr;
};

}  // namespace

TEST_F(ModelRI, LabelSwitchJumpsToTheIndexedLabel) {
  uint32_t* index = nullptr;
  void *a = nullptr, *b = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&index), 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  LabelModel m;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&m.stream, 0, ACL_STREAM_PERSISTENT));
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&m.model, 0));
  ASSERT_ACL_OK(aclmdlRIBindStream(m.model, m.stream, ACL_MODEL_STREAM_FLAG_HEAD));
  for (aclrtLabel& l : m.labels) ASSERT_ACL_OK(aclrtCreateLabel(&l));
  EXPECT_ACL_ERROR(aclrtCreateLabelList(m.labels, 0, &m.list), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtCreateLabelList(m.labels, 2, &m.list));
  ASSERT_ACL_OK(aclrtSwitchLabelByIndex(index, 2, m.list, m.stream));
  ASSERT_ACL_OK(aclrtSetLabel(m.labels[0], m.stream));
  ASSERT_ACL_OK(aclrtMemsetAsync(a, 64, 0xAA, 64, m.stream));
  ASSERT_ACL_OK(aclmdlRIEndTask(m.model, m.stream));
  ASSERT_ACL_OK(aclrtSetLabel(m.labels[1], m.stream));
  EXPECT_ACL_ERROR(aclrtSetLabel(m.labels[1], m.stream), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtMemsetAsync(b, 64, 0xBB, 64, m.stream));
  ASSERT_ACL_OK(aclmdlRIEndTask(m.model, m.stream));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(m.model, nullptr));
  aclrtStream exec = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&exec));
  for (uint32_t which : {1u, 0u}) {
    ASSERT_ACL_OK(aclrtMemset(a, 64, 0, 64));
    ASSERT_ACL_OK(aclrtMemset(b, 64, 0, 64));
    ASSERT_ACL_OK(aclrtMemcpy(index, 4, &which, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(m.model, exec));
    ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
    std::vector<uint8_t> ha(64), hb(64);
    ASSERT_ACL_OK(aclrtMemcpy(ha.data(), 64, a, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ASSERT_ACL_OK(aclrtMemcpy(hb.data(), 64, b, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT_EQ(ha, std::vector<uint8_t>(64, which == 0 ? 0xAA : 0)) << "index " << which;
    EXPECT_EQ(hb, std::vector<uint8_t>(64, which == 1 ? 0xBB : 0)) << "index " << which;
  }
  // A label in a list cannot go before its list.
  EXPECT_ACL_ERROR(aclrtDestroyLabel(m.labels[0]), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclmdlRIUnbindStream(m.model, m.stream));
  ASSERT_ACL_OK(aclmdlRIDestroy(m.model));
  ASSERT_ACL_OK(aclrtDestroyLabelList(m.list));
  for (aclrtLabel l : m.labels) ASSERT_ACL_OK(aclrtDestroyLabel(l));
  ASSERT_ACL_OK(aclrtDestroyStream(m.stream));
  ASSERT_ACL_OK(aclrtDestroyStream(exec));
  for (void* p : {static_cast<void*>(index), a, b}) ASSERT_ACL_OK(aclrtFree(p));
}

namespace {

// A parent captured on `s` whose condition (default value `value`, ASSIGN_DEFAULT) picks one of
// `cases` branches, each out = a + alpha[i] * b; returns the launched result.
std::vector<float> condResult(aclmdlRICondTaskType type, uint32_t value,
                              const std::vector<float>& alphas, bool bodyClearsCondition) {
  const std::vector<float> aData{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<float> bData{0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4};
  void* a = deviceFloats(aData);
  void* b = deviceFloats(bData);
  void* out = deviceFloats(std::vector<float>(8, 0.0f));
  aclTensor *ta = tensorOver(a, 8), *tb = tensorOver(b, 8), *to = tensorOver(out, 8);
  aclrtStream s = nullptr, sub = nullptr, exec = nullptr;
  EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateStream(&sub), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateStream(&exec), ACL_SUCCESS);
  uint64_t zero = 0;
  void* zeroDev = nullptr;
  EXPECT_EQ(aclrtMalloc(&zeroDev, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(zeroDev, 8, &zero, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  aclmdlRI parent = nullptr;
  EXPECT_EQ(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL), ACL_SUCCESS);
  EXPECT_EQ(aclmdlRICaptureGetInfo(s, nullptr, &parent), ACL_SUCCESS);
  aclmdlRICondHandle cond = nullptr;
  EXPECT_EQ(aclmdlRICondHandleCreate(parent, value, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &cond),
            ACL_SUCCESS);
  uint64_t* condPtr = nullptr;
  EXPECT_EQ(aclmdlRICondHandleGetCondPtr(cond, &condPtr), ACL_SUCCESS);
  std::vector<aclmdlRI> branches(alphas.size());
  aclmdlRICondTaskParams params;
  params.handle = cond;
  params.type = type;
  params.size = static_cast<uint32_t>(alphas.size());
  params.modelRIArray = branches.data();
  EXPECT_EQ(aclmdlRIAddCondTask(params, s, 0), ACL_SUCCESS);
  for (size_t i = 0; i < alphas.size(); ++i) {
    EXPECT_EQ(
        aclmdlRICaptureToModelRIBegin(sub, branches[i], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL),
        ACL_SUCCESS);
    EXPECT_EQ(aclnnAdd(nullptr, 0, addExecutor(ta, tb, alphas[i], to), sub), 0);
    if (bodyClearsCondition) {
      EXPECT_EQ(aclrtMemcpyAsync(condPtr, 8, zeroDev, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, sub),
                ACL_SUCCESS);
    }
    EXPECT_EQ(aclmdlRICaptureEnd(sub, &branches[i]), ACL_SUCCESS);
  }
  EXPECT_EQ(aclmdlRICaptureEnd(s, &parent), ACL_SUCCESS);
  // ASSIGN_DEFAULT: whatever the program writes there, each launch starts from `value`.
  const uint64_t ignored = 77;
  EXPECT_EQ(aclrtMemcpy(condPtr, 8, &ignored, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclmdlRIExecuteAsync(parent, exec), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(exec), ACL_SUCCESS);
  std::vector<float> result = readFloats(out, 8);
  EXPECT_EQ(aclmdlRIDestroy(parent), ACL_SUCCESS);
  for (aclrtStream x : {s, sub, exec}) EXPECT_EQ(aclrtDestroyStream(x), ACL_SUCCESS);
  for (aclTensor* t : {ta, tb, to}) aclDestroyTensor(t);
  for (void* p : {a, b, out, zeroDev}) EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  return result;
}

std::vector<float> expectedAdd(float alpha) {
  const std::vector<float> aData{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> out;
  for (float k : aData) out.push_back(k + alpha * (k / 2));  // b is a / 2
  return out;
}

}  // namespace

TEST_F(ModelRI, ConditionsPickTheirBranchAtEachLaunch) {
  // 3_cond_model: IF runs branch 0 when the value is not 0, branch 1 when it is (the sample's
  // README prints the alpha 0.5 branch: its default value 0 overrides the 1 it writes); WHILE
  // runs its body while the value is not 0 (here the body clears it: once); SWITCH runs the
  // branch the value names.
  EXPECT_EQ(condResult(ACL_MODEL_RI_COND_TYPE_IF, 1, {2.0f, 0.5f}, false), expectedAdd(2.0f));
  EXPECT_EQ(condResult(ACL_MODEL_RI_COND_TYPE_IF, 0, {2.0f, 0.5f}, false), expectedAdd(0.5f));
  EXPECT_EQ(condResult(ACL_MODEL_RI_COND_TYPE_IF, 0, {2.0f}, false), std::vector<float>(8, 0.0f));
  EXPECT_EQ(condResult(ACL_MODEL_RI_COND_TYPE_WHILE, 1, {1.0f}, true), expectedAdd(1.0f));
  EXPECT_EQ(condResult(ACL_MODEL_RI_COND_TYPE_WHILE, 0, {1.0f}, true), std::vector<float>(8, 0.0f));
  EXPECT_EQ(condResult(ACL_MODEL_RI_COND_TYPE_SWITCH, 2, {1.0f, 2.0f, 0.5f}, false),
            expectedAdd(0.5f));
  EXPECT_EQ(condResult(ACL_MODEL_RI_COND_TYPE_SWITCH, 3, {1.0f, 2.0f, 0.5f}, false),
            std::vector<float>(8, 0.0f));  // no such case: none runs
}

TEST_F(ModelRI, ExternalEventsJoinModelsAndStreams) {
  // 4_model_sync_external, scenarios 1 to 3, with exact bytes.
  const std::vector<int32_t> src{1, 2, 3, 4, 5, 6, 7, 8};
  const size_t n = src.size() * sizeof(int32_t);
  void *a = nullptr, *mid = nullptr, *b = nullptr;
  for (void** p : {&a, &mid, &b}) ASSERT_ACL_OK(aclrtMalloc(p, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream g1 = nullptr, g2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&g1));
  ASSERT_ACL_OK(aclrtCreateStream(&g2));
  auto readInts = [&](void* d) {
    std::vector<int32_t> out(src.size());
    EXPECT_EQ(aclrtMemcpy(out.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return out;
  };
  // 1: the model waits for a record made outside it, before its launch.
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC));
  aclmdlRI m1 = nullptr, m2 = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(g1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  EXPECT_ACL_ERROR(aclrtStreamWaitEventWithFlag(g1, event, 5, ACL_EVENT_WAIT_EXTERNAL),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(g1, event, 0, ACL_EVENT_WAIT_EXTERNAL));
  ASSERT_ACL_OK(aclrtMemcpyAsync(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, g1));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(g1, &m1));
  ASSERT_ACL_OK(aclrtMemcpy(a, n, src.data(), n, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtRecordEvent(event, g2));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(m1, g1));
  ASSERT_ACL_OK(aclrtSynchronizeStream(g1));
  EXPECT_EQ(readInts(b), src);
  ASSERT_ACL_OK(aclmdlRIDestroy(m1));
  // 3: one model records, another waits for it.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(g1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_ACL_OK(aclrtMemcpyAsync(mid, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, g1));
  EXPECT_ACL_ERROR(aclrtRecordEventWithFlag(event, g1, 2), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtRecordEventWithFlag(event, g1, ACL_EVENT_RECORD_EXTERNAL));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(g1, &m1));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(g2, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(g2, event, 0, ACL_EVENT_WAIT_EXTERNAL));
  ASSERT_ACL_OK(aclrtMemcpyAsync(b, n, mid, n, ACL_MEMCPY_DEVICE_TO_DEVICE, g2));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(g2, &m2));
  ASSERT_ACL_OK(aclrtMemset(b, n, 0, n));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(m1, g1));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(m2, g2));
  ASSERT_ACL_OK(aclrtSynchronizeStream(g2));
  EXPECT_EQ(readInts(b), src);
  ASSERT_ACL_OK(aclmdlRIDestroy(m1));
  ASSERT_ACL_OK(aclmdlRIDestroy(m2));
  ASSERT_ACL_OK(aclrtDestroyEvent(event));
  ASSERT_ACL_OK(aclrtDestroyStream(g1));
  ASSERT_ACL_OK(aclrtDestroyStream(g2));
  for (void* p : {a, mid, b}) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(ModelRI, CapturedAscendCKernelsRunTheirBlocksAtEachLaunch) {
  // A captured 4-block Ascend C kernel adding 1 to every byte of a 4 KiB buffer: capturing runs
  // nothing (the bytes stay 0); each of 3 launches (two queued on the stream, one by
  // aclmdlRIExecute, which waits for it) runs the 4 blocks, in order, in this program
  // (they append to this program's list and see its pid), so the bytes end at 3. The launch's
  // arguments (a copy of `alive` among them) live as long as the model, launches ended or not,
  // and are released once it is destroyed.
  constexpr size_t kBytes = 4096;
  uint8_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, kBytes, 0, kBytes));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::vector<int64_t> blocks;
  std::vector<int64_t>* blocksPtr = &blocks;
  const int64_t pid = getpid();
  bool samePid = true;
  bool* samePidPtr = &samePid;
  auto alive = std::make_shared<int>(0);
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_EQ(ascendsim::ascendc::launch("AddOne", 4, nullptr, s,
                                       [=]() {
                                         (void)alive;
                                         const int64_t b = ascendsimAscendCBlockIdx();
                                         blocksPtr->push_back(b);
                                         *samePidPtr = *samePidPtr && getpid() == pid;
                                         for (size_t i = static_cast<size_t>(b) * kBytes / 4;
                                              i < static_cast<size_t>(b + 1) * kBytes / 4; ++i)
                                           d[i] = static_cast<uint8_t>(d[i] + 1);
                                       }),
            0u);
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  EXPECT_TRUE(blocks.empty());  // captured: nothing ran
  for (int launch = 0; launch < 2; ++launch) {
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  }
  ASSERT_ACL_OK(aclmdlRIExecute(model, -1));  // (the third waits for the launch's end itself)
  EXPECT_EQ(blocks, (std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_TRUE(samePid);
  std::vector<uint8_t> back(kBytes);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), kBytes, d, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, std::vector<uint8_t>(kBytes, 3));
  EXPECT_GT(alive.use_count(), 1);  // the model still holds the arguments
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  // (On a served machine the program's kernel service releases them when the server says so.)
  for (int i = 0; i < 200 && alive.use_count() > 1; ++i) usleep(5000);
  EXPECT_EQ(alive.use_count(), 1);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(d));
}

namespace {
// A model of two copies of the program's own (pageable) memory: 1 MiB from `in` to the device,
// and back into `out`. Capturing moves nothing (`out` stays 0); each launch reads `in` and
// writes `out` as they are when it runs: 1 after the first, 2 after the second, for which the
// program rewrote `in`. (Anonymous mappings of the program's: on a served machine their pages
// are shared with the server at the copy, which a heap range the server's own memory overlaps
// could not be, docs/multiprocess.md.)
using AsyncCopy = aclError (*)(void*, size_t, const void*, size_t, aclrtMemcpyKind, aclrtStream);
void expectRecordedCopiesMoveTheirBytesAtEachLaunch(AsyncCopy copy) {
  constexpr size_t kBytes = 1 << 20;
  auto mapped = [] {
    void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return static_cast<uint8_t*>(p == MAP_FAILED ? nullptr : p);
  };
  uint8_t *in = mapped(), *out = mapped();
  ASSERT_TRUE(in && out);
  std::fill(in, in + kBytes, 1);
  std::fill(out, out + kBytes, 0);
  auto all = [&](const uint8_t* p, uint8_t v) {
    return std::all_of(p, p + kBytes, [v](uint8_t b) { return b == v; });
  };
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_ACL_OK(copy(d, kBytes, in, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(copy(out, kBytes, d, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  EXPECT_TRUE(all(out, 0));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(all(out, 1));
  std::fill(in, in + kBytes, 2);
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(all(out, 2));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(d));
  munmap(in, kBytes);
  munmap(out, kBytes);
}
}  // namespace

TEST_F(ModelRI, RecordedCopiesOfProgramMemoryMoveItsBytesAtEachLaunch) {
  expectRecordedCopiesMoveTheirBytesAtEachLaunch(&aclrtMemcpyAsync);
}

TEST_F(ModelRI, RecordedConditionalCopiesOfProgramMemoryMoveItsBytesAtEachLaunch) {
  // The same with aclrtMemcpyAsyncWithCondition (its copies of pageable memory recorded too).
  expectRecordedCopiesMoveTheirBytesAtEachLaunch(&aclrtMemcpyAsyncWithCondition);
}

TEST(ModelRIAtFinalize, ALaunchQueuedAtFinalizeWritesTheProgramsMemoryFirst) {
  // A model whose one step copies 1 MiB of device memory, every byte 7, into the program's own
  // (pageable) memory, launched and not waited for: aclFinalize lets the launch end first (it
  // lets every queued task end, as CANN's resets the devices), so `out` holds 7 in every byte
  // afterwards, and stays the program's memory (private, writable). On a served machine the
  // pages stay shared with the machine until the launch has written them (they were given back
  // before, and the launch wrote into the machine's emptied copy of them: `out` kept its 0s).
  constexpr size_t kBytes = 1 << 20;
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* out = static_cast<uint8_t*>(p);
  std::fill(out, out + kBytes, 0);
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, kBytes, 7, kBytes));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_ACL_OK(aclrtMemcpyAsync(out, kBytes, d, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
  ASSERT_ACL_OK(aclFinalize());
  EXPECT_EQ(std::count(out, out + kBytes, 7), static_cast<std::ptrdiff_t>(kBytes));
  out[0] = 1;  // (the program's memory again)
  EXPECT_EQ(out[0], 1);
  munmap(p, kBytes);
}

TEST(ModelRITrace, ControlTasksAndReplayedTasksNameTheirModelAndLabel) {
  // label/0_simple_label with a memset after each label: index 1 jumps over label 0's memset. The
  // trace's stream slices show the launch, the switch and the end of graph, each naming the
  // model, and the one memset that ran names the label it came after.
  const std::string path = ::testing::TempDir() + "/model-ri-trace.json";
  setenv("ASCENDSIM_TRACE", path.c_str(), 1);
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  uint32_t* index = nullptr;
  void* buf = nullptr;
  const uint32_t one = 1;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&index), 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&buf, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(index, 4, &one, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  aclrtStream s = nullptr, exec = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
  ASSERT_ACL_OK(aclrtCreateStream(&exec));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&model, 0));
  ASSERT_ACL_OK(aclmdlRISetName(model, "labels"));
  ASSERT_ACL_OK(aclmdlRIBindStream(model, s, ACL_MODEL_STREAM_FLAG_HEAD));
  aclrtLabel labels[2] = {};
  for (aclrtLabel& l : labels) ASSERT_ACL_OK(aclrtCreateLabel(&l));
  aclrtLabelList list = nullptr;
  ASSERT_ACL_OK(aclrtCreateLabelList(labels, 2, &list));
  ASSERT_ACL_OK(aclrtSwitchLabelByIndex(index, 2, list, s));
  ASSERT_ACL_OK(aclrtSetLabel(labels[0], s));
  ASSERT_ACL_OK(aclrtMemsetAsync(buf, 64, 1, 64, s));
  ASSERT_ACL_OK(aclrtSetLabel(labels[1], s));
  ASSERT_ACL_OK(aclrtMemsetAsync(buf, 64, 2, 64, s));
  ASSERT_ACL_OK(aclmdlRIEndTask(model, s));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(model, nullptr));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, exec));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  ASSERT_ACL_OK(aclmdlRIUnbindStream(model, s));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  ASSERT_ACL_OK(aclrtDestroyLabelList(list));
  for (aclrtLabel l : labels) ASSERT_ACL_OK(aclrtDestroyLabel(l));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(exec));
  ASSERT_ACL_OK(aclrtFree(index));
  ASSERT_ACL_OK(aclrtFree(buf));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
  unsetenv("ASCENDSIM_TRACE");
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::vector<std::string> seen;  // "NAME @ model", in the trace's order
  for (const auto& e : trace) {
    if (e["ph"] != "X" || e["cat"] != "task" || !e["args"].contains("model")) continue;
    seen.push_back(e["name"].get<std::string>() + " @ " + e["args"]["model"].get<std::string>());
  }
  const std::vector<std::string> expected{
      "MODEL_EXECUTE @ labels",           "LABEL_SWITCH @ labels", "MEMSET_ASYNC @ labels label 1",
      "MODEL_END_GRAPH @ labels label 1", "EVENT_WAIT @ labels",
  };
  EXPECT_EQ(seen, expected);
}
