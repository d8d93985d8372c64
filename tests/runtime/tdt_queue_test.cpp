// Data queues (acl/acl_tdt_queue.h): buffers through a FIFO in device memory, moved by the DMA
// engine, with CANN's depth, timeouts, routes and codes (hicann/runtime
// src/acl/acl_tdt_queue/queue.cpp, queue_process.cpp, queue_process_host.cpp;
// ACL_ERROR_RT_QUEUE_FULL 207014, _EMPTY 207013, ACL_ERROR_FAILURE 500001,
// ACL_ERROR_FEATURE_UNSUPPORTED 200006).
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_tdt_queue.h"
#include "acl_fixture.h"

namespace {

uint32_t makeQueue(const char* name, uint32_t depth) {
  acltdtQueueAttr* attr = acltdtCreateQueueAttr();
  EXPECT_NE(attr, nullptr);
  if (name) {
    EXPECT_EQ(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof name, &name), 0);
  }
  EXPECT_EQ(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &depth), 0);
  uint32_t qid = 99999;
  EXPECT_EQ(acltdtCreateQueue(attr, &qid), ACL_SUCCESS);
  acltdtDestroyQueueAttr(attr);
  return qid;
}

aclError put(uint32_t qid, std::vector<int32_t> values, int32_t timeout) {
  return acltdtEnqueueData(qid, values.data(), values.size() * sizeof(int32_t), nullptr, 0, timeout,
                           0);
}

std::vector<int32_t> take(uint32_t qid, int32_t timeout, aclError* code = nullptr) {
  std::vector<int32_t> out(16, -1);
  size_t size = 0;
  const aclError ret =
      acltdtDequeueData(qid, out.data(), out.size() * sizeof(int32_t), &size, nullptr, 0, timeout);
  if (code) *code = ret;
  if (ret != ACL_SUCCESS) return {};
  out.resize(size / sizeof(int32_t));
  return out;
}

acltdtQueueRouteList* routes(std::vector<std::pair<uint32_t, uint32_t>> pairs) {
  acltdtQueueRouteList* list = acltdtCreateQueueRouteList();
  for (const auto& [src, dst] : pairs) {
    acltdtQueueRoute* r = acltdtCreateQueueRoute(src, dst);
    EXPECT_EQ(acltdtAddQueueRoute(list, r), ACL_SUCCESS);
    acltdtDestroyQueueRoute(r);
  }
  return list;
}

int32_t statusOf(const acltdtQueueRouteList* list, size_t index) {
  acltdtQueueRoute* r = acltdtCreateQueueRoute(0, 0);
  EXPECT_EQ(acltdtGetQueueRoute(list, index, r), ACL_SUCCESS);
  int32_t status = -1;
  size_t size = 0;
  EXPECT_EQ(
      acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, sizeof status, &size, &status),
      ACL_SUCCESS);
  EXPECT_EQ(size, sizeof(int32_t));
  acltdtDestroyQueueRoute(r);
  return status;
}

size_t query(acltdtQueueRouteQueryMode mode, uint32_t src, uint32_t dst) {
  acltdtQueueRouteQueryInfo* info = acltdtCreateQueueRouteQueryInfo();
  EXPECT_EQ(
      acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode),
      0);
  EXPECT_EQ(
      acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, sizeof src, &src),
      0);
  EXPECT_EQ(
      acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32, sizeof dst, &dst),
      0);
  acltdtQueueRouteList* list = acltdtCreateQueueRouteList();
  EXPECT_EQ(acltdtQueryQueueRoutes(info, list), ACL_SUCCESS);
  const size_t n = acltdtGetQueueRouteNum(list);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(statusOf(list, i), ACL_TDT_QUEUE_ROUTE_BIND);
  acltdtDestroyQueueRouteList(list);
  acltdtDestroyQueueRouteQueryInfo(info);
  return n;
}

}  // namespace

class TdtQueue : public AclTest {};
class FixedRateTdtQueue : public AclTest {
 protected:
  FixedRateTdtQueue() : AclTest(testData("fixed-rate.yaml")) {}
};

TEST_F(TdtQueue, AttributesKeepCannsDefaultsAndLimits) {
  // CANN's defaults: no name (the system's), depth 8 (RT_MQ_DEPTH_DEFAULT).
  acltdtQueueAttr* attr = acltdtCreateQueueAttr();
  ASSERT_NE(attr, nullptr);
  uint32_t depth = 0;
  size_t size = 0;
  ASSERT_ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &size, &depth));
  EXPECT_EQ(depth, 8u);
  EXPECT_EQ(size, 4u);
  const char* name = nullptr;
  ASSERT_ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof name, &size, &name));
  EXPECT_STREQ(name, "");
  EXPECT_EQ(size, sizeof(char*));
  // Names of at most 127 characters (RT_MQ_MAX_NAME_LEN 128 with the NUL), passed by pointer.
  const std::string longest(127, 'q'), tooLong(128, 'q');
  const char* p = longest.c_str();
  ASSERT_ACL_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof p, &p));
  ASSERT_ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof name, &size, &name));
  EXPECT_EQ(std::string(name), longest);
  p = tooLong.c_str();
  EXPECT_EQ(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof p, &p),
            ACL_ERROR_INVALID_PARAM);
  const char* null = nullptr;
  EXPECT_EQ(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof null, &null),
            ACL_ERROR_INVALID_PARAM);
  // A parameter longer than its field, an output shorter than it, an unknown type, NULLs.
  const uint64_t wide = 4;
  EXPECT_EQ(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof wide, &wide),
            ACL_ERROR_INVALID_PARAM);
  uint16_t narrow = 0;
  EXPECT_EQ(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof narrow, &size, &narrow),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtSetQueueAttr(attr, static_cast<acltdtQueueAttrType>(2), 4, &depth),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, nullptr, &depth),
            ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(acltdtDestroyQueueAttr(attr));
  EXPECT_EQ(acltdtDestroyQueueAttr(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(TdtQueue, CreateAndDestroyWithCannsCodes) {
  uint32_t qid = 0;
  EXPECT_EQ(acltdtCreateQueue(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  // Depth under 2 (RT_MQ_DEPTH_MIN): the driver's invalid value, ACL_ERROR_RT_PARAM_INVALID.
  acltdtQueueAttr* attr = acltdtCreateQueueAttr();
  const uint32_t one = 1;
  ASSERT_ACL_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof one, &one));
  EXPECT_EQ(acltdtCreateQueue(attr, &qid), ACL_ERROR_RT_PARAM_INVALID);
  acltdtDestroyQueueAttr(attr);
  // A NULL attribute takes the defaults: depth 8, so 8 buffers fit and the ninth does not.
  uint32_t plain = 0;
  ASSERT_ACL_OK(acltdtCreateQueue(nullptr, &plain));
  for (int i = 0; i < 8; ++i) ASSERT_ACL_OK(put(plain, {i}, 0));
  EXPECT_EQ(put(plain, {8}, 0), ACL_ERROR_RT_QUEUE_FULL);
  // A name already taken (the sample 1_queue_route retries without one when it sees this code).
  const uint32_t named = makeQueue("twice", 2);
  attr = acltdtCreateQueueAttr();
  const char* name = "twice";
  ASSERT_ACL_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof name, &name));
  EXPECT_EQ(acltdtCreateQueue(attr, &qid), ACL_ERROR_INVALID_PARAM);
  acltdtDestroyQueueAttr(attr);
  ASSERT_ACL_OK(acltdtDestroyQueue(named));
  ASSERT_ACL_OK(acltdtDestroyQueue(plain));                          // with its buffers
  EXPECT_EQ(acltdtDestroyQueue(plain), ACL_ERROR_RT_PARAM_INVALID);  // no longer exists
  // Without a current device (another thread): ACL_ERROR_RT_CONTEXT_NULL.
  std::thread other([] {
    uint32_t q = 0;
    EXPECT_EQ(acltdtCreateQueue(nullptr, &q), ACL_ERROR_RT_CONTEXT_NULL);
  });
  other.join();
}

TEST_F(TdtQueue, DataAndUserDataGoThroughExactly) {
  const uint32_t q = makeQueue("exact", 4);
  const std::vector<uint8_t> data = {1, 2, 3, 250, 251, 0, 7};
  const char user[] = "head";
  ASSERT_ACL_OK(acltdtEnqueueData(q, data.data(), data.size(), user, sizeof user, -1, 0));
  std::vector<uint8_t> out(16, 0xEE);
  char userOut[8] = {};
  size_t size = 0;
  // A buffer too small for the data: refused, its size reported (CANN peeks it first), and the
  // data stays queued.
  EXPECT_EQ(acltdtDequeueData(q, out.data(), 3, &size, userOut, sizeof userOut, 0),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(size, 7u);
  ASSERT_ACL_OK(acltdtDequeueData(q, out.data(), out.size(), &size, userOut, sizeof userOut, 0));
  EXPECT_EQ(size, 7u);
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + 7), data);
  EXPECT_EQ(out[7], 0xEE);  // nothing past the data
  EXPECT_STREQ(userOut, "head");
  // Arguments: NULL data or size, size 0, a timeout under -1, an unknown queue.
  EXPECT_EQ(acltdtEnqueueData(q, nullptr, 4, nullptr, 0, 0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtEnqueueData(q, data.data(), 0, nullptr, 0, 0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtEnqueueData(q, data.data(), 4, nullptr, 0, -2, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtDequeueData(q, out.data(), 16, nullptr, nullptr, 0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtEnqueueData(q + 100, data.data(), 4, nullptr, 0, 0, 0),
            ACL_ERROR_RT_PARAM_INVALID);
  // User data: at most 96 bytes (the buffer's head).
  std::vector<uint8_t> bigUser(97, 1);
  EXPECT_EQ(acltdtEnqueueData(q, data.data(), 4, bigUser.data(), 97, 0, 0),
            ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(acltdtEnqueueData(q, data.data(), 4, bigUser.data(), 96, 0, 0));
  ASSERT_ACL_OK(acltdtDequeueData(q, out.data(), out.size(), &size, nullptr, 0, 0));
  // Data in the device's own memory, in and out.
  void *devIn = nullptr, *devOut = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&devIn, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&devOut, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(devIn, 64, data.data(), 7, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(acltdtEnqueueData(q, devIn, 7, user, sizeof user, 0, 0));
  ASSERT_ACL_OK(acltdtDequeueData(q, devOut, 64, &size, nullptr, 0, 0));
  EXPECT_EQ(size, 7u);
  std::vector<uint8_t> fromDevice(7, 0);
  ASSERT_ACL_OK(aclrtMemcpy(fromDevice.data(), 7, devOut, 7, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(fromDevice, data);
  aclrtFree(devIn);
  aclrtFree(devOut);
  ASSERT_ACL_OK(acltdtDestroyQueue(q));
}

TEST_F(TdtQueue, AFullQueueBlocksAndTimesOutAsDocumented) {
  // Depth 2: two buffers fit, a third with timeout 0 fails at once with ACL_ERROR_RT_QUEUE_FULL,
  // with timeout 5 after 5 ms of simulated time. Around the timed call: its overhead (memcpy,
  // 8 us) and the closing record's launch (1 us) less the first record's (1 us): 5 ms + 8 us.
  const uint32_t q = makeQueue("capacity", 2);
  ASSERT_ACL_OK(put(q, {10, 20}, 0));
  ASSERT_ACL_OK(put(q, {30}, 0));
  EXPECT_EQ(put(q, {50}, 0), ACL_ERROR_RT_QUEUE_FULL);
  const float fullMs = elapsedMs([&] { EXPECT_EQ(put(q, {50}, 5), ACL_ERROR_RT_QUEUE_FULL); });
  EXPECT_NEAR(fullMs, 5.008, 0.005);
  // First in, first out; then empty: at once, or after the 3 ms asked (+ 8 us).
  EXPECT_EQ(take(q, 0), (std::vector<int32_t>{10, 20}));
  EXPECT_EQ(take(q, 0), (std::vector<int32_t>{30}));
  aclError code = ACL_SUCCESS;
  take(q, 0, &code);
  EXPECT_EQ(code, ACL_ERROR_RT_QUEUE_EMPTY);
  const float emptyMs = elapsedMs([&] {
    take(q, 3, &code);
    EXPECT_EQ(code, ACL_ERROR_RT_QUEUE_EMPTY);
  });
  EXPECT_NEAR(emptyMs, 3.008, 0.005);
  ASSERT_ACL_OK(acltdtDestroyQueue(q));
}

TEST_F(TdtQueue, ABlockedEnqueueGoesOnWhenAnotherThreadDequeues) {
  // The producer puts 6 buffers into a queue of depth 2 without limit; the consumer, another host
  // thread, takes them in order: every put that finds the queue full waits for a take.
  const uint32_t q = makeQueue("producer_consumer", 2);
  std::vector<std::vector<int32_t>> got;
  std::thread consumer([&] {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    for (int i = 0; i < 6; ++i) got.push_back(take(q, -1));
  });
  for (int i = 0; i < 6; ++i) ASSERT_ACL_OK(put(q, {i, 100 * i}, -1));
  consumer.join();
  ASSERT_EQ(got.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], (std::vector<int32_t>{i, 100 * i}));
  ASSERT_ACL_OK(acltdtDestroyQueue(q));
}

TEST_F(TdtQueue, DestroyingAQueueEndsTheWaitsOnIt) {
  // Another thread waits, without limit, for a buffer; this one waits 2 ms of simulated time for
  // one too (so the other's dequeue, made at the start, is waiting), then destroys the queue: the
  // other's dequeue ends with the code of a queue that does not exist, ACL_ERROR_RT_PARAM_INVALID
  // (107000), saying it was destroyed while the call waited.
  const uint32_t q = makeQueue("destroyed_while_waited", 2);
  aclError waiterCode = ACL_SUCCESS;
  std::string waiterMessage;
  std::atomic<bool> waiting{false};
  std::thread waiter([&] {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    waiting = true;
    take(q, -1, &waiterCode);
    const char* msg = aclGetRecentErrMsg();
    waiterMessage = msg ? msg : "";
  });
  // (On a served machine a thread is known from its first call: the other's receive is made
  // before this thread's next call.)
  while (!waiting) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  aclError code = ACL_SUCCESS;
  take(q, 2, &code);
  EXPECT_EQ(code, ACL_ERROR_RT_QUEUE_EMPTY);
  ASSERT_ACL_OK(acltdtDestroyQueue(q));
  waiter.join();
  EXPECT_EQ(waiterCode, ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(waiterMessage.find("was destroyed while the call waited"), std::string::npos)
      << waiterMessage;
}

TEST_F(TdtQueue, ABoundRouteMovesBuffersToItsDestination) {
  const uint32_t src = makeQueue("src", 4), dst = makeQueue("dst", 2);
  ASSERT_ACL_OK(put(src, {1}, 0));  // queued before the route exists: moved when it is bound
  acltdtQueueRouteList* list = routes({{src, dst}});
  EXPECT_EQ(statusOf(list, 0), ACL_TDT_QUEUE_ROUTE_UNBIND);
  ASSERT_ACL_OK(acltdtBindQueueRoutes(list));
  EXPECT_EQ(statusOf(list, 0), ACL_TDT_QUEUE_ROUTE_BIND);
  EXPECT_EQ(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 77), 1u);
  EXPECT_EQ(query(ACL_TDT_QUEUE_ROUTE_QUERY_DST, 77, dst), 1u);
  EXPECT_EQ(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, src, dst), 1u);
  EXPECT_EQ(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, dst, src), 0u);
  EXPECT_EQ(query(ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL, 0, 0), 0u);
  // Five more into the source: the destination holds 2 (1 and 2), the source the next 4 (its
  // depth), so a seventh buffer finds the source full.
  for (int32_t i = 2; i <= 6; ++i) ASSERT_ACL_OK(put(src, {i}, 0));
  EXPECT_EQ(put(src, {7}, 0), ACL_ERROR_RT_QUEUE_FULL);
  // Each take from the destination makes room, and the next buffer moves on, in order.
  for (int32_t i = 1; i <= 6; ++i) EXPECT_EQ(take(dst, 0), (std::vector<int32_t>{i}));
  aclError code = ACL_SUCCESS;
  take(src, 0, &code);
  EXPECT_EQ(code, ACL_ERROR_RT_QUEUE_EMPTY);  // everything went on to the destination
  // A queue on a bound route cannot be destroyed (ACL_ERROR_FAILURE); a cycle is not bound.
  EXPECT_EQ(acltdtDestroyQueue(dst), ACL_ERROR_FAILURE);
  acltdtQueueRouteList* back = routes({{dst, src}, {src, src}});
  EXPECT_EQ(acltdtBindQueueRoutes(back), ACL_ERROR_FAILURE);
  EXPECT_EQ(statusOf(back, 0), ACL_TDT_QUEUE_ROUTE_UNBIND);
  EXPECT_EQ(statusOf(back, 1), ACL_TDT_QUEUE_ROUTE_UNBIND);
  EXPECT_EQ(acltdtUnbindQueueRoutes(back), ACL_ERROR_FAILURE);  // nothing of it is bound
  // Unbound, the route moves nothing and the queues go.
  ASSERT_ACL_OK(acltdtUnbindQueueRoutes(list));
  EXPECT_EQ(statusOf(list, 0), ACL_TDT_QUEUE_ROUTE_UNBIND);
  EXPECT_EQ(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 0), 0u);
  ASSERT_ACL_OK(put(src, {9}, 0));
  take(dst, 0, &code);
  EXPECT_EQ(code, ACL_ERROR_RT_QUEUE_EMPTY);
  ASSERT_ACL_OK(acltdtDestroyQueue(dst));
  ASSERT_ACL_OK(acltdtDestroyQueue(src));
  acltdtDestroyQueueRouteList(list);
  acltdtDestroyQueueRouteList(back);
}

TEST_F(TdtQueue, RouteObjectsAndQueriesRefuseWhatCannRefuses) {
  acltdtQueueRouteList* list = acltdtCreateQueueRouteList();
  acltdtQueueRoute* r = acltdtCreateQueueRoute(3, 4);
  uint32_t id = 0;
  size_t size = 0;
  ASSERT_ACL_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_DST_UINT32, sizeof id, &size, &id));
  EXPECT_EQ(id, 4u);
  uint16_t narrow = 0;
  EXPECT_EQ(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 2, &size, &narrow),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtAddQueueRoute(list, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(acltdtAddQueueRoute(list, r));
  EXPECT_EQ(acltdtGetQueueRouteNum(list), 1u);
  EXPECT_EQ(acltdtGetQueueRouteNum(nullptr), 0u);
  EXPECT_EQ(acltdtGetQueueRoute(list, 1, r), ACL_ERROR_INVALID_PARAM);  // index past the end
  // Queries need their mode, and the ids the mode names; an unknown mode is refused.
  acltdtQueueRouteQueryInfo* info = acltdtCreateQueueRouteQueryInfo();
  EXPECT_EQ(acltdtQueryQueueRoutes(info, list), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtGetQueueRouteNum(list), 0u);  // cleared first, as CANN does
  acltdtQueueRouteQueryMode mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC;
  ASSERT_ACL_OK(
      acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
  EXPECT_EQ(acltdtQueryQueueRoutes(info, list), ACL_ERROR_INVALID_PARAM);  // no source id
  mode = static_cast<acltdtQueueRouteQueryMode>(7);
  ASSERT_ACL_OK(
      acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
  EXPECT_EQ(acltdtQueryQueueRoutes(info, list), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtSetQueueRouteQueryInfo(info, static_cast<acltdtQueueRouteQueryInfoParamType>(3),
                                         4, &id),
            ACL_ERROR_INVALID_PARAM);
  // Routes between queues that do not exist are not bound.
  acltdtQueueRouteList* bad = routes({{3, 4}});
  EXPECT_EQ(acltdtBindQueueRoutes(bad), ACL_ERROR_FAILURE);
  EXPECT_EQ(statusOf(bad, 0), ACL_TDT_QUEUE_ROUTE_UNBIND);
  EXPECT_EQ(acltdtBindQueueRoutes(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(acltdtDestroyQueueRouteQueryInfo(info));
  ASSERT_ACL_OK(acltdtDestroyQueueRoute(r));
  ASSERT_ACL_OK(acltdtDestroyQueueRouteList(list));
  ASSERT_ACL_OK(acltdtDestroyQueueRouteList(bad));
  EXPECT_EQ(acltdtDestroyQueueRouteList(list), ACL_ERROR_INVALID_PARAM);  // destroyed already
}

TEST_F(TdtQueue, TheHostRefusesMbufsAsCannsHostSide) {
  // queue_process_host.cpp: the mbuf functions, acltdtEnqueue / acltdtDequeue and queue sharing
  // are ACL_ERROR_FEATURE_UNSUPPORTED from the host; acltdtAllocBuf checks its type and output
  // first (queue.cpp).
  acltdtBuf buf = nullptr;
  EXPECT_EQ(acltdtAllocBuf(64, 2, &buf), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtAllocBuf(64, ACL_TDT_NORMAL_MEM, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtAllocBuf(64, ACL_TDT_NORMAL_MEM, &buf), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(acltdtEnqueue(0, buf, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(acltdtDequeue(0, &buf, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(acltdtFreeBuf(buf), ACL_ERROR_FEATURE_UNSUPPORTED);
  uint32_t permission = 0;
  EXPECT_EQ(acltdtGrantQueue(0, 1, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, 0),
            ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(acltdtAttachQueue(0, 0, &permission), ACL_ERROR_FEATURE_UNSUPPORTED);
}

TEST_F(FixedRateTdtQueue, EnqueueAndDequeueTakeTheirCopiesTime) {
  // 16 MiB from pageable host memory: with the fixed-rate model a pageable copy runs at the CPU's
  // copy rate (cpu_copy_bandwidth 10 GB/s, below the link's 31.5 GB/s and the memories'), after
  // 1 us task launch and 1 us DMA setup; the call's overhead (memcpy, 8 us) is around it:
  // 16777216 B / 10 GB/s + 10 us = 1.6877 ms. The dequeue copies the same bytes back.
  const uint32_t q = makeQueue("timed", 2);
  std::vector<uint8_t> big(16 << 20, 0x5A), back(16 << 20, 0);
  const double expected = 16777216.0 / 10e9 * 1e3 + 0.010;
  const float putMs = elapsedMs(
      [&] { ASSERT_ACL_OK(acltdtEnqueueData(q, big.data(), big.size(), nullptr, 0, -1, 0)); });
  EXPECT_NEAR(putMs, expected, 0.01 * expected);
  size_t size = 0;
  const float takeMs = elapsedMs([&] {
    ASSERT_ACL_OK(acltdtDequeueData(q, back.data(), back.size(), &size, nullptr, 0, -1));
  });
  EXPECT_NEAR(takeMs, expected, 0.01 * expected);
  EXPECT_EQ(back, big);
  ASSERT_ACL_OK(acltdtDestroyQueue(q));
}

TEST_F(TdtQueue, AResetDropsWhatTheQueueHeld) {
  // A device reset (its last reference) frees all of the device's memory, the queue's buffers
  // too: the queue stays (it is the runtime's, as its stream) and is empty; it works on.
  const uint32_t q = makeQueue("kept", 2);
  ASSERT_ACL_OK(put(q, {1, 2}, 0));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclError code = ACL_SUCCESS;
  take(q, 0, &code);
  EXPECT_EQ(code, ACL_ERROR_RT_QUEUE_EMPTY);
  ASSERT_ACL_OK(put(q, {3}, 0));
  ASSERT_ACL_OK(put(q, {4}, 0));  // both places free again
  EXPECT_EQ(take(q, 0), (std::vector<int32_t>{3}));
  ASSERT_ACL_OK(acltdtDestroyQueue(q));
}

TEST_F(TdtQueue, AfterAclFinalizeTheQueueIsEmpty) {
  // aclFinalize releases all device memory as well: after a new aclInit the queue is empty.
  const uint32_t q = makeQueue("kept", 2);
  ASSERT_ACL_OK(put(q, {1, 2}, 0));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclError code = ACL_SUCCESS;
  take(q, 0, &code);
  EXPECT_EQ(code, ACL_ERROR_RT_QUEUE_EMPTY);
  ASSERT_ACL_OK(put(q, {5}, 0));
  EXPECT_EQ(take(q, 0), (std::vector<int32_t>{5}));
  ASSERT_ACL_OK(acltdtDestroyQueue(q));
}
