// Memory timing "cycle": copies and kernels go burst by burst through the DRAM model at their
// addresses. It must agree with "sustained" where sustained is right (long sequential traffic),
// and see what sustained cannot: access patterns, address mappings, bank timing, refresh and
// queue depths. Figures are for the default machine's 910B4-class device: 2 HBM2e stacks of 8
// channels x 2 pseudo-channels, 819.2 GB/s peak.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "models/compute/kernel_access.h"
#include "models/dram/memory_timing.h"
#include "models/dram/sustained_bandwidth.h"
#include "scheduled_machine.h"

namespace ascendsim::models {
namespace {

constexpr uint64_t KiB = 1ull << 10, MiB = 1ull << 20, GiB = 1ull << 30;
constexpr double kPeak = 819.2e9;  // 2 stacks x 1024 bit x 3.2 Gb/s / 8

using Tweak = std::function<void(spec::DramSpec&)>;

Tweak timing(const char* t, const Tweak& more = {}) {
  return [t, more](spec::DramSpec& m) {
    m.timing = t;
    if (more) more(m);
  };
}

// One SystemC model per process, so comparisons run side by side: the default machine with a
// second, identical device on its other root port; device 0's memory set up by `a`, device 1's
// by `b`. Their traffic never meets (each copies and computes inside its own memory).
spec::SystemSpec twoDevices(const Tweak& a, const Tweak& b) {
  spec::SystemSpec s = spec::loadSystemSpec("default");
  s.devices.push_back(s.devices[0]);
  s.devices[1].name = "npu1";
  s.devices[1].port = "rc.1";
  a(s.devices[0].memory);
  b(s.devices[1].memory);
  return s;
}

MemoryPlace device(int d, uint64_t address) {
  return {MemoryPlace::Kind::Device, d, address};
}
MemoryPlace pinned(uint64_t address) {
  return {MemoryPlace::Kind::HostPinned, -1, address};
}

double seconds(const Machine& m, size_t i) {
  return static_cast<double>(m.end(i) - m.start(i)) * 1e-12;
}

// A kernel that reads `read` and writes `written` bytes of [base, base + region) in `access`.
KernelWork placed(KernelWork::Access access, uint64_t read, uint64_t written, uint64_t stride = 0) {
  KernelWork w;
  w.name = "k";
  w.bytesRead = read;
  w.bytesWritten = written;
  w.ops = (read + written) / 8;
  w.access = access;
  w.stride = stride;
  w.seed = 7;
  if (read) w.readRanges.push_back({0, GiB});
  if (written) w.writeRanges.push_back({0, GiB});
  return w;
}

// A D2D copy inside device `d`'s memory, source and destination in different banks.
const Task* d2d(Machine& m, int d, uint64_t bytes) {
  return m.copy(d, device(d, 0), device(d, 2 * GiB + 256 * KiB), bytes);
}

// Seconds of the same work on device 0 (set up by `a`) and device 1 (by `b`), side by side.
template <class Work>
std::pair<double, double> sideBySide(const Tweak& a, const Tweak& b, Work&& work) {
  Machine m(twoDevices(a, b));
  work(m, 0);
  work(m, 1);
  m.run();
  // The figures docs/models.md quotes (ctest -V shows them).
  std::printf("side by side: %.1f us, %.1f us\n", seconds(m, 0) * 1e6, seconds(m, 1) * 1e6);
  return {seconds(m, 0), seconds(m, 1)};
}

auto d2dWork(uint64_t bytes) {
  return [bytes](Machine& m, int d) { d2d(m, d, bytes); };
}
auto kernelWork(KernelWork w) {
  return [w](Machine& m, int d) { m.kernel(d, w); };
}

// Internal consistency, not validation: the sustained mode's rate is measured on this same
// banked DRAM model (sustainedSequentialRates), so these three check that cycle mode, which
// times each burst on the model's channels, gives a long sequential copy the time that rate
// gives it (within 5 %, the margin this check has always had; it states how far the two ways of
// timing the same model may drift apart, not an accuracy). The figure both modes share is checked
// against Ramulator 2 and DRAMSys in dram_reference_test.cpp (sequential read and write).
// The bounds of the D2D copy are arithmetic, not the model's: it moves 2 x 256 MiB through the
// memory, at most at the 819.2 GB/s peak (655 us) and, with refresh and turnarounds, not below
// 85 % of it (771 us).
TEST(CycleMemory, ConsistencyD2dCopyMatchesTheSustainedRateOfTheSameModel) {
  const auto [sustained, cycle] =
      sideBySide(timing("sustained"), timing("cycle"), d2dWork(256 * MiB));
  EXPECT_NEAR(cycle, sustained, 0.05 * sustained);
  const double atPeak = 2.0 * 256 * MiB / kPeak;
  EXPECT_GE(cycle, atPeak);
  EXPECT_LE(cycle, atPeak / 0.85);
}

TEST(CycleMemory, ConsistencyH2dCopyMatchesTheSustainedRateOfTheSameModel) {
  const auto [sustained, cycle] =
      sideBySide(timing("sustained"), timing("cycle"), [](Machine& m, int d) {
        m.copy(d, pinned(static_cast<uint64_t>(d) * GiB), device(d, 0), 64 * MiB);
      });
  EXPECT_NEAR(cycle, sustained, 0.05 * sustained);
}

TEST(CycleMemory, ConsistencyD2hCopyMatchesTheSustainedRateOfTheSameModel) {
  const auto [sustained, cycle] =
      sideBySide(timing("sustained"), timing("cycle"), [](Machine& m, int d) {
        m.copy(d, device(d, 0), pinned(static_cast<uint64_t>(d) * GiB), 64 * MiB);
      });
  EXPECT_NEAR(cycle, sustained, 0.05 * sustained);
}

// All-bank refresh blocks a channel for tRFC every tREFI: 350 of 3900 ns (8.97 %) in HBM2e.
// Doubling tRFC leaves 1 - 700/3900 of the time for data instead of 1 - 350/3900, so a copy that
// keeps every channel busy takes (1 - 0.0897) / (1 - 0.1795) = 1.109 times as long (within 2 %).
// The sustained mode sees it too (its rate is measured with refresh), so only the ratio is new
// here: cycle mode gets it from the channels' own refresh, burst by burst.
TEST(CycleMemory, RefreshTakesItsJedecShareOfACopy) {
  const auto [base, doubled] =
      sideBySide(timing("cycle"), timing("cycle", [](spec::DramSpec& m) { m.timings.tRFC *= 2; }),
                 d2dWork(256 * MiB));
  const double expected = (1.0 - 350.0 / 3900) / (1.0 - 700.0 / 3900);
  EXPECT_NEAR(doubled / base, expected, 0.02 * expected);
}

// Random 32-byte reads (one burst each) open a row per burst. A pseudo-channel activates at most
// 4 rows per tFAW (15 ns), so 32 pseudo-channels move at most 32 x 4 x 32 B / 15 ns = 273 GB/s:
// 64 MiB take at least 246 us. Sustained timing, blind to the pattern, charges the sequential rate.
TEST(CycleMemory, RandomReadsPayAnActivatePerBurst) {
  const KernelWork w = placed(KernelWork::Access::Random, 64 * MiB, 0);
  const auto [sustained, cycle] = sideBySide(timing("sustained"), timing("cycle"), kernelWork(w));
  const double actBound = 64.0 * MiB / (32 * 4 * 32 / 15e-9);
  EXPECT_GE(cycle, actBound);
  EXPECT_GT(cycle, 3 * sustained);
}

// The DRAM model alone, driven as dram_bench drives it (every request offered at once and taken
// as fast as the channel queues free a slot): the time of kernel `w`'s read stream, request by
// request as the kernel places it, on device 0's memory set up by `tweak`.
double dramAlone(const KernelWork& w, const Tweak& tweak) {
  spec::SystemSpec s = spec::loadSystemSpec("default");
  tweak(s.devices[0].memory);
  const uint64_t access = w.accessBytes > 0 ? w.accessBytes : s.devices[0].memory.burstBytes();
  std::vector<AddressRun> runs;
  kernelRuns(w, false, 0, w.bytesRead, access, 0, runs);
  auto dram = makeMemoryTiming(s.devices[0].memory);
  for (const AddressRun& r : runs) dram->enqueue(r.address, r.bytes, false, 0);
  const double t = static_cast<double>(dram->drain()) * 1e-12;
  std::printf("the DRAM model alone: %.1f us\n", t * 1e6);
  return t;
}

KernelWork gathers(uint64_t accessBytes) {
  KernelWork w = placed(KernelWork::Access::Random, 64 * MiB, 0);
  w.accessBytes = accessBytes;
  return w;
}

// Internal consistency (docs/validation.md): a kernel's random gathers, streamed tile after tile
// through the memory's channels, run at the rate of the same DRAM model driven directly by the
// same requests, within 10 % (issue #30's tolerance; measured 0.9 % and 1.3 %). They used to run
// 35 % below it when the channels were drained after every 32 KiB tile. Bounds from arithmetic
// (each is below the model's figure, which also pays bank cycles tRC and refresh): a 32 B gather
// opens a row of its own and a 64 B one (two bursts of one row under the interleaved mapping) a
// row per two bursts; a pseudo-channel opens at most 4 rows per tFAW (15 ns), so 32
// pseudo-channels gather 64 MiB in at least 64 MiB / (32 x 4 x 32 B / 15 ns) = 246 us and
// 123 us.
TEST(CycleMemory, ConsistencyRandomGathersRunAtTheDramModelsRate) {
  const auto [thirtyTwo, sixtyFour] =
      sideBySide(timing("cycle"), timing("cycle"),
                 [](Machine& m, int d) { m.kernel(d, gathers(d == 0 ? 32 : 64)); });
  const double alone32 = dramAlone(gathers(32), timing("cycle"));
  const double alone64 = dramAlone(gathers(64), timing("cycle"));
  EXPECT_NEAR(thirtyTwo, alone32, 0.10 * alone32);
  EXPECT_NEAR(sixtyFour, alone64, 0.10 * alone64);
  EXPECT_GE(thirtyTwo, 64.0 * MiB / (32 * 4 * 32 / 15e-9));
  EXPECT_GE(sixtyFour, 64.0 * MiB / (32 * 4 * 64 / 15e-9));
}

// A memory what-if moves a kernel's time as much as it moves the DRAM model's: four times tFAW
// (60 ns) slows the 32 B gathers by the DRAM model's own ratio, within 10 % (issue #30; it was
// x 2.07 against x 3.17 with the per-tile drain; measured x 3.15 against x 3.17). Four times tFAW
// also quarters the activate bound: 64 MiB take at least 985 us.
TEST(CycleMemory, ConsistencyLongerFawMovesKernelsAsItMovesTheDramModel) {
  const Tweak longFaw = timing("cycle", [](spec::DramSpec& m) { m.timings.tFAW *= 4; });
  const auto [base, slower] = sideBySide(timing("cycle"), longFaw, kernelWork(gathers(32)));
  const double dramRatio =
      dramAlone(gathers(32), longFaw) / dramAlone(gathers(32), timing("cycle"));
  std::printf("tFAW x 4: kernel x %.3f, DRAM model x %.3f\n", slower / base, dramRatio);
  EXPECT_NEAR(slower / base, dramRatio, 0.10 * dramRatio);
  EXPECT_GE(slower, 64.0 * MiB / (32 * 4 * 32 / 60e-9));
}

// A shallower queue leaves FR-FCFS fewer requests to overlap: random reads slow down.
TEST(CycleMemory, ShallowQueuesSlowRandomReads) {
  const KernelWork w = placed(KernelWork::Access::Random, 64 * MiB, 0);
  const auto [deep, shallow] = sideBySide(
      timing("cycle"), timing("cycle", [](spec::DramSpec& m) { m.queueDepth = 4; }), kernelWork(w));
  EXPECT_GT(shallow, 1.5 * deep);
}

// One burst (32 B) every 4 KiB, 1 Mi bursts (32 MiB) over a 1 GiB region, one burst further on
// each of the 4 wraps. Which pseudo-channels and banks the addresses reach follows from the
// mappings (spec/address_mapping.h; 32 B bursts, 32 columns of a 1 KiB row):
// - interleaved (co:8 bits 5-7, ch 8-10, pc 11, st 12, bg 13-14, co 15-16, ba 17-18, row 19+):
//   bits 8-11 are always 0, so every burst goes to channel 0, pseudo-channel 0 of one of the two
//   stacks, with bank groups taking turns (tCCD_S apart): those 2 pseudo-channels' data buses
//   bind, 32 MiB / (2 x 25.6 GB/s) = 655.4 us, / (1 - 350/3900) for refresh = 720.0 us.
// - bank-group-interleaved (co:2 bit 5, bg 6-7, pc 8, ba 9-10, ch 11-13, st 14, co 15-18, row
//   19+): 8 pseudo-channels (ch 0, 2, 4, 6 of both stacks), each reading one bank 16 columns per
//   row: ACT, tRCDRD 23 cycles, 16 reads tCCD_L 4 apart (last at 83), PRE after tRTP 8 (91),
//   next ACT after tRP 23: 114 cycles of 0.625 ns per row, 8192 rows each = 583.7 us, / (1 -
//   350/3900) = 641.2 us.
// So the bank-group mapping is faster, by 11 % on this arithmetic. Each time may exceed its
// bound by up to 3 % (the arithmetic leaves out the command bus the row and column commands
// share and the order requests arrive in) and is never below it (0.5 % for rounding).
TEST(CycleMemory, MappingMovesStridedKernels) {
  const KernelWork w = placed(KernelWork::Access::Strided, 32 * MiB, 0, 4096);
  const auto [interleaved, bankGroups] = sideBySide(
      timing("cycle"),
      timing("cycle", [](spec::DramSpec& m) { m.addressMapping = "bank-group-interleaved"; }),
      kernelWork(w));
  const double refresh = 1.0 - 350.0 / 3900;
  const double dataBound = 32.0 * MiB / (2 * 25.6e9) / refresh;
  const double rowBound = 8192 * 114 * 0.625e-9 / refresh;
  EXPECT_GE(interleaved, 0.995 * dataBound);
  EXPECT_LE(interleaved, 1.03 * dataBound);
  EXPECT_GE(bankGroups, 0.995 * rowBound);
  EXPECT_LE(bankGroups, 1.03 * rowBound);
  EXPECT_LT(bankGroups, interleaved);
}

TEST(CycleMemory, SustainedTimingIsBlindToStrides) {
  const KernelWork w = placed(KernelWork::Access::Strided, 32 * MiB, 0, 4096);
  const auto [sustained, cycle] = sideBySide(timing("sustained"), timing("cycle"), kernelWork(w));
  EXPECT_GT(cycle, 5 * sustained);
}

// The page mapping keeps a whole 1 KiB row on one pseudo-channel: a D2D copy's source and
// destination rows meet in fewer banks at once, and the copy slows.
TEST(CycleMemory, MappingMovesCopies) {
  const auto [interleaved, page] = sideBySide(
      timing("cycle"), timing("cycle", [](spec::DramSpec& m) { m.addressMapping = "page"; }),
      d2dWork(256 * MiB));
  // Slower, not just different: by at least 5 %. No arithmetic here gives the size (20 %
  // measured); the cap of 50 % only says the copy did not lose a whole row cycle (tRC 48 ns)
  // on top of each 1 KiB row's 40 ns of data (1 KiB / 25.6 GB/s).
  EXPECT_GT(page, 1.05 * interleaved);
  EXPECT_LT(page, 1.5 * interleaved);
}

// Without a write buffer, writes go to the channels with the piece that carries them, so a copy
// turns the bus around every piece instead of every megabyte.
TEST(CycleMemory, WriteBufferSavesTurnarounds) {
  const auto [buffered, unbuffered] =
      sideBySide(timing("cycle"), timing("cycle", [](spec::DramSpec& m) { m.writeBuffer = 0; }),
                 d2dWork(256 * MiB));
  EXPECT_GT(unbuffered, 1.05 * buffered);
}

// A kernel beside a copy shares the memory with it. Random bursts cost the memory far more time
// per byte than sequential ones, so the copy beside a random kernel ends later than beside a
// sequential kernel of the same bytes, and the random kernel itself is slower than alone.
TEST(CycleMemory, RandomKernelBesideACopySlowsBoth) {
  const uint64_t kernelBytes = 32 * MiB;
  Machine m(twoDevices(timing("cycle"), timing("cycle")));
  d2d(m, 0, 128 * MiB);
  m.kernel(0, placed(KernelWork::Access::Sequential, kernelBytes, 0));
  d2d(m, 1, 128 * MiB);
  m.kernel(1, placed(KernelWork::Access::Random, kernelBytes, 0));
  m.run();
  const double copyBesideSequential = seconds(m, 0), copyBesideRandom = seconds(m, 2);
  EXPECT_GT(copyBesideRandom, 1.1 * copyBesideSequential);
  // Alone, the random kernel's 32 MiB need at least the activate bound: 32 MiB / 273 GB/s.
  const double randomKernel = seconds(m, 3);
  EXPECT_GT(randomKernel, 32.0 * MiB / (32 * 4 * 32 / 15e-9));
}

// The largest write buffer a config may name (1 TiB) is measured in the same bounded time as the
// default: batches stop growing at 8192 bursts, where a copy turns the bus around so rarely that
// it runs within 5 % of reads and writes back to back, 1 / (1/read + 1/write), and never faster.
TEST(SustainedRates, HugeWriteBufferIsMeasuredQuickly) {
  spec::DramSpec m = spec::loadMemorySpec("hbm2e");
  m.writeBuffer = 1ull << 40;
  const SustainedRates r = sustainedSequentialRates(m);
  const double backToBack = 1.0 / (1.0 / r.read + 1.0 / r.write);
  EXPECT_LE(r.copy, backToBack * 1.001);
  EXPECT_GE(r.copy, backToBack * 0.95);
}

TEST(KernelAccess, SequentialWalksTheRangesAndWraps) {
  KernelWork w;
  w.readRanges = {{1000, 100}, {5000, 50}};
  std::vector<AddressRun> runs;
  kernelRuns(w, false, 120, 100, 32, 0,
             runs);  // bytes 120..219 of a 150-byte region: 120..149, 0..69
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].address, 5020u);
  EXPECT_EQ(runs[0].bytes, 30u);
  EXPECT_EQ(runs[1].address, 1000u);
  EXPECT_EQ(runs[1].bytes, 70u);
}

// One burst every 4096 bytes over a 64 KiB region of 64-byte bursts: 16 places per pass, and each
// wrap moves one burst on, so 1024 bursts touch all 1024 bursts of the region exactly once.
TEST(KernelAccess, StridedWalkTouchesEveryBurstOnce) {
  KernelWork w;
  w.access = KernelWork::Access::Strided;
  w.stride = 4096;
  w.readRanges = {{1 << 20, 64 * KiB}};
  std::vector<AddressRun> runs;
  kernelRuns(w, false, 0, 64 * KiB, 64, 0, runs);
  ASSERT_EQ(runs.size(), 1024u);
  EXPECT_EQ(runs[0].address, 1u << 20);
  EXPECT_EQ(runs[1].address, (1u << 20) + 4096);
  EXPECT_EQ(runs[16].address, (1u << 20) + 64);  // the first wrap
  std::vector<bool> seen(1024);
  for (const AddressRun& r : runs) {
    EXPECT_EQ(r.bytes, 64u);
    const uint64_t place = (r.address - (1u << 20)) / 64;
    ASSERT_LT(place, 1024u);
    EXPECT_FALSE(seen[place]);
    seen[place] = true;
  }
}

// Random places are whole bursts inside the region, the same for the same seed and slice whatever
// slice they start from, and spread: 4096 draws over 256 places leave none empty (the chance of
// a miss is 256 x (255/256)^4096, below 1e-4).
TEST(KernelAccess, RandomPlacesAreReproducibleAndSpread) {
  KernelWork w;
  w.access = KernelWork::Access::Random;
  w.seed = 42;
  w.readRanges = {{0, 8 * KiB}};
  std::vector<AddressRun> all, tail;
  kernelRuns(w, false, 0, 4096 * 32, 32, 0, all);
  kernelRuns(w, false, 100 * 32, 32, 32, 0, tail);
  ASSERT_EQ(all.size(), 4096u);
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].address, all[100].address);
  std::vector<int> hits(256);
  for (const AddressRun& r : all) {
    EXPECT_EQ(r.address % 32, 0u);
    ASSERT_LT(r.address, 8 * KiB);
    hits[r.address / 32]++;
  }
  for (int h : hits) EXPECT_GT(h, 0);
  w.seed = 43;
  std::vector<AddressRun> other;
  kernelRuns(w, false, 0, 4096 * 32, 32, 0, other);
  int same = 0;
  for (size_t i = 0; i < other.size(); ++i) same += other[i].address == all[i].address;
  EXPECT_LT(same, 100);  // about 4096 / 256 = 16 by chance
}

}  // namespace
}  // namespace ascendsim::models
