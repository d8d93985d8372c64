#pragma once
// Tests of the public C API. ctest runs every test in its own process, so each may pick its
// machine (ASCENDSIM_CONFIG) before aclInit.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "acl/acl.h"

#define ASSERT_ACL_OK(expr)                                                 \
  do {                                                                      \
    const aclError acl_ok_ = (expr);                                        \
    const char* msg_ = acl_ok_ ? aclGetRecentErrMsg() : nullptr;            \
    ASSERT_EQ(acl_ok_, ACL_SUCCESS) << #expr << ": " << (msg_ ? msg_ : ""); \
  } while (0)

#define EXPECT_ACL_ERROR(expr, code)                                         \
  do {                                                                       \
    const aclError acl_err_ = (expr);                                        \
    EXPECT_EQ(acl_err_, code) << #expr;                                      \
    const char* msg_ = aclGetRecentErrMsg();                                 \
    EXPECT_TRUE(acl_err_ == ACL_SUCCESS || (msg_ && *msg_)) << "no message"; \
  } while (0)

// Simulated milliseconds between two TIME_LINE events recorded on `stream` around what `work`
// queues there (after the stream has run it).
template <class Work>
float elapsedMs(Work&& work, aclrtStream stream = nullptr) {
  aclrtEvent before = nullptr, after = nullptr;
  EXPECT_EQ(aclrtCreateEventWithFlag(&before, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateEventWithFlag(&after, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(before, stream), ACL_SUCCESS);
  work();
  EXPECT_EQ(aclrtRecordEvent(after, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  float ms = 0;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, before, after), ACL_SUCCESS);
  aclrtDestroyEvent(before);
  aclrtDestroyEvent(after);
  return ms;
}

// Simulated host time `work` took on the calling thread, in us: elapsed time between two records
// on an idle stream of their own (each ends one task launch after the thread's clock at its call)
// minus the second record's own host cost (api_overhead.event, 1 us on every preset).
template <class Work>
double hostMicroseconds(Work work) {
  aclrtStream ruler = nullptr;
  aclrtEvent a = nullptr, b = nullptr;
  if (aclrtCreateStream(&ruler) || aclrtCreateEvent(&a) || aclrtCreateEvent(&b)) return -1;
  aclrtRecordEvent(a, ruler);
  work();
  aclrtRecordEvent(b, ruler);
  aclrtSynchronizeStream(ruler);
  float ms = -1;
  aclrtEventElapsedTime(&ms, a, b);
  aclrtDestroyEvent(a);
  aclrtDestroyEvent(b);
  aclrtDestroyStream(ruler);
  return ms * 1000.0 - 1.0;
}

inline std::string testData(const std::string& name) {
  return std::string(ASCENDSIM_TEST_DATA) + "/" + name;
}

// Initialises AscendCL on `machine` (a preset name or YAML path; empty: built-in default) and
// sets device 0; finalises afterwards.
class AclTest : public ::testing::Test {
 protected:
  explicit AclTest(std::string machine = "") : machine_(std::move(machine)) {}
  void SetUp() override {
    if (machine_.empty()) {
      unsetenv("ASCENDSIM_CONFIG");
    } else {
      setenv("ASCENDSIM_CONFIG", machine_.c_str(), 1);
    }
    ASSERT_ACL_OK(aclInit(nullptr));
    ASSERT_ACL_OK(aclrtSetDevice(0));
  }
  void TearDown() override {
    aclrtResetDevice(0);
    aclFinalize();
  }
  std::string machine_;
};
