// LPDDR5, the standard added through the kinds seam (models/dram/standards/lpddr5.cpp plus
// configs/memory/lpddr5.yaml): its figures and rules as JESD209-5B gives them, checked with
// arithmetic written here.
#include <gtest/gtest.h>

#include "models/dram/memory_timing.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

TEST(Lpddr5, PeakIsFourSixteenBitChannelsAt6400MTs) {
  // 4 channels x 16 bits x 6.4 GT/s / 8 bits per byte = 51.2 GB/s.
  const spec::DramSpec m = spec::loadMemorySpec("lpddr5");
  EXPECT_EQ(m.standard, "LPDDR5");
  EXPECT_DOUBLE_EQ(m.peakBandwidth(), 4 * 16 * 6.4e9 / 8);
  EXPECT_EQ(m.burstBytes(), 32u);  // BL16 x 16 bits
  EXPECT_EQ(m.tCK(), 1250);        // CK 800 MHz
}

// Picoseconds from the first request to the last byte of `n` reads of one burst each, offered
// at once, on one 16-bit channel whose consecutive bursts go to bank groups 0, 1, 2, 3, then the
// next bank of each group, ... (16 banks; a row of 64 bursts in each, so the first 1024 reads
// open each row once and then hit it), with refresh pushed out of the way.
spec::Picoseconds readsAcrossBankGroups(uint64_t n) {
  auto timing =
      makeMemoryTiming(spec::loadMemorySpec("lpddr5",
                                            "channels: 1\ncapacity: 2GiB\naddress_mapping: "
                                            "co:1,bg,ch,pc,st,ba,ra,co,ro\ntREFI: 1000000\n"));
  for (uint64_t i = 0; i < n; ++i) timing->enqueue(i * 32, 32, false, 0);
  return timing->drain();
}

TEST(Lpddr5, ABurstEveryTwoCommandClocksAcrossBankGroups) {
  // In steady state each read holds the data bus for BL16 / 8 transfers per CK = 2 CK, reads to
  // another bank group may follow after tCCD_S = 2 CK, and CAS + RD hold the command bus 2 CK:
  // reads 200 to 1000, all row hits, take 800 x 2 x 1.25 ns = 2000 ns, the channel's whole
  // 12.8 GB/s. (Were the data clocked at 2 transfers per CK, as for LPDDR4X, a burst would hold
  // the bus 8 CK.)
  const spec::Picoseconds extra = readsAcrossBankGroups(1000) - readsAcrossBankGroups(200);
  EXPECT_NEAR(static_cast<double>(extra), 800 * 2 * 1250.0, 1250.0);  // within one CK
}

TEST(Lpddr5, DataClockedAtCkIsRejected) {
  // JESD209-5B: data moves on WCK at 4 x CK, 8 transfers per CK; 6400 MT/s at a 3200 MHz CK is
  // not an LPDDR5 part.
  EXPECT_THROW(spec::loadMemorySpec("lpddr5", "clock: 3200MHz\n"), spec::ConfigError);
}

}  // namespace
}  // namespace ascendsim::models
