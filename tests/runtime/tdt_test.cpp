// Tensor data transfer channels (acl/acl_tdt.h): datasets through a queue on the device, moved by
// the DMA engine, with CANN's capacity, timeouts and codes (hicann/runtime
// src/acl/acl_tdt_channel/tensor_data_transfer.cpp; ACL_ERROR_RT_QUEUE_FULL 207014, _EMPTY
// 207013).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_tdt.h"
#include "acl_fixture.h"

namespace {

// A dataset of one float tensor [1, n] over `values` (the program's memory).
acltdtDataset* floats(std::vector<float>& values) {
  const int64_t dims[] = {1, static_cast<int64_t>(values.size())};
  acltdtDataItem* item = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT,
                                              values.data(), values.size() * sizeof(float));
  acltdtDataset* set = acltdtCreateDataset();
  EXPECT_EQ(acltdtAddDataItem(set, item), ACL_SUCCESS);
  return set;
}

void destroyWithItems(acltdtDataset* set) {
  for (size_t i = 0; i < acltdtGetDatasetSize(set); ++i) {
    acltdtDestroyDataItem(acltdtGetDataItem(set, i));
  }
  acltdtDestroyDataset(set);
}

std::vector<float> floatsOf(const acltdtDataset* set, size_t index) {
  const acltdtDataItem* item = acltdtGetDataItem(set, index);
  std::vector<float> out(acltdtGetDataSizeFromItem(item) / sizeof(float));
  std::memcpy(out.data(), acltdtGetDataAddrFromItem(item), out.size() * sizeof(float));
  return out;
}

size_t sizeOf(acltdtChannelHandle* channel) {
  size_t n = 99;
  EXPECT_EQ(acltdtQueryChannelSize(channel, &n), ACL_SUCCESS);
  return n;
}

}  // namespace

class Tdt : public AclTest {};
class FixedRateTdt : public AclTest {
 protected:
  FixedRateTdt() : AclTest(testData("fixed-rate.yaml")) {}
};

TEST_F(Tdt, ADatasetGoesThroughTheChannelExactly) {
  acltdtChannelHandle* channel = acltdtCreateChannelWithCapacity(0, "round_trip", 2);
  ASSERT_NE(channel, nullptr);
  std::vector<float> values = {1.5f, -2.0f, 3.25f, 1e-7f};
  acltdtDataset* sent = floats(values);
  // A second item: an end-of-sequence marker, which carries nothing.
  acltdtDataItem* end =
      acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, nullptr, 0, ACL_FLOAT, nullptr, 0);
  ASSERT_NE(end, nullptr);
  ASSERT_ACL_OK(acltdtAddDataItem(sent, end));
  EXPECT_EQ(sizeOf(channel), 0u);
  ASSERT_ACL_OK(acltdtSendTensor(channel, sent, 1000));
  EXPECT_EQ(sizeOf(channel), 1u);
  values.assign(4, 0.0f);  // the channel holds its own copy
  acltdtDataset* got = acltdtCreateDataset();
  ASSERT_ACL_OK(acltdtReceiveTensor(channel, got, 1000));
  EXPECT_EQ(sizeOf(channel), 0u);
  ASSERT_EQ(acltdtGetDatasetSize(got), 2u);
  const acltdtDataItem* tensor = acltdtGetDataItem(got, 0);
  EXPECT_EQ(acltdtGetTensorTypeFromItem(tensor), ACL_TENSOR_DATA_TENSOR);
  EXPECT_EQ(acltdtGetDataTypeFromItem(tensor), ACL_FLOAT);
  ASSERT_EQ(acltdtGetDimNumFromItem(tensor), 2u);
  int64_t dims[2] = {0, 0};
  ASSERT_ACL_OK(acltdtGetDimsFromItem(tensor, dims, 2));
  EXPECT_EQ(dims[0], 1);
  EXPECT_EQ(dims[1], 4);
  EXPECT_EQ(floatsOf(got, 0), (std::vector<float>{1.5f, -2.0f, 3.25f, 1e-7f}));
  const acltdtDataItem* marker = acltdtGetDataItem(got, 1);
  EXPECT_EQ(acltdtGetTensorTypeFromItem(marker), ACL_TENSOR_DATA_END_OF_SEQUENCE);
  EXPECT_EQ(acltdtGetDataSizeFromItem(marker), 0u);
  EXPECT_EQ(acltdtGetDataTypeFromItem(marker), ACL_DT_UNDEFINED);
  // The received dataset owns its items: nothing can be added to it.
  EXPECT_EQ(acltdtAddDataItem(got, end), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_STREQ(acltdtGetDatasetName(got), "");
  acltdtDestroyDataset(got);
  destroyWithItems(sent);
  ASSERT_ACL_OK(acltdtStopChannel(channel));
  ASSERT_ACL_OK(acltdtDestroyChannel(channel));
}

TEST_F(Tdt, AFullChannelRefusesAtOnceOrAfterItsTimeout) {
  // Capacity 2 (CANN's least): two sends fit, a third with timeout 0 fails at once with
  // ACL_ERROR_RT_QUEUE_FULL, and with timeout 5 after 5 ms of simulated time. Around the timed
  // send: its call's overhead (memcpy, 8 us) and the closing record's launch (1 us) less the first
  // record's (1 us): 5 ms + 8 us.
  acltdtChannelHandle* channel = acltdtCreateChannelWithCapacity(0, "capacity", 2);
  ASSERT_NE(channel, nullptr);
  std::vector<float> a = {10, 20}, b = {30, 40}, c = {50, 60};
  acltdtDataset *first = floats(a), *second = floats(b), *third = floats(c);
  ASSERT_ACL_OK(acltdtSendTensor(channel, first, 0));
  ASSERT_ACL_OK(acltdtSendTensor(channel, second, 0));
  EXPECT_EQ(sizeOf(channel), 2u);
  EXPECT_ACL_ERROR(acltdtSendTensor(channel, third, 0), ACL_ERROR_RT_QUEUE_FULL);
  const float ms = elapsedMs(
      [&] { EXPECT_ACL_ERROR(acltdtSendTensor(channel, third, 5), ACL_ERROR_RT_QUEUE_FULL); });
  EXPECT_NEAR(ms, 5.008, 0.005);
  // First in, first out; then empty: at once, or after the 3 ms asked (+ 8 us).
  acltdtDataset* got = acltdtCreateDataset();
  ASSERT_ACL_OK(acltdtReceiveTensor(channel, got, 0));
  EXPECT_EQ(floatsOf(got, 0), a);
  ASSERT_ACL_OK(acltdtReceiveTensor(channel, got, 0));  // the dataset's old items are replaced
  EXPECT_EQ(acltdtGetDatasetSize(got), 1u);
  EXPECT_EQ(floatsOf(got, 0), b);
  EXPECT_ACL_ERROR(acltdtReceiveTensor(channel, got, 0), ACL_ERROR_RT_QUEUE_EMPTY);
  const float emptyMs = elapsedMs(
      [&] { EXPECT_ACL_ERROR(acltdtReceiveTensor(channel, got, 3), ACL_ERROR_RT_QUEUE_EMPTY); });
  EXPECT_NEAR(emptyMs, 3.008, 0.005);
  // Clean drops what is queued.
  ASSERT_ACL_OK(acltdtSendTensor(channel, third, 0));
  EXPECT_EQ(sizeOf(channel), 1u);
  ASSERT_ACL_OK(acltdtCleanChannel(channel));
  EXPECT_EQ(sizeOf(channel), 0u);
  acltdtDestroyDataset(got);
  for (acltdtDataset* set : {first, second, third}) destroyWithItems(set);
  ASSERT_ACL_OK(acltdtDestroyChannel(channel));
}

TEST_F(Tdt, ABlockedSendGoesOnWhenAnotherThreadReceives) {
  // The producer sends 5 datasets into a channel of 2 without limit; the consumer, another host
  // thread, receives them: every send that finds the channel full waits for a receive.
  acltdtChannelHandle* channel = acltdtCreateChannelWithCapacity(0, "producer_consumer", 2);
  ASSERT_NE(channel, nullptr);
  std::vector<std::vector<float>> received;
  std::thread consumer([&] {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    acltdtDataset* got = acltdtCreateDataset();
    for (int i = 0; i < 5; ++i) {
      ASSERT_ACL_OK(acltdtReceiveTensor(channel, got, -1));
      received.push_back(floatsOf(got, 0));
    }
    acltdtDestroyDataset(got);
  });
  for (int i = 0; i < 5; ++i) {
    std::vector<float> v = {static_cast<float>(i), static_cast<float>(10 * i)};
    acltdtDataset* set = floats(v);
    ASSERT_ACL_OK(acltdtSendTensor(channel, set, -1));
    destroyWithItems(set);
  }
  consumer.join();
  ASSERT_EQ(received.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(received[i], (std::vector<float>{static_cast<float>(i), 10.0f * i}));
  }
  ASSERT_ACL_OK(acltdtDestroyChannel(channel));
}

TEST_F(Tdt, DestroyingAChannelEndsTheWaitsOnItAndFreesItsName) {
  // A channel's name is its device's (the queue under it is named so, rtMemQueueCreate): a second
  // live channel of the name on the device is refused; once the first is destroyed it is free.
  acltdtChannelHandle* channel = acltdtCreateChannelWithCapacity(0, "shared_name", 2);
  ASSERT_NE(channel, nullptr);
  EXPECT_EQ(acltdtCreateChannelWithCapacity(0, "shared_name", 4), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("already exists on device 0"),
            std::string::npos);
  // Another thread waits, without limit, for data; this one waits 2 ms of simulated time for
  // data too (so the other's receive, made at the start, is waiting), then destroys the channel:
  // the other's receive ends with the code of a destroyed channel's handle,
  // ACL_ERROR_INVALID_PARAM (100000), saying so.
  aclError waiterCode = ACL_SUCCESS;
  std::string waiterMessage;
  std::atomic<bool> waiting{false};
  std::thread waiter([&] {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    acltdtDataset* got = acltdtCreateDataset();
    waiting = true;
    waiterCode = acltdtReceiveTensor(channel, got, -1);
    const char* msg = aclGetRecentErrMsg();
    waiterMessage = msg ? msg : "";
    acltdtDestroyDataset(got);
  });
  // (On a served machine a thread is known from its first call: the other's receive is made
  // before this thread's next call.)
  while (!waiting) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  acltdtDataset* mine = acltdtCreateDataset();
  EXPECT_ACL_ERROR(acltdtReceiveTensor(channel, mine, 2), ACL_ERROR_RT_QUEUE_EMPTY);
  ASSERT_ACL_OK(acltdtDestroyChannel(channel));
  waiter.join();
  EXPECT_EQ(waiterCode, ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(waiterMessage.find("was destroyed (acltdtDestroyChannel) while the call waited"),
            std::string::npos)
      << waiterMessage;
  acltdtChannelHandle* again = acltdtCreateChannelWithCapacity(0, "shared_name", 2);
  ASSERT_NE(again, nullptr);
  ASSERT_ACL_OK(acltdtDestroyChannel(again));
  acltdtDestroyDataset(mine);
}

// The deadlock patience (ASCENDSIM_DEADLOCK_PATIENCE) of these tests: 0.5 s unless the
// environment says otherwise (a served program's waits are the server's: its environment).
class TdtPatience : public AclTest {
 protected:
  void SetUp() override {
    setenv("ASCENDSIM_DEADLOCK_PATIENCE", "0.5", 0);
    AclTest::SetUp();
  }
};

TEST_F(TdtPatience, AReceiveNothingCanEndFailsWithinThePatience) {
  // A receive without limit from a channel no thread will ever send to is a deadlock: it fails
  // (207013, empty) at once when the program has no other thread, else once the patience P has
  // passed without a sign of life from another. A served program's receive gives threads the
  // machine has not seen yet P again, so it ends within 2 P and the time to look around: under
  // 3 P + 2 s, where a fixed 10 s grace made it over 10 s whatever the patience.
  const double patience = std::strtod(std::getenv("ASCENDSIM_DEADLOCK_PATIENCE"), nullptr);
  acltdtChannelHandle* channel = acltdtCreateChannelWithCapacity(0, "patience", 2);
  ASSERT_NE(channel, nullptr);
  acltdtDataset* got = acltdtCreateDataset();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_ACL_ERROR(acltdtReceiveTensor(channel, got, -1), ACL_ERROR_RT_QUEUE_EMPTY);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(waited, 3 * patience + 2.0);
  acltdtDestroyDataset(got);
  ASSERT_ACL_OK(acltdtDestroyChannel(channel));
}

TEST_F(Tdt, ArgumentsCannRefuses) {
  // Channels: NULL or over-long names, capacity under 2, no such device: no channel.
  EXPECT_EQ(acltdtCreateChannelWithCapacity(0, nullptr, 2), nullptr);
  EXPECT_EQ(acltdtCreateChannelWithCapacity(0, std::string(128, 'q').c_str(), 2), nullptr);
  EXPECT_EQ(acltdtCreateChannelWithCapacity(0, "one", 1), nullptr);
  EXPECT_EQ(acltdtCreateChannelWithCapacity(0, "huge", 8193), nullptr);  // [2, 8192]
  EXPECT_EQ(acltdtCreateChannelWithCapacity(7, "far", 2), nullptr);
  acltdtChannelHandle* named = acltdtCreateChannelWithCapacity(0, std::string(127, 'q').c_str(), 2);
  ASSERT_NE(named, nullptr);
  // Items: dims and dimNum must agree; at most 128 dimensions; markers carry no dims.
  const int64_t dims[2] = {2, 2};
  EXPECT_EQ(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, nullptr, 2, ACL_FLOAT, nullptr, 0),
            nullptr);
  EXPECT_EQ(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 0, ACL_FLOAT, nullptr, 0), nullptr);
  std::vector<int64_t> many(129, 1);
  EXPECT_EQ(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, many.data(), 129, ACL_FLOAT, nullptr, 0),
            nullptr);
  EXPECT_EQ(acltdtCreateDataItem(ACL_TENSOR_DATA_ABNORMAL, dims, 2, ACL_FLOAT, nullptr, 0),
            nullptr);
  float data[4] = {1, 2, 3, 4};
  acltdtDataItem* item = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT, data, 16);
  ASSERT_NE(item, nullptr);
  int64_t one[1] = {0};
  EXPECT_EQ(acltdtGetDimsFromItem(item, one, 1), ACL_ERROR_INVALID_PARAM);  // too few
  EXPECT_EQ(acltdtGetDimsFromItem(item, nullptr, 2), ACL_ERROR_INVALID_PARAM);
  size_t sliceNum = 9, sliceId = 9;
  ASSERT_ACL_OK(acltdtGetSliceInfoFromItem(item, &sliceNum, &sliceId));
  EXPECT_EQ(sliceNum, 0u);
  EXPECT_EQ(sliceId, 0u);
  EXPECT_EQ(acltdtGetSliceInfoFromItem(item, nullptr, &sliceId), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acltdtGetDataItem(nullptr, 0), nullptr);
  EXPECT_EQ(acltdtAddDataItem(nullptr, item), ACL_ERROR_INVALID_PARAM);
  // Sends and receives: NULL arguments, an empty dataset, a timeout under -1.
  acltdtDataset* set = acltdtCreateDataset();
  EXPECT_ACL_ERROR(acltdtSendTensor(named, set, 0), ACL_ERROR_INVALID_PARAM);  // no items
  ASSERT_ACL_OK(acltdtAddDataItem(set, item));
  EXPECT_EQ(acltdtGetDataItem(set, 1), nullptr);
  EXPECT_ACL_ERROR(acltdtSendTensor(nullptr, set, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(acltdtSendTensor(named, nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(acltdtSendTensor(named, set, -2), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(acltdtReceiveTensor(named, set, 0), ACL_ERROR_INVALID_PARAM);  // has items
  // Items over device memory are not simulated.
  void* device = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&device, 16, ACL_MEM_MALLOC_HUGE_FIRST));
  acltdtDataItem* onDevice =
      acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT, device, 16);
  acltdtDataset* deviceSet = acltdtCreateDataset();
  ASSERT_ACL_OK(acltdtAddDataItem(deviceSet, onDevice));
  EXPECT_ACL_ERROR(acltdtSendTensor(named, deviceSet, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  destroyWithItems(deviceSet);
  aclrtFree(device);
  // Channels without a queue exist on the first 910 generation only, not on this 910B4.
  EXPECT_EQ(acltdtCreateChannel(0, "plain"), nullptr);
  ASSERT_ACL_OK(acltdtDestroyChannel(named));
  EXPECT_ACL_ERROR(acltdtDestroyChannel(named), ACL_ERROR_INVALID_PARAM);  // destroyed already
  destroyWithItems(set);
}

TEST_F(FixedRateTdt, SendAndReceiveTakeTheirCopiesTime) {
  // 16 MiB of floats plus its 64-byte control block, from pageable host memory: with the
  // fixed-rate model a pageable copy runs at the CPU's copy rate (cpu_copy_bandwidth 10 GB/s,
  // below the link's 31.5 GB/s and the memories'), after 1 us task launch and 1 us DMA setup;
  // the call's overhead (memcpy, 8 us) is around it: 16777280 B / 10 GB/s + 10 us = 1.6877 ms.
  // The receive copies the same bytes back the same way.
  acltdtChannelHandle* channel = acltdtCreateChannelWithCapacity(0, "timed", 2);
  ASSERT_NE(channel, nullptr);
  std::vector<float> big(4 << 20, 0.5f);
  acltdtDataset* set = floats(big);
  const double expected = (16777216.0 + 64) / 10e9 * 1e3 + 0.010;
  const float sendMs = elapsedMs([&] { ASSERT_ACL_OK(acltdtSendTensor(channel, set, -1)); });
  EXPECT_NEAR(sendMs, expected, 0.01 * expected);
  acltdtDataset* got = acltdtCreateDataset();
  const float receiveMs = elapsedMs([&] { ASSERT_ACL_OK(acltdtReceiveTensor(channel, got, -1)); });
  EXPECT_NEAR(receiveMs, expected, 0.01 * expected);
  EXPECT_EQ(floatsOf(got, 0), big);
  acltdtDestroyDataset(got);
  destroyWithItems(set);
  ASSERT_ACL_OK(acltdtDestroyChannel(channel));
}

class TdtOn910A : public AclTest {
 protected:
  TdtOn910A() : AclTest("atlas-800-9000") {}
};

TEST_F(TdtOn910A, AChannelWithoutAQueueWaitsWithoutLimitOnly) {
  // acltdtCreateChannel (Atlas training products): no size to query, timeout -1 only.
  acltdtChannelHandle* plain = acltdtCreateChannel(0, "plain");
  ASSERT_NE(plain, nullptr);
  std::vector<float> values = {1, 2, 3, 4};
  acltdtDataset* set = floats(values);
  EXPECT_ACL_ERROR(acltdtSendTensor(plain, set, 0), ACL_ERROR_INVALID_PARAM);
  size_t n = 0;
  EXPECT_ACL_ERROR(acltdtQueryChannelSize(plain, &n), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_ACL_ERROR(acltdtCleanChannel(plain), ACL_ERROR_FEATURE_UNSUPPORTED);
  ASSERT_ACL_OK(acltdtSendTensor(plain, set, -1));
  acltdtDataset* got = acltdtCreateDataset();
  ASSERT_ACL_OK(acltdtReceiveTensor(plain, got, -1));
  EXPECT_EQ(floatsOf(got, 0), values);
  acltdtDestroyDataset(got);
  destroyWithItems(set);
  ASSERT_ACL_OK(acltdtStopChannel(plain));
  ASSERT_ACL_OK(acltdtDestroyChannel(plain));
}

class TdtOn310P : public AclTest {
 protected:
  TdtOn310P() : AclTest("atlas-300i-duo") {}
};

TEST_F(TdtOn310P, HasNoChannels) {
  EXPECT_EQ(acltdtCreateChannelWithCapacity(0, "queue", 2), nullptr);
  EXPECT_EQ(acltdtCreateChannel(0, "plain"), nullptr);
}
