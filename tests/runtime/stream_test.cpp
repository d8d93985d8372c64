// Streams: ordering, concurrency, waits, timeouts, deadlocks and limits.
#include <cstring>
#include <vector>

#include "acl/acl_rt_allocator.h"
#include "acl_fixture.h"
#include "ascendsim/ascendc.h"

class Stream : public AclTest {};
class SmallDevice : public AclTest {
 protected:
  SmallDevice() : AclTest(testData("small-device.yaml")) {}
};

TEST_F(Stream, CreateDestroyAndHandles) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
  EXPECT_EQ(st, ACL_STREAM_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtStreamQuery(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));  // the default stream
}

TEST_F(Stream, CreateWithConfigChecksPriorityAndFlags) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 7, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_ERROR(aclrtCreateStreamWithConfig(&s, 8, 0), ACL_ERROR_INVALID_PARAM);
  // CANN: other bits give a plain stream; HUGE has no effect on these SoCs; PERSISTENT streams
  // belong to model run instances: they take tasks only while bound to a model being built.
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0, 0x100));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_HUGE));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERROR(aclrtMemsetAsync(d, 64, 0, 64, s), ACL_ERROR_RT_STREAM_MODEL);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(Stream, FastLaunchCostsMoreToCreateAndLessToLaunch) {
  // Default machine: stream_create 10 us, fast_launch_stream_create 20 us; memset_async 3 us,
  // fast_launch 1.5 us per enqueue.
  aclrtStream plain = nullptr, fast = nullptr;
  EXPECT_NEAR(hostMicroseconds([&] { aclrtCreateStream(&plain); }), 10.0, 0.01);
  EXPECT_NEAR(
      hostMicroseconds([&] { aclrtCreateStreamWithConfig(&fast, 0, ACL_STREAM_FAST_LAUNCH); }),
      20.0, 0.01);
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  auto tenMemsets = [&](aclrtStream s) {
    return hostMicroseconds([&] {
      for (int i = 0; i < 10; ++i) aclrtMemsetAsync(d, 64, 0, 64, s);
    });
  };
  EXPECT_NEAR(tenMemsets(plain), 10 * 3.0, 0.01);
  EXPECT_NEAR(tenMemsets(fast), 10 * 1.5, 0.01);
  ASSERT_ACL_OK(aclrtSynchronizeStream(plain));
  ASSERT_ACL_OK(aclrtSynchronizeStream(fast));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtDestroyStream(plain));
  ASSERT_ACL_OK(aclrtDestroyStream(fast));
}

TEST_F(Stream, FastSyncReturnsSooner) {
  // Default machine: a synchronize costs 0.2 us of call overhead plus the 2 us wake-up
  // (`synchronize`); on a FAST_SYNC stream the wake-up is the 0.5 us poll (`fast_sync`).
  aclrtStream plain = nullptr, fast = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&plain));
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&fast, 0, ACL_STREAM_FAST_SYNC));
  EXPECT_NEAR(hostMicroseconds([&] { aclrtSynchronizeStream(plain); }), 0.2 + 2.0, 0.01);
  EXPECT_NEAR(hostMicroseconds([&] { aclrtSynchronizeStream(fast); }), 0.2 + 0.5, 0.01);
  ASSERT_ACL_OK(aclrtDestroyStream(plain));
  ASSERT_ACL_OK(aclrtDestroyStream(fast));
}

TEST_F(Stream, TimeoutsAreInSimulatedTime) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  EXPECT_ACL_ERROR(aclrtSynchronizeStreamWithTimeout(s, -2), ACL_ERROR_RT_PARAM_INVALID);
  // 1 GiB at Gen4 x16 (31.5 GB/s) takes about 34 ms: a 1 ms timeout expires, -1 waits.
  const size_t n = 1ull << 30;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  EXPECT_ACL_ERROR(aclrtSynchronizeStreamWithTimeout(s, 1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 100));
  ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Stream, ATimedWaitOnlyWaits) {
  // #16 item 9: a successful timed wait used to simulate everything queued up to its deadline,
  // so the next launch started where that work ended. A 4 KiB copy ends within some 10 us, while
  // another stream moves 256 MiB (about 10 ms); after a wait with a 100 ms timeout, an event
  // recorded next on the first stream must end a few us later, not 10 ms.
  const size_t n = 4096, big = 256ull << 20;
  void *h = nullptr, *d = nullptr, *hb = nullptr, *db = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMallocHost(&hb, big));
  ASSERT_ACL_OK(aclrtMalloc(&db, big, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr, other = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  ASSERT_ACL_OK(aclrtMemcpyAsync(db, big, hb, big, ACL_MEMCPY_HOST_TO_DEVICE, other));
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEvent(&start));
  ASSERT_ACL_OK(aclrtCreateEvent(&end));
  ASSERT_ACL_OK(aclrtRecordEvent(start, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 100));
  ASSERT_ACL_OK(aclrtRecordEvent(end, s));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(end));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start, end));
  EXPECT_LT(ms, 0.1) << "the record after the wait ended " << ms << " ms after the start";
  ASSERT_ACL_OK(aclrtSynchronizeStream(other));
  ASSERT_ACL_OK(aclrtDestroyEvent(start));
  ASSERT_ACL_OK(aclrtDestroyEvent(end));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(other));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
  ASSERT_ACL_OK(aclrtFree(db));
  ASSERT_ACL_OK(aclrtFreeHost(hb));
}

TEST_F(Stream, WaitOnAnEventNobodyRecordsIsADeadlockNotAHang) {
  aclrtStream s = nullptr;
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, e));
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(msg, nullptr);
  EXPECT_NE(std::string(msg).find("deadlock"), std::string::npos) << msg;
  // Recording the event afterwards releases the stream.
  ASSERT_ACL_OK(aclrtRecordEvent(e, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(Stream, WaitEventOrdersAcrossStreams) {
  // s1 copies 64 MiB; s2 waits for it, then copies back. s2's copy must start after s1's ends.
  const size_t n = 64 << 20;
  void *h = nullptr, *h2 = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMallocHost(&h2, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  std::memset(h, 0x3C, n);
  aclrtStream s1 = nullptr, s2 = nullptr;
  aclrtEvent done = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  ASSERT_ACL_OK(aclrtCreateStream(&s2));
  ASSERT_ACL_OK(aclrtCreateEvent(&done));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s1));
  ASSERT_ACL_OK(aclrtRecordEvent(done, s1));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, done));
  ASSERT_ACL_OK(aclrtMemcpyAsync(h2, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s2));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
  EXPECT_EQ(std::memcmp(h, h2, n), 0);  // it read the copied data, not uninitialised memory
  ASSERT_ACL_OK(aclrtDestroyEvent(done));
  ASSERT_ACL_OK(aclrtDestroyStream(s1));
  ASSERT_ACL_OK(aclrtDestroyStream(s2));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
  ASSERT_ACL_OK(aclrtFreeHost(h2));
}

TEST_F(SmallDevice, QueueDepthAndStreamLimit) {
  aclrtStream s = nullptr;
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, e));  // blocks the queue until e is recorded
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(aclrtRecordEvent(e, s));
  // queue_depth 4 and the head can never run: CANN's sender would retry forever; the simulator
  // sees that no slot can free and says so.
  EXPECT_ACL_ERROR(aclrtRecordEvent(e, s), ACL_ERROR_RT_STREAM_TASK_FULL);
  // max_streams 4: the default stream, the runtime's copy stream and s leave one.
  aclrtStream more = nullptr, tooMany = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&more));
  EXPECT_ACL_ERROR(aclrtCreateStream(&tooMany), ACL_ERROR_RT_NO_STREAM_RESOURCE);
  ASSERT_ACL_OK(aclrtRecordEvent(e, more));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(more));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_F(Stream, ThousandsOfLaunchesWithoutSynchronisingAllRunInOrder) {
  // 100000 asynchronous memsets of one byte on one stream (queue_depth 1024): each enqueue costs
  // 3 us of host time and each memset about 1 us on the device, so at any simulated moment almost
  // none are pending and every launch succeeds (the vendor's 0_simple_stream sample expects this).
  // The byte ends as the last value written: 99999 % 251 = 99999 - 398 x 251 = 101, so the tasks
  // ran in order.
  uint8_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 64, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  for (int i = 0; i < 100000; ++i) {
    ASSERT_EQ(aclrtMemsetAsync(d, 64, i % 251, 1, s), ACL_SUCCESS) << "launch " << i;
  }
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  uint8_t back = 0;
  ASSERT_ACL_OK(aclrtMemcpy(&back, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, 101);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(SmallDevice, AFullQueueMakesTheSubmitterWait) {
  // queue_depth 4. Four 1 MiB H2D copies fill stream s; the fifth launch must wait until the
  // first ends. An event recorded on idle stream s2 right after the fifth launch therefore ends
  // after the first copy: at least 1 MiB / 26.4 GB/s (Gen4 x16's read-limited rate) = 39.7 us
  // after the start event, where without the wait it would be 5 launches x 3 us later. It ends
  // before the second copy does: under 2 x 39.7 us + 20 us of launches and setup.
  const size_t n = 1 << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr, s2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&s2));
  aclrtEvent start = nullptr, after = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&start));
  ASSERT_ACL_OK(aclrtCreateEvent(&after));
  ASSERT_ACL_OK(aclrtRecordEvent(start, s2));
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS)
        << "copy " << i;
  }
  ASSERT_ACL_OK(aclrtRecordEvent(after, s2));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start, after));
  EXPECT_GT(ms * 1000, 1048576 / 26.4e9 * 1e6);
  EXPECT_LT(ms * 1000, 2 * 1048576 / 26.4e9 * 1e6 + 20);
  ASSERT_ACL_OK(aclrtDestroyEvent(start));
  ASSERT_ACL_OK(aclrtDestroyEvent(after));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyStream(s2));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Stream, ConfigHandlesMakeStreamsOfTheirPriorityAndFlags) {
  // CANN's stream configuration: a zeroed handle, attributes of their own width (the flag as
  // size_t or, as CANN's sample passes it, uint32_t), 0..7 priorities; the stream answers what
  // it was made with. Least priority 7, greatest 0.
  aclrtStreamConfigHandle* config = aclrtCreateStreamConfigHandle();
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->flag, 0u);
  EXPECT_EQ(config->priority, 0u);
  const uint32_t flag32 = ACL_STREAM_FAST_SYNC;
  const uint32_t priority = 5, tooLow = 8;
  const uint64_t priority64 = 5;
  ASSERT_ACL_OK(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_FLAG, &flag32, sizeof flag32));
  ASSERT_ACL_OK(
      aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority));
  EXPECT_ACL_ERROR(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_PRIORITY, &tooLow, sizeof tooLow),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(
      aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_PRIORITY, &priority64, sizeof priority64),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtSetStreamConfigOpt(config, static_cast<aclrtStreamConfigAttr>(9), &priority,
                                           sizeof priority),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_FLAG, nullptr, 4),
                   ACL_ERROR_INVALID_PARAM);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamV2(&s, config));
  int32_t id = -1, defaultId = -1;
  uint32_t flags = 99, got = 99;
  ASSERT_ACL_OK(aclrtStreamGetId(s, &id));
  ASSERT_ACL_OK(aclrtStreamGetId(nullptr, &defaultId));
  EXPECT_NE(id, defaultId);
  ASSERT_ACL_OK(aclrtStreamGetFlags(s, &flags));
  EXPECT_EQ(flags, ACL_STREAM_FAST_SYNC);
  ASSERT_ACL_OK(aclrtStreamGetPriority(s, &got));
  EXPECT_EQ(got, 5u);
  ASSERT_ACL_OK(aclrtStreamGetPriority(nullptr, &got));
  EXPECT_EQ(got, 0u);
  int32_t least = -1, greatest = -1;
  ASSERT_ACL_OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT_EQ(least, 7);
  EXPECT_EQ(greatest, 0);
  // Model work memory is for model run instances: refused.
  void* work = &least;
  ASSERT_ACL_OK(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_WORK_ADDR_PTR, &work, sizeof work));
  aclrtStream refused = nullptr;
  EXPECT_ACL_ERROR(aclrtCreateStreamV2(&refused, config), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  ASSERT_ACL_OK(aclrtDestroyStreamConfigHandle(config));
  EXPECT_ACL_ERROR(aclrtDestroyStreamConfigHandle(config), ACL_ERROR_INVALID_PARAM);  // twice
  aclrtStreamConfigHandle mine{};
  EXPECT_ACL_ERROR(aclrtDestroyStreamConfigHandle(&mine),
                   ACL_ERROR_INVALID_PARAM);              // not made there
  ASSERT_ACL_OK(aclrtCreateStreamV2(&refused, nullptr));  // no handle: a plain stream
  ASSERT_ACL_OK(aclrtDestroyStream(refused));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

namespace {
// Two streams, `first` created before `second`, each wait for one gate event and then run a 1 MiB
// kernel; returns the end times (us) of the kernels of first and second.
std::pair<uint64_t, uint64_t> kernelEndsBehindOneGate(uint32_t firstPriority,
                                                      uint32_t secondPriority, void* d) {
  aclrtStream first = nullptr, second = nullptr;
  EXPECT_EQ(aclrtCreateStreamWithConfig(&first, firstPriority, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateStreamWithConfig(&second, secondPriority, 0), ACL_SUCCESS);
  aclrtEvent gate = nullptr, endFirst = nullptr, endSecond = nullptr;
  EXPECT_EQ(aclrtCreateEventWithFlag(&gate, ACL_EVENT_SYNC), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateEventWithFlag(&endFirst, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateEventWithFlag(&endSecond, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  auto* bytes = static_cast<uint8_t*>(d);
  for (aclrtStream s : {first, second}) {
    EXPECT_EQ(aclrtStreamWaitEvent(s, gate), ACL_SUCCESS);
    EXPECT_EQ(ascendsim::ascendc::launch("Fill", 1, nullptr, s,
                                         [bytes] { std::memset(bytes, 1, 1 << 20); }),
              0u);
  }
  EXPECT_EQ(aclrtRecordEvent(endFirst, first), ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(endSecond, second), ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(gate, nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  uint64_t a = 0, b = 0;
  EXPECT_EQ(aclrtEventGetTimestamp(endFirst, &a), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventGetTimestamp(endSecond, &b), ACL_SUCCESS);
  for (aclrtEvent e : {gate, endFirst, endSecond}) EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(first), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(second), ACL_SUCCESS);
  return {a, b};
}
}  // namespace

TEST_F(Stream, TheGreaterPriorityTakesTheAiCoresFirst) {
  // Two kernels become ready at the same moment (their streams wait for one event); the AI Cores
  // run one kernel at a time. At equal priorities the earlier-created stream's kernel runs first;
  // when the later stream has the greater priority (0 over 7) its kernel runs first instead, and
  // the other ends one kernel later (a 1 MiB kernel takes well over 10 us).
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  const auto equal = kernelEndsBehindOneGate(3, 3, d);
  EXPECT_LT(equal.first + 10, equal.second);
  const auto favoured = kernelEndsBehindOneGate(7, 0, d);
  EXPECT_LT(favoured.second + 10, favoured.first);
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(Stream, ValueWaitHoldsAStreamUntilMemoryMeetsItsCondition) {
  // Stream `waiter` waits for the 8 bytes at d[0] to equal 100, then writes 7 to d[1]; `writer`
  // first writes 99 (not enough), then 100. d[1] reads 7 afterwards, the waiter ended after the
  // second write did, and each condition mode means what CANN documents.
  uint64_t* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&d), 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, 64, 0, 64));
  aclrtStream waiter = nullptr, writer = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&waiter));
  ASSERT_ACL_OK(aclrtCreateStream(&writer));
  aclrtEvent waited = nullptr, wrote = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&waited, ACL_EVENT_TIME_LINE));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&wrote, ACL_EVENT_TIME_LINE));
  ASSERT_ACL_OK(aclrtValueWait(d, 100, ACL_STREAM_WAIT_VALUE_EQ, waiter));
  ASSERT_ACL_OK(aclrtRecordEvent(waited, waiter));
  ASSERT_ACL_OK(aclrtValueWrite(d + 1, 7, 0, waiter));
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  ASSERT_ACL_OK(aclrtValueWrite(d, 99, 0, writer));
  ASSERT_ACL_OK(aclrtSynchronizeStream(writer));
  ASSERT_ACL_OK(aclrtStreamQuery(waiter, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);  // 99 is not 100
  ASSERT_ACL_OK(aclrtValueWrite(d, 100, 0, writer));
  ASSERT_ACL_OK(aclrtRecordEvent(wrote, writer));
  ASSERT_ACL_OK(aclrtSynchronizeStream(waiter));
  uint64_t back[2] = {};
  ASSERT_ACL_OK(aclrtMemcpy(back, 16, d, 16, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back[0], 100u);
  EXPECT_EQ(back[1], 7u);
  uint64_t waitedAt = 0, wroteAt = 0;
  ASSERT_ACL_OK(aclrtEventGetTimestamp(waited, &waitedAt));
  ASSERT_ACL_OK(aclrtEventGetTimestamp(wrote, &wroteAt));
  EXPECT_GE(waitedAt, wroteAt);
  // The modes, against the value 100 now in d[0]: each either passes at once or never does (a
  // wait that can never end is reported as a deadlock by the synchronisation).
  struct Case {
    uint32_t flag;
    uint64_t value;
    bool passes;
  };
  const Case cases[] = {
      {ACL_STREAM_WAIT_VALUE_GEQ, 100, true},   {ACL_STREAM_WAIT_VALUE_GEQ, 101, false},
      {ACL_STREAM_WAIT_VALUE_GEQ, ~0ull, true},  // -1: signed compare
      {ACL_STREAM_WAIT_VALUE_AND, 4, true},     {ACL_STREAM_WAIT_VALUE_AND, 3, false},
      {ACL_STREAM_WAIT_VALUE_NOR, 1, true},     {ACL_STREAM_WAIT_VALUE_NOR, ~100ull, false}};
  for (const Case& c : cases) {
    aclrtStream s = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&s));
    ASSERT_ACL_OK(aclrtValueWait(d, c.value, c.flag, s));
    const aclError code = aclrtSynchronizeStreamWithTimeout(s, 10);
    EXPECT_EQ(code == ACL_SUCCESS, c.passes)
        << "flag " << c.flag << " value " << c.value << " code " << code;
    ASSERT_ACL_OK(aclrtDestroyStreamForce(s));
  }
  EXPECT_ACL_ERROR(aclrtValueWrite(nullptr, 1, 0, writer), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtValueWrite(d, 1, 1, writer), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtValueWait(d, 1, 4, writer), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtValueWait(reinterpret_cast<uint8_t*>(d) + 60, 1, 0, writer),
                   ACL_ERROR_RT_PARAM_INVALID);  // leaves the 64 bytes
  uint64_t host = 0;
  EXPECT_ACL_ERROR(aclrtValueWrite(&host, 1, 0, writer), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtDestroyEvent(waited));
  ASSERT_ACL_OK(aclrtDestroyEvent(wrote));
  ASSERT_ACL_OK(aclrtDestroyStream(waiter));
  ASSERT_ACL_OK(aclrtDestroyStream(writer));
  ASSERT_ACL_OK(aclrtFree(d));
}

namespace {
void* allocateBlock(aclrtAllocator, size_t) {
  return nullptr;
}
void freeBlock(aclrtAllocator, aclrtAllocatorBlock) {}
void* addressOfBlock(aclrtAllocatorBlock block) {
  return block;
}
}  // namespace

TEST_F(Stream, AnAllocatorRegisteredOnAStreamIsHandedBack) {
  // CANN's rules: a registration needs the object and the alloc, free and get-address functions
  // (advise optional), is a copy (changing the description later does not change it), lives with
  // its stream, and a stream without one is an invalid parameter.
  int object = 0;
  aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
  ASSERT_NE(desc, nullptr);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtAllocatorSetObjToDesc(desc, &object));
  ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(desc, allocateBlock));
  ASSERT_ACL_OK(aclrtAllocatorSetFreeFuncToDesc(desc, freeBlock));
  EXPECT_ACL_ERROR(aclrtAllocatorRegister(s, desc),
                   ACL_ERROR_INVALID_PARAM);  // no get-address function
  ASSERT_ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, addressOfBlock));
  EXPECT_ACL_ERROR(aclrtAllocatorRegister(nullptr, desc), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtAllocatorRegister(s, desc));
  aclrtAllocatorDesc gotDesc = nullptr;
  aclrtAllocator gotObject = nullptr;
  aclrtAllocatorAllocFunc gotAlloc = nullptr;
  aclrtAllocatorAllocAdviseFunc gotAdvise =
      reinterpret_cast<aclrtAllocatorAllocAdviseFunc>(&object);
  aclrtAllocatorGetAddrFromBlockFunc gotAddress = nullptr;
  ASSERT_ACL_OK(aclrtAllocatorGetByStream(s, &gotDesc, &gotObject, &gotAlloc, nullptr, &gotAdvise,
                                          &gotAddress));
  EXPECT_EQ(gotDesc, desc);
  EXPECT_EQ(gotObject, &object);
  EXPECT_EQ(gotAlloc, &allocateBlock);
  EXPECT_EQ(gotAdvise, nullptr);
  EXPECT_EQ(gotAddress, &addressOfBlock);
  ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(desc));  // the stream keeps its copy
  ASSERT_ACL_OK(
      aclrtAllocatorGetByStream(s, &gotDesc, &gotObject, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(gotObject, &object);
  EXPECT_ACL_ERROR(aclrtAllocatorDestroyDesc(desc), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtAllocatorSetObjToDesc(desc, &object), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtAllocatorUnregister(s));
  EXPECT_ACL_ERROR(
      aclrtAllocatorGetByStream(s, &gotDesc, nullptr, nullptr, nullptr, nullptr, nullptr),
      ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(Stream, TheNullStreamIsTheCurrentContextsDefaultStream) {
  // NULL names the default stream of the thread's current context, whichever that is now. A
  // 64 MiB host-to-device copy on the default context's default stream takes milliseconds of
  // simulated time (at most some tens of GB/s over PCIe): just after it is queued that stream is
  // not done, while NULL, with an explicit context current, names that context's idle stream.
  const size_t n = 64 << 20;
  aclrtStream first = nullptr, second = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&first));
  void* host = nullptr;
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&host, n));
  ASSERT_ACL_OK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  aclrtContext def = nullptr, ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&second));
  EXPECT_NE(first, second);
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(nullptr, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtStreamQuery(first, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  ASSERT_ACL_OK(aclrtSetCurrentContext(def));
  ASSERT_ACL_OK(aclrtStreamQuery(nullptr, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclrtStreamQuery(first, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  ASSERT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtFreeHost(host));
}
