// PCIe and DMA timing validation against the pcie-bench model's arithmetic (Neugebauer et al.,
// SIGCOMM 2018): TLP bandwidth = line rate x (1 - 8/AckLimit - 8/FCInterval - 4/1538); a write of
// sz bytes carries ceil(sz/MPS) x 24 B of headers; a read's completions ceil(sz/MPS) x 20 B and
// its requests ceil(sz/MRRS) x 24 B the other way.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include "models/dma/path_timing.h"
#include "models/machine/machine_graph.h"
#include "models/machine/router.h"
#include "models/pcie/pcie_protocol.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

// pcie-bench's model is about the link: it assumes enough read tags in flight that latency never
// limits. These machines give the device 768 tags (Gen4/5 10-bit tags) and 768 outstanding reads.
spec::SystemSpec machine(uint32_t gen, uint64_t mps, const std::string& extra = ", tags: 768", const std::string& rc = "") {
  const std::string yaml =
      "host: { memory: { preset: ddr4-3200, channels: 8, capacity: 64GiB } }\n"
      "pcie: { root_complex: { ports: 2, latency: 250ns" + rc + " } }\n"
      "devices: [ { port: rc.0, link: { generation: " + std::to_string(gen) + ", lanes: 16, mps: " +
      std::to_string(mps) + ", mrrs: 512, latency: 20ns" + extra + " }, memory: { preset: hbm2e, stacks: 4, capacity: 64GiB },\n"
      "              dma: { outstanding_reads: 768 } } ]\n";
  return spec::loadSystemSpecFromText(yaml, "pcie-test.yaml");
}

Task copyTask(bool toDevice, uint64_t bytes, bool pageable = false) {
  Task t;
  t.kind = TaskKind::Copy;
  t.bytes = bytes;
  const MemoryPlace host{pageable ? MemoryPlace::Kind::HostPageable : MemoryPlace::Kind::HostPinned, -1, 0};
  const MemoryPlace dev{MemoryPlace::Kind::Device, 0, 0};
  t.src = toDevice ? host : dev;
  t.dst = toDevice ? dev : host;
  return t;
}

// Streams `count` transfers of `size` bytes back to back through the fabric (each one chunk, as
// pcie-bench's per-transfer model has it), keeping 128 KiB in flight (256 reads of 512 B; at least
// four transfers), and returns the payload bytes per second. pcie-bench assumes latency never
// limits: Gen5 x16 needs about 63 GB/s x 0.6 us = 38 KiB in flight over the round trip, so 128 KiB
// leaves the link the limit at every generation (at 64 B: 2048 transfers in flight).
// The graph, router and path timing of one machine, for driving pieces by hand.
struct Paths {
  explicit Paths(const spec::SystemSpec& sys) : graph(sys), router(graph), timing(sys, graph, router) {}
  std::vector<Stage> stages(const Task& t, uint64_t size) {
    uint32_t requests = 0;
    return timing.stages(0, t, 0, Shape{size, 1}, requests);
  }
  MachineGraph graph;
  Router router;
  PathTiming timing;
};

double streamRate(const spec::SystemSpec& sys, bool toDevice, uint64_t size, uint64_t count) {
  Paths paths(sys);
  const Task t = copyTask(toDevice, size);
  const uint64_t inFlight = std::max<uint64_t>(4, 256 * 512 / size);
  std::deque<Picoseconds> ends;
  Picoseconds ready = 0, done = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (ends.size() >= inFlight) {
      ready = std::max(ready, ends.front());
      ends.pop_front();
    }
    const auto [next, end] = flow(paths.stages(t, size), ready);
    ready = next;
    ends.push_back(end);
    done = std::max(done, end);
  }
  return static_cast<double>(size * count) / (static_cast<double>(done) * 1e-12);
}

// pcie-bench's per-transfer arithmetic. Payloads are whole doublewords (PCIe Base Spec 2.2.2),
// which matters only for sizes that are not a multiple of 4.
double dwords(uint64_t size) { return std::ceil(double(size) / 4) * 4; }
double pcieBenchWrite(const spec::PcieLinkSpec& link, uint64_t size) {
  return pcie::tlpBandwidth(link, link.mps) * size / (dwords(size) + std::ceil(double(size) / link.mps) * 24.0);
}
double pcieBenchRead(const spec::PcieLinkSpec& link, uint64_t size) {
  return pcie::tlpBandwidth(link, link.mps) * size / (dwords(size) + std::ceil(double(size) / link.mps) * 20.0);
}

TEST(PcieProtocol, DataLinkOverheadMatchesTheSpecTables) {
  // Gen4 x16: ACK and FC every 168 symbols at MPS 256 (8 B each) plus SKP 4/1538 = 9.78 %;
  // every 144 at MPS 128 = 11.37 % (the PCIe Base Specification's ACK/FC latency tables; about 9.8 % and 11.4 %).
  EXPECT_NEAR(pcie::dataLinkOverhead(4, 16, 256), 16.0 / 168 + 4.0 / 1538, 1e-12);
  EXPECT_NEAR(pcie::dataLinkOverhead(4, 16, 128), 16.0 / 144 + 4.0 / 1538, 1e-12);
  EXPECT_NEAR(pcie::dataLinkOverhead(1, 1, 4096), 16.0 / 4143 + 4.0 / 1538, 1e-12);
  EXPECT_EQ(pcie::writeWireBytes(257, 256, false), 260u + 2 * 24);  // 1 B rides in a whole DW
  EXPECT_EQ(pcie::writeWireBytes(1, 256, false), 4u + 24);
  EXPECT_EQ(pcie::completionWireBytes(512, 256, true), 512u + 2 * 24);
  EXPECT_EQ(pcie::requestWireBytes(4096, 512, false), 8u * 24);
}

class LargeCopies : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t>> {};

TEST_P(LargeCopies, EqualTheProtocolLimitedRate) {
  // 256 MiB in 64 KiB chunks, pinned: H2D is bound by completions, D2H by posted writes.
  const auto [gen, mps] = GetParam();
  const spec::SystemSpec sys = machine(gen, mps);
  const spec::PcieLinkSpec& link = sys.devices[0].link;
  const uint64_t chunk = 64 * 1024;
  const double h2d = streamRate(sys, true, chunk, 4096);
  const double d2h = streamRate(sys, false, chunk, 4096);
  EXPECT_NEAR(h2d / pcieBenchRead(link, chunk), 1.0, 0.01) << "H2D " << h2d / 1e9 << " GB/s";
  EXPECT_NEAR(d2h / pcieBenchWrite(link, chunk), 1.0, 0.01) << "D2H " << d2h / 1e9 << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(GenAndMps, LargeCopies,
                         ::testing::Combine(::testing::Values(3u, 4u, 5u), ::testing::Values(128u, 256u, 512u)),
                         [](const auto& p) {
                           return "Gen" + std::to_string(std::get<0>(p.param)) + "_MPS" + std::to_string(std::get<1>(p.param));
                         });

class BandwidthVersusSize : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t>> {};

TEST_P(BandwidthVersusSize, FollowsThePerTlpArithmeticWithItsSawtooth) {
  // From 64 B to 256 MiB, including sizes just past each MPS multiple (257 B at MPS 256 needs a
  // second TLP and drops to 257 / (260 + 48) of the TLP rate): within 3 % of pcie-bench, for
  // Gen3, Gen4 and Gen5 x16 at MPS 128, 256 and 512.
  const auto [gen, mps] = GetParam();
  const spec::SystemSpec sys = machine(gen, mps);
  const spec::PcieLinkSpec& link = sys.devices[0].link;
  for (uint64_t size : {64ull, 128ull, 129ull, 200ull, 256ull, 257ull, 384ull, 512ull, 513ull, 768ull, 769ull, 1024ull,
                        1500ull, 4096ull, 4097ull, 65536ull, 1ull << 20, 64ull << 20, 256ull << 20}) {
    const uint64_t count = std::max<uint64_t>(4, (256ull << 20) / size / 8);
    const double w = streamRate(sys, false, size, std::min<uint64_t>(count, 20000));
    const double r = streamRate(sys, true, size, std::min<uint64_t>(count, 20000));
    EXPECT_NEAR(w / pcieBenchWrite(link, size), 1.0, 0.03) << size << " B writes";
    EXPECT_NEAR(r / pcieBenchRead(link, size), 1.0, 0.03) << size << " B reads";
  }
  // The sawtooth itself: one byte past MPS costs a whole TLP header and a doubleword of payload,
  // (MPS + 1) / (MPS + 4 + 2 x 24) against MPS / (MPS + 24) of the TLP rate.
  const double m = static_cast<double>(mps);
  EXPECT_NEAR(streamRate(sys, false, mps + 1, 20000) / streamRate(sys, false, mps, 20000),
              ((m + 1) / (m + 4 + 48)) / (m / (m + 24)), 0.005);
}

INSTANTIATE_TEST_SUITE_P(GenAndMps, BandwidthVersusSize,
                         ::testing::Combine(::testing::Values(3u, 4u, 5u), ::testing::Values(128u, 256u, 512u)),
                         [](const auto& p) {
                           return "Gen" + std::to_string(std::get<0>(p.param)) + "_MPS" + std::to_string(std::get<1>(p.param));
                         });

TEST(PcieLatencyBound, FewTagsAndALongRoundTripGiveTagsTimesSizeOverRoundTrip) {
  // 2 tags, MRRS 512, root complex 5 us away: round trip = 2 x 5 us + 2 x 20 ns (link) + 30 ns
  // (DDR4 tRCD + CL + burst) = 10.07 us, so reads get 2 x 512 B / 10.07 us = 101.7 MB/s.
  const spec::SystemSpec sys = machine(4, 256, ", tags: 2", "");  // min(tags 2, outstanding 768) = 2
  spec::SystemSpec slow = sys;
  slow.rootComplex.latency = 5000000;
  const double rate = streamRate(slow, true, 64 * 1024, 64);
  const double expected = 2 * 512 / 10.07e-6;
  EXPECT_NEAR(rate / expected, 1.0, 0.02) << rate / 1e6 << " MB/s";
}

TEST(PcieCompletions, SplitAtRcbWhenTheRootComplexDoes) {
  // Completions split at RCB 64 carry 20 B per 64 B: 64 / 84 of the TLP rate instead of 256 / 276.
  const spec::SystemSpec sys = machine(4, 256, ", tags: 768, rcb: 64", ", completions_at_rcb: true");
  const double r = streamRate(sys, true, 64 * 1024, 1024);
  EXPECT_NEAR(r / (pcie::tlpBandwidth(sys.devices[0].link, 256) * 64 / 84), 1.0, 0.01);
}

TEST(PcieStaging, PageableCopiesAreBoundByTheCpuStagingCopy) {
  // 64 MiB pageable H2D through a 2 MiB pinned buffer at 10 GB/s of CPU copy: 32 chunks of
  // 209.7 us each, the DMA of one chunk (2 MiB at 26.4 GB/s = 79.6 us) overlapping the next
  // copy: 32 x 209.7 + 79.6 + round trip.
  const spec::SystemSpec sys = machine(4, 256);
  Paths paths(sys);
  PathTiming& timing = paths.timing;
  const Task t = copyTask(true, 64ull << 20, true);
  uint64_t offset = 0;
  Picoseconds ready = 0, done = 0;
  while (offset < t.bytes) {
    const ChunkTiming c = timing.moveChunk(0, t, offset, ready);
    offset += c.bytes;
    ready = c.nextIssue;
    done = std::max(done, c.done);
  }
  const double chunk = 2 << 20;
  const double cpu = chunk / 10e9, dma = chunk / pcieBenchRead(sys.devices[0].link, 2 << 20);
  const double expected = 32 * cpu + dma;
  EXPECT_NEAR(static_cast<double>(done) * 1e-12 / expected, 1.0, 0.01);
}

}  // namespace
}  // namespace ascendsim::models
