// Refresh is visible on every DRAM standard: each standard's preset, streaming sequential reads,
// loses the share of time its refresh takes, tRFC / tREFI (all-bank refresh: every tREFI the
// banks are away for tRFC), and the rate the fabric serves the memory at (its sustained
// sequential rate) stays below peak x (1 - tRFC / tREFI). LPDDR4X and DDR5 used to reach 100 %
// and 99.3 % of peak: their presets refreshed one bank at a time, and the controller steered each
// refresh to a bank the stream did not need.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <set>
#include <string>

#include "models/dram/dram_standard.h"
#include "models/dram/memory_timing.h"
#include "models/dram/sustained_bandwidth.h"
#include "spec/kind_registry.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

struct RefreshCase {
  const char* standard;  // as registered in models/dram/standards/
  const char* preset;    // configs/memory/
  double share;          // tRFC / tREFI from the preset's figures
};
void PrintTo(const RefreshCase& c, std::ostream* os) {
  *os << c.standard;
}

const RefreshCase kCases[] = {
    {"HBM2", "hbm2", 350.0 / 3900},        // 350 / 3900 cycles of 1 ns
    {"HBM2E", "hbm2e", 350.0 / 3900},      // 350 ns / 3.9 us
    {"HBM3", "hbm3", 560.0 / 6240},        // 560 / 6240 cycles of 0.625 ns
    {"DDR4", "ddr4-3200", 560.0 / 12480},  // 560 / 12480 cycles of 0.625 ns
    {"DDR5", "ddr5-4800", 295.0 / 3900},   // tRFC1 295 ns / 3.9 us
    {"LPDDR4X", "lpddr4x", 280.0 / 3904},  // tRFCab 280 ns / 3.904 us
    {"LPDDR5", "lpddr5", 224.0 / 3125},    // 224 / 3125 cycles of 1.25 ns
};

// Sequential 64 B reads on one channel of `m` (its other channels do the same) for
// `refreshIntervals` tREFI at peak, bytes per second.
double sequentialRate(const spec::DramSpec& m, double refreshIntervals) {
  spec::DramSpec one = m;
  one.stacks = one.channels = one.pseudoChannels = 1;
  one.capacity = m.rows() * m.ranks * m.bankGroups * m.banksPerGroup * m.pageSize;
  const double seconds = refreshIntervals * static_cast<double>(m.timings.tREFI * m.tCK()) * 1e-12;
  const auto requests = static_cast<uint64_t>(std::ceil(seconds * one.peakBandwidth() / 64));
  auto t = makeMemoryTiming(one);
  for (uint64_t i = 0; i < requests; ++i) t->enqueue(i * 64, 64, false, 0);
  t->drain();
  return t->totalStats().bandwidth();
}

class RefreshIsVisible : public ::testing::TestWithParam<RefreshCase> {};

TEST_P(RefreshIsVisible, SequentialReadsLoseTrfcOverTrefi) {
  const RefreshCase& c = GetParam();
  const spec::DramSpec m = spec::loadMemorySpec(c.preset);
  ASSERT_EQ(m.standard, c.standard);
  ASSERT_EQ(m.timings.tRFCpb, 0) << c.preset << " should use all-bank refresh";
  ASSERT_NEAR(static_cast<double>(m.timings.tRFC) / m.timings.tREFI, c.share, 1e-3);
  // The same stream with refresh and with (almost) none: tREFI as long as allowed, tRFC one cycle.
  spec::DramSpec none = m;
  none.timings.tREFI = 1000000;
  none.timings.tRFC = 1;
  // 40 intervals: the run ends between two refreshes, which leaves the refreshes' share of it at
  // most 1/40 of itself (0.25 points) short.
  const double with = sequentialRate(m, 40), without = sequentialRate(none, 40);
  // Refresh takes its share, and a little more: the rows it closes open again (tRCD on the next
  // burst of each bank), at most 1 % of the time here.
  EXPECT_LE(with / without, 1 - c.share + 0.003) << c.preset;
  EXPECT_GE(with / without, 1 - c.share - 0.01) << c.preset;
  // What the fabric serves the memory at stays below what refresh leaves of the peak.
  const SustainedRates sustained = sustainedSequentialRates(m);
  EXPECT_LE(sustained.read, m.peakBandwidth() * (1 - c.share) * 1.001) << c.preset;
  EXPECT_LE(sustained.write, m.peakBandwidth() * (1 - c.share) * 1.001) << c.preset;
}

std::string standardName(const ::testing::TestParamInfo<RefreshCase>& param) {
  return param.param.standard;
}

INSTANTIATE_TEST_SUITE_P(EveryStandard, RefreshIsVisible, ::testing::ValuesIn(kCases),
                         standardName);

TEST(RefreshCases, EveryRegisteredStandardHasOne) {
  std::set<std::string> covered;
  for (const RefreshCase& c : kCases) covered.insert(c.standard);
  for (const std::string& name : kinds::kindNames("dram-standard"))
    EXPECT_TRUE(covered.count(name)) << name << " has no refresh case here";
}

}  // namespace
}  // namespace ascendsim::models
