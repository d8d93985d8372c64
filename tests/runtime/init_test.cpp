// aclInit / aclFinalize / aclrtGetVersion / aclGetRecentErrMsg.
#include <fstream>

#include <thread>

#include "acl/acl_rt_allocator.h"
#include "acl_fixture.h"

TEST(Init, CallsBeforeInitAreRefused) {
  int32_t device = -1;
  EXPECT_ACL_ERROR(aclrtGetDevice(&device), ACL_ERROR_UNINITIALIZE);
  EXPECT_ACL_ERROR(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  EXPECT_ACL_ERROR(aclFinalize(), ACL_ERROR_UNINITIALIZE);
}

// CANN's aclrtGetDeviceCount asks the driver and needs no aclInit (hicann/runtime
// src/acl/aclrt_impl/device.cpp; hccl_test counts devices before aclInit). The default machine
// has one device.
TEST(Init, DeviceCountAnswersBeforeInit) {
  uint32_t count = 0;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
  EXPECT_EQ(count, 1u);
  EXPECT_ACL_ERROR(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
}

// CANN's aclrtGetRunMode needs no aclInit either (runtime-only samples ask it first, to choose
// between host and device memory for their buffers). The default machine is a server with its
// NPUs in PCIe slots: the program runs on the host, ACL_HOST (1).
TEST(Init, RunModeAnswersBeforeInit) {
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_ACL_OK(aclrtGetRunMode(&mode));
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_EQ(static_cast<int>(mode), 1);
  EXPECT_ACL_ERROR(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Init, RepeatedInitAndFinalize) {
  ASSERT_ACL_OK(aclInit(nullptr));
  EXPECT_ACL_ERROR(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  ASSERT_ACL_OK(aclFinalize());
  EXPECT_ACL_ERROR(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  // The same machine may be initialised again in the same process.
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Init, ConfigFileMustExistAndBeJson) {
  EXPECT_ACL_ERROR(aclInit("/no/such/acl.json"), ACL_ERROR_INVALID_FILE);
  EXPECT_ACL_ERROR(aclInit(::testing::TempDir().c_str()),
                   ACL_ERROR_INVALID_FILE);  // a directory (#16 item 15)
  const std::string bad = ::testing::TempDir() + "/bad-acl.json";
  std::ofstream(bad) << "{ not json";
  EXPECT_ACL_ERROR(aclInit(bad.c_str()), ACL_ERROR_PARSE_FILE);
  const std::string good = ::testing::TempDir() + "/acl.json";
  std::ofstream(good) << "{}";
  ASSERT_ACL_OK(aclInit(good.c_str()));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Init, InvalidMachineConfigIsReported) {
  setenv("ASCENDSIM_CONFIG", testData("bad-machine.yaml").c_str(), 1);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_FILE);
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(msg, nullptr);
  EXPECT_NE(std::string(msg).find("bad-machine.yaml:6:"), std::string::npos) << msg;
}

TEST(Init, VersionAndRecentErrorMessage) {
  int32_t major = 0, minor = 0, patch = 0;
  ASSERT_ACL_OK(aclrtGetVersion(&major, &minor, &patch));
  // The headers of CANN's runtime 9.1.0 (github:hicann/runtime, include/external/acl/acl_rt.h)
  // say ACL 1.17.0.
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 17);
  EXPECT_EQ(patch, 0);
  EXPECT_ACL_ERROR(aclrtGetVersion(nullptr, &minor, &patch), ACL_ERROR_INVALID_PARAM);
  // The message was read (and cleared) by EXPECT_ACL_ERROR; it is cleared on read.
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclrtGetVersion(&major, nullptr, &patch), ACL_ERROR_INVALID_PARAM);
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(msg, nullptr);
  EXPECT_NE(std::string(msg).find("minorVersion is NULL"), std::string::npos) << msg;
}

TEST(Init, PackageVersionAsTextAndNumber) {
  // The samples' 2_system_info and 3_cross_version ask for "runtime" into a buffer of
  // ACL_PKG_VERSION_MAX_SIZE (128 in CANN); the number weighs major 10^7, minor 10^5, patch 10^3
  // (CANN's compatibility guide: 8.5.1 is 80501000), so 9.1.0 is 90100000. No aclInit needed.
  static_assert(ACL_PKG_VERSION_MAX_SIZE == 128, "CANN's value");
  char name[] = "runtime";
  char text[ACL_PKG_VERSION_MAX_SIZE] = {};
  int32_t number = 0;
  ASSERT_ACL_OK(aclsysGetVersionStr(name, text));
  ASSERT_ACL_OK(aclsysGetVersionNum(name, &number));
  EXPECT_STREQ(text, "9.1.0");
  EXPECT_EQ(number, 90100000);
  char alias[] = "npu_runtime";  // '_' and '-' stand for each other, as in CANN
  ASSERT_ACL_OK(aclsysGetVersionNum(alias, &number));
  EXPECT_EQ(number, 90100000);
  char unknown[] = "toolkit";
  EXPECT_ACL_ERROR(aclsysGetVersionStr(unknown, text), ACL_ERROR_INVALID_FILE);
  EXPECT_ACL_ERROR(aclsysGetVersionNum(name, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclsysGetVersionStr(nullptr, text), ACL_ERROR_INVALID_PARAM);
}

TEST(Init, DataBuffersDescribeTheProgramsMemory) {
  // aclDataBuffer (the vendor's 0_hello_cann sample wraps an output in one): no aclInit needed,
  // the address and size come back, updates take, destroyed or made-up handles are refused.
  char bytes[64];
  aclDataBuffer* b = aclCreateDataBuffer(bytes, sizeof bytes);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(aclGetDataBufferAddr(b), bytes);
  EXPECT_EQ(aclGetDataBufferSizeV2(b), sizeof bytes);
  ASSERT_ACL_OK(aclUpdateDataBuffer(b, bytes + 8, 16));
  EXPECT_EQ(aclGetDataBufferAddr(b), bytes + 8);
  EXPECT_EQ(aclGetDataBufferSizeV2(b), 16u);
  ASSERT_ACL_OK(aclDestroyDataBuffer(b));
  EXPECT_ACL_ERROR(aclDestroyDataBuffer(b), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetDataBufferAddr(b), nullptr);
  (void)aclGetRecentErrMsg();
  EXPECT_ACL_ERROR(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Init, ResetDeviceForceReleasesEveryReference) {
  // aclrtSetDevice three times needs three aclrtResetDevice calls, or one aclrtResetDeviceForce.
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtResetDeviceForce(0));
  int32_t device = -1;
  EXPECT_ACL_ERROR(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);  // nothing current any more
  EXPECT_ACL_ERROR(aclrtResetDeviceForce(42), ACL_ERROR_RT_INVALID_DEVICEID);
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Init, LastErrorIsPerThreadAndClearedByGet) {
  // The vendor's 1_error_handling sample: after a failed call, peek and get both give its code;
  // get clears it, so both then give ACL_SUCCESS. Successful calls do not clear it.
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
  aclrtRunMode mode;
  ASSERT_ACL_OK(aclrtGetRunMode(&mode));
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  // Another thread has its own.
  EXPECT_EQ(aclrtSetDevice(77), ACL_ERROR_RT_INVALID_DEVICEID);
  aclError other = -1;
  std::thread([&] { other = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL); }).join();
  EXPECT_EQ(other, ACL_SUCCESS);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
  (void)aclGetRecentErrMsg();
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Init, RecentErrorMessageOutlivesPeekingTheLastError) {
  // The vendor's 1_error_handling sample prints, after aclrtGetRunMode(NULL) fails, the code from
  // aclrtPeekAtLastError and aclrtGetLastError, then aclGetRecentErrMsg: the message still names
  // the failed call (peeking returns the old code; it is no new failure), and is read once.
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  const char* message = aclGetRecentErrMsg();
  ASSERT_NE(message, nullptr);
  EXPECT_NE(std::string(message).find("aclrtGetRunMode"), std::string::npos) << message;
  EXPECT_NE(std::string(message).find("runMode"), std::string::npos) << message;
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);  // read once
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Init, RecentErrorMessageOutlivesSuccessfulCalls) {
  // A failure's message stays until aclGetRecentErrMsg reads it, whatever succeeds in between: a
  // call answered by the machine and calls a served program runs itself (an allocator
  // description, a stream configuration).
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
  aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
  ASSERT_NE(desc, nullptr);
  ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(desc));
  aclrtStreamConfigHandle* config = aclrtCreateStreamConfigHandle();
  ASSERT_NE(config, nullptr);
  ASSERT_ACL_OK(aclrtDestroyStreamConfigHandle(config));
  int32_t device = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&device));
  const char* message = aclGetRecentErrMsg();
  ASSERT_NE(message, nullptr);
  EXPECT_NE(std::string(message).find("aclrtGetRunMode"), std::string::npos) << message;
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}

// aclrtGetSocName: the SoC version the machine's devices name, "Ascend910B4" for the built-in
// default (a 910B4-class device), before aclInit too (CANN answers without it: the vendor's sample
// scripts call it from a helper that never initialises, to find the kernel toolchain).
TEST(Init, SocNameIsTheMachines) {
  unsetenv("ASCENDSIM_CONFIG");
  const char* before = aclrtGetSocName();
  ASSERT_NE(before, nullptr);
  EXPECT_STREQ(before, "Ascend910B4");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  const char* soc = aclrtGetSocName();
  ASSERT_NE(soc, nullptr);
  EXPECT_STREQ(soc, "Ascend910B4");
  aclFinalize();
}

TEST(Init, SocNameBeforeAclInitFollowsAscendsimConfig) {
  setenv("ASCENDSIM_CONFIG", "atlas-300i-duo", 1);
  const char* soc = aclrtGetSocName();
  ASSERT_NE(soc, nullptr);
  EXPECT_STREQ(soc, "Ascend310P3");
  unsetenv("ASCENDSIM_CONFIG");
}
