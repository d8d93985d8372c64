// Streaming through the DRAM model (MemoryTiming::mark / issueGroup): a requester keeps requests
// of several pieces queued and waits for one piece at a time. Each group must end when its last
// burst's data does (read from the channels' issue log, burst by burst), later groups must stay
// queued until asked for or pushed out by full queues, and every request must issue exactly once.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "dram_preset.h"
#include "models/dram/address_decoder.h"
#include "models/dram/banked_dram.h"
#include "models/dram/memory_timing.h"

namespace ascendsim::models {
namespace {

// Eight groups of 512 random 32-byte requests in 1 GiB, group k arriving at k x 100 ns, all in
// rows whose number is k modulo 8 (so the log's row says which group a burst is of); odd groups
// write every third request.
struct Traffic {
  struct Request {
    uint64_t offset;
    bool write;
  };
  std::vector<std::vector<Request>> groups;
};

Traffic traffic(const spec::DramSpec& m) {
  const AddressDecoder decoder(m);
  Traffic t;
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<uint64_t> any(0, (uint64_t{1} << 30) / 32 - 1);
  for (uint64_t g = 0; g < 8; ++g) {
    t.groups.emplace_back();
    for (int i = 0; i < 512;) {
      const uint64_t at = any(rng) * 32;
      if (decoder.decode(at).row % 8 != g) continue;
      t.groups.back().push_back({at, g % 2 == 1 && i % 3 == 0});
      ++i;
    }
  }
  return t;
}

constexpr Picoseconds kApart = 100000;  // between groups' arrivals

TEST(DramStreaming, EachGroupEndsWithItsLastBurst) {
  const spec::DramSpec m = memory("hbm2e");
  BankedDram dram(m);
  std::vector<DramChannel::Issued> log;
  dram.setIssueLog(&log);
  const Traffic t = traffic(m);
  std::vector<uint64_t> marks;
  for (size_t g = 0; g < t.groups.size(); ++g) {
    for (const auto& r : t.groups[g])
      dram.enqueue(r.offset, 32, r.write, static_cast<Picoseconds>(g) * kApart);
    marks.push_back(dram.mark());
  }
  // Asked out of order: group 3 first, then the rest.
  std::map<size_t, Picoseconds> ends;
  ends[3] = dram.issueGroup(marks[3]);
  const size_t afterThree = log.size();
  for (size_t g = 0; g < marks.size(); ++g) {
    if (g != 3) ends[g] = dram.issueGroup(marks[g]);
  }
  // 4096 requests, each issued once (the 32 queues of 32 reads and 32 writes cannot hold them
  // all, so some went while later ones were queued); group 3 did not need the last four groups'.
  ASSERT_EQ(log.size(), 8u * 512);
  EXPECT_LT(afterThree, log.size());
  std::map<size_t, int64_t> lastData;
  for (const DramChannel::Issued& b : log) {
    const auto g = static_cast<size_t>(b.row % 8);
    lastData[g] = std::max(lastData[g], b.dataEnd);
  }
  for (size_t g = 0; g < marks.size(); ++g)
    EXPECT_EQ(ends[g], lastData[g] * m.tCK()) << "group " << g;
  // Asked again, a group is gone: 0.
  EXPECT_EQ(dram.issueGroup(marks[0]), 0);
}

// Fixed latency serves requests as they come: a group ends with its last request.
TEST(DramStreaming, FixedLatencyGroupsEndWithTheirLastRequest) {
  auto dram = makeMemoryTiming(memory("hbm2e", ", model: fixed-latency"));
  const Picoseconds first = dram->access(0, 64, false, 0);
  dram->enqueue(0, 64, false, 0);
  const uint64_t a = dram->mark();
  dram->enqueue(64, 64, false, 0);
  const uint64_t b = dram->mark();
  // The second group waits for the first (64 B at the peak) and ends one transfer later.
  const Picoseconds second = dram->issueGroup(a);
  EXPECT_GT(second, first);
  EXPECT_GT(dram->issueGroup(b), second);
}

}  // namespace
}  // namespace ascendsim::models
