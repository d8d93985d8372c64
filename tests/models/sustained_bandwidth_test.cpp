// The sustained-rate cache must never serve one memory's rates to another: every setting of a
// memory is part of its key. (The key used to be a hand-kept list of 35 fields that left out the
// standard, tCCDR and the starvation cap: a study varying one of them got the first rate again.)
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "models/dram/sustained_bandwidth.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

TEST(SustainedRatesCache, EverySettingChangesTheKey) {
  const spec::DramSpec base = spec::loadMemorySpec("hbm3", "");
  const std::vector<std::pair<const char*, std::function<void(spec::DramSpec&)>>> changes{
      {"standard", [](spec::DramSpec& m) { m.standard = "HBM2E"; }},
      {"model", [](spec::DramSpec& m) { m.model = "fixed-latency"; }},
      {"ranks", [](spec::DramSpec& m) { m.ranks = 1; }},
      {"bank_groups", [](spec::DramSpec& m) { m.bankGroups = 2; }},
      {"banks_per_group", [](spec::DramSpec& m) { m.banksPerGroup = 8; }},
      {"page_size", [](spec::DramSpec& m) { m.pageSize = 2048; }},
      {"bus_width", [](spec::DramSpec& m) { m.busWidth = 64; }},
      {"burst_length", [](spec::DramSpec& m) { m.burstLength = 4; }},
      {"clock", [](spec::DramSpec& m) { m.clock = 1.5e9; }},
      {"data_rate", [](spec::DramSpec& m) { m.dataRate = 6.0e9; }},
      {"tCL", [](spec::DramSpec& m) { m.timings.tCL += 1; }},
      {"tCCDR", [](spec::DramSpec& m) { m.timings.tCCDR += 1; }},
      {"tRFCpb", [](spec::DramSpec& m) { m.timings.tRFCpb += 1; }},
      {"page_policy", [](spec::DramSpec& m) { m.pagePolicy = spec::PagePolicy::Closed; }},
      {"queue_depth", [](spec::DramSpec& m) { m.queueDepth += 1; }},
      {"write_queue_depth", [](spec::DramSpec& m) { m.writeQueueDepth = 64; }},
      {"write_high_watermark", [](spec::DramSpec& m) { m.writeHighWatermark = 0.7; }},
      {"write_low_watermark", [](spec::DramSpec& m) { m.writeLowWatermark = 0.1; }},
      {"starvation_cap", [](spec::DramSpec& m) { m.starvationCap += 1; }},
      {"address_mapping", [](spec::DramSpec& m) { m.addressMapping = "bank-group-interleaved"; }},
      {"interleave", [](spec::DramSpec& m) { m.interleaveGranule = 512; }},
  };
  const std::string original = sustainedRatesKey(base);
  for (const auto& [field, change] : changes) {
    spec::DramSpec changed = base;
    change(changed);
    EXPECT_NE(sustainedRatesKey(changed), original) << field << " is not part of the key";
  }
  EXPECT_EQ(sustainedRatesKey(base), original);  // and the key is stable
}

// Reads and writes of several streams at once (host memory under devices' DMA both ways) pay the
// bus turnarounds. DDR5-4800 (JESD79-5 timings of the preset): a write-to-read switch costs tCWL +
// BL/2 + tWTR_L = 38 + 8 + 24 clocks (29.2 ns), a read-to-write one tCL + BL/2 + 2 - tCWL = 12
// clocks (5 ns). At most the write queue's 32 writes go between two switches, and as many reads
// at half reads: 64 bursts of 3.33 ns (213 ns) then pay 34.2 ns, so half reads sustain at most
// 213 / 247 = 86 % of what reads alone do (less when the controller switches more often).
TEST(SustainedMixedRate, HalfWritesPayTheTurnarounds) {
  const spec::DramSpec ddr5 = spec::loadMemorySpec("ddr5-4800", "");
  const double reads = sustainedMixedRate(ddr5, 1.0);
  const double half = sustainedMixedRate(ddr5, 0.5);
  EXPECT_LT(half / reads, 213.0 / 247.0);
  EXPECT_GT(half, 0.0);
  // Reads alone at random 256 B requests: a row opened per request, but a request is four bursts
  // of 8 clocks, so four banks in flight (of 32) cover tRC = 116 clocks: within 2 % of long
  // sequential reads.
  EXPECT_NEAR(reads / sustainedSequentialRates(ddr5).read, 1.0, 0.02);
}

}  // namespace
}  // namespace ascendsim::models
