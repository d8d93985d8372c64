// Profiling (acl/acl_prof.h) and the floating-point overflow mode (aclrtSetDeviceSatMode): exact
// codes for misuse, and what a collection writes.

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "acl/acl_prof.h"
#include "acl_fixture.h"
#include "aclnnop/aclnn_add.h"

namespace fs = std::filesystem;

namespace {

// A fresh folder under the test's temporary directory.
std::string scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("ascendsim_prof_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

// Every msprof_*.json under DIR/PROF_*/mindstudio_profiler_output.
std::vector<fs::path> results(const std::string& dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& prof : fs::directory_iterator(dir)) {
    if (prof.path().filename().string().rfind("PROF_", 0) != 0) continue;
    const fs::path output = prof.path() / "mindstudio_profiler_output";
    if (!fs::is_directory(output)) continue;
    for (const auto& f : fs::directory_iterator(output)) {
      const std::string name = f.path().filename().string();
      if (name.rfind("msprof_", 0) == 0 && f.path().extension() == ".json") out.push_back(f.path());
    }
  }
  return out;
}

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());  // throws if it is not valid JSON
}

// Complete slices of category `cat` named `name` (any name when empty) in process `pid` (any
// when negative).
int slices(const nlohmann::json& trace, const std::string& cat, const std::string& name,
           int pid = -1) {
  int n = 0;
  for (const auto& e : trace) {
    if (e.value("ph", "") != "X" || e.value("cat", "") != cat) continue;
    if (!name.empty() && e.value("name", "") != name) continue;
    if (pid >= 0 && e.value("pid", -1) != pid) continue;
    ++n;
  }
  return n;
}

constexpr uint64_t kHcclTestSwitches =
    ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU |
    ACL_PROF_HCCL_TRACE | ACL_PROF_MSPROFTX | ACL_PROF_RUNTIME_API;

class Profiling : public AclTest {};

TEST_F(Profiling, MisuseGivesCannsCodes) {
  const std::string dir = scratch("misuse");
  uint32_t dev0 = 0;
  aclprofConfig* config =
      aclprofCreateConfig(&dev0, 1, ACL_AICORE_PIPE_UTILIZATION, nullptr, kHcclTestSwitches);
  ASSERT_NE(config, nullptr);

  // Before aclprofInit.
  EXPECT_ACL_ERROR(aclprofStart(config), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_ACL_ERROR(aclprofStop(config), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_ACL_ERROR(aclprofFinalize(), ACL_ERROR_PROF_NOT_RUN);

  // aclprofInit's path and length.
  EXPECT_ACL_ERROR(aclprofInit(nullptr, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclprofInit(dir.c_str(), 0), ACL_ERROR_INVALID_PARAM);
  const std::string tooLong(4096, 'a');
  EXPECT_ACL_ERROR(aclprofInit(tooLong.c_str(), tooLong.size()), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclprofInit(dir.c_str(), dir.size() - 1), ACL_ERROR_INVALID_PARAM);
  // A folder that cannot be made: under a file.
  const std::string file = scratch("a_file");
  std::ofstream(file) << "x";
  const std::string underFile = file + "/results";
  EXPECT_ACL_ERROR(aclprofInit(underFile.c_str(), underFile.size()), ACL_ERROR_INVALID_FILE);
  fs::remove(file);

  ASSERT_ACL_OK(aclprofInit(dir.c_str(), dir.size()));
  EXPECT_TRUE(fs::is_directory(dir));  // made by aclprofInit
  EXPECT_ACL_ERROR(aclprofInit(dir.c_str(), dir.size()), ACL_ERROR_REPEAT_INITIALIZE);

  // Configurations refused: no device, one that does not exist (the default machine has one),
  // one named twice, aicoreEvents given, a NULL list.
  uint32_t missing = 1, twice[2] = {0, 0};
  EXPECT_EQ(aclprofCreateConfig(&dev0, 0, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API), nullptr);
  EXPECT_EQ(aclprofCreateConfig(&missing, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API), nullptr);
  const char* msg = aclGetRecentErrMsg();
  EXPECT_TRUE(msg && std::string(msg).find("does not exist") != std::string::npos);
  EXPECT_EQ(aclprofCreateConfig(twice, 2, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API), nullptr);
  EXPECT_EQ(aclprofCreateConfig(nullptr, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API), nullptr);
  EXPECT_EQ(
      aclprofCreateConfig(&dev0, 1, ACL_AICORE_NONE,
                          reinterpret_cast<const aclprofAicoreEvents*>(&dev0), ACL_PROF_ACL_API),
      nullptr);

  EXPECT_ACL_ERROR(aclprofStart(nullptr), ACL_ERROR_INVALID_PARAM);
  // Nothing to collect, or a switch no ACL_PROF_* flag names.
  aclprofConfig* none = aclprofCreateConfig(&dev0, 1, ACL_AICORE_NONE, nullptr, 0);
  ASSERT_NE(none, nullptr);
  EXPECT_ACL_ERROR(aclprofStart(none), ACL_ERROR_INVALID_PARAM);
  aclprofConfig* unknown = aclprofCreateConfig(&dev0, 1, ACL_AICORE_NONE, nullptr, 1ULL << 40);
  ASSERT_NE(unknown, nullptr);
  EXPECT_ACL_ERROR(aclprofStart(unknown), ACL_ERROR_PROF_MODULES_UNSUPPORTED);

  // Stop of a collection never started, then start, start again, stop with other data.
  EXPECT_ACL_ERROR(aclprofStop(config), ACL_ERROR_PROF_NOT_RUN);
  ASSERT_ACL_OK(aclprofStart(config));
  EXPECT_ACL_ERROR(aclprofStart(config), ACL_ERROR_PROF_ALREADY_RUN);
  aclprofConfig* other = aclprofCreateConfig(&dev0, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API);
  ASSERT_NE(other, nullptr);
  EXPECT_ACL_ERROR(aclprofStop(other), ACL_ERROR_INVALID_PROFILING_CONFIG);

  // Finalising while collecting ends the collection and writes it.
  EXPECT_TRUE(results(dir).empty());
  ASSERT_ACL_OK(aclprofFinalize());
  EXPECT_EQ(results(dir).size(), 1u);
  EXPECT_ACL_ERROR(aclprofFinalize(), ACL_ERROR_PROF_NOT_RUN);

  EXPECT_ACL_ERROR(aclprofDestroyConfig(nullptr), ACL_ERROR_INVALID_PARAM);
  for (aclprofConfig* c : {config, none, unknown, other}) ASSERT_ACL_OK(aclprofDestroyConfig(c));
  EXPECT_ACL_ERROR(aclprofDestroyConfig(config), ACL_ERROR_INVALID_PARAM);  // already destroyed
  fs::remove_all(dir);
}

TEST_F(Profiling, CollectionHoldsTheCallsAndTasksBetweenStartAndStop) {
  const std::string dir = scratch("run");
  const size_t bytes = 1 << 20;
  std::vector<uint8_t> host(bytes, 7);
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  // Before aclprofStart: one copy and one memset, in no collection.
  ASSERT_ACL_OK(aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemset(dev, bytes, 0, bytes));

  ASSERT_ACL_OK(aclprofInit(dir.c_str(), dir.size()));
  uint32_t dev0 = 0;
  aclprofConfig* config =
      aclprofCreateConfig(&dev0, 1, ACL_AICORE_PIPE_UTILIZATION, nullptr, kHcclTestSwitches);
  ASSERT_NE(config, nullptr);
  ASSERT_ACL_OK(aclprofStart(config));
  ASSERT_ACL_OK(aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(host.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  ASSERT_ACL_OK(aclprofStop(config));
  // After aclprofStop: in no collection either.
  ASSERT_ACL_OK(aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclprofDestroyConfig(config));
  ASSERT_ACL_OK(aclprofFinalize());
  ASSERT_ACL_OK(aclrtFree(dev));

  const std::vector<fs::path> files = results(dir);
  ASSERT_EQ(files.size(), 1u);
  const nlohmann::json trace = readJson(files[0]);
  ASSERT_TRUE(trace.is_array());
  EXPECT_EQ(slices(trace, "api", "aclrtMemcpy"), 2);  // the two between start and stop
  EXPECT_EQ(slices(trace, "api", "aclrtMemset"), 0);
  EXPECT_EQ(slices(trace, "api", "aclrtMalloc"), 0);
  EXPECT_EQ(slices(trace, "api", "aclprofStop"), 0);
  // Their two copy tasks, on device 0 (process 1), and the transfers on its DMA channels.
  EXPECT_EQ(slices(trace, "task", "", 1), 2);
  EXPECT_EQ(slices(trace, "task", "MEMSET"), 0);
  EXPECT_EQ(slices(trace, "transfer", "", 1), 2);
  fs::remove_all(dir);
}

// On a machine of eight NPUs a collection of device 1 holds device 1's tasks only.
class ProfilingEightNpus : public AclTest {
 protected:
  ProfilingEightNpus() : AclTest("atlas-800t-a2") {}
};

TEST_F(ProfilingEightNpus, CollectionHoldsItsDevicesTasksOnly) {
  const std::string dir = scratch("devices");
  const size_t bytes = 64 << 10;
  std::vector<uint8_t> host(bytes, 1);
  void* on0 = nullptr;
  void* on1 = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&on0, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(aclrtMalloc(&on1, bytes, ACL_MEM_MALLOC_HUGE_FIRST));

  ASSERT_ACL_OK(aclprofInit(dir.c_str(), dir.size()));
  uint32_t dev1 = 1;
  aclprofConfig* config = aclprofCreateConfig(&dev1, 1, ACL_AICORE_NONE, nullptr,
                                              ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
  ASSERT_NE(config, nullptr);
  ASSERT_ACL_OK(aclprofStart(config));
  ASSERT_ACL_OK(aclrtMemcpy(on1, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtMemcpy(on0, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclprofStop(config));
  ASSERT_ACL_OK(aclprofDestroyConfig(config));
  ASSERT_ACL_OK(aclprofFinalize());

  const std::vector<fs::path> files = results(dir);
  ASSERT_EQ(files.size(), 1u);
  const nlohmann::json trace = readJson(files[0]);
  EXPECT_EQ(slices(trace, "api", "aclrtMemcpy"), 2);  // the host's calls, both
  EXPECT_EQ(slices(trace, "task", "", 2), 1);         // device 1 (process 2): its copy
  EXPECT_EQ(slices(trace, "task", ""), 1);            // and nothing of device 0
  ASSERT_ACL_OK(aclrtFree(on0));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(aclrtFree(on1));
  ASSERT_ACL_OK(aclrtResetDevice(1));
  fs::remove_all(dir);
}

// Two fp32 elements through aclnnAdd on `stream`: FLT_MAX + FLT_MAX and Inf + -Inf.
std::vector<float> addOverflowing(aclrtStream stream) {
  const float big = std::numeric_limits<float>::max(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a{big, inf}, b{big, -inf};
  const std::vector<int64_t> shape{2}, strides{1};
  const int64_t storage = 2;
  void *da = nullptr, *db = nullptr, *dout = nullptr;
  EXPECT_EQ(aclrtMalloc(&da, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(&db, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(&dout, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(da, 8, a.data(), 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(db, 8, b.data(), 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  aclTensor* ta = aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                  &storage, 1, da);
  aclTensor* tb = aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                  &storage, 1, db);
  aclTensor* tout = aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                    &storage, 1, dout);
  const float one = 1;
  aclScalar* alpha = aclCreateScalar(const_cast<float*>(&one), ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(aclnnAddGetWorkspaceSize(ta, tb, alpha, tout, &ws, &ex), 0);
  EXPECT_EQ(aclnnAdd(nullptr, ws, ex, stream), 0);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  std::vector<float> out(2);
  EXPECT_EQ(aclrtMemcpy(out.data(), 8, dout, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  aclDestroyScalar(alpha);
  for (aclTensor* t : {ta, tb, tout}) aclDestroyTensor(t);
  for (void* p : {da, db, dout}) aclrtFree(p);
  return out;
}

// FLT_MAX + FLT_MAX by the DMA engine's reduction (aclrtReduceAsync) on `stream`.
float reduceOverflowing(aclrtStream stream) {
  const float big = std::numeric_limits<float>::max();
  void *dst = nullptr, *src = nullptr;
  EXPECT_EQ(aclrtMalloc(&dst, 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(&src, 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(dst, 4, &big, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(src, 4, &big, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(
      aclrtReduceAsync(dst, src, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, stream, nullptr),
      ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  float out = 0;
  EXPECT_EQ(aclrtMemcpy(&out, 4, dst, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  aclrtFree(dst);
  aclrtFree(src);
  return out;
}

// On the 910B4: Inf/NaN by default; saturation, once set, clamps the results of the streams made
// afterwards (CANN: "streams created later take the mode"), not those of earlier ones.
TEST_F(Profiling, SatModeSaturationClampsStreamsMadeAfterIt) {
  aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
  ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
  EXPECT_EQ(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
  EXPECT_ACL_ERROR(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtGetDeviceSatMode(nullptr), ACL_ERROR_INVALID_PARAM);

  aclrtStream before = nullptr, after = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&before));
  ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
  ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
  EXPECT_EQ(mode, ACL_RT_OVERFLOW_MODE_SATURATION);
  ASSERT_ACL_OK(aclrtCreateStream(&after));

  const float big = std::numeric_limits<float>::max();
  const std::vector<float> ieee = addOverflowing(before);
  EXPECT_TRUE(std::isinf(ieee[0]) && ieee[0] > 0);
  EXPECT_TRUE(std::isnan(ieee[1]));
  EXPECT_EQ(addOverflowing(after), (std::vector<float>{big, 0.0f}));
  EXPECT_TRUE(std::isinf(reduceOverflowing(before)));
  EXPECT_EQ(reduceOverflowing(after), big);

  ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
  ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
  EXPECT_EQ(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
  aclrtDestroyStream(before);
  aclrtDestroyStream(after);
}

// The first 910 knows only saturation (CANN): its default, and Inf/NaN is refused.
class SatModeOn910A : public AclTest {
 protected:
  SatModeOn910A() : AclTest("atlas-800-9000") {}
};

TEST_F(SatModeOn910A, OnlySaturation) {
  aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
  ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
  EXPECT_EQ(mode, ACL_RT_OVERFLOW_MODE_SATURATION);
  EXPECT_EQ(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  const char* msg = aclGetRecentErrMsg();
  EXPECT_TRUE(msg && std::string(msg).find("only the saturation mode") != std::string::npos);
  ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
}

}  // namespace
