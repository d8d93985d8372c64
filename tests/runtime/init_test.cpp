// aclInit / aclFinalize / aclrtGetVersion / aclGetRecentErrMsg.
#include <fstream>

#include "acl_fixture.h"

TEST(Init, CallsBeforeInitAreRefused) {
  uint32_t count = 0;
  EXPECT_ACL_ERROR(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
  EXPECT_ACL_ERROR(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  EXPECT_ACL_ERROR(aclFinalize(), ACL_ERROR_UNINITIALIZE);
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
  EXPECT_EQ(major, ACL_MAJOR_VERSION);
  EXPECT_EQ(minor, ACL_MINOR_VERSION);
  EXPECT_ACL_ERROR(aclrtGetVersion(nullptr, &minor, &patch), ACL_ERROR_INVALID_PARAM);
  // The message was read (and cleared) by EXPECT_ACL_ERROR; it is cleared on read.
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclrtGetVersion(&major, nullptr, &patch), ACL_ERROR_INVALID_PARAM);
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(msg, nullptr);
  EXPECT_NE(std::string(msg).find("minorVersion is NULL"), std::string::npos) << msg;
}
