// Host callbacks: aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport.
#include <pthread.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "acl_fixture.h"

class Callback : public AclTest {};

namespace {
void addOne(void* data) {
  ++*static_cast<std::atomic<int>*>(data);
}

// What each callback saw: the thread it ran on, recorded before it counts itself.
struct Seen {
  std::mutex mutex;
  std::vector<pthread_t> threads;
  std::atomic<int> calls{0};
};
void recordThread(void* data) {
  auto* seen = static_cast<Seen*>(data);
  {
    std::lock_guard<std::mutex> lock(seen->mutex);
    seen->threads.push_back(pthread_self());
  }
  ++seen->calls;
}
}  // namespace

TEST_F(Callback, ProcessedByTheSubscribedThread) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Seen seen;
  std::atomic<int>& calls = seen.calls;
  std::atomic<bool> stop{false};
  std::atomic<bool> subscribedThreadReady{false};
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  std::thread reporter([&] {
    aclrtSetCurrentContext(ctx);
    subscribedThreadReady = true;
    while (!stop) {
      const aclError e = aclrtProcessReport(10);
      if (e != ACL_SUCCESS && e != ACL_ERROR_RT_REPORT_TIMEOUT &&
          e != ACL_ERROR_RT_THREAD_SUBSCRIBE)
        break;
    }
  });
  while (!subscribedThreadReady) std::this_thread::yield();
  ASSERT_ACL_OK(aclrtSubscribeReport(static_cast<uint64_t>(reporter.native_handle()), s));
  EXPECT_ACL_ERROR(aclrtSubscribeReport(static_cast<uint64_t>(reporter.native_handle()), s),
                   ACL_ERROR_REPEAT_SUBSCRIBE);
  ASSERT_ACL_OK(aclrtLaunchCallback(recordThread, &seen, ACL_CALLBACK_BLOCK, s));
  ASSERT_ACL_OK(aclrtLaunchCallback(recordThread, &seen, ACL_CALLBACK_NO_BLOCK, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  // The blocking callback ran before the stream went on; the other one may still be queued.
  EXPECT_GE(calls.load(), 1);
  while (calls.load() < 2) std::this_thread::yield();
  // Both ran on the thread subscribed with aclrtSubscribeReport (the one calling
  // aclrtProcessReport), as CANN documents, never on this thread or one of the runtime's own.
  const pthread_t subscribed = reporter.native_handle();
  {
    std::lock_guard<std::mutex> lock(seen.mutex);
    ASSERT_EQ(seen.threads.size(), 2u);
    for (const pthread_t t : seen.threads) {
      EXPECT_TRUE(pthread_equal(t, subscribed));
      EXPECT_FALSE(pthread_equal(t, pthread_self()));
    }
  }
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
  EXPECT_ACL_ERROR(aclrtLaunchCallback(addOne, &calls, ACL_CALLBACK_BLOCK, s),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
  EXPECT_ACL_ERROR(aclrtLaunchCallback(nullptr, &calls, ACL_CALLBACK_BLOCK, s),
                   ACL_ERROR_INVALID_PARAM);
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

TEST(HostFunc, ASubscribedThreadRunsThemAndTheStreamWaits) {
  // aclrtLaunchHostFunc blocks its stream until the function returns; a thread subscribed with
  // aclrtSubscribeHostFunc runs it from aclrtProcessHostFunc. The memset queued behind it runs
  // after it: the function saw the old byte.
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext ctx = nullptr;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  uint8_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, 64, 1, 64));
  struct Seen {
    uint8_t* device;
    uint8_t byte = 0;
    int calls = 0;
  } seen{d};
  std::thread worker([&] {
    aclrtSetCurrentContext(ctx);
    while (seen.calls == 0) aclrtProcessHostFunc(100);
  });
  const uint64_t workerId = static_cast<uint64_t>(worker.native_handle());
  ASSERT_ACL_OK(aclrtSubscribeHostFunc(workerId, s));
  ASSERT_ACL_OK(aclrtLaunchHostFunc(
      s,
      [](void* p) {
        auto* seenBy = static_cast<Seen*>(p);
        aclrtMemcpy(&seenBy->byte, 1, seenBy->device, 1, ACL_MEMCPY_DEVICE_TO_HOST);
        seenBy->calls++;
      },
      &seen));
  ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 2, 64, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  worker.join();
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.byte, 1);
  uint8_t after = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&after, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(after, 2);
  ASSERT_ACL_OK(aclrtUnSubscribeHostFunc(workerId, s));
  EXPECT_ACL_ERROR(aclrtLaunchHostFunc(s, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(HostFunc, WithoutASubscriberTheRuntimesThreadRunsThem) {
  // No thread subscribed: as CANN's context callback thread does, one of the runtime's runs the
  // functions, in order.
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::vector<int> order;
  for (int i = 0; i < 3; ++i) {
    struct Arg {
      std::vector<int>* order;
      int value;
    };
    auto* arg = new Arg{&order, i};
    ASSERT_ACL_OK(aclrtLaunchHostFunc(
        s,
        [](void* p) {
          auto* a = static_cast<Arg*>(p);
          a->order->push_back(a->value);
          delete a;
        },
        arg));
  }
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}
