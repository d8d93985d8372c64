// Host callbacks: aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport.
#include <pthread.h>

#include <atomic>
#include <thread>

#include "acl_fixture.h"

class Callback : public AclTest {};

namespace {
void addOne(void* data) { ++*static_cast<std::atomic<int>*>(data); }
}  // namespace

TEST_F(Callback, ProcessedByTheSubscribedThread) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> calls{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> subscribedThreadReady{false};
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  std::thread reporter([&] {
    aclrtSetCurrentContext(ctx);
    subscribedThreadReady = true;
    while (!stop) {
      const aclError e = aclrtProcessReport(10);
      if (e != ACL_SUCCESS && e != ACL_ERROR_RT_REPORT_TIMEOUT && e != ACL_ERROR_RT_THREAD_SUBSCRIBE) break;
    }
  });
  while (!subscribedThreadReady) std::this_thread::yield();
  ASSERT_ACL_OK(aclrtSubscribeReport(static_cast<uint64_t>(reporter.native_handle()), s));
  EXPECT_ACL_ERROR(aclrtSubscribeReport(static_cast<uint64_t>(reporter.native_handle()), s), ACL_ERROR_REPEAT_SUBSCRIBE);
  ASSERT_ACL_OK(aclrtLaunchCallback(addOne, &calls, ACL_CALLBACK_BLOCK, s));
  ASSERT_ACL_OK(aclrtLaunchCallback(addOne, &calls, ACL_CALLBACK_NO_BLOCK, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  // The blocking callback ran before the stream went on; the other one may still be queued.
  EXPECT_GE(calls.load(), 1);
  while (calls.load() < 2) std::this_thread::yield();
  ASSERT_ACL_OK(aclrtUnSubscribeReport(static_cast<uint64_t>(reporter.native_handle()), s));
  stop = true;
  reporter.join();
  EXPECT_EQ(calls.load(), 2);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(Callback, ErrorCodes) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> calls{0};
  EXPECT_ACL_ERROR(aclrtLaunchCallback(addOne, &calls, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
  EXPECT_ACL_ERROR(aclrtLaunchCallback(nullptr, &calls, ACL_CALLBACK_BLOCK, s), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
  const uint64_t self = static_cast<uint64_t>(pthread_self());
  EXPECT_ACL_ERROR(aclrtUnSubscribeReport(self, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
  ASSERT_ACL_OK(aclrtSubscribeReport(self, s));
  EXPECT_ACL_ERROR(aclrtProcessReport(5), ACL_ERROR_RT_REPORT_TIMEOUT);  // nothing launched
  // The same thread may launch and then process its own (non-blocking) callback.
  ASSERT_ACL_OK(aclrtLaunchCallback(addOne, &calls, ACL_CALLBACK_NO_BLOCK, s));
  ASSERT_ACL_OK(aclrtProcessReport(-1));
  EXPECT_EQ(calls.load(), 1);
  ASSERT_ACL_OK(aclrtUnSubscribeReport(self, s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}
