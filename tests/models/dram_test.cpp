// DRAM model validation. Each test states the figure it expects and the arithmetic behind it.
#include <gtest/gtest.h>

#include <random>

#include "dram_preset.h"
#include "models/dram/address_decoder.h"
#include "models/dram/command_bus.h"
#include "models/dram/memory_timing.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

// The reference HBM2 device (Ramulator 2's HBM2 2 Gb/s preset): tCK 1 ns.
spec::DramSpec referenceHbm2(const std::string& more = "") {
  return memory("hbm2", ", capacity: 16GiB" + more);
}

double sequentialEfficiency(const spec::DramSpec& m, uint64_t requests, bool write = false) {
  auto t = makeMemoryTiming(m);
  for (uint64_t i = 0; i < requests; ++i) t->enqueue(i * 64, 64, write, 0);
  t->drain();
  return t->totalStats().bandwidth() / m.peakBandwidth();
}

TEST(Dram, IsolatedReadToAClosedRowTakesRcdPlusClPlusBurst) {
  // tRCDRD 14 + tCL 14 + burst (BL4 at 2 transfers per clock = 2 cycles) = 30 cycles of 1 ns.
  auto t = makeMemoryTiming(referenceHbm2());
  EXPECT_EQ(t->access(0, 32, false, 0), 30000);
}

// The first address after 0 in the same bank as address 0, in the same row or another one.
uint64_t sameBankAs0(const spec::DramSpec& m, bool sameRow) {
  const AddressDecoder d(m);
  const auto c0 = d.decode(0);
  for (uint64_t a = m.burstBytes(); a < (1ull << 32); a += m.burstBytes()) {
    const auto c = d.decode(a);
    if (c.channel == c0.channel && c.bankGroup == c0.bankGroup && c.bank == c0.bank &&
        c.rank == c0.rank && (c.row == c0.row) == sameRow) {
      return a;
    }
  }
  return 0;
}

TEST(Dram, IsolatedReadToAnOpenRowTakesClPlusBurst) {
  // After the first read leaves the row open, a read at 1 us to another column of that row:
  // tCL 14 + 2 = 16 ns.
  const spec::DramSpec m = referenceHbm2();
  auto t = makeMemoryTiming(m);
  t->access(0, 32, false, 0);
  const uint64_t other = sameBankAs0(m, true);
  ASSERT_NE(other, 0u);
  EXPECT_EQ(t->access(other, 32, false, 1000000) - 1000000, 16000);
}

TEST(Dram, IsolatedReadToAnotherRowPaysPrechargeToo) {
  // A row conflict: tRP 14 + tRCDRD 14 + tCL 14 + 2 = 44 ns (tRAS has long passed at 1 us).
  const spec::DramSpec m = referenceHbm2();
  auto t = makeMemoryTiming(m);
  t->access(0, 32, false, 0);
  const uint64_t other = sameBankAs0(m, false);
  ASSERT_NE(other, 0u);
  EXPECT_EQ(t->access(other, 32, false, 1000000) - 1000000, 44000);
}

TEST(Dram, SequentialReadsReachEightyEightPercentOfPeakOnHbm2e) {
  // 409.6 GB/s per HBM2E stack; all-bank refresh alone takes tRFC / tREFI = 350 / 3900 = 9 %,
  // and the row commands share the channel's command bus with the other pseudo-channel's: at
  // least 88 %, as Ramulator 2 reaches on HBM2 (226.1 of 256 GB/s, 88.3 %).
  const double e = sequentialEfficiency(memory("hbm2e"), 200000);
  EXPECT_GE(e, 0.88);
  EXPECT_LE(e, 1.0 - 350.0 / 3900.0 + 0.005);  // never better than refresh allows
}

TEST(Dram, SequentialReadsReachNinetyPercentOfPeakOnDdr4) {
  // 25.6 GB/s per DDR4-3200 channel; refresh takes 560 / 12480 = 4.5 %.
  const double e = sequentialEfficiency(memory("ddr4-3200"), 200000);
  EXPECT_GE(e, 0.90);
  EXPECT_LE(e, 1.0 - 560.0 / 12480.0 + 0.005);
}

TEST(Dram, SequentialWritesToo) {
  EXPECT_GE(sequentialEfficiency(memory("hbm2e"), 200000, true), 0.88);
  EXPECT_GE(sequentialEfficiency(memory("ddr4-3200"), 200000, true), 0.90);
}

// Uniformly random 64 B reads over 1 GiB nearly always open a new row. Each needs an ACT, and ACTs
// of a rank are at least max(tRRD_S, tFAW / 4, tRC / banks) apart, while its data takes
// bytes / burst x burst cycles of the bus; refresh takes a further tRFC / tREFI.
double randomBound(const spec::DramSpec& m) {
  const double burstCycles = static_cast<double>(m.burstLength) / (m.dataRate / m.clock);
  const double dataCycles = 64.0 / static_cast<double>(m.burstBytes()) * burstCycles;
  const spec::DramTimings& t = m.timings;
  const double actCycles =
      std::max({double(t.tRRD_S), t.tFAW / 4.0, double(t.tRC) / (m.bankGroups * m.banksPerGroup)});
  return std::min(1.0, dataCycles / actCycles) * (1.0 - double(t.tRFC) / t.tREFI);
}

double randomEfficiency(const spec::DramSpec& m, uint64_t requests) {
  auto t = makeMemoryTiming(m);
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < requests; ++i)
    t->enqueue((rng() % ((1ull << 30) / 64)) * 64, 64, false, 0);
  t->drain();
  return t->totalStats().bandwidth() / m.peakBandwidth();
}

TEST(Dram, RandomReadsLandAtTheActivateLimitOnDdr4) {
  // DDR4-3200: one 4-cycle burst per request; ACTs 34 / 4 = 8.5 cycles apart (tFAW): 47 %, less
  // 4.5 % refresh = 45.0 % of 25.6 GB/s. Queued requests to a busy bank cost a little more.
  const spec::DramSpec m = memory("ddr4-3200");
  const double bound = randomBound(m);
  EXPECT_NEAR(bound, 4.0 / 8.5 * (1 - 560.0 / 12480), 1e-9);
  const double e = randomEfficiency(m, 100000);
  EXPECT_LE(e, bound * 1.01);
  EXPECT_GE(e, bound * 0.90);
}

TEST(Dram, RandomReadsLandAtTheActivateLimitOnHbm2e) {
  // HBM2E: two 2-cycle bursts per request; ACTs tRRD_S = 7 cycles (4 ns) apart: 57 %, less 9 %
  // refresh = 52 %. With 16 banks and a 32-entry queue, two requests for one bank are common
  // and wait tRC for each other, and requests are admitted in order, so one that waits for a
  // full channel queue holds back the others. Those two losses are not derived here: with this
  // seed (7) and 100000 requests the model lands at 0.670 of the bound, and the window below,
  // 0.63-0.71 of it, is that figure +-6 % (a regression window, not a validation; the reference
  // simulators' figures are checked in ReferenceSimulators.*): it fails when the model's random
  // read efficiency moves by more than 6 %, where 60-101 % let it fall by 40 %.
  const spec::DramSpec m = memory("hbm2e");
  const double bound = randomBound(m);
  EXPECT_NEAR(bound, 4.0 / 7.0 * (1 - 350.0 / 3900), 0.01);
  const double e = randomEfficiency(m, 100000);
  EXPECT_LE(e, bound * 0.71);
  EXPECT_GE(e, bound * 0.63);
  EXPECT_LT(e, 0.6);  // nowhere near the sequential figure: rows are what random traffic pays for
}

TEST(Dram, PseudoChannelsShareTheirChannelsRowCommandBus) {
  // One HBM2 channel, two pseudo-channels, random 64 B reads (each opens a row: an ACT of 2
  // command cycles and, for the open row it replaces, a PRE of 1). Alone, a pseudo-channel's
  // ACTs are tRRD_S = 4 cycles apart; two would need one ACT every 2 cycles. They share the row
  // bus, which carries at most one request per 3 cycles: 64 B / 3 ns = 21.3 GB/s for the
  // channel (two thirds of its 32 GB/s peak), less refresh. Without the shared bus the two would
  // reach up to 2 x 64 B / 4 ns = 32 GB/s (21.6 GB/s measured before the bus was modelled).
  const spec::DramSpec m =
      memory("hbm2", ", channels: 1, capacity: 1GiB, address_mapping: bank-group-interleaved");
  ASSERT_EQ(m.independentChannels(), 2u);
  const double gbps = randomEfficiency(m, 100000) * m.peakBandwidth() / 1e9;
  EXPECT_LE(gbps, 64.0 / 3.0 * (1 - 350.0 / 3900) * 1.01);
  EXPECT_GE(gbps, 64.0 / 3.0 * 0.7);
  // `command_bus: per-pseudo-channel` gives each its own buses: past the shared bus's bound.
  const spec::DramSpec own = memory("hbm2",
                                    ", channels: 1, capacity: 1GiB, address_mapping: "
                                    "bank-group-interleaved, command_bus: per-pseudo-channel");
  EXPECT_GT(randomEfficiency(own, 100000) * own.peakBandwidth() / 1e9, 64.0 / 3.0);
}

TEST(Dram, HbmThreeRowCommandsTakeHalfClocks) {
  // One HBM3 channel, two pseudo-channels, random 64 B reads, with tRRD, tFAW, tRCD, tRP, tRAS and
  // tRC cut down so that the shared row bus is what binds. JESD238 clocks row commands on both
  // edges: ACT takes 1.5 CK, PRE 0.5, so a row conflict holds the bus 2 cycles and the two
  // pseudo-channels can open a row every 2 cycles between them: 64 B / (2 x 0.625 ns) = 51.2
  // GB/s, the channel's peak, less refresh (560 / 6240): 46.6 GB/s at most. With HBM2's whole-
  // cycle commands (ACT 2, PRE 1) a conflict held it 3 cycles: at most 64 B / 1.875 ns = 34.1
  // GB/s even without refresh, which the reads must exceed.
  const spec::DramSpec m =
      memory("hbm3",
             ", channels: 1, capacity: 1GiB, address_mapping: bank-group-interleaved, tRRD_S: 1, "
             "tRRD_L: 1, tFAW: 4, tRCDRD: 8, tRCDWR: 8, tRP: 8, tRAS: 8, tRC: 16");
  ASSERT_EQ(m.independentChannels(), 2u);
  const double gbps = randomEfficiency(m, 200000) * m.peakBandwidth() / 1e9;
  EXPECT_GT(gbps, 64.0 / (3 * 0.625));
  EXPECT_LE(gbps, 64.0 / (2 * 0.625) * (1 - 560.0 / 6240) * 1.01);
}

TEST(Dram, HbmThreeStackIdsShareTheActivateWindow) {
  // One HBM3 pseudo-channel (32 bits at 6.4 GT/s) with two stack ids, random 64 B reads, tFAW
  // raised to 48 cycles so that it is what binds. JESD238A applies tFAW to the pseudo-channel,
  // not to each stack id: four ACTs per 48 cycles, one per 12 cycles of 0.625 ns, so 64 B / 7.5 ns
  // = 8.53 GB/s, less refresh (560 / 6240): 7.77 GB/s at most. With a window per stack id (as
  // before) the two ids together activated twice as often: 13.6 GB/s measured.
  const spec::DramSpec m =
      memory("hbm3", ", channels: 1, pseudo_channels: 1, capacity: 1GiB, tFAW: 48");
  ASSERT_EQ(m.independentChannels(), 1u);
  ASSERT_EQ(m.ranks, 2u);
  const double bound = 64.0 / (12 * 0.625) * (1 - 560.0 / 6240);
  const double gbps = randomEfficiency(m, 50000) * m.peakBandwidth() / 1e9;
  EXPECT_LE(gbps, bound * 1.01);
  EXPECT_GE(gbps, bound * 0.9);
}

TEST(Dram, HbmThreeReadsThatSwitchStackIdWaitTccdr) {
  // Open rows in stack id 0 (bank group 0) and stack id 1 (bank group 1) of one pseudo-channel,
  // then 32 B reads alternating between them: each is a row hit, and two reads in a row on
  // different bank groups need only tCCD_S = 2 cycles, a burst's length, but a read after a
  // read on the other stack id waits tCCDR = 3 (Ramulator 2's HBM3 6400 preset). Staying on one
  // stack id is no faster (the same bank group: tCCD_L = 4), so 1000 reads take 3 cycles each.
  const spec::DramSpec m = memory("hbm3", ", channels: 1, pseudo_channels: 1, capacity: 1GiB");
  const AddressDecoder d(m);
  // A 1 KiB row holds 32 bursts: the reads go round each row's columns.
  std::vector<uint64_t> sid[2];
  for (uint64_t a = 0; a < (1ull << 30) && (sid[0].size() < 32 || sid[1].size() < 32); a += 32) {
    const auto c = d.decode(a);
    if (c.row != 0 || c.bank != 0 || c.bankGroup != c.rank) continue;
    if (sid[c.rank].size() < 32) sid[c.rank].push_back(a);
  }
  ASSERT_EQ(sid[0].size(), 32u);
  ASSERT_EQ(sid[1].size(), 32u);
  auto t = makeMemoryTiming(m);
  const Picoseconds start =
      std::max(t->access(sid[0][0], 32, false, 0), t->access(sid[1][0], 32, false, 0)) + 100000;
  for (size_t i = 0; i < 500; ++i) {
    t->enqueue(sid[0][i % 32], 32, false, start);
    t->enqueue(sid[1][i % 32], 32, false, start);
  }
  const double cycles = static_cast<double>(t->drain() - start) / 625.0;
  // 1000 column commands 3 cycles apart, the last one's data tCL 20 + 2 cycles later.
  EXPECT_NEAR(cycles, 999 * 3 + 20 + 2, 8);
}

TEST(CommandBus, BookingsMayComeOutOfOrder) {
  CycleWindow w;
  w.book(100, 2);  // cycles 100, 101
  w.book(50, 1);   // an earlier booking, after a later one
  EXPECT_EQ(w.firstFree(50, 1), 51);
  EXPECT_EQ(w.firstFree(99, 2), 102);  // 99 is free but 100 is not: the two cycles start at 102
  EXPECT_EQ(w.firstFree(98, 2), 98);
  EXPECT_EQ(w.firstFree(102, 1), 102);
  // Far ahead the window slides; cycles that fell out of it count as free.
  w.book(100000, 1);
  EXPECT_EQ(w.firstFree(100, 1), 100);
  EXPECT_EQ(w.firstFree(100000, 1), 100001);
}

TEST(CommandBus, ARestoredWindowAnswersAsTheOneItWasTakenFrom) {
  // Batch replay sets a bus window to the state another one's bookings left (where it starts,
  // where its latest booking ends, its bits from the batch's start on). Two windows with the same
  // bookings before cycle 4500 (10, 20 and 4000; the window holds 4096 cycles); one then books
  // 5000, 9000 and 9001 (sliding to start at its end 9002 - 2048, rounded down to 64: 6912). The
  // other, restored to it from 4500 on, must answer alike from 4500 on.
  CycleWindow a, b;
  for (CycleWindow* w : {&a, &b}) {
    w->book(10, 1);
    w->book(20, 1);
    w->book(4000, 1);
  }
  a.book(5000, 1);
  a.book(9000, 2);
  EXPECT_EQ(a.base(), 6912);
  EXPECT_EQ(a.bookedUntil(), 9002);
  std::vector<uint64_t> bits;
  a.appendWindow(4500, bits);
  EXPECT_EQ(bits.size(), 64u);  // 6912 to 6912 + 4096, 64 cycles a word
  b.restore(4500, a.base(), a.bookedUntil(), bits.data());
  EXPECT_EQ(b.base(), 6912);
  EXPECT_EQ(b.bookedUntil(), 9002);
  EXPECT_EQ(b.firstFree(9000, 1), 9002);
  EXPECT_EQ(b.firstFree(5000, 1), 5000);  // slid out of the window: free
  for (int64_t c = 4500; c < 6912 + 4096 + 10; ++c) EXPECT_EQ(a.firstFree(c, 1), b.firstFree(c, 1));
  // Restored to a window that did not slide: bookings from the start cycle on only.
  CycleWindow d, e;
  d.book(100, 1);
  e.book(100, 1);
  d.book(300, 1);
  d.book(363, 2);  // across a word boundary of a start at 300
  bits.clear();
  d.appendWindow(300, bits);
  e.restore(300, d.base(), d.bookedUntil(), bits.data());
  EXPECT_EQ(e.firstFree(100, 1), 101);
  EXPECT_EQ(e.firstFree(300, 1), 301);
  EXPECT_EQ(e.firstFree(363, 1), 365);
  for (int64_t c = 0; c < 5000; ++c) EXPECT_EQ(d.firstFree(c, 1), e.firstFree(c, 1));
}

TEST(Dram, ReadWriteAlternationPaysTurnarounds) {
  // DDR4-3200, refresh off, one column read and written in turn, each request issued on its own
  // (drained before the next is offered) so that nothing is reordered. RD -> WR: tRTW = CL 22 + 4
  // + 2 - CWL 16 = 12 cycles. WR -> RD (same bank group): CWL 16 + burst 4 + tWTR_L 12 = 32
  // cycles. So a pair takes 44 cycles (27.5 ns) where two reads take 2 x tCCD_L = 16.
  const spec::DramSpec m = memory("ddr4-3200", ", tREFI: 1000000");
  auto alternating = makeMemoryTiming(m);
  auto readsOnly = makeMemoryTiming(m);
  const int pairs = 1000;
  Picoseconds alt = 0, reads = 0;
  for (int i = 0; i < 2 * pairs; ++i) {
    alternating->enqueue(0, 64, i % 2 == 1, 0);
    readsOnly->enqueue(0, 64, false, 0);
    alt = alternating->drain();
    reads = readsOnly->drain();
  }
  const Picoseconds tck = m.tCK();
  const Picoseconds first = (22 + 22 + 4) * tck;  // ACT, tRCD, CL, burst of the first read
  EXPECT_NEAR(static_cast<double>(alt - first),
              (pairs - 1) * 44.0 * tck + 12 * tck + (16 + 4 - 22 - 4) * tck, 2.0 * tck);
  EXPECT_NEAR(static_cast<double>(reads - first), (2 * pairs - 1) * 8.0 * tck, 2.0 * tck);
}

// Reads and writes of one column offered alternately, as fast as the queues take them: the
// channel reads while writes gather, and drains writes from above the high watermark to below
// the low one, so turnarounds come once per batch. Returns the cycles `pairs` pairs take.
double alternatingCycles(const std::string& settings, int pairs) {
  const spec::DramSpec m = memory("ddr4-3200", ", tREFI: 1000000" + settings);
  auto t = makeMemoryTiming(m);
  for (int i = 0; i < 2 * pairs; ++i) t->enqueue(0, 64, i % 2 == 1, 0);
  return static_cast<double>(t->drain()) / static_cast<double>(m.tCK());
}

TEST(Dram, WritesDrainBetweenTheWatermarks) {
  // Depth 32 each, watermarks 0.8 / 0.2 (Ramulator 2's): writes go once more than 25.6 wait
  // (26) until fewer than 6.4 are left (6), so reads and writes alternate in batches of 20. A
  // batch pair: 19 x tCCD_L 8 between reads, RD -> WR tRTW 12, 19 x 8 between writes, WR -> RD
  // CWL 16 + burst 4 + tWTR_L 12 = 32: 348 cycles per 20 pairs. 1000 more pairs: 50 x 348.
  EXPECT_NEAR(alternatingCycles("", 2000) - alternatingCycles("", 1000), 50 * 348.0, 20.0);
  // write_high_watermark 0.5, low 0.25: from 17 down to 7, batches of 10: 9 x 8 + 12 + 9 x 8 + 32
  // = 188 cycles per 10 pairs.
  const std::string half = ", write_high_watermark: 0.5, write_low_watermark: 0.25";
  EXPECT_NEAR(alternatingCycles(half, 2000) - alternatingCycles(half, 1000), 100 * 188.0, 20.0);
  // write_queue_depth 64: from 52 (> 51.2) down to 12 (< 12.8), batches of 40: 39 x 8 + 12 +
  // 39 x 8 + 32 = 668 cycles per 40 pairs.
  const std::string deep = ", write_queue_depth: 64";
  EXPECT_NEAR(alternatingCycles(deep, 2000) - alternatingCycles(deep, 1000), 25 * 668.0, 20.0);
}

TEST(Dram, RefreshTakesItsShareOfTime) {
  // DDR4-3200 streaming reads with and without refresh: the bandwidth ratio is 1 - tRFC / tREFI
  // = 1 - 560 / 12480 = 0.9551.
  const double with = sequentialEfficiency(memory("ddr4-3200"), 400000);
  const double without =
      sequentialEfficiency(memory("ddr4-3200", ", tREFI: 1000000, tRFC: 1"), 400000);
  EXPECT_NEAR(with / without, 1.0 - 560.0 / 12480.0, 0.005);
  auto t = makeMemoryTiming(memory("ddr4-3200"));
  for (uint64_t i = 0; i < 400000; ++i) t->enqueue(i * 64, 64, false, 0);
  t->drain();
  const DramStats s = t->totalStats();
  const double share =
      static_cast<double>(s.refreshPs) / static_cast<double>(s.lastCompletionPs - s.firstArrivalPs);
  EXPECT_NEAR(share, 560.0 / 12480.0, 0.003);
}

TEST(Dram, ClosedPagePolicyMakesEveryAccessAMiss) {
  auto t = makeMemoryTiming(memory("ddr4-3200", ", page_policy: closed"));
  for (uint64_t i = 0; i < 1000; ++i) t->enqueue(i * 64, 64, false, 0);
  t->drain();
  const DramStats s = t->totalStats();
  EXPECT_EQ(s.rowHits, 0u);
  EXPECT_EQ(s.rowMisses, 1000u);
}

TEST(Dram, StatisticsAddUp) {
  auto t = makeMemoryTiming(memory("hbm2e"));
  for (uint64_t i = 0; i < 1000; ++i) t->enqueue(i * 100, 100, i % 4 == 0, 0);
  t->drain();
  const DramStats s = t->totalStats();
  EXPECT_EQ(s.bytesRead + s.bytesWritten, 100000u);  // every byte once, however bursts split
  EXPECT_EQ(s.bytesWritten, 250u * 100u);
  EXPECT_EQ(s.rowHits + s.rowMisses + s.rowConflicts, s.reads + s.writes);
  EXPECT_GT(s.meanReadLatencyNs(), 0);
  EXPECT_GE(s.readLatencyPercentileNs(99), s.readLatencyPercentileNs(50));
  EXPECT_EQ(t->channelStats().size(), 16u);  // one HBM2E stack: 8 channels x 2 pseudo-channels
}

TEST(Dram, FixedLatencyModelArithmetic) {
  // fixed-latency: bytes at the peak (409.6 GB/s), then tRCDRD + tCL + burst = 23 + 23 + 2
  // cycles of 625 ps = 30 ns. 4096 B: 10 ns of transfer + 30 ns.
  auto t = makeMemoryTiming(memory("hbm2e", ", model: fixed-latency"));
  EXPECT_STREQ(t->name(), "fixed-latency");
  EXPECT_EQ(t->access(0, 4096, false, 0), 10000 + 30000);
}

TEST(AddressDecoder, InterleavedMappingWorkedExample) {
  // The example of docs/configuration.md: one HBM2E stack, interleave 256 B, address 0x12345.
  const AddressDecoder d(memory("hbm2e"));
  const DramCoordinates c = d.decode(0x12345);
  EXPECT_EQ(c.column, 2u);
  EXPECT_EQ(c.channel, 3u * 2 + 0);  // channel 3, pseudo-channel 0
  EXPECT_EQ(c.bankGroup, 2u);
  EXPECT_EQ(c.bank, 1u);
  EXPECT_EQ(c.row, 0u);
}

TEST(AddressDecoder, BankGroupInterleavedMatchesRamulatorBitPositions) {
  // Ramulator 2's HBM2 mapping: byte [4:0], column bit 0 [5], bank group [7:6], pseudo-channel [8],
  // bank [10:9], channel [13:11], column bits 4:1 [17:14], row [18+].
  const AddressDecoder d(referenceHbm2(", address_mapping: bank-group-interleaved"));
  EXPECT_EQ(d.decode(1u << 5).column, 1u);
  EXPECT_EQ(d.decode(1u << 6).bankGroup, 1u);
  EXPECT_EQ(d.decode(1u << 8).channel, 1u);  // pseudo-channel 1 of channel 0
  EXPECT_EQ(d.decode(1u << 9).bank, 1u);
  EXPECT_EQ(d.decode(1u << 11).channel, 2u);  // channel 1, pseudo-channel 0
  EXPECT_EQ(d.decode(1u << 14).column, 2u);
  EXPECT_EQ(d.decode(1u << 18).row, 1u);
  EXPECT_EQ(d.decode((1u << 18) - 1).row, 0u);
}

TEST(AddressDecoder, BurstsSharingCoordinatesFollowTheLowestColumnDigit) {
  // Bank-group interleaved: the lowest digit is column bit 0 (bit 5), so a burst at an even
  // column shares channel, bank and row with the next one, a burst at an odd column with none.
  const AddressDecoder d(referenceHbm2(", address_mapping: bank-group-interleaved"));
  EXPECT_EQ(d.burstsSharingCoordinates(0), 2u);
  EXPECT_EQ(d.burstsSharingCoordinates(32), 1u);
  EXPECT_EQ(d.burstsSharingCoordinates(64), 2u);
  for (uint64_t a : {0u, 64u, 4096u}) {
    const DramCoordinates x = d.decode(a), y = d.decode(a + 32);
    EXPECT_EQ(x.channel, y.channel);
    EXPECT_EQ(x.bank, y.bank);
    EXPECT_EQ(x.bankGroup, y.bankGroup);
    EXPECT_EQ(x.row, y.row);
  }
  // The default HBM2E mapping interleaves 256 B: 8 bursts of 32 B per run, counted from the offset.
  const AddressDecoder h(memory("hbm2e"));
  EXPECT_EQ(h.burstsSharingCoordinates(0), 8u);
  EXPECT_EQ(h.burstsSharingCoordinates(3 * 32), 5u);
  // Six DDR4 channels: the lowest digit is the column within a 256 B run (4 bursts of 64 B).
  const AddressDecoder six(memory("ddr4-3200", ", channels: 6, capacity: 48GiB"));
  EXPECT_EQ(six.burstsSharingCoordinates(64), 3u);
}

TEST(AddressDecoder, NonPowerOfTwoCounts) {
  // Six DDR4 channels (a six-channel socket): consecutive 256 B runs visit channels 0..5.
  const AddressDecoder d(memory("ddr4-3200", ", channels: 6, capacity: 48GiB"));
  for (uint64_t run = 0; run < 12; ++run) EXPECT_EQ(d.decode(run * 256).channel, run % 6);
}

TEST(AddressDecoder, ASplitFieldTakesItsLowBitsFromTheFirstPieceAndTheRestFromTheLater) {
  // One HBM2 stack (16 GiB: 8 channels x 2 pseudo-channels, 4 bank groups x 4 banks, 32 B bursts,
  // 1 KiB rows of 32 columns, 65536 rows) with the bank group split: its bit 0 low, bit 1 high.
  // Above the 5 byte bits: [5] column bit 0, [6] bank group bit 0, [7] pseudo-channel, [9:8]
  // bank, [12:10] channel, [16:13] column bits 4:1, [17] bank group bit 1, [18+] row.
  const AddressDecoder d(
      referenceHbm2(", address_mapping: 'co:2, bg:2, pc, ba, ch, st, ra, co, bg, ro'"));
  EXPECT_EQ(d.decode(uint64_t{1} << 6).bankGroup, 1u);
  EXPECT_EQ(d.decode(uint64_t{1} << 17).bankGroup, 2u);
  EXPECT_EQ(d.decode((uint64_t{1} << 17) | (uint64_t{1} << 6)).bankGroup, 3u);
  EXPECT_EQ(d.decode(uint64_t{1} << 7).channel, 1u);   // pseudo-channel 1 of channel 0
  EXPECT_EQ(d.decode(uint64_t{1} << 10).channel, 2u);  // channel 1, pseudo-channel 0
  EXPECT_EQ(d.decode(uint64_t{1} << 8).bank, 1u);
  EXPECT_EQ(d.decode(uint64_t{1} << 13).column, 2u);
  EXPECT_EQ(d.decode(uint64_t{1} << 18).row, 1u);
  // Every field at once: row 3, bank group 2 (high bit only), column 5 (bit 0 and column bits 4:1
  // = 2), channel 5, pseudo-channel 1, bank 2.
  const uint64_t a = (uint64_t{3} << 18) | (uint64_t{1} << 17) | (uint64_t{2} << 13) |
                     (uint64_t{5} << 10) | (uint64_t{2} << 8) | (uint64_t{1} << 7) |
                     (uint64_t{1} << 5) | 7;  // 7: a byte inside the burst
  const DramCoordinates c = d.decode(a);
  EXPECT_EQ(c.row, 3u);
  EXPECT_EQ(c.bankGroup, 2u);
  EXPECT_EQ(c.column, 5u);
  EXPECT_EQ(c.channel, 5u * 2 + 1);
  EXPECT_EQ(c.bank, 2u);
  // The last byte below row 1: every field at its largest.
  const DramCoordinates top = d.decode((uint64_t{1} << 18) - 1);
  EXPECT_EQ(top.row, 0u);
  EXPECT_EQ(top.bankGroup, 3u);
  EXPECT_EQ(top.column, 31u);
  EXPECT_EQ(top.channel, 15u);
  EXPECT_EQ(top.bank, 3u);
}

TEST(AddressDecoder, SplitFieldsNeedNotBePowersOfTwo) {
  // Six DDR4 channels split 2 x 3: the low piece (radix 2) right above a 256 B run of 4 bursts of
  // 64 B, the high piece (radix 3) above the bank group (4), the rest of the 8 KiB row (128 / 4 =
  // 32 column steps) and the bank (4): channel = low + 2 x high.
  const AddressDecoder d(memory(
      "ddr4-3200",
      ", channels: 6, capacity: 48GiB, address_mapping: 'co:4,ch:2,bg,co,ba,ra,ch,pc,st,ro'"));
  const uint64_t low = 256, high = 256 * 2 * 4 * 32 * 4;  // 262144: the high piece's step
  for (uint64_t hi = 0; hi < 3; ++hi) {
    for (uint64_t lo = 0; lo < 2; ++lo)
      EXPECT_EQ(d.decode(lo * low + hi * high).channel, lo + 2 * hi);
  }
  EXPECT_EQ(d.decode(3 * high).channel, 0u);  // past the last channel: the next row
  EXPECT_EQ(d.decode(3 * high).row, 1u);
}

// The configuration error a mapping gives, or "" when it is accepted.
std::string mappingError(const std::string& mapping) {
  try {
    memory("hbm2e", ", address_mapping: '" + mapping + "'");
  } catch (const spec::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(AddressMapping, BadSplitsSayWhatIsWrong) {
  // HBM2E: 4 bank groups. Pieces that take more than the field has overlap; fewer leave bits out.
  EXPECT_NE(mappingError("co,ch,pc,st,bg,ba,ra,bg,ro")
                .find("'bg' overlaps: earlier pieces of 'bg' already place all 4 bank groups"),
            std::string::npos);
  EXPECT_NE(mappingError("co,ch,pc,st,bg:2,ba,ra,bg:4,ro")
                .find("'bg:4' does not fit: earlier pieces of 'bg' place 2 of its 4 bank groups, "
                      "leaving 2"),
            std::string::npos);
  EXPECT_NE(mappingError("co,ch,pc,st,bg:2,ba,ra,ro")
                .find("field 'bg' is not wholly placed: its pieces take 2 of its 4 bank groups"),
            std::string::npos);
  EXPECT_NE(mappingError("co,ch,pc,st,bg:3,ba,ra,bg,ro").find("'bg:3' does not fit: 'bg' has 4"),
            std::string::npos);
  EXPECT_NE(mappingError("co,ch,pc,st,bg:0,ba,ra,bg,ro").find("'bg:0': the count after ':'"),
            std::string::npos);
  EXPECT_NE(mappingError("co,ch,pc,st,bg:x,ba,ra,bg,ro").find("'bg:x': the count after ':'"),
            std::string::npos);
  EXPECT_NE(mappingError("co,ch,pc,st,bg,ba,ra,ro:2").find("the row cannot be split"),
            std::string::npos);
  EXPECT_EQ(mappingError("co,ch:2,pc,st,bg:2,ba,ra,ch,bg,ro"), "");
}

TEST(AddressMapping, BadMappingsAreConfigErrors) {
  EXPECT_THROW(memory("hbm2e", ", address_mapping: 'co,ch,pc,st,bg,ba,ra'"),
               spec::ConfigError);  // no ro
  EXPECT_THROW(memory("hbm2e", ", address_mapping: 'co:3,ch,pc,st,bg,ba,ra,co,ro'"),
               spec::ConfigError);
  EXPECT_THROW(memory("hbm2e", ", address_mapping: 'co,ch,ch,pc,st,bg,ba,ra,ro'"),
               spec::ConfigError);
  EXPECT_THROW(memory("hbm2e", ", address_mapping: 'co,xx,pc,st,bg,ba,ra,ro'"), spec::ConfigError);
  EXPECT_NO_THROW(memory("hbm2e", ", address_mapping: 'co:2,ch,bg,ba,pc,st,ra,co,ro'"));
}

}  // namespace
}  // namespace ascendsim::models
