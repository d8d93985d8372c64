// The banked DRAM model against Ramulator 2 and DRAMSys 5.0 on one HBM2 stack
// (configs/memory/hbm2.yaml, bank-group-interleaved mapping): 2 Mi requests of 64 B offered in
// order as fast as the memory accepts them, five patterns. validation/dram/ holds how every
// reference figure below is made: the simulators' configurations, the trace generator (the same
// requests as request() below, each as its two 32 B bursts, sent to the same banks, rows and
// columns) and run.sh, which builds the simulators from their public sources and prints
// validation/dram/reference.csv (README.md there says what matches and what cannot).
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <ostream>
#include <random>

#include "models/dram/memory_timing.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

constexpr uint64_t kRequests = 2ull << 20;
constexpr uint64_t kSpan = 1ull << 30;

// The pattern's i-th request: address and whether it writes (validation/dram/make_traces.cpp
// writes the same sequence).
std::pair<uint64_t, bool> request(const std::string& pattern, uint64_t i, std::mt19937_64& rng) {
  if (pattern == "sequential read") return {i * 64, false};
  if (pattern == "sequential write") return {i * 64, true};
  if (pattern == "random read") return {(rng() % (kSpan / 64)) * 64, false};
  if (pattern == "random 2:1") return {(rng() % (kSpan / 64)) * 64, i % 3 == 0};
  // 4 KiB stride: i x 4096 mod 1 GiB, 64 B further on at each wrap.
  const uint64_t linear = i * 4096;
  return {linear % kSpan + linear / kSpan * 64, false};
}

// GB/s of the pattern on a preset (hbm2.yaml unless told). withRefresh false sets tREFI to
// 1000000 cycles (1 ms on HBM2, 0.625 ms on HBM3), longer than any of these runs (at most
// 0.72 ms on HBM2, 0.33 ms on HBM3), so at most one refresh falls in it (0.05 %). `more`: further
// settings of the memory.
double bandwidth(const std::string& pattern, bool withRefresh, const std::string& preset = "hbm2",
                 const std::string& more = "") {
  static std::map<std::string, double> done;
  const std::string key = pattern + "/" + std::to_string(withRefresh) + "/" + preset + "/" + more;
  if (const auto it = done.find(key); it != done.end()) return it->second;
  const std::string overrides = std::string("address_mapping: bank-group-interleaved\n") +
                                (withRefresh ? "" : "tREFI: 1000000\n") + more;
  auto timing = makeMemoryTiming(spec::loadMemorySpec(preset, overrides));
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < kRequests; ++i) {
    const auto [address, write] = request(pattern, i, rng);
    timing->enqueue(address, 64, write, 0);
  }
  timing->drain();
  return done[key] = timing->totalStats().bandwidth() / 1e9;
}

struct Reference {
  const char* name;     // the test's name: the pattern and what sets its figure
  const char* pattern;  // as request() names it
  double gbps;          // the reference simulator's figure
  double expected;      // AscendSim / reference expected
  double tolerance;     // accepted |ratio - expected|
};

std::string testName(const ::testing::TestParamInfo<Reference>& info) {
  return info.param.name;
}
void PrintTo(const Reference& r, std::ostream* os) {
  *os << r.name << " (" << r.gbps << " GB/s)";
}

// Ramulator 2, tag v2.0a (commit be93be78055d922aa1d4d33e15bcc8f2b0c61a9d), configuration
// validation/dram/ramulator2_hbm2_pc_channels.yaml (hbm2.yaml's device and timings, each
// pseudo-channel with a controller and 32-entry read and write queues of its own, as AscendSim's
// pseudo-channels have), traces from validation/dram/make_traces.cpp, front end LoadStoreTrace
// (in order, a refused request retried and holding back the rest, as AscendSim's port does).
// Rows "ramulator2_hbm2_pc_channels" of validation/dram/reference.csv, made by run.sh.
//
// Two differences are known and taken into account:
// - v2.0a's all-bank refresh manager sends one refresh per "rank", a level its HBM2 has not, so
//   Ramulator 2 never refreshes HBM2 (its 4 KiB stride figure is the refresh-free bank
//   arithmetic to 0.1 %). The model runs these cases without refresh too (bandwidth(.., false)).
// - In the configuration where both pseudo-channels share their channel's controller
//   (validation/dram/ramulator2_hbm2.yaml, the other rows of reference.csv), a channel holds 32
//   requests of 32 B, 1 KiB, where AscendSim's channel holds 2 x 32 of 64 B; the mapping puts
//   2 KiB in a row on one channel, so the in-order front end waits on one full channel at a time
//   and sequential reads reach 60.5 GB/s there. That is a difference of queue organisation the
//   model does not have a setting for, so the test compares with the per-pseudo-channel one.
//
// Tolerances: 3 % where the two agree (sequential, 2:1): the remaining known differences are
// Ramulator 2's 32 B queue entries (AscendSim's hold 64 B) and its row-command bus being per
// pseudo-channel in this configuration (the sequential gap is 2.2 %; how much of it each
// accounts for was not measured separately); 1 % for the
// stride, which both compute from the bank timings alone. Random reads: AscendSim is 14 % below
// Ramulator 2 (144.4 against 167.07 GB/s), held at 0.86 +- 0.03 so that a change either way is
// seen. The gap is the configuration, not the bank timings: ramulator2_hbm2_pc_channels.yaml gives
// each pseudo-channel a row command bus of its own, where the model shares a channel's between its
// two pseudo-channels (JESD235), and HBM2's tFAW of 15 lets each open a row every 3.75 cycles
// while a shared bus holding a conflict 3 cycles (ACT 2, PRE 1) serves one every 6 per
// pseudo-channel; with a bus per pseudo-channel and v2.0a's scheduler settings (no starvation
// cap, 33 entries, as in the HBM3 case below) the model agrees with it:
// ReferenceSimulatorsAlike.Hbm2RandomReadWithTheReferencesBusesAndScheduler.
class AgainstRamulator2 : public ::testing::TestWithParam<Reference> {};

TEST_P(AgainstRamulator2, BandwidthWithoutRefresh) {
  const Reference& r = GetParam();
  const double got = bandwidth(r.pattern, false);
  EXPECT_NEAR(got / r.gbps, r.expected, r.tolerance)
      << r.pattern << ": AscendSim " << got << " GB/s, Ramulator 2 " << r.gbps << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(
    ReferenceSimulators, AgainstRamulator2,
    ::testing::Values(Reference{"sequential_read", "sequential read", 250.63, 1.0, 0.03},
                      Reference{"random_read", "random read", 167.07, 0.86, 0.03},
                      Reference{"sequential_write", "sequential write", 250.87, 1.0, 0.03},
                      Reference{"random_2to1_read_write", "random 2:1", 120.59, 1.0, 0.03},
                      Reference{"stride_4KiB_row_switch_tRTP_tRP_tRCD", "4KiB stride", 26.10, 1.0,
                                0.01}),
    testName);

// HBM3 (configs/memory/hbm3.yaml: 16 channels x 2 pseudo-channels x 2 stack ids, 6400 MT/s,
// 819.2 GB/s peak) against Ramulator 2, tag v2.0a (commit
// be93be78055d922aa1d4d33e15bcc8f2b0c61a9d), configuration
// validation/dram/ramulator2_hbm3_pc_channels.yaml: hbm3.yaml's organisation and timings, each
// pseudo-channel a channel with its own controller as in the HBM2 case above, the stack id as the
// high bit of Ramulator 2's bank group (v2.0a's HBM3 has no stack-id level), the same traces
// re-encoded for its ChRaBaRoCo mapper (make_traces.cpp ... hbm3). Rows
// "ramulator2_hbm3_pc_channels" of validation/dram/reference.csv. The model is set up as that
// run is, which differs from hbm3.yaml in four settings, each a fact of v2.0a's code:
// - no refresh: its all-bank refresh manager sends one refresh per "rank" level, which its HBM3
//   has not (as for HBM2);
// - tCCDR = tCCD_S (2): its HBM3 spaces reads on either stack id by nCCDS alone;
// - starvation_cap at its maximum: its FRFCFS scheduler has no cap (ready first, then oldest);
// - queue_depth 33: its request buffer takes a request while it holds at most 32
//   (ReqBuffer::enqueue, `size() <= max_size`), so it holds 33.
// Within 10 % for every pattern, the requirement. Before, with hbm3.yaml's own scheduler
// (starvation cap 16, 32 entries): random read 358.2 (-13.1 %), random 2:1 281.6 (-2.9 %); the cap
// cost 2.3 points of the random-read gap and the 33rd entry 2.1. Measured, with HBM3's row
// commands at JESD238's half clocks: sequential read 761.6 (-0.1 %), random read 378.7 (-8.2 %),
// sequential write 772.8 (-0.1 %), random 2:1 290.9 (+0.3 %), 4 KiB stride 138.0 GB/s (+1.0 %).
// The random-read gap is not per pseudo-channel: random reads on one pseudo-channel alone agree to
// 0.4 % (16.9 against 16.97 GB/s); it grows with the pseudo-channels the in-order front end feeds
// (2: -2.9 %, 8: -5.7 %, 32: -8.2 %), where the model commits one request's commands at a time,
// in the order of their column commands, and Ramulator 2 schedules command by command (an ACT of
// a younger request may go before the column command of an older one, and free its queue slot
// then: its controller moves a request whose row is open to an active buffer of its own).
class AgainstRamulator2Hbm3 : public ::testing::TestWithParam<Reference> {};

TEST_P(AgainstRamulator2Hbm3, BandwidthWithoutRefresh) {
  const Reference& r = GetParam();
  const double got =
      bandwidth(r.pattern, false, "hbm3", "tCCDR: 2\nstarvation_cap: 1000000\nqueue_depth: 33\n");
  EXPECT_NEAR(got / r.gbps, r.expected, r.tolerance)
      << r.pattern << ": AscendSim " << got << " GB/s, Ramulator 2 " << r.gbps << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(
    ReferenceSimulators, AgainstRamulator2Hbm3,
    ::testing::Values(Reference{"sequential_read", "sequential read", 762.68, 1.0, 0.10},
                      Reference{"random_read", "random read", 412.33, 1.0, 0.10},
                      Reference{"sequential_write", "sequential write", 773.78, 1.0, 0.10},
                      Reference{"random_2to1_read_write", "random 2:1", 289.92, 1.0, 0.10},
                      Reference{"stride_4KiB", "4KiB stride", 136.58, 1.0, 0.10}),
    testName);

// HBM2 random reads with the model set up as ramulator2_hbm2_pc_channels.yaml is: a row command bus
// per pseudo-channel (`command_bus: per-pseudo-channel`), no starvation cap and 33 queue entries
// (v2.0a's FR-FCFS and request buffer, as in the HBM3 case above). Ramulator 2's 167.07 GB/s
// (reference.csv, row ramulator2_hbm2_pc_channels random_read) within 3 %, as the patterns that
// agree above; measured 166.2 (-0.5 %). Sharing the bus (the model's default, JESD235) makes it
// 146.6 (-12.3 %): the test fails if the bus or the scheduler drift.
TEST(ReferenceSimulatorsAlike, Hbm2RandomReadWithTheReferencesBusesAndScheduler) {
  const double got =
      bandwidth("random read", false, "hbm2",
                "command_bus: per-pseudo-channel\nstarvation_cap: 1000000\nqueue_depth: 33\n");
  EXPECT_NEAR(got / 167.07, 1.0, 0.03) << "AscendSim " << got << " GB/s, Ramulator 2 167.07 GB/s";
}

// HBM3 random single 32 B bursts (a kernel's 32 B gathers) against Ramulator 2 set up as the HBM3
// cases above: 2 Mi reads at random 32 B places of 1 GiB (std::mt19937_64 seeded 7, as
// make_traces.cpp's random_read_32B). Ramulator 2 v2.0a (be93be7): 252.01 GB/s, row
// "ramulator2_hbm3_pc_channels,...,random_read_32B" of validation/dram/reference.csv. Within 10 %,
// as the other HBM3 patterns (measured 247.5, -1.8 %): each burst opens its own row, so the
// activation rate under tFAW and tRRD binds in both.
TEST(ReferenceSimulatorsHbm3, RandomSingleBurstsAgainstRamulator2) {
  auto timing = makeMemoryTiming(
      spec::loadMemorySpec("hbm3",
                           "address_mapping: bank-group-interleaved\ntREFI: 1000000\ntCCDR: 2\n"
                           "starvation_cap: 1000000\nqueue_depth: 33\n"));
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < kRequests; ++i)
    timing->enqueue((rng() % (kSpan / 32)) * 32, 32, false, 0);
  timing->drain();
  const double got = timing->totalStats().bandwidth() / 1e9;
  EXPECT_NEAR(got / 252.01, 1.0, 0.10) << "AscendSim " << got << " GB/s, Ramulator 2 252.01 GB/s";
}

// DRAMSys 5.0 (tag v5.0, commit 8e021eada2cb937d5be24dbd02f3980e2193d6ec). These figures are
// issue #14's table: the configuration, trace and commit they were made with were not recorded.
// validation/dram/run.sh now builds and runs DRAMSys 5.0 on these cases
// (validation/dram/dramsys/), but with one trace player its arbiter acknowledges one request per
// memory clock, so the four other patterns land at 29-31 GB/s (the "dramsys" rows of
// reference.csv): a front-end limit, not the DRAM, and no figure to compare the model with. Until a
// run with several players replaces them, the old figures stay, compared with the model as
// hbm2.yaml is (with refresh), within 10 %, the margin they were first compared with: with their
// setup unknown, no closer agreement is claimed. The 4 KiB stride is the exception: at 23.56 GB/s
// it stays under that front-end limit and run.sh reproduces it (row "dramsys,...,stride_4KiB"), the
// refresh-included bank arithmetic (23.75) to 0.8 %; it replaces issue #14's 30.9, which this
// configuration does not give (its setup unknown; docs/models.md had put the gap down to the
// arbiter's window, which this run does not show). Within 2 %: both pay tRTP + tRP + tRCD per
// row switch and all-bank refresh; DRAMSys adds one tCK to tRCDWR, which reads do not see.
class AgainstDramsys : public ::testing::TestWithParam<Reference> {};

TEST_P(AgainstDramsys, BandwidthWithRefresh) {
  const Reference& r = GetParam();
  const double got = bandwidth(r.pattern, true);
  EXPECT_NEAR(got / r.gbps, r.expected, r.tolerance)
      << r.pattern << ": AscendSim " << got << " GB/s, DRAMSys " << r.gbps << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(
    ReferenceSimulators, AgainstDramsys,
    ::testing::Values(Reference{"sequential_read", "sequential read", 239.3, 1.0, 0.10},
                      Reference{"random_read", "random read", 135.8, 1.0, 0.10},
                      Reference{"sequential_write", "sequential write", 238.6, 1.0, 0.10},
                      Reference{"random_2to1_read_write", "random 2:1", 105.3, 1.0, 0.10},
                      Reference{"stride_4KiB_row_switch_tRTP_tRP_tRCD", "4KiB stride", 23.56, 1.0,
                                0.02}),
    testName);

// Unloaded read latency: one 64 B read at a time, each arriving 1 ns after the previous one
// completed, from its arrival to its last byte. Row hits: the reads go round the same 16 places,
// whose rows stay open; random: uniform over 1 GiB. The references are issue #14's figures
// (Ramulator 2 24.0 / 41.2 ns, DRAMSys 25.7 / 43.4 ns) whose setup was not recorded; run.sh does
// not reproduce them (neither simulator's trace front end waits for one read before the next),
// so they are held to the wider 20 % of their mean they were first compared with.
double unloadedLatencyNs(bool rowHits) {
  auto timing =
      makeMemoryTiming(spec::loadMemorySpec("hbm2", "address_mapping: bank-group-interleaved\n"));
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
  // By the timings: tCL 14 + the second burst tCCD_L 4 later + its 2 cycles = 20 ns for a hit;
  // refresh closes the rows now and then (a miss adds tRCD 14).
  const double got = unloadedLatencyNs(true);
  EXPECT_NEAR(got / ((24.0 + 25.7) / 2), 1.0, 0.20) << got << " ns";
}

TEST(ReferenceSimulatorsLatency, UnloadedRandomReadTrpTrcdTclWithinTwentyPercentOfTheirMean) {
  // A row conflict (tRP 14 + tRCD 14 + tCL 14 + bursts) or, for a bank whose row refresh
  // closed, a miss.
  const double got = unloadedLatencyNs(false);
  EXPECT_NEAR(got / ((41.2 + 43.4) / 2), 1.0, 0.20) << got << " ns";
}

TEST(ReferenceSimulatorsStride, FourKibStrideRowSwitchCostsTrtpTrpTrcd) {
  // Arithmetic, no reference simulator. Every request of a wrap lands in one bank of four
  // channels (address bits 12-13 pick the channel, 14-17 the column, 18+ the row). Per channel:
  // 16 requests x 2 bursts at tCCD_L (4 ns) = 128 ns per row, then RD -> PRE tRTP 5 + tRP 14 +
  // tRCD 14 = 33 ns instead of 4: 1 KiB per 157 ns, x 4 channels = 26.1 GB/s, less refresh
  // (350 / 3900) = 23.7 GB/s. Within 3 %: a tRCD or tRP off by 2 cycles moves it 1.3 %.
  const double got = bandwidth("4KiB stride", true);
  EXPECT_NEAR(got / (1024.0 / 157e-9 * 4 * (1 - 350.0 / 3900) / 1e9), 1.0, 0.03) << got << " GB/s";
}

}  // namespace
}  // namespace ascendsim::models
