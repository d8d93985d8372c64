// The banked DRAM model against DRAMSys 5.0 and Ramulator 2 on the same HBM2 device
// (configs/memory/hbm2.yaml, bank-group-interleaved mapping): 2 Mi requests of 64 B offered in
// order as fast as the controller accepts them. The references' figures were measured outside
// this repository (issue #14's table); each bandwidth must come within 10 % of their mean.
#include <gtest/gtest.h>

#include <cctype>
#include <random>

#include "models/dram/memory_timing.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

constexpr uint64_t kRequests = 2ull << 20;
constexpr uint64_t kSpan = 1ull << 30;

struct Reference {
  const char* pattern;
  double ramulator2, dramsys;  // GB/s
};

// The pattern's i-th request: address and whether it writes.
std::pair<uint64_t, bool> request(const std::string& pattern, uint64_t i, std::mt19937_64& rng) {
  if (pattern == "sequential read") return {i * 64, false};
  if (pattern == "sequential write") return {i * 64, true};
  if (pattern == "random read") return {(rng() % (kSpan / 64)) * 64, false};
  if (pattern == "random 2:1") return {(rng() % (kSpan / 64)) * 64, i % 3 == 0};
  // 4 KiB stride: i x 4096 mod 1 GiB, 64 B further on at each wrap.
  const uint64_t linear = i * 4096;
  return {linear % kSpan + linear / kSpan * 64, false};
}

double bandwidth(const std::string& pattern) {
  auto timing = makeMemoryTiming(spec::loadMemorySpec("hbm2", "address_mapping: bank-group-interleaved\n"));
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < kRequests; ++i) {
    const auto [address, write] = request(pattern, i, rng);
    timing->enqueue(address, 64, write, 0);
  }
  timing->drain();
  return timing->totalStats().bandwidth() / 1e9;
}

class ReferenceSimulators : public ::testing::TestWithParam<Reference> {};

TEST_P(ReferenceSimulators, BandwidthWithinTenPercentOfTheirMean) {
  const Reference& r = GetParam();
  const double mean = (r.ramulator2 + r.dramsys) / 2;
  const double got = bandwidth(r.pattern);
  EXPECT_NEAR(got / mean, 1.0, 0.10) << r.pattern << ": " << got << " GB/s; Ramulator 2 " << r.ramulator2
                                     << ", DRAMSys " << r.dramsys;
}

INSTANTIATE_TEST_SUITE_P(Hbm2, ReferenceSimulators,
                         ::testing::Values(Reference{"sequential read", 226.1, 239.3},
                                           Reference{"random read", 135.1, 135.8},
                                           Reference{"sequential write", 225.8, 238.6},
                                           Reference{"random 2:1", 99.1, 105.3}),
                         [](const auto& param) {
                           std::string name = param.param.pattern;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// Unloaded read latency: one 64 B read at a time, each arriving 1 ns after the previous one
// completed, from its arrival to its last byte. Row hits: the reads go round the same 16 places,
// whose rows stay open; random: uniform over 1 GiB. Within 20 % of the references' mean.
double unloadedLatencyNs(bool rowHits) {
  auto timing = makeMemoryTiming(spec::loadMemorySpec("hbm2", "address_mapping: bank-group-interleaved\n"));
  std::mt19937_64 rng(7);
  constexpr int kReads = 20000;
  Picoseconds at = 0, sum = 0;
  for (int i = 0; i < kReads; ++i) {
    const uint64_t address = rowHits ? uint64_t(i % 16) * 64 : (rng() % (kSpan / 64)) * 64;
    const Picoseconds done = timing->access(address, 64, false, at);
    sum += done - at;
    at = done + 1000;
  }
  return static_cast<double>(sum) / kReads / 1000.0;
}

TEST(ReferenceSimulatorsLatency, UnloadedRowHitReadWithinTwentyPercentOfTheirMean) {
  // Ramulator 2 24.0 ns, DRAMSys 25.7 ns. By the timings: tCL 14 + the second burst tCCD_L 4
  // later + its 2 cycles = 20 ns for a hit; refresh closes the rows now and then (a miss adds
  // tRCD 14).
  const double got = unloadedLatencyNs(true);
  EXPECT_NEAR(got / ((24.0 + 25.7) / 2), 1.0, 0.20) << got << " ns";
}

TEST(ReferenceSimulatorsLatency, UnloadedRandomReadWithinTwentyPercentOfTheirMean) {
  // Ramulator 2 41.2 ns, DRAMSys 43.4 ns: a row conflict (tRP 14 + tRCD 14 + tCL 14 + bursts) or,
  // for a bank whose row refresh closed, a miss.
  const double got = unloadedLatencyNs(false);
  EXPECT_NEAR(got / ((41.2 + 43.4) / 2), 1.0, 0.20) << got << " ns";
}

TEST(ReferenceSimulatorsStride, FourKibStrideMatchesRamulatorTheBankArithmeticSays) {
  // Every request of a wrap lands in one bank of four channels (address bits 12-13 pick the
  // channel, 14-17 the column, 18+ the row). Per channel: 16 requests x 2 bursts at tCCD_L
  // (4 ns) = 128 ns per row, then RD -> PRE tRTP 5 + tRP 14 + tRCD 14 = 33 ns instead of 4: 1 KiB
  // per 157 ns, x 4 channels = 26.1 GB/s, less refresh (350 / 3900) = 23.7 GB/s. Ramulator 2 gives
  // 23.5 GB/s; DRAMSys 30.9 (its mean, 27.2, is 13 % higher: a known difference, docs/models.md).
  const double got = bandwidth("4KiB stride");
  EXPECT_NEAR(got / (1024.0 / 157e-9 * 4 * (1 - 350.0 / 3900) / 1e9), 1.0, 0.03) << got << " GB/s";
  EXPECT_NEAR(got / 23.5, 1.0, 0.05) << got << " GB/s";
}

}  // namespace
}  // namespace ascendsim::models
