// The DRAM channel's scheduling shortcuts (models/dram/dram_channel.cpp) against its plain FR-FCFS
// scan. A shortcut may only skip planning candidates that provably cannot be first ready; so with
// the shortcuts on and off the same traffic must give the same commands: every burst issued in the
// same order, with the same PRE, ACT and column command cycles and the same data end, and the same
// counters. The traffic covers sequential, random, mixed read/write and strided patterns, offered
// all at once (closed loop) and trickling in (so that arrival times bind), in batches drained one
// after the other as the cycle memory timing does, long enough for refresh to come round many
// times (all-bank and per-bank), on HBM2E, HBM3 (stack ids sharing the activate window), DDR4 with
// two ranks and a closed-page DDR4.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "dram_preset.h"
#include "models/dram/banked_dram.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

struct Access {
  uint64_t offset;
  bool write;
};

enum class Pattern { Sequential, Random, MixedRandom, CopyStreams, Strided };

// `count` 64-byte accesses of the pattern within 1 GiB.
std::vector<Access> traffic(Pattern pattern, size_t count) {
  std::vector<Access> out;
  std::mt19937_64 rng(31);
  std::uniform_int_distribution<uint64_t> any(0, (uint64_t{1} << 30) / 64 - 1);
  for (size_t i = 0; i < count; ++i) {
    switch (pattern) {
      case Pattern::Sequential: out.push_back({i * 64, false}); break;
      case Pattern::Random: out.push_back({any(rng) * 64, false}); break;
      case Pattern::MixedRandom: out.push_back({any(rng) * 64, i % 3 == 2}); break;
      // A copy inside the memory: a read stream from the bottom, a write stream from 512 MiB.
      case Pattern::CopyStreams:
        out.push_back({(i / 2) * 64 + (i % 2 ? uint64_t{1} << 29 : 0), i % 2 == 1});
        break;
      // 4 KiB steps, then 64 B further on after each wrap of 1 GiB (so wraps every 16 K).
      case Pattern::Strided:
        out.push_back({(i * 4096) % (uint64_t{1} << 30) + (i * 4096 >> 30) * 64, false});
        break;
    }
  }
  return out;
}

struct Run {
  std::vector<DramChannel::Issued> log;
  DramStats stats;
  std::vector<Picoseconds> drained;  // what each batch's drain returned
};

// The traffic in batches of `batch` accesses, each batch drained before the next is offered; in a
// batch access i arrives at its start + i x `spacing`.
Run run(const spec::DramSpec& m, const std::vector<Access>& accesses, bool shortcuts, size_t batch,
        Picoseconds spacing) {
  BankedDram dram(m);
  dram.setShortcuts(shortcuts);
  Run out;
  dram.setIssueLog(&out.log);
  Picoseconds start = 0;
  for (size_t first = 0; first < accesses.size(); first += batch) {
    const size_t end = std::min(accesses.size(), first + batch);
    for (size_t i = first; i < end; ++i)
      dram.enqueue(accesses[i].offset, 64, accesses[i].write,
                   start + static_cast<Picoseconds>(i - first) * spacing);
    const Picoseconds done = dram.drain();
    out.drained.push_back(done);
    start = std::max(start, done);  // the next batch comes when this one is through
  }
  out.stats = dram.totalStats();
  return out;
}

void expectSameCommands(const spec::DramSpec& m, Pattern pattern, size_t count, size_t batch,
                        Picoseconds spacing) {
  const std::vector<Access> accesses = traffic(pattern, count);
  const Run fast = run(m, accesses, true, batch, spacing);
  const Run plain = run(m, accesses, false, batch, spacing);
  // Every access is one burst of 64 B, or two of 32 B (HBM): each is issued once.
  const size_t bursts = count * 64 / m.burstBytes();
  ASSERT_EQ(plain.log.size(), bursts);
  ASSERT_EQ(fast.log.size(), bursts);
  for (size_t i = 0; i < bursts; ++i) {
    const DramChannel::Issued& a = fast.log[i];
    const DramChannel::Issued& b = plain.log[i];
    ASSERT_TRUE(a.channel == b.channel && a.bankIndex == b.bankIndex && a.row == b.row &&
                a.write == b.write && a.arrival == b.arrival && a.pre == b.pre && a.act == b.act &&
                a.col == b.col && a.dataEnd == b.dataEnd)
        << "burst " << i << " of " << bursts << ": with shortcuts channel " << a.channel << " bank "
        << a.bankIndex << " row " << a.row << " col " << a.col << " data end " << a.dataEnd
        << "; without channel " << b.channel << " bank " << b.bankIndex << " row " << b.row
        << " col " << b.col << " data end " << b.dataEnd;
  }
  EXPECT_EQ(fast.drained, plain.drained);
  EXPECT_EQ(fast.stats.rowHits, plain.stats.rowHits);
  EXPECT_EQ(fast.stats.rowMisses, plain.stats.rowMisses);
  EXPECT_EQ(fast.stats.rowConflicts, plain.stats.rowConflicts);
  EXPECT_EQ(fast.stats.refreshes, plain.stats.refreshes);
  EXPECT_EQ(fast.stats.readLatencySumPs, plain.stats.readLatencySumPs);
  // The traffic is long enough to meet refresh: tREFI is 3.9 us on HBM2E and HBM3, 7.8 us on
  // DDR4, and every run lasts longer than two of them.
  EXPECT_GT(plain.stats.lastCompletionPs, 2 * m.timings.tREFI * m.tCK());
  EXPECT_GE(plain.stats.refreshes, 2u);
}

struct Case {
  const char* name;
  spec::DramSpec memory;
};

std::vector<Case> memories() {
  return {{"hbm2e", memory("hbm2e")},
          {"hbm2e per-bank refresh", memory("hbm2e", ", tRFCpb: 160ns")},
          {"hbm3", memory("hbm3")},
          {"ddr4-3200 two ranks", memory("ddr4-3200", ", ranks: 2")},
          {"ddr4-3200 closed page", memory("ddr4-3200", ", page_policy: closed")}};
}

// 120 000 accesses of 64 B: 7.7 MB; at the sustained rate of one HBM2E stack (365 GB/s) 21 us, at
// DDR4's 24 GB/s 300 us: several refresh intervals either way.
constexpr size_t kAccesses = 120000;

TEST(DramScheduling, ShortcutsChooseAsThePlainScanForStreamsOfferedAtOnce) {
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    expectSameCommands(c.memory, Pattern::Sequential, kAccesses, kAccesses, 0);
    expectSameCommands(c.memory, Pattern::CopyStreams, kAccesses, 4096, 0);
  }
}

TEST(DramScheduling, ShortcutsChooseAsThePlainScanForRandomAndMixedTraffic) {
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    expectSameCommands(c.memory, Pattern::Random, kAccesses / 2, kAccesses / 2, 0);
    expectSameCommands(c.memory, Pattern::MixedRandom, kAccesses / 2, 2048, 0);
  }
}

TEST(DramScheduling, ShortcutsChooseAsThePlainScanForStridedTraffic) {
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    expectSameCommands(c.memory, Pattern::Strided, kAccesses / 2, kAccesses / 2, 0);
  }
}

TEST(DramScheduling, ShortcutsChooseAsThePlainScanWhenArrivalsBind) {
  // Accesses trickling in, as a copy's bytes do in the cycle memory timing: one every 200 ps
  // (320 GB/s of 64 B accesses, about what one HBM2E stack sustains, so queues fill and empty)
  // and one every 2 ns (the memory mostly waits for requests).
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    for (const Picoseconds spacing : {Picoseconds{200}, Picoseconds{2000}}) {
      expectSameCommands(c.memory, Pattern::Sequential, kAccesses, 8192, spacing);
      expectSameCommands(c.memory, Pattern::CopyStreams, kAccesses, 8192, spacing);
      expectSameCommands(c.memory, Pattern::MixedRandom, kAccesses / 4, 1024, spacing);
      expectSameCommands(c.memory, Pattern::Strided, kAccesses / 4, 4096, spacing);
    }
  }
}

}  // namespace
}  // namespace ascendsim::models
