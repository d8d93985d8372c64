// A served program's thread's queue of calls sent without waiting (runtime/remote/post_ring.h)
// and the server's reading of it with the thread's socket (runtime/remote/wire.h), #29.

#include "runtime/remote/post_ring.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/connect_pair.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/remote/wire.h"

namespace ascendsim::remote {
namespace {

struct QueueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<uint8_t> pattern(uint32_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

TEST(PostRing, MessagesComeOutInOrderAcrossTheWrap) {
  auto ring = std::make_unique<PostRing>();
  PostReader reader(ring.get());
  // 1000-byte messages, each taken after it is put: 200 of them (4 + 1000 bytes each, 200 800
  // bytes in all) wrap the 65 536-byte queue three times.
  std::vector<uint8_t> out;
  for (int i = 0; i < 200; ++i) {
    const std::vector<uint8_t> in = pattern(1000, static_cast<uint8_t>(i));
    bool wake = true;
    ASSERT_TRUE(ring->put(in.data(), 1000, wake));
    EXPECT_FALSE(wake);  // (the reader never said it sleeps)
    ASSERT_EQ(reader.take<QueueError>(out), PostReader::Took::Message);
    ASSERT_EQ(out, in) << "message " << i;
    EXPECT_EQ(reader.take<QueueError>(out), PostReader::Took::Nothing);
  }
  EXPECT_EQ(ring->tail.load(), 200u * 1004u);
  EXPECT_EQ(ring->head.load(), 200u * 1004u);
}

TEST(PostRing, AFullQueueRefusesUntilTheReaderTakes) {
  auto ring = std::make_unique<PostRing>();
  PostReader reader(ring.get());
  const std::vector<uint8_t> in = pattern(1000, 3);
  bool wake = false;
  int queued = 0;
  while (ring->put(in.data(), 1000, wake)) ++queued;
  // 65 536 / (4 + 1000) = 65 messages (65 260 bytes; the 276 left hold no more).
  EXPECT_EQ(queued, 65);
  std::vector<uint8_t> out;
  ASSERT_EQ(reader.take<QueueError>(out), PostReader::Took::Message);
  EXPECT_TRUE(ring->put(in.data(), 1000, wake));  // room for one again
  EXPECT_FALSE(ring->put(in.data(), 1000, wake));
  int taken = 0;
  while (reader.take<QueueError>(out) == PostReader::Took::Message) {
    EXPECT_EQ(out, in);
    ++taken;
  }
  EXPECT_EQ(taken, 65);
}

TEST(PostRing, AMarkerStandsForAMessageOnTheSocket) {
  auto ring = std::make_unique<PostRing>();
  PostReader reader(ring.get());
  const std::vector<uint8_t> in = pattern(10, 1);
  bool wake = false;
  ASSERT_TRUE(ring->put(in.data(), 10, wake));
  ASSERT_TRUE(ring->put(nullptr, 0, wake));
  std::vector<uint8_t> out;
  EXPECT_EQ(reader.take<QueueError>(out), PostReader::Took::Message);
  EXPECT_EQ(reader.take<QueueError>(out), PostReader::Took::Marker);
  EXPECT_EQ(reader.take<QueueError>(out), PostReader::Took::Nothing);
  EXPECT_EQ(ring->head.load(), 4u + 10u + 4u);
}

TEST(PostRing, ASleepingReaderIsWokenOnceAndACorruptQueueIsRefused) {
  auto ring = std::make_unique<PostRing>();
  PostReader reader(ring.get());
  const uint8_t byte = 9;
  bool wake = false;
  ASSERT_TRUE(reader.sleep());  // empty: it may sleep
  ASSERT_TRUE(ring->put(&byte, 1, wake));
  EXPECT_TRUE(wake);  // the first message after it slept wakes it ...
  ASSERT_TRUE(ring->put(&byte, 1, wake));
  EXPECT_FALSE(wake);            // ... and only that one
  EXPECT_FALSE(reader.sleep());  // not with messages waiting
  EXPECT_EQ(ring->asleep.load(), 0u);
  std::vector<uint8_t> out;
  EXPECT_EQ(reader.take<QueueError>(out), PostReader::Took::Message);
  EXPECT_EQ(reader.take<QueueError>(out), PostReader::Took::Message);
  // A length longer than what the program queued (it wrote 4 + 1 bytes, the length says 100).
  const uint32_t length = 100;
  ring->copyIn(ring->tail.load(), &length, sizeof length);
  ring->tail.store(ring->tail.load() + 5);
  EXPECT_THROW(reader.take<QueueError>(out), QueueError);
}

// ---------------------------------------------------------------- with the socket

struct Pair {
  boost::asio::io_context io;
  std::unique_ptr<Channel> server, client;
  std::unique_ptr<PostRing> ring = std::make_unique<PostRing>();
  explicit Pair(bool withQueue) {
    boost::asio::local::stream_protocol::socket a(io), b(io);
    boost::asio::local::connect_pair(a, b);
    server = std::make_unique<Channel>(std::move(a));
    client = std::make_unique<Channel>(std::move(b));
    server->requestKind(2);
    server->wakeKind(7);
    if (withQueue) server->readPosts(ring.get());
    server->readAhead(0);  // (no polling: asleep at once)
  }
  void post(uint8_t tag) {
    bool wake = false;
    ASSERT_TRUE(ring->put(&tag, 1, wake));
  }
  void sendOnSocket(uint8_t tag) {
    WireWriter w;
    w.u8(tag);
    client->send(w);
  }
};

TEST(PostRing, QueuedMessagesComeBeforeTheSocketsButAMarkersMessageInItsPlace) {
  Pair p(true);
  // The program queued 41 and 42, sent 43 on the socket (its marker between them), queued 44,
  // rang (a Wake, skipped) and sent 45 (a request, after which it waits), then closed: the server
  // reads them in that order.
  p.post(41);
  p.post(42);
  bool wake = false;
  ASSERT_TRUE(p.ring->put(nullptr, 0, wake));
  p.sendOnSocket(43);
  p.post(44);
  p.sendOnSocket(7);
  p.sendOnSocket(45);
  p.client->close();
  std::vector<uint8_t> m;
  std::vector<uint8_t> order;
  while (p.server->receive(m)) order.push_back(m.at(0));
  EXPECT_EQ(order, (std::vector<uint8_t>{41, 42, 43, 44, 45}));
}

TEST(PostRing, WhatWasQueuedBeforeTheProgramClosedItsEndIsRead) {
  Pair p(true);
  p.post(46);
  p.client->close();
  std::vector<uint8_t> m;
  ASSERT_TRUE(p.server->receive(m));
  EXPECT_EQ(m, std::vector<uint8_t>{46});
  EXPECT_FALSE(p.server->receive(m));
}

TEST(PostRing, AReaderAsleepIsWokenByAQueuedMessage) {
  Pair p(true);
  std::vector<uint8_t> m;
  auto start = std::chrono::steady_clock::now();
  std::thread reader([&] { ASSERT_TRUE(p.server->receive(m)); });
  // The reader sleeps (its queue says so) ...
  while (p.ring->asleep.load() == 0) std::this_thread::yield();
  bool wake = false;
  const uint8_t tag = 5;
  ASSERT_TRUE(p.ring->put(&tag, 1, wake));
  ASSERT_TRUE(wake);  // ... so the program rings
  p.sendOnSocket(7);
  start = std::chrono::steady_clock::now();
  reader.join();
  EXPECT_EQ(m, std::vector<uint8_t>{5});
  // Woken at once, not at the end of its 200 ms sleep (a generous 150 ms on a loaded machine).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
}

// A reader asleep while another thread borrows the connection (the server runs a kernel on the
// program's thread over it) and reads from the socket what the reader slept for: before, the
// reader's poll() no longer saw it and slept on to its timeout (200 ms); it is woken now.
TEST(Channel, AReaderIsWokenWhenABorrowerReadsItsMessage) {
  Pair p(false);
  using Clock = std::chrono::steady_clock;
  Clock::duration slept{};
  for (int round = 0; round < 5; ++round) {
    std::vector<uint8_t> m;
    Clock::time_point returned{};
    std::thread reader([&] {
      ASSERT_TRUE(p.server->receive(m));
      returned = Clock::now();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // (asleep in poll by now)
    Clock::time_point borrowed{};
    {
      std::lock_guard<std::mutex> lock(p.server->mutex());
      p.sendOnSocket(2);  // a request of the program's thread
      // The borrower asks whether the program's thread waits: it reads the request in.
      while (!p.server->peerWaitsLocked()) {
      }
      borrowed = Clock::now();
    }
    reader.join();
    ASSERT_EQ(m, std::vector<uint8_t>{2});
    slept += returned - borrowed;
    WireWriter answer;
    answer.u8(6);
    p.server->answer(answer);
    std::vector<uint8_t> reply;
    ASSERT_TRUE(p.client->receive(reply));
  }
  // Five rounds: 5 x 200 ms = 1 s when each slept to its timeout; woken, well under half that.
  EXPECT_LT(slept, std::chrono::milliseconds(500));
}

}  // namespace
}  // namespace ascendsim::remote
