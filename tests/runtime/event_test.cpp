// Events: record, query, synchronise, elapsed time, limits.
#include <cstring>

#include "acl_fixture.h"

class Event : public AclTest {};
class FixedRateEvent : public AclTest {
 protected:
  FixedRateEvent() : AclTest(testData("fixed-rate.yaml")) {}
};
class SmallDevice : public AclTest {
 protected:
  SmallDevice() : AclTest(testData("small-device.yaml")) {}
};

TEST_F(FixedRateEvent, ElapsedTimeOfACopyIsItsSimulatedDuration) {
  // 64 MiB H2D on the default machine with the fixed-rate model (the link's line rate bounds it).
  // The start record ends 1 us (task launch) after it is submitted; the copy is submitted 3 us
  // (memcpy_async overhead) after the record and takes 1 us launch + 1 us DMA setup + 67108864 B /
  // (16 GT/s x 16 lanes x 128/130 / 8 = 31.5077 GB/s) = 2129.9 us; the end record adds 1 us launch.
  // So the two records end 3 - 1 + 1 + 1 + 2129.9 + 1 = 2134.9 us apart.
  const size_t n = 64 << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&start));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE));
  ASSERT_ACL_OK(aclrtRecordEvent(start, nullptr));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  ASSERT_ACL_OK(aclrtRecordEvent(end, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(end));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start, end));
  const double expected =
      (3 - 1 + 1 + 1 + 1) * 1e-3 + 67108864.0 / (16e9 * 16 * 128 / 130 / 8) * 1e3;
  EXPECT_NEAR(ms, expected, 1e-5);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Event, QueryStatuses) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);  // never recorded
  ASSERT_ACL_OK(aclrtRecordEvent(e, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(e));
  ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  aclrtEventStatus old = ACL_EVENT_STATUS_NOT_READY;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  ASSERT_ACL_OK(aclrtQueryEvent(e, &old));  // deprecated in CANN, still supported
#pragma GCC diagnostic pop
  EXPECT_EQ(old, ACL_EVENT_STATUS_COMPLETE);
  aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_NOT_READY;
  ASSERT_ACL_OK(aclrtQueryEventWaitStatus(e, &ws));
  EXPECT_EQ(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtResetEvent(e, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  EXPECT_ACL_ERROR(aclrtQueryEventStatus(e, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_F(Event, RecordIsNotCompleteBeforeItsStreamGetsThere) {
  const size_t n = 256 << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  ASSERT_ACL_OK(aclrtRecordEvent(e, nullptr));
  aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);  // the 8.5 ms copy is still running
  float ms = 0;
  aclrtEvent e2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e2));
  ASSERT_ACL_OK(aclrtRecordEvent(e2, nullptr));
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, e, e2), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
  EXPECT_ACL_ERROR(aclrtSynchronizeEventWithTimeout(e, 1), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
  EXPECT_ACL_ERROR(aclrtSynchronizeEventWithTimeout(e, -3), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtSynchronizeEventWithTimeout(e, 1000));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(e2));
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, e, e2));
  EXPECT_NEAR(ms, 1e-3, 1e-6);  // one task launch apart
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Event, HandlesAndNullArguments) {
  aclrtEvent e = nullptr;
  EXPECT_ACL_ERROR(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  // CANN's event creation: no flag, or bits it does not know, are invalid values (107000).
  EXPECT_ACL_ERROR(aclrtCreateEventWithFlag(&e, 0x400), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtCreateEventWithFlag(&e, 0), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtCreateEventWithFlag(&e, ACL_EVENT_DEVICE_USE_ONLY),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  // External events synchronise a model run instance with work outside it (model_ri_test.cpp).
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_ERROR(aclrtRecordEvent(e, nullptr), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtDestroyEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtRecordEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtSynchronizeEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtStreamWaitEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  float ms = 0;
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(nullptr, e, e), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Event, SynchronizingAnEventNobodyRecordsIsADeadlock) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  EXPECT_ACL_ERROR(aclrtSynchronizeEvent(e), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_F(SmallDevice, EventLimit) {
  aclrtEvent e[4] = {};
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(aclrtCreateEvent(&e[i]));
  EXPECT_ACL_ERROR(aclrtCreateEvent(&e[3]), ACL_ERROR_RT_NO_EVENT_RESOURCE);  // max_events 3
  ASSERT_ACL_OK(aclrtDestroyEvent(e[0]));
  ASSERT_ACL_OK(aclrtCreateEvent(&e[3]));
}

TEST_F(Event, A4KiBCopyTakesOverheadSetupRoundTripAndTransfer) {
  // Default machine, pinned 4 KiB H2D between two records. Records: the start record ends 1 us
  // (launch) after it is queued; the copy is queued 3 us (memcpy_async) after it and waits 1 us
  // launch + 1 us DMA setup; the end record takes 1 us launch after the copy. The copy itself is a
  // read round trip, 2 x 20 ns link + 2 x 250 ns root complex + 30 ns DDR4 (tRCD + CL + burst) =
  // 570 ns, plus its completions on the link, 4096 + 16 x 20 B at 28.43 GB/s (Gen4 x16 TLP rate)
  // = 155 ns, plus the host memory's 42 ns for 4 KiB at 97 GB/s: (3 - 1 + 1 + 1 + 1) us + 0.77 us.
  const size_t n = 4096;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&start));
  ASSERT_ACL_OK(aclrtCreateEvent(&end));
  ASSERT_ACL_OK(aclrtRecordEvent(start, nullptr));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  ASSERT_ACL_OK(aclrtRecordEvent(end, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(end));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start, end));
  EXPECT_NEAR(ms * 1000.0, 5.0 + 0.570 + 0.155 + 0.042, 0.05);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Event, LargePinnedCopyRunsAtTheProtocolLimitedRate) {
  // 256 MiB H2D on the default Gen4 x16 link at MPS 256: completions carry 20 B per 256 B, so
  // 28.43 GB/s x 256 / 276 = 26.37 GB/s: 10.18 ms. D2H: 24 B per 256 B, 25.99 GB/s: 10.33 ms.
  const size_t n = 256 << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent a = nullptr, b = nullptr, c = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&a));
  ASSERT_ACL_OK(aclrtCreateEvent(&b));
  ASSERT_ACL_OK(aclrtCreateEvent(&c));
  ASSERT_ACL_OK(aclrtRecordEvent(a, nullptr));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  ASSERT_ACL_OK(aclrtRecordEvent(b, nullptr));
  ASSERT_ACL_OK(aclrtMemcpyAsync(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, nullptr));
  ASSERT_ACL_OK(aclrtRecordEvent(c, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(c));
  float h2d = 0, d2h = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&h2d, a, b));
  ASSERT_ACL_OK(aclrtEventElapsedTime(&d2h, b, c));
  const double tlp = 16e9 * 16 * 128 / 130 / 8 * (1 - 16.0 / 168 - 4.0 / 1538);
  EXPECT_NEAR(h2d, n / (tlp * 256 / 276) * 1e3, 0.01 * h2d);
  EXPECT_NEAR(d2h, n / (tlp * 256 / 280) * 1e3, 0.01 * d2h);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Event, WaitStatusIsAboutTheWaitsNotTheRecord) {
  // aclrtQueryEventWaitStatus: whether the stream waits queued on the event have run (CANN's API
  // reference, event management). A wait on a stream still busy with a 64 MiB copy has not run,
  // though the event's record has completed long ago; it runs once the copy ends.
  const size_t n = 64 << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent e = nullptr;
  aclrtStream busy = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtCreateStream(&busy));
  ASSERT_ACL_OK(aclrtRecordEvent(e, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(e));
  aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_NOT_READY;
  ASSERT_ACL_OK(aclrtQueryEventWaitStatus(e, &ws));
  EXPECT_EQ(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);  // no wait queued
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, busy));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(busy, e));
  ASSERT_ACL_OK(aclrtQueryEventWaitStatus(e, &ws));
  EXPECT_EQ(ws, ACL_EVENT_WAIT_STATUS_NOT_READY);  // behind 2.5 ms of copy
  aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);  // (what the old answer reported)
  ASSERT_ACL_OK(aclrtSynchronizeStream(busy));
  ASSERT_ACL_OK(aclrtQueryEventWaitStatus(e, &ws));
  EXPECT_EQ(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtDestroyStream(busy));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Event, OnlyTimeLineEventsKeepTimestamps) {
  // A 64 MiB H2D copy (about 2.5 ms on the default machine) between two records.
  const size_t n = 64 << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent start = nullptr, end = nullptr, untimed = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&start));  // CANN's default event keeps timestamps
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&untimed, ACL_EVENT_SYNC));
  uint64_t us = 0;
  EXPECT_ACL_ERROR(aclrtEventGetTimestamp(start, &us),
                   ACL_ERROR_RT_INTERNAL_ERROR);  // never recorded
  ASSERT_ACL_OK(aclrtRecordEvent(start, nullptr));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  ASSERT_ACL_OK(aclrtRecordEvent(end, nullptr));
  ASSERT_ACL_OK(aclrtRecordEvent(untimed, nullptr));
  EXPECT_ACL_ERROR(aclrtEventGetTimestamp(end, &us),
                   ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);  // not ended yet
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start, end));
  EXPECT_GT(ms, 2.0f);
  uint64_t t0 = 0, t1 = 0;
  ASSERT_ACL_OK(aclrtEventGetTimestamp(start, &t0));
  ASSERT_ACL_OK(aclrtEventGetTimestamp(end, &t1));
  EXPECT_NEAR(static_cast<double>(t1 - t0), ms * 1000.0, 1.0);  // whole microseconds
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, start, untimed),
                   ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_ACL_ERROR(aclrtEventGetTimestamp(untimed, &us), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  for (aclrtEvent e : {start, end, untimed}) ASSERT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Event, OnlySyncEventsMayBeWaitedForBeforeTheirRecord) {
  // CANN refuses a wait on a default event that was never recorded (the wait would have nothing to
  // capture); an ACL_EVENT_SYNC event's wait is sent anyway and holds the stream until a record.
  aclrtStream s = nullptr;
  aclrtEvent plain = nullptr, sync = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEvent(&plain));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&sync, ACL_EVENT_SYNC));
  EXPECT_ACL_ERROR(aclrtStreamWaitEvent(s, plain), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, sync));
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  ASSERT_ACL_OK(aclrtRecordEvent(sync, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtRecordEvent(plain, nullptr));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, plain));  // recorded: fine
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtDestroyEvent(plain));
  ASSERT_ACL_OK(aclrtDestroyEvent(sync));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(Event, NotifiesAreFlagsThatAWaitClears) {
  // Stream b waits on a notify that stream a records after a 64 MiB copy (about 2.5 ms): b's
  // memset ends after the copy. Two records before one wait count once: a second wait behind
  // them waits for a third record.
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  aclrtNotify n = nullptr;
  EXPECT_ACL_ERROR(aclrtCreateNotify(&n, 1), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtCreateNotify(&n, 0));
  uint32_t id = 99;
  ASSERT_ACL_OK(aclrtGetNotifyId(n, &id));
  EXPECT_EQ(id, 0u);
  const size_t big = 64 << 20;
  void *h = nullptr, *d = nullptr, *small = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, big));
  ASSERT_ACL_OK(aclrtMalloc(&d, big, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&small, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtEvent copied = nullptr, waited = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&copied));
  ASSERT_ACL_OK(aclrtCreateEvent(&waited));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
  ASSERT_ACL_OK(aclrtMemsetAsync(small, 64, 7, 64, b));
  ASSERT_ACL_OK(aclrtRecordEvent(waited, b));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, big, h, big, ACL_MEMCPY_HOST_TO_DEVICE, a));
  ASSERT_ACL_OK(aclrtRecordEvent(copied, a));
  ASSERT_ACL_OK(aclrtRecordNotify(n, a));
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  float ms = 0;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, copied, waited));
  EXPECT_GT(ms, 0.0f);  // b went on only after a's copy
  // Two records, then two waits: the first clears both records, the second is left waiting.
  ASSERT_ACL_OK(aclrtRecordNotify(n, a));
  ASSERT_ACL_OK(aclrtRecordNotify(n, a));
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  ASSERT_ACL_OK(aclrtStreamQuery(b, &status));
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  ASSERT_ACL_OK(aclrtRecordNotify(n, a));
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_ACL_ERROR(aclrtWaitAndResetNotify(n, b, 10), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  ASSERT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL_ERROR(aclrtRecordNotify(n, a), ACL_ERROR_RT_INVALID_HANDLE);
  for (aclrtEvent e : {copied, waited}) ASSERT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFree(small));
  ASSERT_ACL_OK(aclrtFreeHost(h));
  ASSERT_ACL_OK(aclrtDestroyStream(a));
  ASSERT_ACL_OK(aclrtDestroyStream(b));
}

TEST_F(Event, ExEventsAreReusedAtOnce) {
  // aclrtCreateEventExWithFlag (hicann/runtime acl_rt.h: "event can be reused naturally"): the
  // event is recorded again while a wait on its first record is still queued; the wait keeps to
  // the record queued before it, so the copy behind it reads what the first copy wrote.
  aclrtEvent e = nullptr;
  EXPECT_ACL_ERROR(aclrtCreateEventExWithFlag(nullptr, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtCreateEventExWithFlag(&e, 0), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtCreateEventExWithFlag(&e, 0x80), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
  aclrtStream writer = nullptr, reader = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&writer));
  ASSERT_ACL_OK(aclrtCreateStream(&reader));
  const size_t n = 16 << 20;
  void *src = nullptr, *dst = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&src, n));
  ASSERT_ACL_OK(aclrtMallocHost(&dst, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  std::memset(src, 0x5a, n);
  std::memset(dst, 0, n);
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE, writer));
  ASSERT_ACL_OK(aclrtRecordEvent(e, writer));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(reader, e));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dst, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, reader));
  ASSERT_ACL_OK(aclrtRecordEvent(e, writer));  // reused at once
  ASSERT_ACL_OK(aclrtSynchronizeStream(reader));
  EXPECT_EQ(std::memcmp(dst, src, n), 0);
  ASSERT_ACL_OK(aclrtSynchronizeEvent(e));
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  ASSERT_ACL_OK(aclrtQueryEventStatus(e, &status));
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  aclrtFree(d);
  aclrtFreeHost(src);
  aclrtFreeHost(dst);
  aclrtDestroyStream(writer);
  aclrtDestroyStream(reader);
}

TEST_F(Event, IpcEventHandlesOpenEventsThatShareTheExportersRecords) {
  // An ACL_EVENT_IPC event's 64-byte handle opens a new event of the opener's own whose records
  // are the exporter's: a record through the opened event completes the original; destroying the
  // opened event leaves the original. Events without the flag and made-up handles are refused.
  aclrtEvent plain = nullptr, shared = nullptr, opened = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&plain));
  aclrtIpcEventHandle handle{};
  EXPECT_ACL_ERROR(aclrtIpcGetEventHandle(plain, &handle), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&shared, ACL_EVENT_IPC));
  EXPECT_ACL_ERROR(aclrtIpcGetEventHandle(shared, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtIpcGetEventHandle(shared, &handle));
  aclrtIpcEventHandle madeUp{};
  std::memcpy(madeUp.reserved, "no-such-event", 13);
  EXPECT_ACL_ERROR(aclrtIpcOpenEventHandle(madeUp, &opened), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtIpcOpenEventHandle(handle, &opened));
  EXPECT_NE(opened, shared);
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  ASSERT_ACL_OK(aclrtQueryEventStatus(shared, &status));
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  ASSERT_ACL_OK(aclrtRecordEvent(opened, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(shared));
  ASSERT_ACL_OK(aclrtQueryEventStatus(shared, &status));
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtDestroyEvent(opened));
  ASSERT_ACL_OK(aclrtQueryEventStatus(shared, &status));
  ASSERT_ACL_OK(aclrtDestroyEvent(shared));
  ASSERT_ACL_OK(aclrtDestroyEvent(plain));
}

TEST_F(Event, IpcNotifyKeysImportNotifiesOnTheSameFlag) {
  // A notify's export key (65 bytes with its NUL) imports, for a process the exporter named, a
  // notify of its own on the same flag: a record through the import ends a wait on the original.
  // Short keys, unknown flags, made-up keys and unnamed processes are refused.
  aclrtNotify notify = nullptr, imported = nullptr;
  ASSERT_ACL_OK(aclrtCreateNotify(&notify, 0));
  char shortKey[8] = {};
  EXPECT_ACL_ERROR(aclrtNotifyGetExportKey(notify, shortKey, sizeof shortKey, 0),
                   ACL_ERROR_INVALID_PARAM);
  char key[65] = {};
  EXPECT_ACL_ERROR(aclrtNotifyGetExportKey(notify, key, sizeof key, 1), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(
      aclrtNotifyGetExportKey(notify, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
  EXPECT_ACL_ERROR(aclrtNotifyImportByKey(&imported, "made-up", 0), ACL_ERROR_INVALID_PARAM);
  int32_t other = getpid() + 1;
  ASSERT_ACL_OK(aclrtNotifySetImportPid(notify, &other, 1));
  int32_t self = 0;
  ASSERT_ACL_OK(aclrtDeviceGetBareTgid(&self));
  ASSERT_ACL_OK(aclrtNotifySetImportPid(notify, &self, 1));
  ASSERT_ACL_OK(aclrtNotifyImportByKey(&imported, key, ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT));
  EXPECT_NE(imported, notify);
  aclrtStream waiter = nullptr, setter = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&waiter));
  ASSERT_ACL_OK(aclrtCreateStream(&setter));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(notify, waiter, 0));
  ASSERT_ACL_OK(aclrtRecordNotify(imported, setter));
  ASSERT_ACL_OK(aclrtSynchronizeStream(waiter));
  ASSERT_ACL_OK(aclrtDestroyNotify(imported));
  ASSERT_ACL_OK(aclrtDestroyNotify(notify));
  ASSERT_ACL_OK(aclrtDestroyStream(waiter));
  ASSERT_ACL_OK(aclrtDestroyStream(setter));
}
