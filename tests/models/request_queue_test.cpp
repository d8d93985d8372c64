// A DRAM channel's request queue on its own: capacity, arrival order, the per-bank chains the
// FR-FCFS scheduler walks, and the open-row hit counts it relies on to find a ready hit without
// scanning every request. Each expectation follows from the requests pushed in the test.
#include <gtest/gtest.h>

#include <vector>

#include "models/dram/request_queue.h"

namespace ascendsim::models {
namespace {

DramRequest at(uint32_t bank, uint64_t row, int64_t arrival) {
  DramRequest r;
  r.bank = bank;
  r.row = row;
  r.arrival = arrival;
  r.bytes = 64;
  return r;
}

TEST(RequestQueue, HoldsDepthRequestsInArrivalOrder) {
  RequestQueue q(3, 4);
  EXPECT_TRUE(q.empty());
  q.push(at(0, 7, 10), 0, 0, -1);
  q.push(at(2, 9, 11), 2, 0, -1);
  q.push(at(0, 8, 12), 0, 0, -1);
  EXPECT_TRUE(q.full());
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.oldestArrival(), 10);
  // Bank 0's chain: its two requests, oldest first; bank 2 has one; banks 1 and 3 none.
  EXPECT_EQ(q.queuedIn(0), 2u);
  EXPECT_EQ(q.queuedIn(2), 1u);
  EXPECT_EQ(q.queuedIn(1), 0u);
  const int32_t first = q.head(0);
  ASSERT_GE(first, 0);
  EXPECT_EQ(q.request(first).row, 7u);
  ASSERT_GE(q.next(first), 0);
  EXPECT_EQ(q.request(q.next(first)).row, 8u);
  EXPECT_EQ(q.next(q.next(first)), -1);
  EXPECT_EQ(q.activeBanks().size(), 2u);
  // Issuing the oldest makes the next arrival the oldest and frees a slot.
  q.remove(q.oldest(), -1);
  EXPECT_FALSE(q.full());
  EXPECT_EQ(q.oldestArrival(), 11);
  EXPECT_EQ(q.queuedIn(0), 1u);
  EXPECT_EQ(q.request(q.head(0)).row, 8u);
}

// A replayed drain (dram_channel_replay.cpp) issues every queued request at once: clear() must
// leave the queue as removing them one by one would, and arrival numbers go on from where they
// were.
TEST(RequestQueue, ClearedQueueIsEmptyAndTakesRequestsAgain) {
  RequestQueue q(3, 4);
  q.push(at(0, 7, 10), 0, 0, 7);  // a hit in bank 0's open row 7
  q.push(at(2, 9, 11), 2, 0, -1);
  q.push(at(0, 8, 12), 0, 0, 7);
  q.passedOver = 2;
  ASSERT_EQ(q.banksWithHits(), 1u);
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.full());
  EXPECT_EQ(q.queuedIn(0), 0u);
  EXPECT_EQ(q.queuedIn(2), 0u);
  EXPECT_EQ(q.head(0), -1);
  EXPECT_EQ(q.head(2), -1);
  EXPECT_EQ(q.hitsIn(0), 0u);
  EXPECT_EQ(q.banksWithHits(), 0u);
  EXPECT_EQ(q.hitBank(), -1);
  EXPECT_TRUE(q.activeBanks().empty());
  EXPECT_EQ(q.passedOver, 2u);  // the scheduler's count is the caller's to set
  // Three pushed before: the next arrival numbers are 3, 4, 5, and all three slots are free again.
  EXPECT_EQ(q.endSeq(), 3u);
  q.push(at(1, 4, 20), 1, 0, -1);
  q.push(at(1, 5, 21), 1, 0, -1);
  q.push(at(3, 6, 22), 3, 0, -1);
  EXPECT_TRUE(q.full());
  const int32_t oldest = q.oldest();
  EXPECT_EQ(q.seq(oldest), 3u);
  EXPECT_EQ(q.request(oldest).row, 4u);
  EXPECT_EQ(q.queuedIn(1), 2u);
  EXPECT_EQ(q.activeBanks().size(), 2u);
}

TEST(RequestQueue, CountsOpenRowHitsPerBank) {
  RequestQueue q(8, 4);
  // Bank 1 has row 5 open: two of its three requests hit it.
  q.push(at(1, 5, 1), 1, 0, 5);
  q.push(at(1, 6, 2), 1, 0, 5);
  q.push(at(1, 5, 3), 1, 0, 5);
  q.push(at(3, 2, 4), 3, 0, -1);  // bank 3 closed: no hit
  EXPECT_EQ(q.hitsIn(1), 2u);
  EXPECT_EQ(q.hitsIn(3), 0u);
  EXPECT_EQ(q.banksWithHits(), 1u);
  EXPECT_EQ(q.hitBank(), 1);
  // Bank 3 opens row 2: now two banks have hits, and which one is not a single answer.
  q.rowChanged(3, 2);
  EXPECT_EQ(q.hitsIn(3), 1u);
  EXPECT_EQ(q.banksWithHits(), 2u);
  EXPECT_EQ(q.hitBank(), -1);
  // Bank 1 switches to row 6: one hit there now.
  q.rowChanged(1, 6);
  EXPECT_EQ(q.hitsIn(1), 1u);
  // Bank 1 closes: no hits left in it.
  q.rowChanged(1, -1);
  EXPECT_EQ(q.hitsIn(1), 0u);
  EXPECT_EQ(q.banksWithHits(), 1u);
}

TEST(RequestQueue, ArrivalOrderSurvivesRemovalsOutOfOrder) {
  RequestQueue q(4, 2);
  q.push(at(0, 1, 1), 0, 0, -1);
  q.push(at(1, 1, 2), 1, 0, -1);
  q.push(at(0, 2, 3), 0, 0, -1);
  // Issue the second arrival (bank 1's) first, as a row hit could be.
  q.remove(q.head(1), -1);
  EXPECT_EQ(q.oldestArrival(), 1);
  // Walking arrivals from the front skips the issued one.
  std::vector<int64_t> seen;
  q.oldest();
  for (uint64_t s = q.frontSeq(); s < q.endSeq(); ++s) {
    const int32_t slot = q.slotByAge(s);
    if (slot >= 0) seen.push_back(q.request(slot).arrival);
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 3}));
}

TEST(RequestQueue, KnowsWhetherArrivalsAreInOrder) {
  // The scheduler's arrival cutoff relies on it: arrivals 5, 5, 7 are in order; a request queued
  // with arrival 6 after the 7 is not, until the queue has emptied and starts a new order.
  RequestQueue q(4, 2);
  EXPECT_TRUE(q.arrivalsInOrder());
  q.push(at(0, 1, 5), 0, 0, -1);
  q.push(at(0, 1, 5), 0, 0, -1);
  q.push(at(1, 1, 7), 1, 0, -1);
  EXPECT_TRUE(q.arrivalsInOrder());
  // The arrival given apart from the request (the channel's admission time) is the one that counts.
  q.push(at(1, 1, 9), 6, 1, 0, -1);
  EXPECT_EQ(q.request(q.slotByAge(3)).arrival, 6);
  EXPECT_FALSE(q.arrivalsInOrder());
  // An emptied queue starts a new order.
  while (!q.empty()) q.remove(q.oldest(), -1);
  q.push(at(0, 1, 1), 0, 0, -1);
  EXPECT_TRUE(q.arrivalsInOrder());
}

}  // namespace
}  // namespace ascendsim::models
