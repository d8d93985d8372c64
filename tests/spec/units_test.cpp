// Units in configs: every accepted spelling and the exact value it stands for.
#include <gtest/gtest.h>

#include "spec/units.h"

namespace ascendsim::spec {
namespace {

uint64_t bytes(const char* s) {
  std::string why;
  auto v = parseBytes(s, why);
  EXPECT_TRUE(v.has_value()) << s << ": " << why;
  return v.value_or(0);
}

TEST(Units, SizesInBinaryAndDecimalUnits) {
  EXPECT_EQ(bytes("64GiB"), 64ull << 30);
  EXPECT_EQ(bytes("512 MiB"), 512ull << 20);
  EXPECT_EQ(bytes("4KiB"), 4096u);
  EXPECT_EQ(bytes("32B"), 32u);
  EXPECT_EQ(bytes("256"), 256u);  // bare numbers are bytes
  EXPECT_EQ(bytes("1.5KiB"), 1536u);
  EXPECT_EQ(bytes("24GB"), 24000000000ull);
}

TEST(Units, RejectsBadSizes) {
  std::string why;
  EXPECT_FALSE(parseBytes("64GB/s", why));
  EXPECT_NE(why.find("unknown unit 'GB/s'"), std::string::npos) << why;
  EXPECT_FALSE(parseBytes("-4KiB", why));
  EXPECT_NE(why.find("negative"), std::string::npos) << why;
  EXPECT_FALSE(parseBytes("1.3B", why));
  EXPECT_NE(why.find("whole number"), std::string::npos) << why;
  EXPECT_FALSE(parseBytes("lots", why));
  EXPECT_FALSE(parseBytes("inf", why));
  EXPECT_FALSE(parseBytes("0x100", why));
}

TEST(Units, DurationsArePicoseconds) {
  std::string why;
  EXPECT_EQ(parseDuration("105ns", why), 105000);
  EXPECT_EQ(parseDuration("2.5us", why), 2500000);
  EXPECT_EQ(parseDuration("1ms", why), 1000000000);
  EXPECT_EQ(parseDuration("625ps", why), 625);
  EXPECT_FALSE(parseDuration("105", why));  // a duration needs its unit
  EXPECT_NE(why.find("has no unit"), std::string::npos) << why;
}

TEST(Units, BandwidthRateFrequency) {
  std::string why;
  EXPECT_DOUBLE_EQ(*parseBandwidth("25.6GB/s", why), 25.6e9);
  EXPECT_DOUBLE_EQ(*parseBandwidth("1GiB/s", why), 1073741824.0);
  EXPECT_DOUBLE_EQ(*parseBandwidth("100Gb/s", why), 12.5e9);
  EXPECT_DOUBLE_EQ(*parseTransferRate("16GT/s", why), 16e9);
  EXPECT_DOUBLE_EQ(*parseTransferRate("3200MT/s", why), 3.2e9);
  EXPECT_DOUBLE_EQ(*parseFrequency("1600MHz", why), 1.6e9);
  EXPECT_FALSE(parseFrequency("1600", why));
}

TEST(Units, FormattingRoundTrips) {
  std::string why;
  for (uint64_t b : {0ull, 1ull, 4096ull, 64ull << 30, 24000000000ull, 1536ull}) {
    EXPECT_EQ(parseBytes(formatBytes(b), why), b) << formatBytes(b);
  }
  for (Picoseconds p : {0LL, 625LL, 105000LL, 2500000LL, 1000000000LL}) {
    EXPECT_EQ(parseDuration(formatDuration(p), why), p) << formatDuration(p);
  }
  for (double bw : {25.6e9, 1638.4e9, 12345678.9, 1.0 / 3.0}) {
    EXPECT_EQ(parseBandwidth(formatBandwidth(bw), why), bw) << formatBandwidth(bw);
  }
  EXPECT_EQ(formatBytes(64ull << 30), "64GiB");
  EXPECT_EQ(formatDuration(105000), "105ns");
  EXPECT_EQ(formatTransferRate(16e9), "16GT/s");
  EXPECT_EQ(formatFrequency(1.6e9), "1.6GHz");
}

}  // namespace
}  // namespace ascendsim::spec
